"""红桃四 typed settings: every house rule the digest names, with the preset ``shaanxi-v1.3`` as default.

>>> from engine.hongsi.settings import HongsiSettings
>>> HongsiSettings().bombs, HongsiSettings(bombs=True, bomb_cap=4).bomb_cap
(False, 4)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class HongsiSettings:
    """House rules of 红桃四 (``docs/rules/hongsi.md``, "House-rule settings of the preset").

    - ``bombs``: four of a kind is a bomb (传统玩法不带炸弹: off).
    - ``bomb_doubling``: ``each`` bomb doubles the stake, or ``once`` however many are played.
    - ``bomb_cap``: the largest multiplier (``None``: no cap).
    - ``min_pair_run``: the fewest pairs in a 连对 (2..10).
    - ``count_announce_at``: a player left with 1..this many cards announces the count (0: never).
    """

    bombs: bool = False
    bomb_doubling: Literal["each", "once"] = "each"
    bomb_cap: int | None = None
    min_pair_run: int = 3
    count_announce_at: int = 3

    def __post_init__(self) -> None:
        if isinstance(self.bomb_cap, int) and not isinstance(self.bomb_cap, bool) and self.bomb_cap < 1:
            raise ValueError(f"setting bomb_cap = {self.bomb_cap!r} is not allowed (expected >= 1 or null)")
        if isinstance(self.min_pair_run, int) and not 2 <= self.min_pair_run <= 10:
            raise ValueError(f"setting min_pair_run = {self.min_pair_run!r} is not allowed (expected 2..10)")
        if isinstance(self.count_announce_at, int) and not 0 <= self.count_announce_at <= 12:
            raise ValueError(
                f"setting count_announce_at = {self.count_announce_at!r} is not allowed (expected 0..12)")


PRESETS: dict[str, HongsiSettings] = {"shaanxi-v1.3": HongsiSettings()}
DEFAULT_PRESET = "shaanxi-v1.3"
