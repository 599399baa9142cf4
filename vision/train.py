"""Train the corner-index classifier and export it to ONNX (``vision/models/card_corner.onnx``).

Usage (CPU; torch comes from the ``train`` extra and is never needed at run time)::

    .venv/bin/python -m vision.train                      # the full recipe (~5 min of rendering + ~37 min of training on 2 cores)
    .venv/bin/python -m vision.train --quick              # a small smoke run (~3 min)
    .venv/bin/python -m vision.train --holdout 0.2        # keep 20% of the real `fit` photos for validation
    .venv/bin/python -m vision.train --holdout 0.5 --holdout-subset webcam_handheld   # half of one subset's photos
    .venv/bin/python -m vision.train --seed 47 --sensor-codec --pip-shapes --holdout 0.5 --holdout-subset webcam_handheld \
        --storage int8 --out vision/models/card_corner_c.onnx   # another member
    .venv/bin/python -m vision.train --seed 19 --size 48 --width 16 --storage int8 --out vision/models/card_corner_e.onnx   # 48 x 48 crops (~42 min)
    .venv/bin/python -m vision.train --sensor-codec ...   # low-resolution crops also demosaiced and JPEG'd at that size
    .venv/bin/python -m vision.train --pip-shapes ...     # random decks also draw rounder spades and thin-stemmed clubs

Real card art (issue 28)::

    python -m vision.card_art                             # rasterise the SVG decks once (build/card-art/)
    .venv/bin/python -m vision.train --init-onnx vision/models/card_corner.onnx --card-art 0.6 --embed \
        --seed 2027 --out build/card_corner_art.onnx      # fine-tune the first member (recipe TUNE)

Stop 28 fine-tuned every member so (docs/vision-decisions.md), members a-d on one cached crop set::

    .venv/bin/python -m vision.train --init-onnx vision/models/card_corner_b.onnx --card-art 0.6 --split-index 1500 \
        --cache build/runs/tune32.npz --seed 2929 --storage int8 --out build/runs/card_corner_b_art.onnx

``--split-index CALLS``: also CALLS x 4 crops of procedural cards whose rank stands alone at the top-right corner
and the suit alone at the bottom-left one (:func:`vision.corner_data.split_index_samples`), each labelled with a
random card of what it shows, for the reader's other diagonal. ``--card-art SHARE``: that share of every random face (index crops, frames through the localizer, "no card"
crops, cards lying over others) is a real design's, from the families of ``vision.card_art.TRAIN_DESIGNS``;
the held-out families (``HELD_OUT``) are never drawn. ``--init-onnx``: start from an exported float16 model
(its folded batch norms kept frozen). ``--embed``: the graph also outputs ``embed`` (enrolment's features).
``--ttf-fonts SHARE``: that share of random deck styles draw their ranks in a real typeface (80 faces of
Debian's URW, Liberation, Free, DejaVu, Crosextra and Libertine fonts; ``python -m vision.glyphs`` builds the
atlas first) and half of those decks their pips from a font's ♠♥♦♣. Tried at 0.5 on the first member (stop 41
in docs/vision-decisions.md): held-out window frames 67.5 → 67.7 % right, under its rule's 2 points, so the
shipped models do not use it.

The reader's committee (``vision.reader.COMMITTEE_PATHS``) is five runs of this script:
``card_corner.onnx`` (seed 2026, trained at commit 38c184a, before the label audit: the only member
the dealer camera uses, so it is the one held to the render targets), ``card_corner_b.onnx`` (seed
29, ``--sensor-codec --pip-shapes``: some of its low-resolution crops were demosaiced and JPEG'd at that
size, as a cheap webcam leaves them, and its random deck styles also drew rounder spades and thin-stemmed
clubs, as real spades look at a webcam's few pixels), ``card_corner_c.onnx`` (seed 47, the same two
levers, but half of the webcam_handheld fit photos were kept out of its training, so the recipe could be
measured on them), ``card_corner_d.onnx`` (seed 11, ``--norm channel``: it white-balances each crop, so
it errs differently on a colour-cast picture) and ``card_corner_e.onnx``
(seed 19, ``--size 48 --width 16``: a narrower network that sees each crop at 48 x 48 pixels, where a
suit pip keeps about 7 pixels rather than 4, so spades and clubs blur together less). Each run takes
about 45 minutes on 2 cores (b's took 43); they may run on several machines at once. Exported weights
are stored narrow (:mod:`vision.model_store`): float16 for the first member, which reads the dealer
camera alone unless unsure, and int8 (``--storage int8``) for the others, so the committee fits in 2 MB.

Data: rendered index crops in random deck styles at any angle, crops cut by the real localizer from
rendered dealer-window and table frames, "no card" crops, and — if ``../shared/data/cards-real-dev`` is
beside the repository — heavily augmented crops of its ``fit`` split, each capture setup weighted about
alike however few crops it has, with the labels of ``vision/real_label_audit.csv`` where the source's
label is plainly wrong. Its ``eval`` split is never read. A fifth of the rendered crops go
through a poor webcam (long motion blur, defocus, under-exposure with a colour cast, a stretched aspect).

The network is a small CNN (about 0.35 M weights; 0.66 MiB as ONNX in float16, 0.34 MiB in int8) with three heads: the card (54 labels + "no card"), the
rank (13 + joker) and the suit (4 + black/red joker), so a suit is learnt by its shape as well as its
colour. The exported graph normalises each crop's brightness itself and outputs softmax probabilities.
"""

