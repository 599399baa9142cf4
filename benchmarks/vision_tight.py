"""Where tight photos (the card fills the picture or is cut by its edge) are lost (issue 28, stop 36/37).

    .venv/bin/python benchmarks/vision_tight.py [--per-design 54] [--seed 270] [--families anglo,oxygen] [--table]

The same pictures as ``benchmarks/vision_policy.py`` (its seed and rng sequence; the calibration families by
default). Each tight photo is read as ``--kind frame`` and put in one bucket by the path the reader took:
an outline found near the card's true corners, an outline found elsewhere, no outline (the picture read
whole, or as one corner); for each bucket right / wrong / declined, and the same photo read from the card's
TRUE corners (an oracle localizer), which says whether the localizer or the classifier loses it.
``--table``: the same for the photos of a card on a table.
Prints one table (no assertions).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.vision_policy import family  # noqa: E402
from vision.card_art import ART_DESIGNS  # noqa: E402
from vision.labels import LABELS  # noqa: E402
from vision.localize import corner_crops, localize, quad_error, warp_card  # noqa: E402
from vision.reader import CardReader, is_colourless  # noqa: E402
from vision.render import render_table_frame, render_window_frame, table_scene, tight_scene  # noqa: E402


def oracle(reader: CardReader, image: np.ndarray, quad: np.ndarray) -> str | None:
    """The committee's answer from the card warped at its true corners."""
    card, _ = warp_card(image, quad)
    per_corner, crops = reader._diagonal(card, corner_crops(card), is_colourless(image), "frame", True)
    from vision.reader import _pool_corners

    return reader._decide(_pool_corners(per_corner), "frame", crops).label


def outcome(label: str | None, truth: str) -> str:
    return "declined" if label is None else "right" if label == truth else "wrong"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--per-design", type=int, default=54)
    ap.add_argument("--seed", type=int, default=270)
    ap.add_argument("--families", default="anglo,oxygen")
    ap.add_argument("--table", action="store_true", help="the table photos rather than the tight ones")
    args = ap.parse_args()
    reader = CardReader(threads=1)
    counts: dict[str, Counter] = defaultdict(Counter)
    for i, d in enumerate(family(*args.families.split(","))):
        rng = np.random.default_rng(
            args.seed + i
        )  # as vision_policy.collect: a window, a table, a tight picture
        for k in range(args.per_design):
            truth = LABELS[k % len(LABELS)]
            render_window_frame(truth, rng, design=d)
            if args.table:
                image, quad = table_scene(truth, rng, design=d)
                tight_scene(truth, rng, design=d, finger=k % 4 == 3)
            else:
                render_table_frame(truth, rng, design=d)
                image, quad = tight_scene(truth, rng, design=d, finger=k % 4 == 3)
            found = localize(image)
            if found is None:
                bucket = "no outline"
            elif quad_error(found.quad, quad) < 0.1:
                bucket = "outline at the card"
            else:
                bucket = "outline elsewhere"
            got = outcome(reader.read(image, kind="frame").label, truth)
            said = outcome(oracle(reader, image, quad), truth)
            for key in (bucket, f"{ART_DESIGNS[d][2]}: {bucket}"):
                counts[key][got] += 1
                counts[key]["oracle " + said] += 1
                counts[key]["n"] += 1
    table = Table(
        title=f"{'table' if args.table else 'tight'} photos of {args.families}, {args.per_design} per design (seed {args.seed})"
    )
    for col in ("path", "photos", "read: right / wrong / declined", "from the true corners: r / w / d"):
        table.add_column(col)
    total: Counter = Counter()
    for bucket, c in sorted(counts.items()) + [("all", total)]:
        if ":" not in bucket and bucket != "all":
            total.update(c)
        table.add_row(
            bucket,
            str(c["n"]),
            f"{c['right']} / {c['wrong']} / {c['declined']}",
            f"{c['oracle right']} / {c['oracle wrong']} / {c['oracle declined']}",
        )
    Console(width=150).print(table)


if __name__ == "__main__":
    main()
