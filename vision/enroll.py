"""The table's own deck: references of each card, and reading by nearest neighbours among them.

Usage::

    refs = DeckRefs.load(data_dir, "casino-red")            # DeckNotFound if never enrolled
    refs = enrol(reader, [(image, "H4"), ...], kind="frame")  # one or more photos per card
    refs.save(data_dir, "casino-red")                        # merged with what is there; atomic
    reading = read_with_deck(reader, refs, image, kind="window")

A reference is the classifier's embedding of one corner index (the features its heads read, unit
length): the network's own output ``embed`` when it has one, otherwise the input of its card head,
found in the graph. A picture is read by comparing each of its corners with every reference (cosine
similarity); each card scores its best reference, corners are averaged, and the reading is declined
when the best card is not clearly closer than the next one (:data:`MIN_SIMILARITY`, :data:`MIN_GAP`).
Each enrolled picture's whole card is kept too (:mod:`vision.card_look`): the deck's nearest cards are
compared whole, which tells apart what the corners confuse (a heart and a diamond of a design whose index
no model knows).
The deck's references are tied to the model that made them (its file's digest): another model needs a
new enrolment.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import unicodedata
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.labels import JOKERS, LABELS, index

MIN_SIMILARITY = 0.80  # below this the picture is like no card of the deck: declined
MIN_GAP = 0.04  # the best card must be this much closer than the next one
# With the committee's probabilities too (:func:`combine`): a similarity step of TAU weighs one nat, as
# much as the committee's log-probability; the pooled best card must hold SHARE of it, be the deck's own
# nearest card and be like it at least BASE_SIMILARITY. Chosen on the 26 training designs' window frames
# (right 95.2 % -> 98.2 %, 0 wrong), never on held-out ones (benchmarks/vision_designs.py).
TAU = 0.01
SHARE = 0.98
BASE_SIMILARITY = 0.5
# With the whole cards' looks as well: a correlation step of TAU_LOOK weighs one nat, and the deck's own
# nearest card need not win (the look may overrule the corners). Chosen on the same 26 training designs'
# window frames among 72 rules, the most right with at most 0.1 % wrong: right 97.8 -> 98.9 %, wrong
# 0.07 -> 0.04 % (docs/vision-decisions.md, "Stop 39").
TAU_LOOK = 0.05


@dataclass(frozen=True)
class Rule:
    """When a deck's reading is sure: a similarity step of ``tau`` weighs one nat; the pooled best card
    holds ``share``; ``own``: it is the deck's own nearest card; ``models_agree``: the committee's too."""

    tau: float
    share: float
    own: bool
    models_agree: bool


WINDOW_RULE = Rule(TAU, SHARE, own=False, models_agree=False)
# Photos from any camera are read from corners found less surely than the dealer's: enrolled from a photo,
# the deck's nearest card overruled the models wrongly in 3.4 % of other photos under WINDOW_RULE. Chosen
# among 480 rules on 16 training designs (enrolled from one table or one tight photo per card, 1,265 other
# photos each read), the most right with at most 0.1 % wrong: 91.7 / 3.4 % -> 85.3 / 0.08 % right / wrong
# (the models alone: about 83.7 / 0.7 %); docs/vision-decisions.md, "Stop 40".
PHOTO_RULE = Rule(0.02, 0.999, own=True, models_agree=True)
FLAT = 4.0  # a picture whose grey levels spread less than this (std) is blank: no card to enrol
VARIANTS = 6  # references made from each enrolled corner besides itself (see variants)
SUIT_CARDS = tuple(label for label in LABELS if label not in JOKERS)
_NAME_PUNCT = set("-_.")
_NAME_MAX = 64


class EnrolError(ValueError):
    """Bad enrolment input (a missing file, an unknown label, a card missing); says which in one line."""


class DeckNotFound(EnrolError):
    """No deck of that name was enrolled."""


def deck_dir(data_dir: Path, name: str) -> Path:
    # any script's letters and digits (a deck may be called 红色扑克), never a path or a control character;
    # one spelling per name: "café" typed with a combining accent, or full-width ｃａｆé, is the same deck
    name = unicodedata.normalize("NFKC", name)
    if (not name or len(name) > _NAME_MAX or name.startswith(".")
            or any(not (ch.isalnum() or ch in _NAME_PUNCT) for ch in name)):
        raise EnrolError(f"deck name {name!r}: use at most {_NAME_MAX} letters, digits, '-', '_' or '.'")
    return Path(data_dir).expanduser() / "decks" / name


def model_digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def known_decks(data_dir: Path) -> list[str]:
    root = Path(data_dir).expanduser() / "decks"
    return sorted(p.parent.name for p in root.glob("*/refs.npz")) if root.is_dir() else []


@dataclass
class DeckRefs:
    embeddings: np.ndarray  # (n, d) float32, unit rows
    labels: np.ndarray  # (n,) int label indices
    model: str  # the digest of the model that made them
    looks: np.ndarray | None = None  # (m, t, h, w) float16 whole-card looks (vision.card_look.templates)
    look_labels: np.ndarray | None = None  # (m,) their label indices

    @classmethod
    def load(cls, data_dir: Path, name: str) -> DeckRefs:
        path = deck_dir(data_dir, name) / "refs.npz"
        if not path.exists():
            have = known_decks(data_dir)
            raise DeckNotFound(f"no deck named {name!r} is enrolled"
                               + (f" (enrolled: {', '.join(have)})" if have else " (none is; run hongsi vision enroll)"))
        try:
            with np.load(path) as z:
                looks = (z["looks"], z["look_labels"].astype(np.int64)) if "looks" in z.files else (None, None)
                return cls(z["embeddings"].astype(np.float32), z["labels"].astype(np.int64), str(z["model"]), *looks)
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:  # cut short, or not ours
            raise EnrolError(f"deck {name!r}: its references ({path}) are damaged ({type(exc).__name__}): "
                             "enrol it again with --replace, or move that file away") from None

    def merged(self, other: DeckRefs | None) -> DeckRefs:
        if other is None or other.model != self.model:
            return self
        looks = [r for r in (other, self) if r.looks is not None]
        emb, labels = _distinct(np.concatenate([other.embeddings, self.embeddings]),
                                np.concatenate([other.labels, self.labels]))
        if not looks:
            return DeckRefs(emb, labels, self.model)
        return DeckRefs(emb, labels, self.model, *_distinct(np.concatenate([r.looks for r in looks]),
                                                           np.concatenate([r.look_labels for r in looks])))

    def whole_cards(self) -> bool:
        """Whether every enrolled card has a whole-card look (a deck enrolled from corner crops has none)."""
        return self.looks is not None and set(self.labels.tolist()) <= set(self.look_labels.tolist())

    def missing(self) -> list[str]:
        have = {LABELS[int(i)] for i in self.labels}
        return [label for label in SUIT_CARDS if label not in have]

    def save(self, data_dir: Path, name: str) -> Path:
        """Write atomically (a temporary file renamed over the old one: a crash loses nothing)."""
        folder = deck_dir(data_dir, name)
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(suffix=".npz", dir=folder)
        os.close(fd)
        looks = {} if self.looks is None else {"looks": self.looks, "look_labels": self.look_labels}
        path = folder / "refs.npz"
        try:
            np.savez(tmp, embeddings=self.embeddings, labels=self.labels, model=np.array(self.model), **looks)
            os.replace(tmp, path)
        except BaseException:  # a full disk: the old file stays, and no half-written one is left beside it
            Path(tmp).unlink(missing_ok=True)
            raise
        return path


def _distinct(rows: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``rows`` and their ``labels`` without exact repeats, in first-seen order: the same photos enrolled
    twice must not double the deck's file at every re-enrolment."""
    flat = np.ascontiguousarray(rows.reshape(len(rows), -1))
    keys = [labels[i].tobytes() + flat[i].tobytes() for i in range(len(rows))]
    first = sorted({k: i for i, k in reversed(list(enumerate(keys)))}.values())
    return rows[first], labels[first]