from __future__ import annotations

import argparse
import csv
import multiprocessing as mp
import os
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.corner_data import (
    MODEL_SIZE,
    NONE_CLASS,
    augment_real,
    index_crop_samples,
    none_samples,
    pipeline_samples,
    split_index_samples,
    to_input,
    use_input_size,
    use_sensor_codec,
)
from vision.labels import LABELS, index, rank_index, suit_index
from vision.model_store import STORAGES, store_weights
from vision.render import use_card_art, use_more_pip_shapes, use_ttf_fonts

REPO = Path(__file__).resolve().parents[1]
MODEL_PATH = REPO / "vision" / "models" / "card_corner.onnx"
REAL_DIR = Path(os.environ.get("HONGSI_REAL_DIR", REPO.parent / "shared" / "data" / "cards-real-dev"))  # a worktree sets it
AUDIT_PATH = REPO / "vision" / "real_label_audit.csv"  # source labels a look at the crop contradicts


@dataclass
class Recipe:
    index_calls: int = 45_000  # x2 crops each, any angle
    upright_calls: int = 10_000  # x2 crops each, small angles (like the localizer's crops)
    pipeline_calls: int = 8_000  # x2 crops each (frames through the real localizer)
    none_calls: int = 12_000
    split_calls: int = 0  # x4 crops each: cards with rank and suit printed apart (--split-index)
    real_reps: int = 20  # augmented copies of each real `fit` crop
    epochs: int = 9
    batch: int = 256
    lr: float = 3e-3
    width: int = 26


LITE = Recipe(index_calls=14_000, upright_calls=4_000, pipeline_calls=4_000, none_calls=6_000, real_reps=10,
              epochs=6)
TUNE = Recipe(index_calls=5_000, upright_calls=1_500, pipeline_calls=1_500, none_calls=2_500, real_reps=4,
              epochs=3, lr=1e-3)  # fine-tuning from a committed model (--init-onnx)
QUICK = Recipe(index_calls=12_000, upright_calls=4_000, pipeline_calls=3_000, none_calls=3_000,
               real_reps=8, epochs=3, width=16)


# ----------------------------------------------------------------------------------- data
def _chunk(args: tuple[str, int, int]) -> tuple[np.ndarray, np.ndarray]:
    kind, calls, seed = args
    rng = np.random.default_rng(seed)
    fn = {
        "index": index_crop_samples,
        "upright": lambda r: index_crop_samples(r, any_angle=0.0),
        "pipeline": pipeline_samples,
        "none": none_samples,
        "split": split_index_samples,
    }[kind]
    xs, ys = [], []
    for _ in range(calls):
        for x, y in fn(rng):
            xs.append(x)
            ys.append(y)
    if not xs:
        size = to_input(np.zeros((1, 1, 3), np.uint8)).shape[0]
        return np.zeros((0, size, size, 3), np.uint8), np.zeros(0, np.int64)
    return np.stack(xs), np.asarray(ys, np.int64)


