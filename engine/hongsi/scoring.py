"""红桃四 settlement (digest "Scoring"): stakes per mode, bomb multiplier, zero-sum scores.

>>> settle("normal", teams=[[0, 2], [1, 3]], winners=[0, 2], multiplier=1)
[1, -1, 1, -1]
>>> settle("dantiao", teams=[[0], [1, 2, 3]], winners=[0], multiplier=2, lone_has_h4=False)
[24, -8, -8, -8]
"""

from __future__ import annotations

from engine.hongsi.settings import HongsiSettings

#: "每人 X 分": the stake X per opponent of each mode (对挑 is settled between the duelists: 24).
STAKES = {"normal": 1, "pa": 2, "dui_pa": 4, "anjiao": 2, "dantiao_h4": 3, "dantiao": 4, "baomen": 8}
DUITIAO_STAKE = 24
LONE_MODES = ("anjiao", "dantiao", "baomen")


def multiplier(bombs: int, settings: HongsiSettings) -> int:
    """Every bomb doubles the stake (``each``) or any bombs double it once (``once``), up to the cap."""
    if not settings.bombs or bombs <= 0:
        return 1
    mult = 2 ** bombs if settings.bomb_doubling == "each" else 2
    if settings.bomb_cap is not None:
        mult = min(mult, settings.bomb_cap)
    return mult


def settle(mode: str, *, teams: list[list[int]], winners: list[int], multiplier: int,
           lone_has_h4: bool = True, seats: int = 4) -> list[int]:
    """Each seat's score. ``teams``: the two sides (in 对挑 the duelists); ``winners``: the winning side."""
    scores = [0] * seats
    win = next(t for t in teams if set(t) == set(winners))
    lose = next(t for t in teams if t is not win)
    if mode == "duitiao":
        stake = DUITIAO_STAKE * multiplier
        scores[win[0]] += stake
        scores[lose[0]] -= stake
        return scores
    key = "dantiao_h4" if mode == "dantiao" and lone_has_h4 else mode
    x = STAKES[key] * multiplier
    lone = mode in LONE_MODES  # 1 vs 3: X changes hands between the lone player and each of the three
    for s in win:
        scores[s] += x * len(lose) if lone else x
    for s in lose:
        scores[s] -= x * len(win) if lone else x
    return scores
