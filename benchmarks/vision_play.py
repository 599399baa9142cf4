"""Reading plays against what the seat may play (vision.play_weigh), on rendered piles of designs the
models never trained on (issue 29).

    .venv/bin/python benchmarks/vision_play.py [--plays 40] [--design paris ...] [--hand 10] [--two-decks 0.3]
        [--designs held-out|train] [--refs] [--tune] [--blobs]

Each trial: a seat's hand of ``--hand`` cards (one deck, or two decks shuffled together); 0-3 earlier
plays of other cards already lie on the table; the seat throws 1-5 of its cards on top. The options are
every distinct set of that many cards from the hand, and a pass. Per design: the play chosen right,
wrong, or None (a person asked), and the time per read (CPU time, one thread). Target spirit: wrong
<= 0.5 %, right as high as can be.

``--refs``: each trial also reads the play with the seat's hand as dealt (:mod:`vision.hand_refs`: one
dealer-window frame per card of the hand, rendered as the virtual rig renders them), on the same
candidates: the table shows right / none / wrong without and with. ``--blobs``: the new indices found as
ink blobs, the reader before the corner detector (the peer on the same plays). ``--tune``: every pooling
rule of a small grid on the same candidates (choose on ``--designs train`` only).
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections import Counter
from dataclasses import replace

import numpy as np
from rich.console import Console
from rich.progress import track
from rich.table import Table

from vision.card_art import HELD_OUT, TRAIN_DESIGNS, cached_designs
from vision.hand_refs import HandRefs
from vision.labels import LABELS
from vision.pile import PileReader
from vision.pile_render import render_pile
from vision.play_weigh import _as_bgr, new_candidates, pool, weigh_evidence
from vision.render import DESIGNS, face_for, render_window_frame

GRID = [(tau, none) for tau in (0.005, 0.01, 0.02, 0.04, 0.08) for none in (0.6, 0.7, 0.8, 0.9, 1.0)]


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
    return before, stages[-1], options, tuple(sorted(play)), hand


def hand_refs(rng: np.random.Generator, design: str, hand: list[str], reader: PileReader) -> HandRefs:
    """The seat's hand as the dealer camera saw it: one window frame per card, read as the deal reads it."""
    frames = [render_window_frame(lab, rng, design=design, face=face_for(lab, rng, design)) for lab in hand]
    return HandRefs.from_window_frames(frames, hand, reader)


def _score(out: Counter, key: str, w, truth) -> None:
    r = w.read
    out[key + "none" if r.labels is None else key + "right" if tuple(sorted(r.labels)) == truth else key + "wrong"] += 1


def judge(reader: PileReader, design: str, plays: int, seed: int, hand: int, two_decks: float,
          refs: bool = False, tune: bool = False) -> dict:
    out = Counter()
    times = []
    for n in track(range(plays), description=f"{design:>22}", transient=True):
        rng = np.random.default_rng([seed, n])
        before, after, options, truth, cards = trial(rng, design, hand, two_decks)
        before = None if before is None else _as_bgr(before, "before")
        seat = hand_refs(np.random.default_rng([seed, n, 1]), design, cards, reader) if refs or tune else None
        t = time.process_time()
        cands = new_candidates(before, _as_bgr(after, "after"), reader, seat)
        w = weigh_evidence(pool(replace(cands, likeness=None)), options)
        times.append(time.process_time() - t)
        out["top_right"] += tuple(sorted(w.options[int(w.posterior.argmax())])) == truth
        _score(out, "", w, truth)
        if refs:
            _score(out, "refs_", weigh_evidence(pool(cands), options), truth)
        if tune:
            for tau, none in GRID:
                _score(out, f"{tau},{none}_", weigh_evidence(pool(cands, tau, none), options), truth)
    out["plays"] = plays
    out["ms_median"] = 1000 * float(np.median(times))
    out["ms_p95"] = 1000 * float(np.percentile(times, 95))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plays", type=int, default=40, help="plays per design")
    ap.add_argument("--design", action="append", help="a design to judge (default: every one of --designs cached)")
    ap.add_argument("--designs", choices=("held-out", "train"), default="held-out",
                    help="held-out designs (never trained on), or the training ones (art and procedural): tune on these")
    ap.add_argument("--refs", action="store_true", help="also read with the seat's hand as dealt (vision.hand_refs)")
    ap.add_argument("--tune", action="store_true", help="every pooling rule of a small grid, with the hand as dealt")
    ap.add_argument("--seed", type=int, default=29)
    ap.add_argument("--hand", type=int, default=10, help="cards in the seat's hand")
    ap.add_argument("--two-decks", type=float, default=0.3, help="share of trials dealt from two decks")
    ap.add_argument("--blobs", action="store_true", help="find the new indices as ink blobs (the peer), not with the detector")
    args = ap.parse_args()
    if args.design:
        designs = args.design
    elif args.designs == "train":
        designs = [d for d in TRAIN_DESIGNS if d in cached_designs()] + list(DESIGNS)
    else:
        designs = [d for d in HELD_OUT if d in cached_designs()]
    if not designs:
        raise SystemExit("no held-out design is rasterised: run python -m vision.card_art")
    reader = PileReader(threads=1, detector=None) if args.blobs else PileReader(threads=1)
    cols = ["right", "none", "wrong"]
    keys = [""] + (["refs_"] if args.refs else [])
    table = Table(title=f"plays read against the seat's options (hand of {args.hand}), {args.designs} designs")
    table.add_column("design", justify="right")
    table.add_column("plays", justify="right")
    for key in keys:
        for col in cols:
            table.add_column(f"{key.rstrip('_') or 'models'} {col}", justify="right")
    for col in ("top option right", "ms median", "ms p95"):
        table.add_column(col, justify="right")
    total = Counter()
    for design in designs:
        r = judge(reader, design, args.plays, args.seed, args.hand, args.two_decks, args.refs, args.tune)
        total.update({k: v for k, v in r.items() if not k.startswith("ms_")})
        n = r["plays"]
        table.add_row(design, str(n), *[f"{100 * r[k + c] / n:.1f} %" for k in keys for c in cols],
                      f"{100 * r['top_right'] / n:.1f} %", f"{r['ms_median']:.0f}", f"{r['ms_p95']:.0f}")
        print(design, {k: v for k, v in sorted(r.items())}, flush=True)
    n = total["plays"]
    table.add_row("all", str(n), *[f"{100 * total[k + c] / n:.1f} %" for k in keys for c in cols],
                  f"{100 * total['top_right'] / n:.1f} %", "", "")
    Console(width=200).print(table)
    if args.tune:
        grid = Table(title="pooling rules (tau, none-like) on the same candidates, all designs")
        for col in ("rule", "right", "none", "wrong"):
            grid.add_column(col, justify="right")
        for t, m in GRID:
            grid.add_row(f"{t}, {m}", *[f"{100 * total[f'{t},{m}_' + c] / n:.1f} %" for c in cols])
        Console().print(grid)


if __name__ == "__main__":
    main()