def real_rows(split: str = "fit", root: Path = REAL_DIR, audited: bool = False) -> list[dict]:
    """Rows of ``labels.csv`` of one split (``fit`` for training; ``eval`` only for reports).

    ``audited``: with the labels of :data:`AUDIT_PATH` where the source's label is plainly wrong (a 3
    labelled 4, a red-ink joker labelled black); each changed row keeps its ``source_label``."""
    path = root / "labels.csv"
    if not path.exists():
        return []
    with path.open(newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["split"] == split]
    if audited:
        fixes = label_audit()
        for r in rows:
            if r["file"] in fixes:
                r["source_label"], r["label"] = r["label"], fixes[r["file"]]
    return rows


def held_out_frames(rows: list[dict], share: float, seed: int, subsets: list[str] | None = None) -> set[str]:
    """The source photos kept out of training for validation: ``share`` of the photos of ``rows``
    (of ``subsets`` only, when given), drawn by ``seed``; all crops of a photo stay on one side.

    >>> held_out_frames([{"frame": "p1", "subset": "s"}, {"frame": "p2", "subset": "t"}], 1.0, 0, ["s"])
    {'p1'}
    """
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"holdout share must be between 0 and 1, not {share}")
    known = {r["subset"] for r in rows}
    unknown = sorted(set(subsets or ()) - known)
    if rows and unknown:
        raise ValueError(f"no such subset in the fit photos: {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    frames = sorted({r["frame"] for r in rows if not subsets or r["subset"] in subsets})
    if not share or not frames:
        return set()
    rng = np.random.default_rng(seed)
    return {str(f) for f in rng.choice(frames, int(len(frames) * share), replace=False)}


def label_audit(path: Path | None = None) -> dict[str, str]:
    """The audited labels, ``{crop file: label}``: crops whose source label a look at the picture
    plainly contradicts (``python benchmarks/vision_label_audit.py`` draws them)."""
    with (path or AUDIT_PATH).open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:
        if r["label"] not in LABELS or r["source_label"] not in LABELS or r["label"] == r["source_label"]:
            raise ValueError(f"bad label audit row: {r}")
    return {r["file"]: r["label"] for r in rows}


def _real_chunk(args: tuple[list[str], list[int], int, int]) -> tuple[np.ndarray, np.ndarray]:
    files, labels, reps, seed = args
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for f, y in zip(files, labels, strict=True):
        img = cv2.imread(f, cv2.IMREAD_COLOR)
        if img is None:
            continue
        xs.append(to_input(img))
        ys.append(y)
        for _ in range(reps):
            xs.append(augment_real(img, rng))
            ys.append(y)
    return np.stack(xs), np.asarray(ys, np.int64)


def reps_per_subset(rows: list[dict], base: int, cap: float = 3.0) -> dict[str, int]:
    """Augmented copies of each real crop, per capture setup: the biggest setup gets ``base`` and a
    smaller one more (up to ``cap`` times), so every camera weighs about alike however few crops it
    has — a rare camera is as likely at a table as a common one.

    >>> reps_per_subset([{"subset": "a"}] * 300 + [{"subset": "b"}] * 100 + [{"subset": "c"}] * 10, 20)
    {'a': 20, 'b': 60, 'c': 60}
    """
    count: dict[str, int] = {}
    for r in rows:
        count[r["subset"]] = count.get(r["subset"], 0) + 1
    biggest = max(count.values(), default=1)
    return {k: int(round(base * min(cap, biggest / n))) for k, n in count.items()}


def build_data(recipe: Recipe, rows: list[dict], seed: int, workers: int, progress) -> tuple[np.ndarray, np.ndarray]:
    ss = np.random.SeedSequence(seed)
    jobs: list = []
    for kind, calls in (("index", recipe.index_calls), ("upright", recipe.upright_calls),
                        ("pipeline", recipe.pipeline_calls), ("none", recipe.none_calls),
                        ("split", recipe.split_calls)):
        step = 500
        for start in range(0, calls, step):
            jobs.append((_chunk, (kind, min(step, calls - start), int(ss.spawn(1)[0].generate_state(1)[0]))))
    for subset, reps in sorted(reps_per_subset(rows, recipe.real_reps).items()):
        sub = [r for r in rows if r["subset"] == subset]
        for start in range(0, len(sub), 60):
            part = sub[start:start + 60]
            jobs.append((_real_chunk, ([str(REAL_DIR / r["file"]) for r in part], [index(r["label"]) for r in part],
                                       reps, int(ss.spawn(1)[0].generate_state(1)[0]))))
    task = progress.add_task("rendering training crops", total=len(jobs))
    xs, ys = [], []
    with mp.get_context("fork").Pool(workers) as pool:
        results = [pool.apply_async(fn, (a,)) for fn, a in jobs]
        for r in results:
            x, y = r.get()
            xs.append(x)
            ys.append(y)
            progress.advance(task)
    return np.concatenate(xs), np.concatenate(ys)


# ----------------------------------------------------------------------------------- model
NORMS = ("crop", "channel")


def make_model(width: int = 24, norm: str = "crop", embed: bool = False):
    """The network and its export wrapper. ``norm``: how the graph evens out each crop's light before
    the first layer: ``crop``, one brightness and contrast for the whole crop; ``channel``, each colour
    channel on its own (a grey-world white balance), so a colour cast -- a dim room's green or orange
    light -- is gone before the network sees the crop, while a red index still differs from a black
    one by which channels it darkens. The network reads crops of any size (32 x 32 as a rule).
    ``embed``: the exported graph also outputs ``embed``, the unit-length features the heads read
    (what enrolment's nearest neighbours compare)."""
    import torch
    from torch import nn

    if norm not in NORMS:
        raise ValueError(f"unknown norm {norm!r}: choose from {NORMS}")

    def block(i: int, o: int) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

    w = width

    class CornerNet(nn.Module):
        """BGR 0..255 crops (N, 3, 32, 32) -> card (55), rank (14) and suit (6) logits."""

        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(
                block(3, w), nn.MaxPool2d(2),  # 16
                block(w, 2 * w), block(2 * w, 2 * w), nn.MaxPool2d(2),  # 8
                block(2 * w, 4 * w), block(4 * w, 4 * w), nn.MaxPool2d(2),  # 4
                block(4 * w, 6 * w), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.1),
            )
            self.card = nn.Linear(6 * w, len(LABELS) + 1)
            self.rank = nn.Linear(6 * w, 14)
            self.suit = nn.Linear(6 * w, 6)

        def embed(self, x):
            dims = (2, 3) if norm == "channel" else (1, 2, 3)
            mean = x.mean(dim=dims, keepdim=True)
            std = x.std(dim=dims, keepdim=True)
            return self.features((x - mean) / (std + 8.0))

        def forward(self, x):
            f = self.embed(x)
            return self.card(f), self.rank(f), self.suit(f)

    class Exported(nn.Module):
        def __init__(self, net) -> None:
            super().__init__()
            self.net = net

        def forward(self, x):
            c, r, s = self.net(x)
            outs = (torch.softmax(c, 1), torch.softmax(r, 1), torch.softmax(s, 1))
            if not embed:
                return outs
            f = self.net.embed(x)  # the features the heads read, unit length: what enrolment compares
            return outs + (f / (f.norm(dim=1, keepdim=True) + 1e-6),)

    return CornerNet(), Exported


