"""Trains the pile reader's index model (vision/models/pile_index.onnx) on crops cut from rendered piles.

    PYTHONPATH=. nice -n 10 python -m vision.pile_train [--minutes 30] [--piles 4000] [--out PATH]

The corner models learnt corner crops of whole cards; in a pile the reader cuts its candidates
(:func:`vision.pile.candidates`: a rank blob with its pip blob, or a "10" and its pip) tightly around
the ink, other blobs painted out, at any angle, and many candidates are no index at all (two glyphs of
a court card's art, a pip beside a neighbour card's rank). So this model learns exactly those crops:

* piles of 1-12 cards of the TRAINING designs only (``vision.card_art.TRAIN_DESIGNS`` and the
  procedural random styles of :mod:`vision.render`), with the pile renderer's light and camera;
* every candidate the pile reader would cut, labelled by where its blobs lie
  (:func:`vision.pile_render.index_owner`): all in one card's index in view -> that card; none in an
  index, or blobs of different indices, or an index's rank with a stranger's pip -> "no card"; a part
  of an index (the "1" and "0" of a 10 without its pip), or a half-hidden index -> not used;
* the true index boxes too, cut axis-aligned with jitter, and crops of plain paper, table and art.

The network and its outputs are the corner models' (:func:`vision.train.make_model`: BGR 32 x 32 in,
``card``/``rank``/``suit`` out), started from the first corner model's weights, so
:class:`vision.reader.CardReader` reads it as it reads them. Validation is on piles of the HELD-OUT
designs (never trained on): the model's and the first corner model's accuracy on the same crops.
Torch is needed here only; the reader runs the exported ONNX under onnxruntime.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2
import numpy as np

from vision.corner_data import MODEL_SIZE, NONE_CLASS, to_input
from vision.labels import LABELS

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "vision" / "models" / "pile_index.onnx"
INIT = REPO / "vision" / "models" / "card_corner.onnx"


def _pile_labels(rng: np.random.Generator) -> list[str]:
    """1-12 cards from one deck, or from two shuffled together (a third of the time)."""
    n = int(rng.integers(1, 13))
    decks = 2 if rng.random() < 0.3 else 1
    pool = [lab for lab in LABELS[:52] for _ in range(decks)]
    return [pool[i] for i in rng.choice(len(pool), n, replace=False)]


def _faces(labels: list[str], rng: np.random.Generator, design: str | None) -> list:
    """One deck's faces: a real design, or one procedural style for the whole deck (``design`` None)."""
    from vision.render import face_for, random_style, render_face

    if design is not None:
        return [face_for(lab, rng, design) for lab in labels]
    style = random_style(rng)
    return [render_face(lab, style) for lab in labels]


def blob_owner(blob, owner: np.ndarray) -> int | None:
    """The index (``2 * face + corner``) most of a blob's ink lies in, -1 for none, None when mixed."""
    x0, y0, x1, y1 = blob.box
    codes = owner[y0:y1, x0:x1][blob.mask > 0]
    if codes.size == 0:
        return None
    vals, counts = np.unique(codes, return_counts=True)
    k = int(counts.argmax())
    return int(vals[k]) if counts[k] >= 0.6 * codes.size else None


def surface(pile) -> np.ndarray:
    """(H, W) int32: the card on top at each pixel (its number in the pile), -1 for the table."""
    H, W = pile.image.shape[:2]
    top = np.full((H, W), -1, np.int32)
    for i, quad in enumerate(pile.quads):
        cv2.fillConvexPoly(top, np.round(quad).astype(np.int32), i)
    return top


def candidate_label(ids, blobs, owners: list, cards: list, box, pile, labels: list[str]) -> int | None:
    """A candidate's class: the card whose index in view it covers, NONE_CLASS when it is no index
    (or strangers' blobs together), None when it is a part of an index or a half-hidden one, or an
    index's rank with a pip of its own card's middle (which names the right card: unused)."""
    own = [owners[i] for i in ids]
    if any(o is None for o in own):
        return None
    inside = {o for o in own if o >= 0}
    if not inside or len(inside) > 1:
        return NONE_CLASS
    code = inside.pop()
    face, corner = divmod(code, 2)
    if -1 in own:
        same = all(cards[i] == face for i, o in zip(ids, own, strict=True) if o < 0)
        return None if same else NONE_CLASS
    if pile.in_view[face][corner] < 0.85:
        return None
    poly = pile.indices[face][corner]
    idx_area = float((poly[:, 0].max() - poly[:, 0].min()) * (poly[:, 1].max() - poly[:, 1].min()))
    area = float((box[2] - box[0]) * (box[3] - box[1]))
    if area < 0.4 * idx_area:
        return None  # a part of the index
    return LABELS.index(labels[face])


