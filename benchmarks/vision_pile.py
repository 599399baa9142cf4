"""The pile reader on rendered piles of 1-12 cards of designs the models never trained on (issue 29).

    .venv/bin/python benchmarks/vision_pile.py [--piles 40] [--design paris --design anglo ...] [--two-decks 0.3]
    .venv/bin/python benchmarks/vision_pile.py --training-designs   # what the decision rule was chosen on
    .venv/bin/python benchmarks/vision_pile.py --member none        # the committee without its own member (stop 51)

Per design: piles whose multiset is read exactly right, declined (``labels`` null), wrong; piles with a
card named that is not there; and the time to read one picture (single-threaded, CPU time). A pile
is read right when every card that shows a corner index whole is named, and nothing else but cards
that are in the pile: a card whose only index in view is partly covered may be named or not (the
renderer keeps nearly every card's index in view; a card wholly covered cannot be known).
Targets: right >= 98 %, a card named that is not there <= 0.5 %, <= 300 ms a picture.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.progress import track
from rich.table import Table

from vision import pile_corners
from vision.card_art import HELD_OUT, TRAIN_DESIGNS, cached_designs
from vision.labels import LABELS
from vision.pile import MEMBER_MODEL, PileReader
from vision.pile_render import render_pile
from vision.render import face_for

# Stop 52's committees: (the member joins as a sixth, else stands in for e; the members that may dissent)
COMMITTEES = {"stand-in": (False, ("member",)), "stand-in-firm": (False, ()),
              "sixth": (True, ("e",)), "sixth-lax": (True, ("e", "member"))}


def pile_labels(rng: np.random.Generator, two_decks: float) -> list[str]:
    """1-12 cards dealt from one deck, or (``two_decks`` of the time) from two shuffled together."""
    n = int(rng.integers(1, 13))
    decks = 2 if rng.random() < two_decks else 1
    pool = [lab for lab in LABELS[:52] for _ in range(decks)]
    return [pool[i] for i in rng.choice(len(pool), n, replace=False)]


def judge(reader: PileReader, design: str, piles: int, seed: int, two_decks: float) -> dict:
    out = Counter()
    times = []
    for k in track(range(piles), description=f"{design:>22}", transient=True):
        rng = np.random.default_rng([seed, k])
        labels = pile_labels(rng, two_decks)
        pile = render_pile([face_for(lab, rng, design) for lab in labels], rng)
        truth = Counter(lab for lab, shown in zip(labels, pile.shown, strict=True) if shown)
        there = Counter(labels)
        t = time.process_time()
        reading = reader.read(pile.image)
        times.append(time.process_time() - t)
        if reading.labels is None:
            out["declined"] += 1
            continue
        said = Counter(reading.labels)
        out["right" if not truth - said and not said - there else "wrong"] += 1
        out["named_absent"] += bool(said - there)
    out["piles"] = piles
    out["ms_median"] = 1000 * float(np.median(times))
    out["ms_p95"] = 1000 * float(np.percentile(times, 95))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--piles", type=int, default=40, help="piles per design")
    ap.add_argument("--design", action="append", help="a design to judge (default: every held-out one cached)")
    ap.add_argument("--seed", type=int, default=29)
    ap.add_argument("--two-decks", type=float, default=0.3, help="share of piles dealt from two decks")
    ap.add_argument("--blobs", action="store_true",
                    help="find the indices as ink blobs (the reader before the corner detector) to compare")
    ap.add_argument("--training-designs", action="store_true",
                    help="judge the designs the index model trained on (where its decision rule is chosen)")
    ap.add_argument("--member", default=str(MEMBER_MODEL),
                    help="the pile committee's own member (vision.pile_member_train), or 'none'")
    ap.add_argument("--committee", choices=sorted(COMMITTEES), default=None,
                    help="how the member joins the committee (default: as vision.pile_corners says)")
    args = ap.parse_args()
    if args.committee is not None:
        pile_corners.SIXTH, lax = COMMITTEES[args.committee]
        pile_corners.LAX_MEMBERS = tuple(pile_corners.LAX if m == "e" else Path(args.member).name for m in lax)
    member = None if args.member == "none" else args.member
    pool = TRAIN_DESIGNS if args.training_designs else HELD_OUT
    designs = args.design or [d for d in pool if d in cached_designs()]
    if not designs:
        raise SystemExit("no held-out design is rasterised: run python -m vision.card_art")
    reader = PileReader(threads=1, detector=None) if args.blobs else PileReader(threads=1, member=member)
    kind = "training" if args.training_designs else "held-out"
    how = "ink blobs" if args.blobs else "corner detector"
    table = Table(title=f"pile reader ({how}), {kind} designs (rendered piles of 1-12 cards)")
    for col in ("design", "piles", "right", "declined", "wrong", "named absent", "ms median", "ms p95"):
        table.add_column(col, justify="right")
    total = Counter()
    for design in designs:
        r = judge(reader, design, args.piles, args.seed, args.two_decks)
        total.update({k: r[k] for k in ("piles", "right", "declined", "wrong", "named_absent")})
        n = r["piles"]
        table.add_row(design, str(n), f"{100 * r['right'] / n:.1f} %", f"{100 * r['declined'] / n:.1f} %",
                      f"{100 * r['wrong'] / n:.1f} %", f"{100 * r['named_absent'] / n:.1f} %",
                      f"{r['ms_median']:.0f}", f"{r['ms_p95']:.0f}")
    n = total["piles"]
    table.add_row("all", str(n), f"{100 * total['right'] / n:.1f} %", f"{100 * total['declined'] / n:.1f} %",
                  f"{100 * total['wrong'] / n:.1f} %", f"{100 * total['named_absent'] / n:.1f} %", "", "")
    Console().print(table)


if __name__ == "__main__":
    main()