def load_onnx_weights(net, path: Path) -> None:
    """Start ``net`` from an exported model's weights (``--init-onnx``; float16- or int8-stored). The export folded each batch
    norm into its convolution, so the convolutions take the folded weights and biases and the batch
    norms become the identity; fine-tuning then keeps them frozen (:func:`freeze_norms`)."""
    import onnx
    import torch
    from onnx import numpy_helper

    model = onnx.load(str(path))
    stored = {i.name: numpy_helper.to_array(i).astype(np.float32) for i in model.graph.initializer}
    for node in model.graph.node:  # float16-stored weights are widened by a Cast: follow it back
        if node.op_type == "Cast" and node.input[0] in stored:
            stored[node.output[0]] = stored[node.input[0]]
        if node.op_type == "Mul" and node.input[0] in stored and node.input[1] in stored:
            # an int8-stored weight: widened by a Cast, then scaled per output channel
            stored[node.output[0]] = stored[node.input[0]] * stored[node.input[1]]
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    if any(n.name.startswith("/net/") for n in convs):  # an --embed export traces the features twice
        convs = [n for n in convs if n.name.startswith("/net/")]
    mods = [m for m in net.features.modules() if isinstance(m, torch.nn.Conv2d)]
    norms = [m for m in net.features.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    if len(convs) != len(mods):
        raise ValueError(f"{path}: {len(convs)} convolutions, the network has {len(mods)} (another --width?)")
    with torch.no_grad():
        for node, conv, bn in zip(convs, mods, norms, strict=True):
            weight, bias = _folded(model.graph, node, stored)
            conv.weight.copy_(torch.from_numpy(weight))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(bias))
        for head in ("card", "rank", "suit"):
            layer = getattr(net, head)
            layer.weight.copy_(torch.from_numpy(stored[f"net.{head}.weight"]))
            layer.bias.copy_(torch.from_numpy(stored[f"net.{head}.bias"]))


