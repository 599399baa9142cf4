"""``hongsi selfplay``: bots play every seat; each hand is written as a game record."""

from __future__ import annotations

import json
import random
from pathlib import Path

from rich.console import Console
from rich.progress import Progress

from engine.bots.table import deal, play_hand, search_policy
from engine.registry import get_game

BOTS = ("greedy", "random", "careful", "bold")


def run_selfplay(*, game: str, n: int, seed: int | None, out: Path, bot: str = "greedy",
                 bot_ms: float = 200.0) -> list[Path]:
    """``greedy``/``random``: the game's quick bots; ``careful``/``bold``: the search bot at every seat,
    ``bot_ms`` per move, each seat seeing only its information set."""
    if bot not in BOTS:
        raise ValueError(f"unknown bot {bot!r}; use {', '.join(BOTS)}")
    from controller.service.bots import MAX_BUDGET_MS

    if not 0 < bot_ms <= MAX_BUDGET_MS:  # NaN and inf too: a search runs until its budget is spent
        raise ValueError(f"--bot-ms {bot_ms}: the bots' time per move is positive, at most {MAX_BUDGET_MS:.0f} ms")
    impl = get_game(game)
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    first_seat = 0
    with Progress(transient=True, console=Console(stderr=True)) as progress:  # stdout stays empty
        task = progress.add_task(f"{game} self-play", total=n)
        for i in range(n):
            if bot in ("careful", "bold"):
                settings = impl.settings()
                hands, bottom = deal(impl, settings, rng)
                policy = search_policy(bot, bot_ms)
                record = play_hand(impl, settings, hands, bottom, [policy] * len(hands), rng, first_seat=first_seat)
            else:
                record = impl.bot_hand(rng, bot=bot, first_seat=first_seat)
            path = out / f"{i:04d}.json"
            path.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
            paths.append(path)
            nxt = record.get("next_first_seat")
            first_seat = nxt if isinstance(nxt, int) else first_seat
            progress.advance(task)
    return paths
