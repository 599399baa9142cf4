"""The card reader: localizer + the ONNX corner classifier (onnxruntime only), with declining.

Usage::

    reader = CardReader()                        # the committed model, one intra-op thread
    r = reader.read(frame)                       # the dealer camera's frame (kind="window")
    r.label, r.confidence                        # "H4", 0.99 -- or None when unsure / no card
    r = reader.read(photo, kind="frame")         # one card anywhere on a table, any rotation
    r = reader.read(crop, kind="corner")         # a crop of one corner index, any rotation
    r = reader.read_votes([f1, f2, f3])          # several frames of the same card

``Reading.probs`` is the (54,) distribution over ``LABELS`` (uniform when there is nothing to read), which
is what :func:`vision.decode.decode_deal` takes. ``Reading.crops`` are the corner crops the decision
rests on (the evidence kept in the journal).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.corner_data import MODEL_SIZE, NONE_CLASS, to_input
from vision.labels import LABELS, RANK_CLASSES, SUIT_CLASSES, rank_index, suit_index
from vision.localize import localize, nominal_window_cards

MODEL_PATH = Path(__file__).resolve().parent / "models" / "card_corner.onnx"
KINDS = ("window", "frame", "corner")
# Decline below these confidences (a wrong answer is worse than a declined one).
MIN_CONFIDENCE = {"window": 0.6, "frame": 0.6, "corner": 0.40}
# ... and when the first choice is not clearly ahead of the second (e.g. the two jokers in greyscale).
MIN_MARGIN = 0.1
# How much the rank and suit heads count next to the card head.
AUX_WEIGHT = 0.5

_RANK_OF = np.array([rank_index(label) for label in LABELS])
_SUIT_OF = np.array([suit_index(label) for label in LABELS])
_JOKERS = np.array([LABELS.index("BJ"), LABELS.index("RJ")])
_JOKER_SUITS = np.array([SUIT_CLASSES.index("BJ"), SUIT_CLASSES.index("RJ")])
assert len(RANK_CLASSES) == 14 and len(SUIT_CLASSES) == 6


@dataclass
class Reading:
    label: str | None
    confidence: float
    probs: np.ndarray  # (54,)
    crops: list[np.ndarray] = field(default_factory=list)
    found: bool = True  # False: no card in the frame (e.g. an empty hopper)


def _uniform() -> np.ndarray:
    return np.full(len(LABELS), 1.0 / len(LABELS))


class CardReader:
    """Reads cards from images with the committed ONNX model.

    ``model_path``: another ONNX model; ``threads``: onnxruntime intra-op threads;
    ``min_confidence``: decline thresholds per kind (defaults: :data:`MIN_CONFIDENCE`).
    """

    def __init__(self, model_path: str | Path | None = None, threads: int = 1,
                 min_confidence: dict[str, float] | None = None) -> None:
        import onnxruntime as ort

        path = Path(model_path) if model_path is not None else MODEL_PATH
        if not path.exists():
            raise FileNotFoundError(f"card model not found: {path}")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        self.min_confidence = dict(MIN_CONFIDENCE, **(min_confidence or {}))

    # ------------------------------------------------------------------ the classifier
    def log_probs(self, crops: list[np.ndarray], colourless: bool = False) -> np.ndarray:
        """(n, 55) log-probabilities (54 labels + "no card") for corner crops of any size.
        ``colourless``: the picture has no colour at all (a greyscale camera or photo)."""
        x = np.stack([to_input(c) for c in crops]).astype(np.float32).transpose(0, 3, 1, 2)
        card, rank, suit = self.session.run(None, {"image": np.ascontiguousarray(x)})
        if colourless:  # the two jokers then differ only by shade, which lighting can fake: make them even
            card = card.copy()
            card[:, _JOKERS] = card[:, _JOKERS].mean(axis=1, keepdims=True)
            suit = suit.copy()
            suit[:, _JOKER_SUITS] = suit[:, _JOKER_SUITS].mean(axis=1, keepdims=True)
        lc = np.log(np.clip(card, 1e-7, 1.0))
        aux = np.log(np.clip(rank[:, _RANK_OF], 1e-7, 1.0)) + np.log(np.clip(suit[:, _SUIT_OF], 1e-7, 1.0))
        lc[:, :NONE_CLASS] += AUX_WEIGHT * aux
        lc -= _logsumexp(lc)
        return lc

    def _decide(self, lp: np.ndarray, kind: str, crops: list[np.ndarray]) -> Reading:
        """One reading from the summed log-probabilities of its crops (a geometric mean)."""
        lp = lp - _logsumexp(lp[None])[0]
        p = np.exp(lp)
        probs = p[:NONE_CLASS] / max(p[:NONE_CLASS].sum(), 1e-12)
        best = int(probs.argmax())
        confidence = float(p[best])
        if p[NONE_CLASS] > 0.5:  # the crops show no card index: no card (e.g. an empty hopper)
            if kind == "corner":
                return Reading(None, confidence, probs, crops)
            return Reading(None, 0.0, _uniform(), [], found=False)
        second = float(np.partition(p[:NONE_CLASS], -2)[-2])
        sure = confidence >= self.min_confidence[kind] and confidence - second >= MIN_MARGIN
        label = LABELS[best] if sure else None
        return Reading(label, confidence, probs, crops)

    def _evidence(self, image: np.ndarray, kind: str) -> tuple[np.ndarray, list[np.ndarray]] | None:
        """The mean log-probabilities over the image's crops, and the crops; None if no card."""
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
        if image is None or not isinstance(image, np.ndarray) or image.size == 0:
            raise ValueError("not an image")
        if is_flat(image):  # too dark or too washed out to show an index: unsure, but not "no card"
            return np.full(NONE_CLASS + 1, -np.log(NONE_CLASS + 1.0)), [image]
        grey = is_colourless(image)
        if kind == "corner":
            return self._as_corner(image, grey, framings=True)
        found = localize(image)
        if found is not None:
            lp = _pool_corners(self.log_probs(found.corners, grey))
            if kind == "frame" and np.exp(lp[:NONE_CLASS].max()) < self.min_confidence[kind]:
                # an unsure outline in a photo may be the wrong shape (a close-up of the index, a box
                # on the table): the picture read as one corner may say more
                lp2, crops2 = self._as_corner(image, grey)
                if lp2[:NONE_CLASS].max() > lp[:NONE_CLASS].max() and np.exp(lp2[NONE_CLASS]) < 0.5:
                    return lp2, crops2
            return lp, found.corners
        if kind == "window":  # the outline was lost: read the card where the rig holds it
            best = None
            for guess in nominal_window_cards(image):
                lp = _pool_corners(self.log_probs(guess.corners, grey))
                if best is None or lp[:NONE_CLASS].max() > best[0][:NONE_CLASS].max():
                    best = (lp, guess.corners)
            if best is not None and np.exp(best[0][NONE_CLASS]) > 0.5:
                return None  # nothing there: an empty hopper
            return best
        # no card outline in a photo: perhaps it is a close-up of the index itself
        lp, crops = self._as_corner(image, grey)
        return None if np.exp(lp[NONE_CLASS]) > 0.5 else (lp, crops)

    def _as_corner(self, image: np.ndarray, grey: bool, framings: bool = False) -> tuple[np.ndarray, list[np.ndarray]]:
        """A picture of one corner index, read at every quarter turn, the evidence pooled;
        ``framings``: also at a tighter and a looser framing (how much margin a crop has is unknown)."""
        views = corner_framings(image) if framings else [image]
        crops = [np.ascontiguousarray(np.rot90(to_input(view), k)) for view in views for k in range(4)]
        return self.log_probs(crops, grey).mean(axis=0), [image]

    # ------------------------------------------------------------------ public
    def read(self, image: np.ndarray, kind: str = "window") -> Reading:
        """Read one image. ``kind``: ``window`` (the dealer camera), ``frame`` (a card anywhere in a
        photo) or ``corner`` (a crop of one corner index)."""
        ev = self._evidence(image, kind)
        if ev is None:
            return Reading(None, 0.0, _uniform(), [], found=False)
        return self._decide(ev[0], kind, ev[1])

    def read_votes(self, frames: list[np.ndarray], kind: str = "window") -> Reading:
        """One reading from several frames of the same card: their evidence is pooled (frames
        without a card are skipped); declines if no frame shows a card or the pool is unsure."""
        lps, crops = [], []
        for f in frames:
            ev = self._evidence(f, kind)
            if ev is not None:
                lps.append(ev[0])
                crops += ev[1]
        if not lps:
            return Reading(None, 0.0, _uniform(), [], found=False)
        return self._decide(np.mean(lps, axis=0), kind, crops)


