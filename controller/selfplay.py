"""``hongsi selfplay``: bots play every seat; each hand is written as a game record."""

from __future__ import annotations

import json
import random
from pathlib import Path

from rich.console import Console
from rich.progress import Progress

from engine.registry import get_game


def run_selfplay(*, game: str, n: int, seed: int | None, out: Path, bot: str = "greedy") -> list[Path]:
    if bot not in ("greedy", "random"):
        raise ValueError(f"unknown bot {bot!r}; use greedy or random")
    impl = get_game(game)
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    first_seat = 0
    with Progress(transient=True, console=Console(stderr=True)) as progress:  # stdout stays empty
        task = progress.add_task(f"{game} self-play", total=n)
        for i in range(n):
            record = impl.bot_hand(rng, bot=bot, first_seat=first_seat)
            path = out / f"{i:04d}.json"
            path.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
            paths.append(path)
            nxt = record.get("next_first_seat")
            first_seat = nxt if isinstance(nxt, int) else first_seat
            progress.advance(task)
    return paths
