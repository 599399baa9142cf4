"""Where table photos are declined (issue 28): each declined photo counted by the stage that lost it.

    .venv/bin/python benchmarks/vision_table_study.py [--designs anglo,anglo_bitmap] [--per-design 54] [--seed 5]

Only training designs and the anglo calibration designs are meant to be read here (docs/vision-decisions.md).
Each table photo (``render_table_frame``'s scene, with the card's true corners) is read as ``--kind frame`` and,
again, from the card's TRUE corners (an oracle localizer). A declined photo goes in one bucket, by the evidence the reader itself pooled:
- ``one member dissents (X)``: the pooled first card is right and sure (>= the policy's confidence) and four of
  the five members pick it, member X another card (the photo's policy asks all five);
- ``pooled right, unsure``: the pooled first card is right, but fewer members agree or it is below the confidence;
- ``localizer``: the pooled first card is wrong or none, but read from the true corners it is right (outline off);
- ``classifier``: wrong or none from the true corners too.
Each bucket also says how many of its photos the true corners would have answered right.
Also by the card's size in the picture (its short side in px), to see whether small indices are what is lost.
``--dump DIR`` writes the declined pictures and their corner crops there. Prints tables (no assertions).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

import cv2
import numpy as np
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.card_art import TRAIN_DESIGNS, cached_designs  # noqa: E402
from vision.corner_data import NONE_CLASS  # noqa: E402
from vision.labels import LABELS  # noqa: E402
from vision.localize import corner_crops, warp_card  # noqa: E402
from vision.reader import CardReader, _pool_corners, is_colourless, pooled_features  # noqa: E402
from vision.render import table_scene  # noqa: E402


def from_true_corners(reader: CardReader, image: np.ndarray, quad: np.ndarray):
    """The committee's reading and pooled features from the card warped at its true corners."""
    card, _ = warp_card(image, quad)
    per_corner, crops = reader._diagonal(card, corner_crops(card), is_colourless(image), "frame", True)
    lp = _pool_corners(per_corner)
    return reader._decide(lp, "frame", crops), pooled_features(lp), crops


def size_bin(quad: np.ndarray) -> str:
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    short = 0.5 * min(sides[0] + sides[2], sides[1] + sides[3])
    return "short side < 110 px" if short < 110 else "110-140 px" if short < 140 else ">= 140 px"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--designs", default="anglo,anglo_bitmap", help="comma-separated, or 'train': every training design")
    ap.add_argument("--per-design", type=int, default=54)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--dump", type=Path, default=None)
    args = ap.parse_args()
    reader = CardReader(threads=1)
    causes: Counter = Counter()
    by_size: dict[str, Counter] = defaultdict(Counter)
    designs = [d for d in TRAIN_DESIGNS if d in cached_designs()] if args.designs == "train" else args.designs.split(",")
    for i, d in enumerate(designs):
        rng = np.random.default_rng(args.seed + i)
        for k in range(args.per_design):
            truth = LABELS[k % len(LABELS)]
            image, quad = table_scene(truth, rng, design=d)
            got = reader.read(image, kind="frame").label
            outcome = "declined" if got is None else "right" if got == truth else "wrong"
            causes[outcome] += 1
            by_size[size_bin(quad)][outcome] += 1
            if outcome != "declined":
                continue
            oracle, f0, crops = from_true_corners(reader, image, quad)
            outlined: set = set()
            ev = reader._evidence(image, "frame", False, None, outlined)
            f = pooled_features(ev[0])
            members = ev[0][:, :NONE_CLASS].argmax(axis=1)
            policy = reader.policy["outlined" if id(image) in outlined else "frame"]
            if LABELS[f.best] == truth and f.agree == 4 < policy.agree and f.confidence >= policy.confidence:
                cause = f"one member dissents ({'abcde'[int(np.flatnonzero(members != f.best)[0])]})"
            elif LABELS[f.best] == truth:
                cause = "pooled right, unsure"
            elif LABELS[f0.best] == truth:
                cause = "localizer"
            else:
                cause = "classifier"
            causes["declined: " + cause] += 1
            causes["declined: " + cause + ", true corners answer right"] += oracle.label == truth
            by_size[size_bin(quad)]["declined: " + cause.split(" (")[0]] += 1
            if args.dump:
                args.dump.mkdir(parents=True, exist_ok=True)
                stem = f"{d}_{k:03d}_{truth}_{cause.replace(' ', '-')}"
                cv2.imwrite(str(args.dump / f"{stem}.png"), image)
                strip = np.hstack([cv2.resize(c, (64, 96)) for c in crops])
                cv2.imwrite(str(args.dump / f"{stem}_crops.png"), strip)
    con = Console(width=150)
    t = Table(title=f"table photos of {args.designs}, {args.per_design} per design (seed {args.seed})")
    t.add_column("outcome / cause")
    t.add_column("photos")
    for key, n in sorted(causes.items()):
        t.add_row(key, str(n))
    con.print(t)
    t = Table(title="by the card's size in the picture")
    keys = sorted({k for c in by_size.values() for k in c})
    t.add_column("size")
    for k in keys:
        t.add_column(k)
    for s, c in sorted(by_size.items()):
        t.add_row(s, *(str(c[k]) for k in keys))
    con.print(t)


if __name__ == "__main__":
    main()
