"""Trains the pile committee's stand-in member (vision/models/pile_member.onnx) on the corner detector's
own cuts of rendered piles.

    PYTHONPATH=. nice -n 10 python -m vision.pile_member_train [--piles 3000] [--minutes 25] [--cache PATH]
        [--leave-out DESIGN ...]

The pile reader reads each index the detector (:mod:`vision.pile_detect`) finds, cut upright at the three
cuts :data:`vision.pile_corners.PADS`, with the corner models' committee. Those models learnt corner crops
of whole cards; member e (``card_corner_e``, 48 px crops) read another card at 27 % of the detector's
indices in full view (docs/vision-decisions.md, stop 51). This model learns exactly the reader's cuts:

* piles of 1-12 cards (a joker now and then) of the TRAINING designs only
  (``vision.card_art.TRAIN_DESIGNS`` and the procedural styles of :mod:`vision.render`), rendered as the
  detector's training piles are (:mod:`vision.pile_detect_data`);
* every detection the reader would read (:func:`vision.pile_corners._distinct`), cut at each of the three
  cuts, labelled by the renderer's truth: within half an index height of an index in view -> that card;
  of an index partly hidden -> not used; farther than one index height from every index -> "no card"
  (a pip, a figure, a neighbour's edge); in between -> not used.

The network and its outputs are the corner models' (:func:`vision.train.make_model`: BGR 32 x 32 in,
``card``/``rank``/``suit`` out), started from the first corner model's weights, so
:class:`vision.reader.CardReader` reads it as it reads them. One torch thread. Validation: crops of
other piles of the same designs (another seed), read by this model and by the committee's members.
Torch is needed here only; the reader runs the exported ONNX under onnxruntime.
"""

from __future__ import annotations

import time
from pathlib import Path

import cv2
import numpy as np

from vision.corner_data import NONE_CLASS
from vision.labels import LABELS

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "vision" / "models" / "pile_member.onnx"
JOKERS = 0.15  # share of piles with a joker or two thrown in
ON_INDEX = 0.5  # a detection this many index heights from an index's centre is that index ...
OFF_INDEX = 1.0  # ... and one farther than this from every index is none


def pile_crops(rng: np.random.Generator, design: str | None, detector) -> tuple[list[np.ndarray], list[int]]:
    """The reader's cuts of every detection in one rendered pile, and their labels (:data:`NONE_CLASS`: no index)."""
    from vision.pile_corners import PADS, _distinct
    from vision.pile_detect import upright
    from vision.pile_detect_data import HALF_SEEN, index_frame
    from vision.pile_render import VISIBLE, render_pile
    from vision.pile_train import _faces, _pile_labels

    labels = _pile_labels(rng)
    if rng.random() < JOKERS:
        labels += list(rng.choice(["BJ", "RJ"], int(rng.integers(1, 3)), replace=False))
    pile = render_pile(_faces(labels, rng, design), rng, strength=float(rng.uniform(0.3, 1.0)),
                       layouts=int(rng.integers(1, 4)))
    truth = []  # (centre, height, label or None when partly hidden)
    for face, polys in enumerate(pile.indices):
        for corner, poly in enumerate(polys):
            seen = pile.in_view[face][corner]
            if seen < HALF_SEEN / 3:
                continue
            centre, _, h, _ = index_frame(poly, corner)
            truth.append((centre, h, LABELS.index(labels[face]) if seen >= VISIBLE else None))
    xs, ys = [], []
    for c in _distinct(detector.detect(pile.image)):
        if truth:
            d = [float(np.hypot(*(np.array(c.centre) - t[0]))) / t[1] for t in truth]
            k = int(np.argmin(d))
            if d[k] <= ON_INDEX:
                label = truth[k][2]
            elif d[k] > OFF_INDEX:
                label = NONE_CLASS
            else:
                continue
        else:
            label = NONE_CLASS
        if label is None:
            continue
        for pad in PADS:
            xs.append(upright(pile.image, c, pad))
            ys.append(label)
    return xs, ys


