"""Judge a candidate member against the committed one on dealer-window frames, each read alone.

    .venv/bin/python benchmarks/vision_first_member.py build/card_corner_art.onnx [--per-design 54] [--frames 540]
    .venv/bin/python benchmarks/vision_first_member.py build/b2.onnx --against vision/models/card_corner_b.onnx \
        --designs calibration

Rows: each held-out real design (``vision.card_art.HELD_OUT``; ``--designs calibration``: only the calibration
families of ``benchmarks/vision_policy.py``), all of them, and the procedural designs and random styles of
``benchmarks/vision_eval.py`` (seed 1). Right / wrong / declined, the same frames for both. The rules of stops
26 and 28 in docs/vision-decisions.md read this table.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.card_art import ART_DESIGNS, HELD_OUT, cached_designs  # noqa: E402
from vision.labels import LABELS  # noqa: E402
from vision.reader import MODEL_PATH, CardReader  # noqa: E402
from vision.render import DESIGNS, render_window_frame  # noqa: E402

CALIBRATION = tuple(d for d, (_, _, fam) in ART_DESIGNS.items() if fam in ("anglo", "oxygen"))  # as vision_policy


def frames_of(design: str | None, n: int, seed: int, mixed: bool = False) -> list[tuple[np.ndarray, str]]:
    rng = np.random.default_rng(seed)
    designs = [*DESIGNS, None, None]
    return [(render_window_frame(LABELS[k % len(LABELS)], rng, design=designs[k % len(designs)] if mixed else design),
             LABELS[k % len(LABELS)]) for k in range(n)]


def score(reader: CardReader, frames: list[tuple[np.ndarray, str]]) -> Counter:
    c: Counter = Counter()
    for img, truth in frames:
        r = reader.read(img, kind="window")
        c["declined" if r.label is None else "right" if r.label == truth else "wrong"] += 1
    return c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("candidate", type=Path)
    ap.add_argument("--per-design", type=int, default=54)
    ap.add_argument("--frames", type=int, default=540)
    ap.add_argument("--against", type=Path, default=MODEL_PATH, help="the committed member (the first by default)")
    ap.add_argument("--designs", choices=("held-out", "calibration"), default="held-out")
    args = ap.parse_args()
    readers = {"committed": CardReader(args.against, threads=1), "candidate": CardReader(args.candidate, threads=1)}
    keep = HELD_OUT if args.designs == "held-out" else CALIBRATION
    sets = {d: frames_of(d, args.per_design, 100 + i) for i, d in enumerate(HELD_OUT)
            if d in cached_designs() and d in keep}
    table = Table(title=f"{args.against.name} vs {args.candidate.name} alone, dealer-window frames: right / wrong / declined")
    table.add_column("frames")
    for name in readers:
        table.add_column(name)
    totals = {name: Counter() for name in readers}
    for d, frames in sets.items():
        row = []
        for name, reader in readers.items():
            c = score(reader, frames)
            totals[name].update(c)
            row.append(f"{c['right']} / {c['wrong']} / {c['declined']}")
        table.add_row(d, *row)
    table.add_row("all " + args.designs, *[f"{t['right']} / {t['wrong']} / {t['declined']}" for t in totals.values()])
    mixed = frames_of(None, args.frames, 1, mixed=True)
    table.add_row(f"procedural designs and random styles ({args.frames})",
                  *[f"{c['right']} / {c['wrong']} / {c['declined']}" for c in (score(r, mixed) for r in readers.values())])
    Console(width=140).print(table)


if __name__ == "__main__":
    main()