def corner_framings(image: np.ndarray) -> list[np.ndarray]:
    """A corner crop as it is, with a 7% margin cut off each side, and with 8% of margin added
    (its edge pixels repeated): a crop may hold the index tightly or loosely.

    >>> [v.shape[:2] for v in corner_framings(np.zeros((100, 50, 3), np.uint8))]
    [(100, 50), (86, 44), (116, 58)]
    """
    h, w = image.shape[:2]
    cy, cx = int(h * 0.07), int(w * 0.07)
    views = [image]
    if h - 2 * cy >= 8 and w - 2 * cx >= 8:
        views.append(image[cy:h - cy, cx:w - cx])
    py, px = int(h * 0.08), int(w * 0.08)
    views.append(cv2.copyMakeBorder(image, py, py, px, px, cv2.BORDER_REPLICATE))
    return views


def _pool_corners(lp: np.ndarray) -> np.ndarray:
    """One card's evidence from its corners: the mean log-probabilities of the corners that show an
    index (one may be covered by a thumb, glare or a bad cut); all of them if none does."""
    shows = lp[:, NONE_CLASS] < np.log(0.5)
    return (lp[shows] if shows.any() else lp).mean(axis=0)


def is_colourless(image: np.ndarray) -> bool:
    """True for a greyscale picture (one channel, or three nearly equal ones): at most 1% of a
    sample of its pixels differ between channels by 12 levels or more."""
    if image.ndim == 2 or image.shape[2] == 1:
        return True
    small = np.ascontiguousarray(image[:: max(1, image.shape[0] // 64), :: max(1, image.shape[1] // 64), :3])
    b, g, r = cv2.split(small)
    spread = cv2.add(cv2.absdiff(b, g), cv2.absdiff(g, r))  # saturates at 255, far above the limit
    return int(np.count_nonzero(spread >= 12)) <= 0.01 * spread.size


def is_flat(image: np.ndarray, min_range: int = 8) -> bool:
    """True for a picture whose brightness spans fewer than ``min_range`` levels (after a 3x3 blur
    against pixel noise): too dark or washed out to show an index, e.g. a camera left at a far too
    short exposure. The reader declines such a picture rather than read its noise."""
    small = image[:: max(1, image.shape[0] // 64), :: max(1, image.shape[1] // 64)]
    if small.ndim == 3:
        small = cv2.cvtColor(np.ascontiguousarray(small[..., :3]), cv2.COLOR_BGR2GRAY)
    lo, hi, _, _ = cv2.minMaxLoc(cv2.blur(np.ascontiguousarray(small), (3, 3)))
    return hi - lo < min_range


def _logsumexp(a: np.ndarray) -> np.ndarray:
    mx = a.max(axis=-1, keepdims=True)
    return mx + np.log(np.exp(a - mx).sum(axis=-1, keepdims=True))


__all__ = ["CardReader", "Reading", "MODEL_PATH", "MODEL_SIZE", "KINDS"]