def pile_crops(rng: np.random.Generator, design: str | None, negatives: float = 1.5,
               true_boxes: bool = True) -> tuple[list[np.ndarray], list[int]]:
    """The crops one rendered pile gives (see the module's doc) and their classes; ``negatives``: at
    most this many "no card" candidates per card candidate (at least 4)."""
    from vision.pile import _union, candidates, clean_crops, ink_blobs
    from vision.pile_render import index_owner, render_pile

    labels = _pile_labels(rng)
    pile = render_pile(_faces(labels, rng, design), rng, strength=float(rng.uniform(0.3, 1.0)),
                       layouts=int(rng.integers(1, 4)))  # hidden indices are no loss here, and rendering is the cost
    img = pile.image
    owner = index_owner(pile)
    blobs = ink_blobs(img)
    cands = candidates(blobs)
    xs: list[np.ndarray] = []
    ys: list[int] = []
    if cands:
        owners = [blob_owner(b, owner) for b in blobs]
        top = surface(pile)
        cards = [int(top[int(b.centre[1]), int(b.centre[0])]) for b in blobs]
        boxes = [_union([blobs[i] for i in ids]) for ids, _ in cands]
        cls = [candidate_label(ids, blobs, owners, cards, box, pile, labels) for (ids, _), box in zip(cands, boxes, strict=True)]
        pos = [i for i, c in enumerate(cls) if c is not None and c != NONE_CLASS]
        neg = [i for i, c in enumerate(cls) if c == NONE_CLASS]
        keep_neg = int(max(4, negatives * len(pos)))
        if len(neg) > keep_neg:
            neg = list(rng.choice(neg, keep_neg, replace=False))
        use = pos + neg
        crops = clean_crops(img, blobs, [cands[i] for i in use], [boxes[i] for i in use],
                            pad=float(rng.uniform(1.0, 1.3)))
        xs += [to_input(c, MODEL_SIZE) for c in crops]
        ys += [int(cls[i]) for i in use]
    if true_boxes:
        xs_t, ys_t = _true_box_crops(img, pile, labels, rng)
        xs += xs_t
        ys += ys_t
    xs_n = _plain_crops(img, owner, rng, 3)
    return xs + xs_n, ys + [NONE_CLASS] * len(xs_n)


def _true_box_crops(img, pile, labels, rng) -> tuple[list[np.ndarray], list[int]]:
    """Each index fully in view cut axis-aligned around its box, jittered a little."""
    from vision.pile import crop_box

    xs, ys = [], []
    for face, polys in enumerate(pile.indices):
        for corner, poly in enumerate(polys):
            if pile.in_view[face][corner] < 0.97 or rng.random() < 0.5:
                continue
            x0, y0 = poly.min(axis=0)
            x1, y1 = poly.max(axis=0)
            w, h = x1 - x0, y1 - y0
            d = rng.normal(0, 0.05, 4) * (w, h, w, h)
            box = (x0 + d[0], y0 + d[1], x1 + d[2], y1 + d[3])
            xs.append(to_input(crop_box(img, box, float(rng.uniform(0.95, 1.2))), MODEL_SIZE))
            ys.append(LABELS.index(labels[face]))
    return xs, ys


def _plain_crops(img, owner, rng, n: int) -> list[np.ndarray]:
    """Glyph-sized crops away from every index: the table, a card's paper, pips, court art."""
    from vision.pile import crop_box

    H, W = img.shape[:2]
    out = []
    for _ in range(20 * n):
        if len(out) >= n:
            break
        s = rng.uniform(10, 50)
        x, y = rng.uniform(0, W - s), rng.uniform(0, H - s * 1.5)
        box = (x, y, x + s, y + s * rng.uniform(0.8, 1.8))
        xi, yi = int(x), int(y)
        if (owner[yi:int(box[3]) + 1, xi:int(box[2]) + 1] >= 0).any():
            continue
        out.append(to_input(crop_box(img, box, 1.0), MODEL_SIZE))
    return out


