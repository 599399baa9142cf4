"""The card reader: localizer + the ONNX corner classifier (onnxruntime only), with declining.

Usage::

    reader = CardReader()                        # the committed model, one intra-op thread
    r = reader.read(frame)                       # the dealer camera's frame (kind="window")
    r.label, r.confidence                        # "H4", 0.99 -- or None when unsure / no card
    r = reader.read(photo, kind="frame")         # one card anywhere on a table, any rotation
    r = reader.read(crop, kind="corner")         # a crop of one corner index, any rotation
    r = reader.read_votes([f1, f2, f3])          # several frames of the same card

Pictures from cameras the rig does not know (``frame`` and ``corner``) are read by a committee of
independently trained models (:data:`COMMITTEE_PATHS`): their evidence is pooled, and the reading is
declined unless enough members pick the pooled card and its pooled probability is high enough
(:data:`DECLINE_POLICY`, chosen per kind by measured risk on held-out designs; a photo read from its plain
outline, with a clear corner, by its own policy). Near-clones of one network agree where the picture
is clear and part ways where it is not (a dark, motion-blurred webcam crop), which a single model's
confidence does not show. The dealer camera's ``window`` frames, a view the models are trained on,
are read by the first member alone, inside the rig's time budget; only a frame it is not sure of
(below :data:`CONSULT_BELOW`, a few in a hundred) is read again by all of them, their evidence pooled
and judged by the window's policy. A card whose top-left and bottom-right corners show no clear index is
also read at its top-right and bottom-left corners (where some designs print it). A photo taken so close
that the card fills it or is cut by its edge (its outline lost, or found at a court card's picture frame)
is read where such a card lies, or from the outline a search counting the picture's edge as a side finds.

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
from vision.enroll import whole_card
from vision.labels import LABELS, RANK_CLASSES, SUIT_CLASSES, rank_index, suit_index
from vision.localize import (
    corner_crops,
    filling_cards,
    grown_quad,
    localize,
    nominal_window_cards,
    other_corner_crops,
    warp_card,
)

MODEL_DIR = Path(__file__).resolve().parent / "models"
MODEL_PATH = MODEL_DIR / "card_corner.onnx"  # the first member: the one the dealer camera uses
COMMITTEE_PATHS = (MODEL_PATH,
                   MODEL_DIR / "card_corner_b.onnx",  # b learnt from webcam-coded crops and rounder spades (--sensor-codec --pip-shapes)
                   MODEL_DIR / "card_corner_c.onnx",  # c also saw rounder spades (train.py --pip-shapes)
                   MODEL_DIR / "card_corner_d.onnx",  # d white-balances each crop first (train.py --norm channel)
                   MODEL_DIR / "card_corner_e.onnx")  # e reads 48 x 48 crops (train.py --size 48)
KINDS = ("window", "frame", "corner")
COMMITTEE_KINDS = ("frame", "corner")  # pictures from unknown cameras: always read by the whole committee


@dataclass(frozen=True)
class Policy:
    """When the committee's pooled reading is answered: at least ``agree`` members pick its first card
    and its pooled probability is at least ``confidence`` (and it leads the second by MIN_MARGIN)."""
    agree: int
    confidence: float


# Chosen by measured risk on held-out calibration designs (docs/vision-decisions.md, stop 27;
# benchmarks/vision_policy.py). ``corner`` had no held-out designs to calibrate on: unanimity stays.
# "outlined": a photo whose card the plain outline search found, one of its index corners clear (the first path,
# no fallback placement): its evidence is a well-framed card's, and a lone dissent there is mostly member e's, the
# one member never trained on real card art. Chosen by stop 27's procedure on calibration designs with no more wrong
# answers than before (docs/vision-decisions.md, stop 42; benchmarks/vision_outlined_policy.py).
DECLINE_POLICY = {"window": Policy(3, 0.7), "frame": Policy(5, 0.8), "corner": Policy(5, 0.40),
                  "outlined": Policy(4, 0.8)}
# A dealer-window read less sure than this is read again by the whole committee, their evidence pooled.
CONSULT_BELOW = 0.99
# Decline below these confidences (a wrong answer is worse than a declined one).
MIN_CONFIDENCE = {"window": 0.6, "frame": 0.6, "corner": 0.40}
# ... and when the first choice is not clearly ahead of the second (e.g. the two jokers in greyscale).
MIN_MARGIN = 0.1
# A corner crop's width / height (vision.localize's CORNER_W / CORNER_H): the unit of an evidence strip.
STRIP_ASPECT = 0.34 / 0.52
# A photo's outline whose corners show no clear index may be a frame printed inside the card: the card is
# also read with the outline grown by these shares of its short side (the printed frames of real decks lie
# 4-12 % of the card's width inside its edge).
GROW_MARGINS = (0.06, 0.12)
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

    ``model_path``: read with this ONNX model alone (plus ``committee``, if given); by default the
    committed models, :data:`COMMITTEE_PATHS`. ``threads``: onnxruntime intra-op threads;
    ``min_confidence``: decline thresholds per kind (defaults: :data:`MIN_CONFIDENCE`).
    """

    def __init__(self, model_path: str | Path | None = None, threads: int = 1,
                 min_confidence: dict[str, float] | None = None,
                 committee: list[str | Path] | tuple[str | Path, ...] = ()) -> None:
        import onnxruntime as ort

        if model_path is None and not committee:
            paths = [MODEL_PATH] + [p for p in COMMITTEE_PATHS[1:] if p.exists()]
        else:
            paths = [Path(p) for p in ([model_path] if model_path is not None else []) + list(committee)]
        for path in paths:
            if not path.exists():
                raise FileNotFoundError(f"card model not found: {path}")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        self.paths = paths
        self._open = lambda path: ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        self.session = self._open(paths[0])
        self._sessions: list | None = None  # the whole committee, opened when first needed
        self.min_confidence = dict(MIN_CONFIDENCE, **(min_confidence or {}))
        self.policy = dict(DECLINE_POLICY)
        self.deck = None  # (embedder, references) of an enrolled deck: see use_deck

    @property
    def sessions(self) -> list:
        """The committee's onnxruntime sessions, the first model's first."""
        if self._sessions is None:
            self._sessions = [self.session] + [self._open(p) for p in self.paths[1:]]
        return self._sessions

    # ------------------------------------------------------------------ the classifier
    def log_probs(self, crops: list[np.ndarray], colourless: bool = False, turns: bool = False) -> np.ndarray:
        """(n, 55) log-probabilities (54 labels + "no card") by the first model, for corner crops of
        any size. ``colourless``: the picture has no colour at all (a greyscale camera or photo);
        ``turns``: read each crop at its four quarter turns (4n rows, crop by crop)."""
        return self._member_log_probs(self.session, self._batch(crops, _input_size(self.session), turns), colourless)

    def committee_log_probs(self, crops: list[np.ndarray], colourless: bool = False, turns: bool = False) -> np.ndarray:
        """(members, n, 55): :meth:`log_probs` by every model of the committee (each crop resized to
        each model's input size)."""
        batches: dict[int, np.ndarray] = {}
        out = []
        for s in self.sessions:
            size = _input_size(s)
            if size not in batches:
                batches[size] = self._batch(crops, size, turns)
            out.append(self._member_log_probs(s, batches[size], colourless))
        return np.stack(out)

    def _lp(self, crops: list[np.ndarray], colourless: bool, kind: str, everyone: bool = False,
            turns: bool = False) -> np.ndarray:
        """(members, n, 55) for this kind of picture: the whole committee, or the first model alone
        (``everyone``: the whole committee whatever the kind)."""
        if everyone or kind in COMMITTEE_KINDS:
            return self.committee_log_probs(crops, colourless, turns)
        return self.log_probs(crops, colourless, turns)[None]

    @staticmethod
    def _batch(crops: list[np.ndarray], size: int, turns: bool = False) -> np.ndarray:
        """The crops resized to a model's input (``turns``: each at its four quarter turns), as one
        float32 NCHW batch."""
        x = [to_input(c, size) for c in crops]
        if turns:
            x = [np.rot90(c, k) for c in x for k in range(4)]
        x = np.stack(x).astype(np.float32).transpose(0, 3, 1, 2)
        return np.ascontiguousarray(x)

    @staticmethod
    def _member_log_probs(session, x: np.ndarray, colourless: bool) -> np.ndarray:
        card, rank, suit = session.run(["card", "rank", "suit"], {"image": x})
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

    def _decide(self, lp: np.ndarray, kind: str, crops: list[np.ndarray], outlined: bool = False) -> Reading:
        """One reading from the evidence of its crops: (members, 55) log-probabilities, each the mean
        over the crops. The members are pooled (a geometric mean) and judged by the kind's policy
        (``outlined``: a photo read from its plain outline, the ``outlined`` policy)."""
        f = pooled_features(lp)
        p, probs, best, confidence = f.p, f.probs, f.best, f.confidence
        if p[NONE_CLASS] > 0.5:  # the crops show no card index: no card (e.g. an empty hopper)
            if kind == "corner":
                return Reading(None, confidence, probs, crops)
            return Reading(None, 0.0, _uniform(), [], found=False)
        sure = f.margin >= MIN_MARGIN and confidence >= self.min_confidence[kind]
        if f.members > 1:  # a committee: the policy set by measured risk
            policy = self.policy["outlined" if outlined and kind == "frame" else kind]
            sure = f.margin >= MIN_MARGIN and f.agree >= min(policy.agree, f.members) and confidence >= policy.confidence
        label = LABELS[best] if sure else None
        return Reading(label, confidence, probs, crops)

    def _evidence(self, image: np.ndarray, kind: str, everyone: bool = False, outlines: dict | None = None,
                  outlined: set | None = None) -> tuple[np.ndarray, list[np.ndarray]] | None:
        """The image's evidence, (members, 55) mean log-probabilities over its crops, and the crops;
        None if there is no card. ``everyone``: read by the whole committee whatever the kind;
        ``outlines``: the card outlines already found, by ``id(image)`` (a second look at the same
        frames need not search again); ``outlined``: gets ``id(image)`` when a photo's evidence is its
        plain outline's with a clear corner (judged by the ``outlined`` policy)."""
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
        if image is None or not isinstance(image, np.ndarray) or image.size == 0:
            raise ValueError("not an image")
        if is_flat(image):  # too dark or too washed out to show an index: unsure, but not "no card"
            return np.full((self._members(kind, everyone), NONE_CLASS + 1), -np.log(NONE_CLASS + 1.0)), [image]
        if kind == "corner" and self.is_strip(image):  # several indices side by side: no one card to answer
            return np.full((self._members(kind, everyone), NONE_CLASS + 1), -np.log(NONE_CLASS + 1.0)), [image]
        grey = is_colourless(image)
        if kind == "corner":
            return self._as_corner(image, grey, kind, framings=True)
        outlines = {} if outlines is None else outlines
        if id(image) not in outlines:
            outlines[id(image)] = localize(image)
        found = outlines[id(image)]
        if found is not None:
            per_corner, corners = self._diagonal(found.card, found.corners, grey, kind, everyone)
            lp = _pool_corners(per_corner)
            if kind == "frame" and not self._a_corner_is_clear(per_corner):
                # an outline in a photo none of whose corners shows a clear index may be the wrong
                # shape (a close-up of the index, a box on the table): the picture read as one corner
                # may say more; or it is a court card's picture frame, and the card, cut by the picture's
                # edge, has an outline only a thorough search finds
                surest = _best_label(lp, jokers_as_one=True)
                cut = localize(image, thorough=True)
                cards = [cut.card] if cut is not None and np.abs(cut.quad - found.quad).max() > 2 else []
                # or the outline is a frame printed inside the card: the card's edge lies a little outside
                cards += [warp_card(image, grown_quad(found.quad, m))[0] for m in GROW_MARGINS]
                better = self._clearest(cards, grey, kind, everyone)
                if better is not None and _best_label(better[0], jokers_as_one=True) > surest:
                    return better
                lp2, crops2 = self._as_corner(image, grey, kind)
                if (
                    _best_label(lp2, jokers_as_one=True) > surest
                    and _no_card(lp2) < 0.5
                    and not _a_joker(lp2)
                ):
                    return lp2, crops2
                if _a_joker(lp):  # a real joker shows a clear JOKER corner; a card's back pooled may not
                    return np.full_like(lp, -np.log(NONE_CLASS + 1.0)), corners
            elif kind == "frame" and outlined is not None:
                outlined.add(id(image))
            return lp, corners
        if kind == "window":  # the outline was lost: read the card where the rig holds it
            best = None
            for guess in nominal_window_cards(image):
                per_corner, corners = self._diagonal(guess.card, guess.corners, grey, kind, everyone)
                lp = _pool_corners(per_corner)
                if best is None or _best_label(lp) > _best_label(best[0]):
                    best = (lp, corners)
            if best is not None and _no_card(best[0]) > 0.5:
                return None  # nothing there: an empty hopper
            return best
        # no card outline in a photo: perhaps the card fills the picture (a tight photo or scan)
        filling = self._filling(image, grey, kind, everyone)
        if filling is not None:
            return filling
        # ... or a close-up of the index itself
        lp, crops = self._as_corner(image, grey, kind)
        if _no_card(lp) > 0.5:
            return None
        if _a_joker(lp):  # see _a_joker: unsure, but something is there
            return np.full_like(lp, -np.log(NONE_CLASS + 1.0)), crops
        return lp, crops

    def _filling(
        self, image: np.ndarray, grey: bool, kind: str, everyone: bool
    ) -> tuple[np.ndarray, list[np.ndarray]] | None:
        """The evidence of a card that fills the picture, of the places it may lie: the outline a thorough
        search finds (a card cut by the picture's edge), :func:`vision.localize.filling_cards`, the whole
        picture (see :meth:`_clearest`)."""
        cut = localize(image, thorough=True)
        cards = ([cut.card] if cut is not None else []) + [c.card for c in filling_cards(image)]
        whole = whole_card(image)
        if whole is not None:
            cards.append(whole)
        return self._clearest(cards, grey, kind, everyone)

    def _clearest(
        self, cards: list[np.ndarray], grey: bool, kind: str, everyone: bool
    ) -> tuple[np.ndarray, list[np.ndarray]] | None:
        """Of these warped cards, the evidence of the one whose corners name a card most surely, and its
        crops; None if none has a clear corner (a joker counts only where a corner shows it clearly)."""
        best, best_score = None, -np.inf
        for card in cards:
            per_corner, crops = self._diagonal(card, corner_crops(card), grey, kind, everyone)
            if not self._a_corner_is_clear(per_corner):
                continue
            lp = _pool_corners(per_corner)
            if _a_joker(lp) and not _joker_corner_is_clear(per_corner, self.min_confidence["frame"]):
                continue
            score = _best_label(lp, jokers_as_one=True)
            if score > best_score:
                best, best_score = (lp, crops), score
        return best

    def is_strip(self, image: np.ndarray, min_pieces: int = 4) -> bool:
        """A strip of corner crops side by side (a dealer read's evidence image, as the journal keeps it),
        not one corner: as wide as a whole number (``min_pieces`` or more) of corner crops of its height,
        and each such piece but at most one reads as a card index by itself. Read as one corner, a strip
        pools several indices into nonsense (a joker at 0.95 in a deck without jokers). On the 1,614
        real ``fit`` crops (some stretched to 5:1 by their exporter) it declines none."""
        h, w = image.shape[:2]
        n = round(w / (STRIP_ASPECT * h)) if h else 0
        if n < min_pieces or abs(w / (n * STRIP_ASPECT * h) - 1) > 0.12:
            return False
        p = np.exp(self.log_probs([image[:, k * w // n:(k + 1) * w // n] for k in range(n)]))
        readable = (p[:, :NONE_CLASS].max(axis=1) >= 0.6) & (p[:, NONE_CLASS] < 0.5)
        return int(readable.sum()) >= n - 1

    def _members(self, kind: str, everyone: bool = False) -> int:
        """How many models read this kind of picture."""
        return len(self.paths) if everyone or kind in COMMITTEE_KINDS else 1

    def _a_corner_is_clear(self, per_corner: np.ndarray) -> bool:
        """Some corner, read alone, shows a card surely enough to answer (the jokers as one card)."""
        return bool(np.exp(_clearest_corner(per_corner)) >= self.min_confidence["frame"])

    def _diagonal(self, card: np.ndarray, corners: list[np.ndarray], grey: bool, kind: str,
                  everyone: bool) -> tuple[np.ndarray, list[np.ndarray]]:
        """(members, 2, 55) evidence of the card's index corners and the crops: top-left and bottom-right,
        or, when neither of those is clear, top-right and bottom-left if those two together show a card
        better (some designs, KDE's oxygen decks, print their index there, or the rank alone at one and the
        suit alone at the other: neither corner is clear alone, but their product is). The other diagonal
        is read only then, so a clear card costs nothing more."""
        lp = self._lp(corners, grey, kind, everyone)
        if self._a_corner_is_clear(lp):
            return lp, corners
        others = other_corner_crops(card)
        lp2 = self._lp(others, grey, kind, everyone)
        if _best_label(_pool_corners(lp2), jokers_as_one=True) > _best_label(_pool_corners(lp), jokers_as_one=True):
            return lp2, others
        return lp, corners

    def _as_corner(self, image: np.ndarray, grey: bool, kind: str,
                   framings: bool = False) -> tuple[np.ndarray, list[np.ndarray]]:
        """A picture of one corner index, read at every quarter turn, the evidence pooled;
        ``framings``: also at a tighter and a looser framing (how much margin a crop has is unknown)."""
        views = corner_framings(image) if framings else [image]
        return self._lp(views, grey, kind, turns=True).mean(axis=1), [image]

    # ------------------------------------------------------------------ public
    def read(self, image: np.ndarray, kind: str = "window") -> Reading:
        """Read one image. ``kind``: ``window`` (the dealer camera), ``frame`` (a card anywhere in a
        photo) or ``corner`` (a crop of one corner index)."""
        return self.read_votes([image], kind)

    def member_choices(self, image: np.ndarray, kind: str = "corner") -> list[str | None]:
        """Each member's first choice for the image (one for a ``window`` frame, which the first
        model reads alone); None where there is no card. Shows why the committee declined."""
        ev = self._evidence(image, kind)
        if ev is None:
            return [None] * self._members(kind)
        return [LABELS[int(i)] for i in ev[0][:, :NONE_CLASS].argmax(axis=1)]

    def use_deck(self, refs) -> None:
        """Read from now on with an enrolled deck's references (:class:`vision.enroll.DeckRefs`; None:
        the models alone again). EnrolError if they were made with another first model."""
        from vision.enroll import Embedder, EnrolError

        if refs is None:
            self.deck = None
            return
        embedder = Embedder(self.paths[0])
        if refs.model != embedder.digest:
            raise EnrolError("the deck was enrolled with another model: enrol it again")
        self.deck = (embedder, refs)

    def _read_with_deck(self, frames: list[np.ndarray], kind: str) -> Reading:
        """The frames' corners compared with the deck's references, the scores averaged over frames;
        ``probs`` a softmax of the similarities (sharp: a clear nearest card takes nearly all), which
        deck decoding takes as it takes the models' probabilities."""
        from vision.enroll import card_scores, corners_of, weigh

        embedder, refs = self.deck
        outlines: dict = {}  # each frame's outline found once, for the deck and the models
        models = self._models(frames, kind, outlines)  # the committee's view of the same frames, weighed in
        if kind == "frame" and models.found and models.crops:  # a photo: the corners the models chose
            scores, crops = [card_scores(embedder(models.crops), refs)], models.crops
        else:
            scores, crops = [], []
            for f in frames:
                c = corners_of(f, kind, outlines)
                if c is not None:
                    scores.append(card_scores(embedder(c), refs))
                    crops += c
        if not scores:
            return Reading(None, 0.0, _uniform(), [], found=False)
        score = np.mean(scores, axis=0)
        d, probs = weigh(refs, frames, kind, score, models, outlines)
        return Reading(d.label, d.confidence, probs, crops)

    def read_votes(self, frames: list[np.ndarray], kind: str = "window") -> Reading:
        """One reading from several frames of the same card: their evidence is pooled (frames
        without a card are skipped); declines if no frame shows a card or the pool is unsure. A
        dealer-window reading below :data:`CONSULT_BELOW` is made again by the whole committee.
        With a deck (:meth:`use_deck`), the deck's references decide."""
        if getattr(self, "deck", None) is not None:
            return self._read_with_deck(frames, kind)
        return self._models(frames, kind)

    def read_outlined(self, frames: list[np.ndarray], kind: str, outlines: dict) -> Reading:
        """The models' reading (no deck), sharing the outlines found in ``outlines`` by ``id(image)``; its
        ``crops`` are the index corners it read, of the card it chose (for a photo: among several places)."""
        return self._models(frames, kind, outlines)

    def _models(self, frames: list[np.ndarray], kind: str, outlines: dict | None = None) -> Reading:
        """The models' reading (no deck): the first model, the committee consulted when it is unsure."""
        outlines = {} if outlines is None else outlines
        reading = self._pooled(frames, kind, outlines)
        if (kind == "window" and reading.found and len(self.paths) > 1
                and (reading.label is None or reading.confidence < CONSULT_BELOW)):
            reading = self._pooled(frames, kind, outlines, everyone=True)
        return reading

    def _pooled(self, frames: list[np.ndarray], kind: str, outlines: dict, everyone: bool = False) -> Reading:
        lps, crops, seen, outlined = [], [], [], set()
        for f in frames:
            ev = self._evidence(f, kind, everyone, outlines, outlined)
            if ev is not None:
                lps.append(ev[0])
                crops += ev[1]
                seen.append(id(f))
        if not lps:
            return Reading(None, 0.0, _uniform(), [], found=False)
        return self._decide(np.mean(lps, axis=0), kind, crops, outlined=all(i in outlined for i in seen))


def _input_size(session) -> int:
    """The pixels a side of a model's input, read off its graph (most members read 32 x 32 crops)."""
    size = session.get_inputs()[0].shape[-1]
    return size if isinstance(size, int) else MODEL_SIZE


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


@dataclass(frozen=True)
class Pooled:
    """The committee's evidence pooled (a geometric mean of the members)."""
    p: np.ndarray  # (55,) incl. "no card"
    probs: np.ndarray  # (54,) over LABELS
    best: int
    confidence: float
    margin: float  # over the second card
    agree: int  # members whose own first card is ``best``
    members: int


def pooled_features(lp: np.ndarray) -> Pooled:
    """What a decline policy looks at, from (members, 55) log-probabilities."""
    lp = lp - _logsumexp(lp)
    pooled = lp.mean(axis=0)
    p = np.exp(pooled - _logsumexp(pooled[None])[0])
    probs = p[:NONE_CLASS] / max(p[:NONE_CLASS].sum(), 1e-12)
    best = int(probs.argmax())
    second = float(np.partition(p[:NONE_CLASS], -2)[-2])
    agree = int((lp[:, :NONE_CLASS].argmax(axis=1) == best).sum())
    return Pooled(p, probs, best, float(p[best]), float(p[best]) - second, agree, lp.shape[0])


def _clearest_corner(per_corner: np.ndarray) -> float:
    """The best log-probability any one corner shows a card with (the jokers as one card)."""
    return max(_best_label(per_corner[:, k], jokers_as_one=True) for k in range(per_corner.shape[1]))


def _a_joker(lp: np.ndarray) -> bool:
    """Whether the pooled evidence's first choice is a joker. In a photo (``frame``) a joker is answered only
    from a card outline with a corner that shows it clearly: never from the whole photo read as one corner
    (no outline, or one none of whose corners is clear), nor from unclear corners pooled. The word JOKER, a
    column of letters with no pip, is what a card's patterned back, a busy cloth, two cards or a steeply
    tilted card most resemble when read as an index (34 of 35 wrong answers on hard rendered photos)."""
    return LABELS[int(lp.mean(axis=0)[:NONE_CLASS].argmax())] in ("BJ", "RJ")


def _joker_corner_is_clear(per_corner: np.ndarray, min_confidence: float) -> bool:
    """Some corner alone reads as a joker surely enough (a JOKER index, not art pooled)."""
    mean = per_corner.mean(axis=0)  # (corners, 55)
    return bool((np.exp(mean[:, _JOKERS]).sum(axis=1) >= min_confidence).any())


def _pool_corners(lp: np.ndarray) -> np.ndarray:
    """One card's evidence from its corners, (members, 55) from (members, corners, 55): the mean
    log-probabilities of the corners that show an index (one may be covered by a thumb, glare or a bad
    cut); all of them if none does."""
    shows = lp.mean(axis=0)[:, NONE_CLASS] < np.log(0.5)
    return (lp[:, shows] if shows.any() else lp).mean(axis=1)


def _best_label(lp: np.ndarray, jokers_as_one: bool = False) -> float:
    """The members' mean log-probability of their likeliest card; ``jokers_as_one``: the two jokers
    counted as one card (in greyscale a joker is sure to be one, and only its colour is open)."""
    mean = lp.mean(axis=0)[:NONE_CLASS]
    if not jokers_as_one:
        return float(mean.max())
    return float(max(np.delete(mean, _JOKERS).max(), np.logaddexp(*mean[_JOKERS])))


def _no_card(lp: np.ndarray) -> float:
    """The members' mean probability that the crops show no card index."""
    return float(np.exp(lp.mean(axis=0)[NONE_CLASS]))


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


__all__ = ["CardReader", "Reading", "MODEL_PATH", "COMMITTEE_PATHS", "MODEL_SIZE", "KINDS"]
