"""Reading plays against what the seat may play (vision.play_weigh), on rendered piles of designs the
models never trained on (issue 29).

    .venv/bin/python benchmarks/vision_play.py [--plays 40] [--design paris ...] [--hand 10] [--two-decks 0.3]

Each trial: a seat's hand of ``--hand`` cards (one deck, or two decks shuffled together); 0-3 earlier
plays of other cards already lie on the table; the seat throws 1-5 of its cards on top. The options are
every distinct set of that many cards from the hand, and a pass. Per design: the play chosen right,
wrong, or None (a person asked), and the time per read (CPU time, one thread). Target spirit: wrong
<= 0.5 %, right as high as can be.
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections import Counter

import numpy as np
from rich.console import Console
from rich.progress import track
from rich.table import Table

from vision.card_art import HELD_OUT, cached_designs
from vision.labels import LABELS
from vision.pile import PileReader
from vision.pile_render import render_pile
from vision.play_weigh import weigh
from vision.render import face_for


def trial(rng: np.random.Generator, design: str, hand_size: int, two_decks: float):
    """(before, after, options, the play): a seat's play thrown onto a pile of earlier plays."""
    decks = 2 if rng.random() < two_decks else 1
    pool = [lab for lab in LABELS[:52] for _ in range(decks)]
    pick = rng.choice(len(pool), hand_size + 12, replace=False)
    hand, others = [pool[i] for i in pick[:hand_size]], [pool[i] for i in pick[hand_size:]]
    k = int(rng.choice([1, 1, 2, 2, 3, 4, 5]))
    play = [hand[i] for i in rng.choice(hand_size, k, replace=False)]
    earlier = [int(rng.integers(1, 5)) for _ in range(int(rng.integers(0, 4)))]
    older = others[:sum(earlier)]
    stages: list = []
    faces = [face_for(lab, rng, design) for lab in older + play]
    render_pile(faces, rng, hand=0.0, plays=earlier + [k], stages=stages)
    before = stages[-2] if earlier else None
    options = sorted({tuple(sorted(c)) for c in itertools.combinations(hand, k)}) + [()]
    return before, stages[-1], options, tuple(sorted(play))


def judge(reader: PileReader, design: str, plays: int, seed: int, hand: int, two_decks: float) -> dict:
    out = Counter()
    times = []
    for n in track(range(plays), description=f"{design:>22}", transient=True):
        rng = np.random.default_rng([seed, n])
        before, after, options, truth = trial(rng, design, hand, two_decks)
        t = time.process_time()
        w = weigh(before, after, options, reader=reader)
        times.append(time.process_time() - t)
        r = w.read
        out["top_right"] += tuple(sorted(w.options[int(w.posterior.argmax())])) == truth
        out["none" if r.labels is None else "right" if tuple(sorted(r.labels)) == truth else "wrong"] += 1
    out["plays"] = plays
    out["ms_median"] = 1000 * float(np.median(times))
    out["ms_p95"] = 1000 * float(np.percentile(times, 95))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plays", type=int, default=40, help="plays per design")
    ap.add_argument("--design", action="append", help="a design to judge (default: every held-out one cached)")
    ap.add_argument("--seed", type=int, default=29)
    ap.add_argument("--hand", type=int, default=10, help="cards in the seat's hand")
    ap.add_argument("--two-decks", type=float, default=0.3, help="share of trials dealt from two decks")
    args = ap.parse_args()
    designs = args.design or [d for d in HELD_OUT if d in cached_designs()]
    if not designs:
        raise SystemExit("no held-out design is rasterised: run python -m vision.card_art")
    reader = PileReader(threads=1)
    table = Table(title=f"plays read against the seat's options (hand of {args.hand}), held-out designs")
    for col in ("design", "plays", "right", "none", "wrong", "top option right", "ms median", "ms p95"):
        table.add_column(col, justify="right")
    total = Counter()
    for design in designs:
        r = judge(reader, design, args.plays, args.seed, args.hand, args.two_decks)
        total.update({k: r[k] for k in ("plays", "right", "none", "wrong", "top_right")})
        n = r["plays"]
        table.add_row(design, str(n), f"{100 * r['right'] / n:.1f} %", f"{100 * r['none'] / n:.1f} %",
                      f"{100 * r['wrong'] / n:.1f} %", f"{100 * r['top_right'] / n:.1f} %", f"{r['ms_median']:.0f}", f"{r['ms_p95']:.0f}")
    n = total["plays"]
    table.add_row("all", str(n), f"{100 * total['right'] / n:.1f} %", f"{100 * total['none'] / n:.1f} %",
                  f"{100 * total['wrong'] / n:.1f} %", f"{100 * total['top_right'] / n:.1f} %", "", "")
    Console().print(table)


if __name__ == "__main__":
    main()