def blank_crops(rng: np.random.Generator, n: int) -> list[np.ndarray]:
    """Plain paper of any tint, with noise: "no card"."""
    out = []
    for _ in range(n):
        c = rng.integers(150, 256, 3).astype(np.float32)
        img = np.ones((MODEL_SIZE, MODEL_SIZE, 3), np.float32) * c + rng.normal(0, rng.uniform(0, 8), (MODEL_SIZE, MODEL_SIZE, 1))
        out.append(np.clip(img, 0, 255).astype(np.uint8))
    return out


def make_data(piles: int, seed: int, designs: list[str | None], progress=None) -> tuple[np.ndarray, np.ndarray]:
    """Crops of ``piles`` rendered piles, each of one design drawn from ``designs`` (None: procedural)."""
    xs, ys = [], []
    for k in range(piles):
        rng = np.random.default_rng([seed, k])
        design = designs[int(rng.integers(len(designs)))]
        x, y = pile_crops(rng, design)
        xs += x
        ys += y
        if progress is not None and k % 200 == 199:
            progress(k + 1, len(ys))
    xs += blank_crops(np.random.default_rng([seed, 10**9]), max(50, piles // 10))
    ys += [NONE_CLASS] * max(50, piles // 10)
    return np.stack(xs), np.array(ys, np.int64)


def onnx_accuracy(path: Path, x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """(card crops read right, card crops called "no card", no-card crops called a card) by an exported
    model, through the reader's own preprocessing and scoring."""
    from vision.reader import CardReader

    r = CardReader(model_path=path)
    lp = np.concatenate([r.log_probs(list(x[s:s + 512])) for s in range(0, len(x), 512)])
    pred = lp.argmax(axis=1)
    card = y != NONE_CLASS
    return (float((pred[card] == y[card]).mean()), float((pred[card] == NONE_CLASS).mean()),
            float((pred[~card] != NONE_CLASS).mean()))


def main(argv: list[str] | None = None) -> None:
    args = arguments(__doc__, OUT, piles=4000, val_piles=300, minutes=30.0, seed=2929,
                     val_help="held-out design piles to validate on",
                     minutes_help="the whole run's budget (rendering and training)").parse_args(argv)

    from vision.card_art import HELD_OUT, cached_designs
    from vision.train import export

    start = time.time()
    say, art = setup(args.seed, start)
    held = [d for d in cached_designs() if d in HELD_OUT]
    if not held:
        raise SystemExit("card art is not rasterised: run python -m vision.card_art")
    if args.cache is not None and args.cache.exists():
        data = np.load(args.cache)
        x, y, vx, vy = data["x"], data["y"], data["vx"], data["vy"]
    else:
        x, y = make_data(args.piles, args.seed, art + [None] * max(1, len(art) // 2),
                         progress=lambda k, n: say(f"training piles {k}: {n} crops"))
        vx, vy = make_data(args.val_piles, args.seed + 1, held)
        if args.cache is not None:
            np.savez_compressed(args.cache, x=x, y=y, vx=vx, vy=vy)
    say(f"{len(x)} training crops ({(y != NONE_CLASS).mean():.0%} cards), {len(vx)} held-out validation crops")
    base = onnx_accuracy(args.init_onnx, vx, vy)
    say("first corner model on held-out pile crops:", _rates(base))

    budget = args.minutes * 60 - (time.time() - start) - 90  # room to export and validate
    net, exported, step, epoch = fine_tune(x, y, args.init_onnx, budget, args.seed, _augment, say)
    size = export(net, exported, args.out, storage=args.storage)
    got = onnx_accuracy(args.out, vx, vy)
    say(f"{step} steps ({epoch} epochs); {args.out} {size / 1024:.0f} KiB")
    say("pile index model on held-out pile crops:", _rates(got))
    print(f"training took {(time.time() - start) / 60:.1f} min")


def arguments(doc: str, out: Path, *, piles: int, val_piles: int, minutes: float, seed: int, val_help: str,
              minutes_help: str) -> argparse.ArgumentParser:
    """The command line of a trainer that fine-tunes a corner model on crops of rendered piles."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--piles", type=int, default=piles, help="training piles rendered")
    ap.add_argument("--val-piles", type=int, default=val_piles, help=val_help)
    ap.add_argument("--minutes", type=float, default=minutes, help=minutes_help)
    ap.add_argument("--seed", type=int, default=seed)
    ap.add_argument("--out", type=Path, default=out)
    ap.add_argument("--init-onnx", type=Path, default=INIT, help="start from this exported corner model")
    ap.add_argument("--storage", default="int8", help="how the exported weights are stored (vision.model_store)")
    ap.add_argument("--cache", type=Path, default=None, help="keep/reuse the rendered crops here (.npz)")
    return ap


def setup(seed: int, start: float):
    """One torch thread, seeded; a printer of the minutes since ``start``; the TRAINING designs cached."""
    import torch

    from vision.card_art import HELD_OUT, TRAIN_DESIGNS, cached_designs

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    art = [d for d in cached_designs() if d in TRAIN_DESIGNS]
    if not art:
        raise SystemExit("card art is not rasterised: run python -m vision.card_art")
    assert not set(art) & set(HELD_OUT)
    return (lambda *a: print(f"[{(time.time() - start) / 60:5.1f} min]", *a, flush=True)), art


def fine_tune(x: np.ndarray, y: np.ndarray, init_onnx: Path, seconds: float, seed: int, augment, say):
    """The corner models' network started from an exported one (``init_onnx``, its batch norms kept frozen)
    and trained on the crops ``x`` (BGR uint8, N x H x W x 3) and labels ``y`` for ``seconds``, the learning
    rate on a cosine over the time, with the rank and suit heads at half weight; ``augment(xb, rng)`` varies
    each batch. Returns (net, its export wrapper, steps, epochs). Torch is needed here only."""
    import torch

    from vision.train import _aux_targets, freeze_norms, load_onnx_weights, make_model

    net, exported = make_model(width=_first_width(init_onnx))
    load_onnx_weights(net, init_onnx)
    net.train()
    freeze_norms(net)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=1e-4)
    ce = torch.nn.CrossEntropyLoss(ignore_index=-100, label_smoothing=0.05)
    rng = np.random.default_rng(seed)
    batch, step, epoch = 128, 0, 0
    t0 = time.time()
    done = False
    while not done:
        order = rng.permutation(len(x))
        for s in range(len(x) // batch):
            elapsed = time.time() - t0
            if elapsed > seconds:
                done = True
                break
            for g in opt.param_groups:  # cosine over the time budget
                g["lr"] = 1e-3 * 0.5 * (1 + np.cos(np.pi * min(1.0, elapsed / seconds)))
            idx = order[s * batch:(s + 1) * batch]
            xb = torch.from_numpy(augment(x[idx], rng)).permute(0, 3, 1, 2).float()
            yb = torch.from_numpy(y[idx])
            rank, suit = _aux_targets(yb)
            c, r, su = net(xb)
            loss = ce(c, yb) + 0.5 * (ce(r, rank) + ce(su, suit))
            opt.zero_grad()
            loss.backward()
            opt.step()
            freeze_norms(net)
            step += 1
            if step % 500 == 0:
                say(f"epoch {epoch} step {step} loss {loss.item():.3f}")
        epoch += 1
    return net, exported, step, epoch


def _rates(r: tuple[float, float, float]) -> str:
    return f"right {r[0]:.3f}, card called none {r[1]:.3f}, none called a card {r[2]:.3f}"


def _first_width(path: Path) -> int:
    """The channels of an exported corner model's first convolution (its ``--width``)."""
    import onnx

    model = onnx.load(str(path))
    first = next(n for n in model.graph.node if n.op_type == "Conv")
    for init in model.graph.initializer:
        if init.name in (first.input[1], first.input[1] + "_f16", first.input[1] + "_i8"):
            return int(init.dims[0])
    raise ValueError(f"{path}: no first convolution weight found")


def _augment(xb: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Quarter turns and flips of nothing (an index is not mirrored): quarter turns only, and a little
    contrast and brightness jitter on top of the renderer's light."""
    out = np.empty_like(xb)
    for i, im in enumerate(xb):
        k = int(rng.integers(4)) if rng.random() < 0.3 else 0
        im = np.rot90(im, k) if k else im
        if rng.random() < 0.3:
            a, b = rng.uniform(0.7, 1.2), rng.uniform(-30, 30)
            im = cv2.convertScaleAbs(im, alpha=a, beta=b)
        out[i] = im
    return out


if __name__ == "__main__":
    main()
