"""What a perfect reader could read from the virtual table: the plays of real hands (greedy bots, every game)
thrown as ``benchmarks/table_camera_plays.py`` throws them, and for each play whether some card of it shows
neither corner index (each covered beyond ``--covered`` of its area by the play's own later cards). Such a
card cannot be read by any camera; its seat is asked. A hand with none is one a perfect reader could referee
with nobody asked: the ceiling for issue 29's "record = truth with no tap" on this simulator.

    .venv/bin/python benchmarks/table_camera_ceiling.py --hands 6 [--design kde-standard] [--covered 0.5]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from table_camera_plays import plays_of_a_hand  # noqa: E402

from engine.registry import game_names  # noqa: E402
from firmware_bridge.sim.table_camera import VirtualTable  # noqa: E402
from vision.pile_render import _in_view, _index_polys  # noqa: E402


def unreadable(play: list[tuple], size: tuple[int, int], covered: float) -> int:
    """How many cards of ``play`` (as VirtualTable lays them, last on top) show no index whole enough: as
    :func:`vision.pile_render.render_pile` judges its ``shown``, from the top card down."""
    W, H = size
    above = np.zeros((H, W), np.float32)
    out = 0
    for face, (M, quad), _ in reversed(play):
        out += max(_in_view(p, above, None) for p in _index_polys(face, M)) < 1 - covered
        cv2.fillConvexPoly(above, np.round(quad).astype(np.int32), 1.0)
    return out


def one_hand(game: str, design: str | None, seed: int, covered: float) -> Counter:
    plays, tricks, seats, _, _ = plays_of_a_hand(game, seed)
    vt = VirtualTable(seed=seed, design=design, hand_rate=0.0, nudge=0.0)
    got = Counter(hands=1)
    try:
        in_trick = 0
        for _, cards, _ in plays:
            with vt.lock:
                vt.land(cards)
            got["plays"] += 1
            got["many"] += len(cards) > 1
            got["hidden"] += unreadable(vt.lying[-1], vt.size, covered) > 0
            in_trick += 1
            if tricks and in_trick == seats:
                vt.lying, in_trick = [], 0
    finally:
        vt.stop()
    got["clear"] += got["hidden"] == 0
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=6, help="hands per game")
    ap.add_argument("--design", default="kde-standard", help="a deck design (its index boxes)")
    ap.add_argument("--covered", type=float, default=0.5, help="an index covered beyond this share is not read")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    table = Table(title=f"plays with a card that shows no index ({args.covered:.0%} covered or more), "
                        f"{args.design}: a perfect reader's ceiling")
    for col in ("game", "hands", "plays", "of several cards", "a card unseen", "hands with none"):
        table.add_column(col, justify="right")
    total = Counter()
    for game in game_names():
        got = Counter()
        for i in range(args.hands):
            got.update(one_hand(game, args.design, args.seed + i, args.covered))
        total.update(got)
        table.add_row(game, *(str(got[k]) for k in ("hands", "plays", "many", "hidden")),
                      f"{got['clear']} ({100 * got['clear'] / got['hands']:.0f} %)")
    table.add_row("all", *(str(total[k]) for k in ("hands", "plays", "many", "hidden")),
                  f"{total['clear']} ({100 * total['clear'] / total['hands']:.0f} %)")
    Console(width=140).print(table)


if __name__ == "__main__":
    main()