def _folded(graph, conv, stored: dict) -> tuple[np.ndarray, np.ndarray]:
    """A convolution's weight and bias with its batch norm folded in. The exporter folds them itself, except
    where the weight is shared (an ``--embed`` export's first layer feeds both outputs): then the norm is
    its own node after the convolution, folded here."""
    weight = stored[conv.input[1]]
    if len(conv.input) > 2:
        return weight, stored[conv.input[2]]
    bn = next(n for n in graph.node if n.op_type == "BatchNormalization" and n.input[0] == conv.output[0])
    gamma, beta, mean, var = (stored[name] for name in bn.input[1:5])
    eps = next((a.f for a in bn.attribute if a.name == "epsilon"), 1e-5)
    k = gamma / np.sqrt(var + eps)
    return (weight * k[:, None, None, None]).astype(np.float32), (beta - mean * k).astype(np.float32)


def freeze_norms(net) -> None:
    """Batch norms in eval mode (their running statistics kept): for fine-tuning from a folded model."""
    import torch

    for m in net.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.eval()


def _aux_targets(y):
    import torch

    rank = torch.full_like(y, -100)
    suit = torch.full_like(y, -100)
    lab = y < NONE_CLASS
    rank[lab] = torch.as_tensor([rank_index(LABELS[int(i)]) for i in y[lab]], dtype=y.dtype)
    suit[lab] = torch.as_tensor([suit_index(LABELS[int(i)]) for i in y[lab]], dtype=y.dtype)
    return rank, suit


def _batches(x: np.ndarray, y: np.ndarray, batch: int, rng: np.random.Generator):
    import torch

    order = rng.permutation(len(x))
    for s in range(0, len(order) - batch + 1, batch):
        idx = order[s:s + batch]
        xb = torch.from_numpy(x[idx]).permute(0, 3, 1, 2).float()
        yield xb, torch.from_numpy(y[idx])


def evaluate(net, x: np.ndarray, y: np.ndarray) -> float:
    import torch

    net.eval()
    hits = 0
    with torch.no_grad():
        for s in range(0, len(x), 512):
            xb = torch.from_numpy(x[s:s + 512]).permute(0, 3, 1, 2).float()
            hits += int((net(xb)[0].argmax(1).numpy() == y[s:s + 512]).sum())
    net.train()
    return hits / max(1, len(x))