class Embedder:
    """The reader's first model with its embedding exposed (an extra graph output if it has none)."""

    def __init__(self, model_path: Path, threads: int = 1) -> None:
        import onnx
        import onnxruntime as ort

        model = onnx.load(str(model_path))
        outputs = [o.name for o in model.graph.output]
        if "embed" in outputs:
            self.name, self.normalise = "embed", False
        else:
            card_head = next(n for n in model.graph.node if n.output and n.output[0] == _producer(model, "card"))
            self.name, self.normalise = card_head.input[0], True
            model.graph.output.append(onnx.helper.make_empty_tensor_value_info(self.name))
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        self.session = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
        self.size = self.session.get_inputs()[0].shape[-1]
        if not isinstance(self.size, int):
            self.size = 32
        self.digest = model_digest(model_path)

    def __call__(self, crops: list[np.ndarray]) -> np.ndarray:
        """(n, d) unit-length embeddings of corner crops."""
        from vision.corner_data import to_input

        x = np.stack([to_input(c, self.size) for c in crops]).astype(np.float32).transpose(0, 3, 1, 2)
        (f,) = self.session.run([self.name], {"image": np.ascontiguousarray(x)})
        f = f.reshape(len(crops), -1).astype(np.float32)
        return f / (np.linalg.norm(f, axis=1, keepdims=True) + 1e-6)


