"""Instructions per hand under callgrind: the engines' work counted, whatever else the machine is doing.

Wall-clock rates on a shared machine move by 20-30 % between runs; the instructions the interpreter runs for
the same seeded hands do not. Needs ``valgrind``. From the project root (or any copy of a tree, to compare)::

    .venv/bin/python benchmarks/engine_speed_counts.py shengji self   # random-bot self-play, every action judged
    .venv/bin/python benchmarks/engine_speed_counts.py shengji ref    # JSON parse + judge_record of bot hands

Self-play: (2n hands - n hands) / n, so imports and the first hands' table filling cancel; referee: judging n
recorded hands minus making them. Figures: ``benchmarks/engine_speed.md``.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def work(name: str, mode: str, n: int) -> None:
    """The counted work: ``self`` plays n hands; ``make`` records n hands; ``ref`` also judges them."""
    sys.path.insert(0, str(ROOT))
    from engine.record import parse_record
    from engine.referee import judge_record
    from engine.registry import get_game

    game, rng, first = get_game(name), random.Random(11), 0
    if mode == "self":
        for _ in range(n):
            record = game.bot_hand(rng, bot="random", first_seat=first)
            nxt = record.get("next_first_seat")
            first = nxt if isinstance(nxt, int) else first
        return
    texts = [json.dumps(game.bot_hand(rng, bot="random")) for _ in range(n)]
    if mode == "ref":
        for text in texts:
            judge_record(parse_record(json.loads(text)))


def counted(name: str, mode: str, n: int) -> int:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    cmd = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        __file__,
        "--work",
        name,
        mode,
        str(n),
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stderr
    return int(re.search(r"Collected : (\d+)", out).group(1))  # type: ignore[union-attr]


def main() -> None:
    if sys.argv[1:2] == ["--work"]:
        work(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    if shutil.which("valgrind") is None:
        print("engine_speed_counts: valgrind not found, skipped")
        return
    if len(sys.argv) == 1:  # (make bench) every game, both ways
        sys.path.insert(0, str(ROOT))
        from engine.registry import game_names

        runs = [(name, mode, 20) for name in game_names() for mode in ("self", "ref")]
    elif (
        len(sys.argv) in (3, 4)
        and sys.argv[2] in ("self", "ref")
        and (len(sys.argv) == 3 or sys.argv[3].isdigit())
    ):
        runs = [(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 20)]
    else:
        print("usage: engine_speed_counts.py [GAME self|ref [HANDS=20]]", file=sys.stderr)
        sys.exit(2)
    for name, mode, n in runs:
        if mode == "self":
            per_hand = (counted(name, "self", 2 * n) - counted(name, "self", n)) / n
        else:
            per_hand = (counted(name, "ref", n) - counted(name, "make", n)) / n
        print(f"{name:10s} {mode:4s} {per_hand / 1e6:6.2f}M instructions per hand  ({ROOT})")


if __name__ == "__main__":
    main()