def export(net, exported_cls, path: Path, storage: str = "float16", size: int = MODEL_SIZE, embed: bool = False) -> int:
    import torch

    net.eval()
    model = exported_cls(net).to(memory_format=torch.contiguous_format)
    path.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, size, size)  # the reader reads a model's input size off its graph
    names = ["card", "rank", "suit"] + (["embed"] if embed else [])
    torch.onnx.export(model, (dummy,), str(path), input_names=["image"], output_names=names,
                      dynamic_axes={"image": {0: "n"}, **{n: {0: "n"} for n in names}},
                      opset_version=17, dynamo=False)
    return store_weights(path, storage)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="a small smoke run")
    ap.add_argument("--holdout", type=float, default=0.0, help="share of real fit photos kept for validation")
    ap.add_argument("--holdout-subset", action="append", default=None, metavar="SUBSET",
                    help="hold out photos of this subset only (repeatable; default: every subset)")
    ap.add_argument("--epochs", type=int, default=None)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", type=Path, default=MODEL_PATH)
    ap.add_argument("--cache", type=Path, default=None, help="keep/reuse the rendered training crops here (.npz)")
    ap.add_argument("--width", type=int, default=None, help="channels of the first layer")
    ap.add_argument("--init", type=Path, default=None, help="start from these weights (saved by --keep)")
    ap.add_argument("--init-onnx", type=Path, default=None, help="fine-tune from this exported float16 model")
    ap.add_argument("--keep", type=Path, default=None, help="save the torch weights here after each epoch")
    ap.add_argument("--lr", type=float, default=None)
    ap.add_argument("--norm", choices=NORMS, default="crop", help="how each crop's light is evened out (make_model)")
    ap.add_argument("--size", type=int, default=MODEL_SIZE, help="input pixels a side (the reader resizes each crop to it)")
    ap.add_argument("--sensor-codec", action="store_true",
                    help="low-resolution crops are also demosaiced and JPEG'd at that size (corner_data.use_sensor_codec)")
    ap.add_argument("--pip-shapes", action="store_true",
                    help="random deck styles also draw rounder spades and thin-stemmed clubs (render.use_more_pip_shapes)")
    ap.add_argument("--card-art", type=float, default=0.0, metavar="SHARE",
                    help="this share of random faces are real SVG designs (vision.card_art), held-out families excluded")
    ap.add_argument("--ttf-fonts", type=float, default=0.0, metavar="SHARE",
                    help="this share of random deck styles draw ranks (and half of them pips) in real typefaces (vision.glyphs)")
    ap.add_argument("--split-index", type=int, default=0, metavar="CALLS",
                    help="also CALLS x 4 crops of cards whose rank and suit are printed apart (issue 28)")
    ap.add_argument("--lite", action="store_true", help="the shorter recipe (LITE: ~25 min on 2 busy cores)")
    ap.add_argument("--embed", action="store_true", help="also export the embedding (enrolment's references)")
    ap.add_argument("--storage", choices=STORAGES, default="float16", help="how the exported weights are stored")
    ap.add_argument("--restore", type=Path, nargs="+", default=None, metavar="MODEL",
                    help="only store these exported models' weights as --storage says, in place")
    args = ap.parse_args(argv)
    if not 0.0 <= args.ttf_fonts <= 1.0:
        ap.error(f"--ttf-fonts is a share between 0 and 1, not {args.ttf_fonts}")
    if args.restore:
        for path in args.restore:
            before = path.stat().st_size
            after = store_weights(path, args.storage)
            print(f"{path}: {before / 1024:.0f} KiB -> {after / 1024:.0f} KiB ({args.storage})")
        return

    import torch
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    console = Console()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    use_input_size(args.size)  # before the worker processes are forked
    use_sensor_codec(args.sensor_codec)
    use_more_pip_shapes(args.pip_shapes)
    if args.card_art:
        from vision.card_art import TRAIN_DESIGNS, cached_designs

        art = [d for d in cached_designs() if d in TRAIN_DESIGNS]
        if not art:
            raise SystemExit("no card art in the cache: run python -m vision.card_art first")
        use_card_art(art, args.card_art)
        console.print(f"card art: {len(art)} designs, {args.card_art:.0%} of random faces")
    if args.ttf_fonts:
        from vision.glyphs import CACHE

        faces = use_ttf_fonts(args.ttf_fonts)
        if not faces:
            raise SystemExit(f"no glyph atlas at {CACHE}: run python -m vision.glyphs first")
        console.print(f"real typefaces: {faces} faces, {args.ttf_fonts:.0%} of random deck styles")
    recipe = QUICK if args.quick else LITE if args.lite else TUNE if args.init_onnx else Recipe()
    if args.epochs:
        recipe.epochs = args.epochs
    if args.split_index:
        recipe.split_calls = args.split_index
    if args.width:
        recipe.width = args.width
    if args.lr:
        recipe.lr = args.lr
    rows = real_rows("fit", audited=True)
    held = held_out_frames(rows, args.holdout, args.seed, args.holdout_subset)
    train_rows = [r for r in rows if r["frame"] not in held]
    val_rows = [r for r in rows if r["frame"] in held]
    console.print(f"real fit crops: {len(train_rows)} for training, {len(val_rows)} held out"
                  + ("" if rows else f" (none found at {REAL_DIR})"))

    cols = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[info]}"),
            TimeElapsedColumn(), TimeRemainingColumn())
    t0 = time.time()
    with Progress(*cols, console=console) as progress:
        if args.cache and args.cache.exists():
            data = np.load(args.cache)
            x, y = data["x"], data["y"]
        else:
            x, y = build_data(recipe, train_rows, args.seed, args.workers, _InfoProgress(progress))
            if args.cache:
                np.savez(args.cache, x=x, y=y)
        vx, vy = _chunk(("pipeline", 600, args.seed + 1))
        console.print(f"{len(x)} training crops ({(y == NONE_CLASS).sum()} 'no card') in {time.time() - t0:.0f} s")
        real_val = None
        if val_rows:
            real_val = (np.stack([to_input(cv2.imread(str(REAL_DIR / r["file"]))) for r in val_rows]),
                        np.asarray([index(r["label"]) for r in val_rows]))

        net, exported_cls = make_model(recipe.width, args.norm, embed=args.embed)
        if args.init:
            net.load_state_dict(torch.load(args.init))
        if args.init_onnx:
            load_onnx_weights(net, args.init_onnx)
            vx_acc = evaluate(net, vx, vy)
            console.print(f"from {args.init_onnx}: rendered frames {vx_acc:.4f}")
        net = net.to(memory_format=torch.channels_last)  # faster convolutions on CPU
        opt = torch.optim.AdamW(net.parameters(), lr=recipe.lr, weight_decay=5e-4)
        steps = recipe.epochs * (len(x) // recipe.batch)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=recipe.lr, total_steps=steps, pct_start=0.15)
        ce = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
        ce_aux = torch.nn.CrossEntropyLoss(ignore_index=-100)
        task = progress.add_task("training", total=steps, info="")
        brng = np.random.default_rng(args.seed + 2)
        for epoch in range(recipe.epochs):
            running = 0.0
            if args.init_onnx:
                freeze_norms(net)
            for i, (xb, yb) in enumerate(_batches(x, y, recipe.batch, brng)):
                # cheap extra augmentation: brightness/contrast per crop
                gain = torch.empty(len(xb), 1, 1, 1).uniform_(0.7, 1.3)
                xb = (xb * gain + torch.empty(len(xb), 1, 1, 1).uniform_(-30, 30)).clamp(0, 255)
                xb = xb.contiguous(memory_format=torch.channels_last)
                rank, suit = _aux_targets(yb)
                c, r, s = net(xb)
                loss = ce(c, yb) + 0.4 * ce_aux(r, rank) + 0.4 * ce_aux(s, suit)
                opt.zero_grad()
                loss.backward()
                opt.step()
                sched.step()
                running = 0.98 * running + 0.02 * loss.item() if i else loss.item()
                progress.update(task, advance=1, info=f"epoch {epoch + 1}/{recipe.epochs} loss {running:.3f}")
                if not console.is_terminal and i % 100 == 0:  # a log file gets plain lines
                    console.print(f"epoch {epoch + 1} step {i}: loss {running:.3f} ({time.time() - t0:.0f} s)")
            msg = f"epoch {epoch + 1}: loss {running:.3f}, rendered frames {evaluate(net, vx, vy):.4f}"
            if real_val is not None:
                msg += f", real held-out {evaluate(net, *real_val):.4f}"
            console.print(msg)
            size = export(net, exported_cls, args.out, args.storage, args.size, args.embed)  # every epoch: a usable model at any time
            if args.keep:
                torch.save(net.state_dict(), args.keep)  # to continue from (--init)
            net.train()
    console.print(f"exported {args.out} ({size / 1024:.0f} KiB) after {(time.time() - t0) / 60:.1f} min")


class _InfoProgress:
    """Progress whose tasks always carry an ``info`` field."""

    def __init__(self, progress) -> None:
        self._p = progress

    def add_task(self, description: str, total: int) -> int:
        return self._p.add_task(description, total=total, info="")

    def advance(self, task: int) -> None:
        self._p.advance(task)


if __name__ == "__main__":
    main()