def _producer(model, output: str) -> str:
    """The input of the node that makes graph output ``output`` (the card head's Gemm before its Softmax)."""
    node = next(n for n in model.graph.node if output in n.output)
    return node.input[0]


def corners_of(image: np.ndarray, kind: str, outlines: dict | None = None) -> list[np.ndarray] | None:
    """The corner crops a picture is read from: both indices of the found card (``window`` falls back
    to the card's nominal place), or the picture itself for ``corner``; None if no card is found.
    ``outlines``: outlines already found, by ``id(image)`` (as :meth:`vision.reader.CardReader` keeps them;
    filled in here)."""
    from vision.card_look import found_card

    if kind == "corner":
        return [image]
    found = found_card(image, kind, outlines)
    if found is None and kind == "frame":  # no outline: perhaps the card fills the picture
        card = whole_card(image)
        return None if card is None else whole_card_corners(image) + other_corners(card)
    return None if found is None else found.corners + other_corners(found.card)


def other_corners(card: np.ndarray) -> list[np.ndarray]:
    """The top-right corner and the bottom-left one turned 180°: where some designs (KDE's oxygen) put
    their index, and in any design more of the card's own look for its references to match."""
    from vision.localize import other_corner_crops

    return other_corner_crops(card)


def whole_card(image: np.ndarray) -> np.ndarray | None:
    """A picture that is all card (a tight photo or scan) as the warped card, portrait, BGR; None when
    the picture is not card-shaped."""
    import cv2

    from vision.localize import CARD_WIDTH

    h, w = image.shape[:2]
    if w > h:
        image, (h, w) = np.ascontiguousarray(np.rot90(image)), (w, h)
    if not 1.2 <= h / max(w, 1) <= 1.9:
        return None
    card = cv2.resize(image, (CARD_WIDTH, int(round(CARD_WIDTH * h / w))), interpolation=cv2.INTER_AREA)
    return cv2.cvtColor(card, cv2.COLOR_GRAY2BGR) if card.ndim == 2 else card


def whole_card_corners(image: np.ndarray) -> list[np.ndarray] | None:
    """The two index corners of a picture that is all card (see :func:`whole_card`)."""
    from vision.localize import corner_crops

    card = whole_card(image)
    return None if card is None else corner_crops(card)