def make_data(piles: int, seed: int, designs: list[str | None], progress=None) -> tuple[np.ndarray, np.ndarray]:
    """Crops of ``piles`` rendered piles, each of one design drawn from ``designs`` (None: procedural)."""
    from vision.pile_detect import CornerDetector

    detector = CornerDetector(threads=1)
    xs, ys = [], []
    for k in range(piles):
        rng = np.random.default_rng([seed, k])
        design = designs[int(rng.integers(len(designs)))]
        x, y = pile_crops(rng, design, detector)
        xs += x
        ys += y
        if progress is not None and k % 100 == 99:
            progress(k + 1, len(ys))
    return np.stack(xs), np.array(ys, np.int64)


def member_accuracy(paths: list[Path], x: np.ndarray, y: np.ndarray) -> dict[str, tuple[float, float, float]]:
    """Per model: (index crops read right, index crops read as another card, no-index crops read as a
    card), each by the model's first choice through the reader's own preprocessing."""
    from vision.reader import CardReader

    out = {}
    card = y != NONE_CLASS
    for path in paths:
        r = CardReader(model_path=path)
        lp = np.concatenate([r.log_probs(list(x[s:s + 512])) for s in range(0, len(x), 512)])
        pick = lp.argmax(axis=1)
        other = card & (pick != y) & (pick != NONE_CLASS)
        out[path.stem] = (float((pick[card] == y[card]).mean()), float(other[card].mean()),
                          float((pick[~card] != NONE_CLASS).mean()) if (~card).any() else 0.0)
    return out


def _augment(xb: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A little contrast, brightness and focus jitter on top of the renderer's light (no turns: the
    detector's cuts are upright, its "up" a few degrees off at most as a rule)."""
    out = xb.copy()
    for i in range(len(out)):
        if rng.random() < 0.3:
            out[i] = cv2.convertScaleAbs(out[i], alpha=rng.uniform(0.7, 1.2), beta=rng.uniform(-30, 30))
        if rng.random() < 0.1:
            out[i] = cv2.GaussianBlur(out[i], (3, 3), 0)
    return out


# the command line's defaults (vision.pile_train.arguments)
DEFAULTS = dict(piles=3000, val_piles=200, minutes=25.0, seed=5252,
                val_help="validation piles (the same designs, another seed)",
                minutes_help="training time (after rendering)")


def crops(args, art: list[str], say) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Training and validation cuts (and labels): from ``--cache`` when it is there, else rendered (and kept there)."""
    if args.cache is not None and args.cache.exists():
        data = np.load(args.cache)
        return data["x"], data["y"], data["vx"], data["vy"]
    designs = art + [None] * max(1, len(art) // 3)
    x, y = make_data(args.piles, args.seed, designs, progress=lambda k, n: say(f"training piles {k}: {n} crops"))
    vx, vy = make_data(args.val_piles, args.seed + 1, art)
    if args.cache is not None:
        args.cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(args.cache, x=x, y=y, vx=vx, vy=vy)
    return x, y, vx, vy


def main(argv: list[str] | None = None) -> None:
    from vision.pile_train import arguments, fine_tune, setup
    from vision.reader import COMMITTEE_PATHS
    from vision.train import export

    ap = arguments(__doc__, OUT, **DEFAULTS)
    ap.add_argument("--leave-out", action="append", default=[], metavar="DESIGN",
                    help="a training design not learnt, kept to choose the committee's rule on")
    args = ap.parse_args(argv)
    start = time.time()
    say, art = setup(args.seed, start)
    art = [d for d in art if d not in args.leave_out]
    say(f"designs learnt: {', '.join(art)}")
    x, y, vx, vy = crops(args, art, say)
    say(f"{len(x)} training crops ({(y != NONE_CLASS).mean():.0%} on an index), {len(vx)} validation crops")
    for name, r in member_accuracy(list(COMMITTEE_PATHS), vx, vy).items():
        say(f"{name:>14}:", _rates(r))

    t0 = time.time()
    net, exported, step, epoch = fine_tune(x, y, args.init_onnx, args.minutes * 60, args.seed, _augment, say)
    size = export(net, exported, args.out, storage=args.storage)
    say(f"{step} steps ({epoch} epochs, {(time.time() - t0) / 60:.1f} min of training); {args.out} {size / 1024:.0f} KiB")
    say(f"{args.out.stem:>14}:", _rates(member_accuracy([args.out], vx, vy)[args.out.stem]))


def _rates(r: tuple[float, float, float]) -> str:
    return f"index read right {r[0]:.3f}, read as another card {r[1]:.3f}, no index read as a card {r[2]:.3f}"


if __name__ == "__main__":
    main()
