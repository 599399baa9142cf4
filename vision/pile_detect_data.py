"""What the pile corner detector (:mod:`vision.pile_detect`) learns from: rendered piles of the
TRAINING designs, each with the target maps of its corner indices.

    PYTHONPATH=. python -m vision.pile_detect_data --piles 3200 --out build/pile_detect.npz [--workers 2]

A pile picture is scaled to :data:`vision.pile_detect.INPUT` (its long side) and the targets lie on a
grid :data:`vision.pile_detect.STRIDE` times coarser. For every corner index of every card:

* *in view* (``VISIBLE`` of its box shows): a peak in the heat map at its centre, and at the cells
  around the centre its geometry: the card's "up" seen from that index (a unit vector: the index is
  upright when "up" points up the picture), its box's height and width, and the way to the card's
  centre (in index heights, in the index's own frame), and from the cell to the index's centre;
* *half hidden* (some but not enough of it shows): neither a peak nor "nothing here" -- the loss
  ignores the cells around it, since a reader may fairly see it or not;
* *hidden*: nothing, like the table.

The designs held out from the reader (``vision.card_art.HELD_OUT``) are never drawn here.
"""

from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np

from vision.pile_render import VISIBLE

HALF_SEEN = 0.3  # an index this much in view but under VISIBLE is neither a peak nor "nothing"
CHANNELS = 10  # heat, ignore-mask, up (2), log height, log width, to the centre (2), offset (2)


def index_frame(poly: np.ndarray, corner: int) -> tuple[np.ndarray, np.ndarray, float, float]:
    """An index box's centre, its "up" (unit), height and width. The bottom-right index is the top-left
    one turned 180°, so its "up" points down the card."""
    p = poly if corner == 0 else poly[[2, 3, 0, 1]]
    centre = p.mean(axis=0)
    up = p[0] - p[3]
    h = float(np.linalg.norm(up))
    w = float(np.linalg.norm(p[1] - p[0]))
    return centre, up / max(h, 1e-6), h, w


def targets(pile, shape: tuple[int, int], scale: float, stride: int) -> np.ndarray:
    """(CHANNELS, H/stride, W/stride) float32 target maps for a pile drawn ``scale`` times its size."""
    H, W = shape[0] // stride, shape[1] // stride
    out = np.zeros((CHANNELS, H, W), np.float32)
    ys, xs = np.mgrid[0:H, 0:W].astype(np.float32)
    for face, polys in enumerate(pile.indices):
        card_centre = pile.quads[face].mean(axis=0)
        for corner, poly in enumerate(polys):
            seen = pile.in_view[face][corner]
            if seen < HALF_SEEN:
                continue
            centre, up, h, w = index_frame(poly, corner)
            c = centre * scale / stride - 0.5  # cell centres at (i + 0.5) * stride
            sigma = max(0.6, 0.25 * h * scale / stride)
            d2 = (xs - c[0]) ** 2 + (ys - c[1]) ** 2
            if seen < VISIBLE:
                out[1][d2 <= (2.5 * sigma) ** 2] = 1.0
                continue
            g = np.exp(-d2 / (2 * sigma * sigma))
            out[0] = np.maximum(out[0], g)
            near = d2 <= 2.0
            right = np.array([-up[1], up[0]])  # the index's own frame: x right, y up the card
            to_centre = (card_centre - centre) / h
            geo = [up[0], up[1], np.log(h * scale), np.log(w * scale),
                   float(to_centre @ right), float(to_centre @ up)]
            for k, v in enumerate(geo):
                out[2 + k][near] = v
            out[8][near] = (c[0] - xs)[near]  # from the cell's centre to the index's, in cells
            out[9][near] = (c[1] - ys)[near]
    out[1][out[0] > 0.5] = 0.0  # a visible index's peak is never ignored
    return out


def sample(seed: int, k: int, designs: list[str | None], size: int, stride: int) -> tuple[np.ndarray, np.ndarray]:
    """One rendered pile of a design drawn from ``designs`` (None: a procedural style), as the
    detector's input picture and its target maps."""
    from vision.pile_render import render_pile
    from vision.pile_train import _faces, _pile_labels

    rng = np.random.default_rng([seed, k])
    design = designs[int(rng.integers(len(designs)))]
    labels = _pile_labels(rng)
    pile = render_pile(_faces(labels, rng, design), rng, strength=float(rng.uniform(0.3, 1.0)),
                       layouts=int(rng.integers(1, 4)))
    scale = size / max(pile.image.shape[:2])
    img = cv2.resize(pile.image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return img, targets(pile, img.shape[:2], scale, stride)


def _chunk(args) -> tuple[np.ndarray, np.ndarray]:
    seed, ks, designs, size, stride = args
    got = [sample(seed, k, designs, size, stride) for k in ks]
    return np.stack([g[0] for g in got]), np.stack([g[1] for g in got])


def make(piles: int, seed: int, designs: list[str | None], workers: int = 2, progress=None):
    """(N, h, w, 3) uint8 pictures and (N, CHANNELS, h/stride, w/stride) targets."""
    from vision.pile_detect import INPUT, STRIDE

    chunks = [(seed, list(range(a, min(piles, a + 50))), designs, INPUT, STRIDE) for a in range(0, piles, 50)]
    xs, ts = [], []
    with ProcessPoolExecutor(workers) as pool:
        for x, t in pool.map(_chunk, chunks):
            xs.append(x)
            ts.append(t)
            if progress is not None:
                progress(sum(len(a) for a in xs))
    return np.concatenate(xs), np.concatenate(ts)


def main(argv: list[str] | None = None) -> None:
    from rich.progress import Progress

    from vision.card_art import HELD_OUT, TRAIN_DESIGNS, cached_designs

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--piles", type=int, default=3200)
    ap.add_argument("--seed", type=int, default=3131)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    art = [d for d in cached_designs() if d in TRAIN_DESIGNS]
    assert art and not set(art) & set(HELD_OUT)
    designs = art + [None] * max(1, len(art) // 3)
    with Progress() as bar:
        task = bar.add_task("rendering piles", total=args.piles)
        x, t = make(args.piles, args.seed, designs, args.workers, lambda n: bar.update(task, completed=n))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(args.out, x=x, t=t)
    print(f"{len(x)} piles -> {args.out}")


if __name__ == "__main__":
    main()