def variants(crop: np.ndarray, rng: np.random.Generator, n: int = VARIANTS) -> list[np.ndarray]:
    """The crop and ``n`` others as the localizer may cut it from another photo: shifted, turned a few
    degrees, framed tighter or looser, blurred, lit otherwise. One photo per card then covers more."""
    import cv2

    h, w = crop.shape[:2]
    out = [crop]
    for _ in range(n):
        M = cv2.getRotationMatrix2D((w / 2 + rng.normal(0, 0.03 * w), h / 2 + rng.normal(0, 0.03 * h)),
                                    float(rng.normal(0, 3)), float(rng.uniform(0.9, 1.1)))
        v = cv2.warpAffine(crop, M, (w, h), borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        if rng.random() < 0.5:
            v = cv2.GaussianBlur(v, (0, 0), float(rng.uniform(0.5, 1.5)))
        v = v * rng.uniform(0.7, 1.2) + rng.uniform(-20, 20)
        out.append(np.clip(v, 0, 255).astype(np.uint8))
    return out


def enrol(embedder: Embedder, items: list[tuple[np.ndarray, str, str]], kind: str, seed: int = 0,
          reader=None) -> DeckRefs:
    """References from labelled pictures ``(image, label, name for errors)``: both corners of each, and
    :data:`VARIANTS` variants of each corner; and the whole card's look where its outline is found.
    ``reader`` (:class:`vision.reader.CardReader`): a photo's corners are those its models read
    (:func:`photo_corners`), as :func:`read_with_deck` takes them."""
    from vision.card_look import card_quad, templates

    rng = np.random.default_rng(seed)
    embs, labels, looks, look_labels = [], [], [], []
    for image, label, name in items:
        outlines: dict = {}
        crops = None if float(np.std(image)) < FLAT else photo_corners(image, kind, outlines, reader)
        if crops is None:
            raise EnrolError(f"{name}: no card found in the picture (try --kind corner for a crop of one index)")
        crops = [v for c in crops for v in variants(c, rng)]
        embs.append(embedder(crops))
        labels += [index(label)] * len(crops)
        quad = card_quad(image, kind, outlines)
        if quad is not None:
            looks.append(templates(image, quad))
            look_labels.append(index(label))
    return DeckRefs(np.concatenate(embs), np.asarray(labels, np.int64), embedder.digest,
                    np.stack(looks) if looks else None, np.asarray(look_labels, np.int64) if looks else None)


@dataclass
class DeckReading:
    label: str | None
    confidence: float  # the best card's similarity
    gap: float  # ... minus the next card's
    probs: np.ndarray | None = None  # the pooled (54,) distribution, with the committee (for deck decoding)


def read_with_deck(embedder: Embedder, refs: DeckRefs, image: np.ndarray, kind: str,
                   reader=None) -> DeckReading:
    """The deck's references decide; with a ``reader`` (:class:`vision.reader.CardReader`) its committee's
    probabilities are weighed in too (:func:`combine`)."""
    if refs.model != embedder.digest:
        raise EnrolError("the deck was enrolled with another model: enrol it again")
    outlines: dict = {}
    models = None if reader is None else reader.read_outlined([image], kind, outlines)
    crops = photo_corners(image, kind, outlines, reader, models)
    if crops is None:
        return DeckReading(None, 0.0, 0.0)
    scores = card_scores(embedder(crops), refs)
    if models is None:
        return decide(scores)
    return weigh(refs, [image], kind, scores, models, outlines)[0]


def photo_corners(image: np.ndarray, kind: str, outlines: dict, reader=None, models=None) -> list[np.ndarray] | None:
    """The corners a picture is enrolled or read from: for a photo (``frame``) with a ``reader``, the index
    corners its models read (``models``: that reading, if made already), of the card they chose among
    several places; otherwise, or when they found none, :func:`corners_of`.
    Why: in a tight photo the first outline found is often a frame printed inside the card, whose
    corners show no index; enrolled, they became references that other cards then matched (training
    designs: 10.5 % wrong reads after enrolling from tight photos; docs/vision-decisions.md, "Stop 40")."""
    if kind == "frame" and reader is not None:
        models = reader.read_outlined([image], kind, outlines) if models is None else models
        if models.found and models.crops:
            return list(models.crops)
    return corners_of(image, kind, outlines)


def weigh(refs: DeckRefs, images: list[np.ndarray], kind: str, scores: np.ndarray, models,
          outlines: dict) -> tuple[DeckReading, np.ndarray]:
    """:func:`combine` the deck's ``scores`` with the ``models``' reading (:class:`vision.reader.Reading`) of
    the same pictures and the looks of the deck's nearest cards; when that is unsure, with every card's look.
    Why: on an index no model knows, the corners' nearest cards may all be wrong, and the look can only
    choose among the cards it is shown (neutral on the training designs: docs/vision-decisions.md, "Stop 40")."""
    from vision.reader import is_colourless

    if images and all(is_colourless(im) for im in images):
        # in grey the two jokers differ only by shade, which lighting can fake (as the models treat them)
        jokers = [LABELS.index(j) for j in JOKERS]
        scores = scores.copy()
        scores[jokers] = scores[jokers].max()
    from vision.card_look import nearest

    near = nearest(scores)
    looks = looks_of(refs, images, kind, scores, outlines, near)
    reading, pooled = combine(scores, models.probs, looks, kind)
    if reading.label is None and looks is not None:  # the other cards, each compared once
        rest = looks_of(refs, images, kind, scores, outlines, np.setdiff1d(np.arange(len(LABELS)), near))
        reading, pooled = combine(scores, models.probs, np.maximum(looks, rest), kind)
    return reading, pooled


def looks_of(refs: DeckRefs, images: list[np.ndarray], kind: str, scores: np.ndarray,
             outlines: dict, candidates: np.ndarray | None = None) -> np.ndarray | None:
    """The (54,) whole-card correlations of the ``candidates`` (default: the deck's nearest cards), averaged
    over the pictures whose card was found; None when the deck or the pictures give none."""
    from vision.card_look import card_quad, look_scores, nearest

    if not refs.whole_cards():
        return None
    candidates = nearest(scores) if candidates is None else candidates
    got = [look_scores(im, q, refs.looks, refs.look_labels, candidates)
           for im in images if (q := card_quad(im, kind, outlines)) is not None]
    return np.mean(got, axis=0) if got else None


def card_scores(emb: np.ndarray, refs: DeckRefs) -> np.ndarray:
    """(54,) each card's similarity: its best reference, averaged over the picture's corners (-1 for a
    card with no reference)."""
    # einsum, not @: a product this small through a threaded BLAS took 18 ms on a loaded 2-core machine
    sim = np.einsum("ij,kj->ik", emb, refs.embeddings)  # (corners, refs)
    order = np.argsort(refs.labels, kind="stable")
    labels = refs.labels[order]
    starts = np.flatnonzero(np.r_[True, labels[1:] != labels[:-1]])
    scores = np.full((len(emb), len(LABELS)), -1.0, np.float32)
    scores[:, labels[starts]] = np.maximum.reduceat(sim[:, order], starts, axis=1)
    return scores.mean(axis=0)


def decide(scores: np.ndarray) -> DeckReading:
    order = np.argsort(scores)[::-1]
    best, second = float(scores[order[0]]), float(scores[order[1]])
    sure = best >= MIN_SIMILARITY and best - second >= MIN_GAP
    return DeckReading(LABELS[int(order[0])] if sure else None, best, best - second)


def combine(scores: np.ndarray, probs: np.ndarray, looks: np.ndarray | None = None,
            kind: str = "window") -> tuple[DeckReading, np.ndarray]:
    """The deck's similarities and the committee's (54,) probabilities weighed together: a reference that
    is near tells this deck's look, the models tell indices in general; each catches the other's near
    misses. ``looks``: the whole-card correlations (:func:`looks_of`), weighed in too. ``kind``: a dealer
    frame, or a photo from any camera (``frame``, ``corner``), which has its own rule (:data:`PHOTO_RULE`).
    Returns the reading and the pooled (54,) distribution (for deck decoding)."""
    rule = WINDOW_RULE if kind == "window" else PHOTO_RULE
    logit = scores / rule.tau + np.log(np.asarray(probs, np.float64) + 1e-9)
    if looks is not None:
        logit = logit + np.asarray(looks, np.float64) / TAU_LOOK
    pooled = np.exp(logit - logit.max())
    pooled /= pooled.sum()
    best = int(pooled.argmax())
    own = rule.own or looks is None  # without looks the deck's own nearest card must win
    sure = (pooled[best] >= rule.share and scores[best] >= BASE_SIMILARITY
            and (not own or best == int(np.argmax(scores)))
            and (not rule.models_agree or best == int(np.argmax(probs))))
    second = float(np.partition(scores, -2)[-2])
    pooled = pooled.astype(np.float32)
    return DeckReading(LABELS[best] if sure else None, float(scores[best]), float(scores[best]) - second, pooled), pooled
