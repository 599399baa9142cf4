"""The reader on real card designs it never trained on (issue 28), per held-out design and per subset.

    .venv/bin/python benchmarks/vision_designs.py [--per-design 108] [--deals 1000] [--designs anglo,paris]
    .venv/bin/python benchmarks/vision_designs.py --model build/card_corner_art.onnx   # a candidate first member

For each design of ``vision.card_art.HELD_OUT`` (whole families never trained on), rendered from its SVG art:
- dealer-window frames (``--kind window``, what the dealer reads): right / wrong / declined;
- photos of the card on a table (``--kind frame``) and tight photos (the card fills the picture, a quarter
  of them with a fingertip over part): right / wrong / declined;
- after enrolment from one window frame per card (``vision.enroll``): other window frames read with the
  deck's references: right / wrong / declined;
- after enrolment from one tight face photo per card (``--kind frame``, as ``hongsi vision enroll`` takes
  photos): the table and tight photos above read with the deck's references;
- simulated 54-card deals, each card's probabilities drawn from that design's window reads: exactly right
  after deck decoding; and the same with the enrolled deck's reads (what a table that learnt its deck gets).
Prints one table (no assertions). The targets are the issue's.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.vision_eval import deals  # noqa: E402
from vision.card_art import HELD_OUT, cached_designs  # noqa: E402
from vision.enroll import Embedder, enrol, read_with_deck  # noqa: E402
from vision.labels import LABELS  # noqa: E402
from vision.reader import CardReader  # noqa: E402
from vision.render import render_table_frame, render_tight_photo, render_window_frame  # noqa: E402

TARGETS = {"window": (0.995, 0.001), "frame": (0.95, 0.005), "tight": (0.90, 0.01), "enrolled": (0.995, 0.001),
           "enrolled photos": (0.995, 0.001)}


def _count(counts: Counter, label: str | None, truth: str) -> None:
    counts["n"] += 1
    counts["declined" if label is None else "right" if label == truth else "wrong"] += 1


def one_design(reader: CardReader, embedder: Embedder, design: str, n: int, seed: int, n_deals: int,
               progress) -> dict[str, Counter | dict]:
    rng = np.random.default_rng(seed)
    out: dict = {k: Counter() for k in TARGETS}
    pool: dict[int, list[np.ndarray]] = {i: [] for i in range(len(LABELS))}
    pool_deck: dict[int, list[np.ndarray]] = {i: [] for i in range(len(LABELS))}
    task = progress.add_task(design, total=4 * n + 2 * len(LABELS))
    refs = enrol(embedder, [(render_window_frame(lab, rng, design=design), lab, lab) for lab in LABELS], "window")
    progress.advance(task, len(LABELS))
    photo_refs = enrol(embedder, [(render_tight_photo(lab, rng, design=design), lab, lab) for lab in LABELS], "frame",
                       reader=reader)  # one face photo per card, as `hongsi vision enroll` takes them
    progress.advance(task, len(LABELS))
    for k in range(n):
        truth = LABELS[k % len(LABELS)]
        frame = render_window_frame(truth, rng, design=design)
        r = reader.read(frame, kind="window")
        pool[k % len(LABELS)].append(r.probs)
        _count(out["window"], r.label, truth)
        d = read_with_deck(embedder, refs, render_window_frame(truth, rng, design=design), "window", reader)
        _count(out["enrolled"], d.label, truth)
        if d.probs is not None:
            pool_deck[k % len(LABELS)].append(d.probs)
        table = render_table_frame(truth, rng, design=design)
        _count(out["frame"], reader.read(table, kind="frame").label, truth)
        tight = render_tight_photo(truth, rng, design=design, finger=k % 4 == 3)
        _count(out["tight"], reader.read(tight, kind="frame").label, truth)
        for photo in (table, tight):
            _count(out["enrolled photos"], read_with_deck(embedder, photo_refs, photo, "frame", reader).label, truth)
        progress.advance(task, 4)
    out["deals"] = deals(pool, n_deals, seed + 7) if all(pool.values()) else {}
    out["deals_deck"] = deals(pool_deck, n_deals, seed + 7) if all(pool_deck.values()) else {}
    return out


def held_out_table(reader: CardReader, designs: list[str], per_design: int, seed: int, n_deals: int,
                   console: Console) -> None:
    """Judge ``designs`` and print the table (also called by ``benchmarks/vision_eval.py``)."""
    embedder = Embedder(reader.paths[0])
    results = {}
    with Progress(console=console, transient=True) as progress:
        for i, d in enumerate(designs):
            results[d] = one_design(reader, embedder, d, per_design, seed + i, n_deals, progress)
    table = Table(title=f"held-out designs, read by {', '.join(p.name for p in reader.paths)}")
    for col in ("design", "window r/w/d", "table photo r/w/d", "tight photo r/w/d", "enrolled r/w/d",
                "enrolled photos r/w/d", "deals exact", "deals exact, enrolled"):
        table.add_column(col)
    total: dict[str, Counter] = {k: Counter() for k in TARGETS}
    for d, res in results.items():
        cells = []
        for k in TARGETS:
            total[k].update(res[k])
            cells.append(_cell(res[k]))
        table.add_row(d, *cells, *(f"{res[k].get('exact', float('nan')):.1%}" for k in ("deals", "deals_deck")))
    table.add_row("all held out", *[_cell(total[k]) for k in TARGETS], "", "")
    table.add_row("target (right >= / wrong <=)", *[f"{r:.1%} / {w:.1%}" for r, w in TARGETS.values()], ">= 99.9%",
                  "")
    console.print(table)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--per-design", type=int, default=108, help="pictures of each kind per design")
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=28)
    ap.add_argument("--designs", default=",".join(HELD_OUT), help="comma-separated designs (default: held out)")
    ap.add_argument("--model", type=Path, default=None, help="a first member to judge (default: the committee)")
    args = ap.parse_args()
    console = Console(width=150)
    designs = [d for d in args.designs.split(",") if d]
    missing = sorted(set(designs) - set(cached_designs()))
    if missing:
        console.print(f"not rasterised: {', '.join(missing)} (run: python -m vision.card_art)")
        raise SystemExit(2)
    reader = CardReader(args.model, threads=1) if args.model else CardReader(threads=1)
    held_out_table(reader, designs, args.per_design, args.seed, args.deals, console)


def _cell(c: Counter) -> str:
    n = max(1, c["n"])
    return f"{c['right'] / n:.1%} / {c['wrong'] / n:.1%} / {c['declined'] / n:.1%}"


if __name__ == "__main__":
    main()
