"""One play read from the play area: the cards added between two settled pictures (issue 29).

>>> r = read_play(before, after, [["S3"], ["S3", "H3"]])     # doctest: +SKIP
>>> r.labels, r.confidence                                   # ("H3", "S3"), 0.97 -- labels None: ask

The new cards are read by difference, with the seat's legal plays as the constraint:
:func:`vision.play_weigh.weigh` reads only the ink that is new in ``after`` (each new index turned
upright, the committee's evidence pooled, a card's two corners merged) and weighs every option
against it. The best option is answered only when it also *explains everything new*:

1. each of its cards is read surely (:data:`SURE`; :data:`SURE_ONLY` when it is the seat's only legal
   play) on an index of its own: two copies of a card (two decks) need two indices, and a card nobody
   read is not assumed;
2. no new index reads a card the play does not hold more surely than the play's own are read (a
   pip cluster may read as a card, but less surely than a real index), and no legal play that holds
   it and more has its other cards read on new indices (:data:`OTHER`);
3. no bigger legal play holds it (that play's other card may lie unread in the fan, or squarely under
   the one card read: from above, a pair squared up is its top card);
4. the change is as big as its cards: one card leaves a change no bigger than a card (``card``: its
   long and short sides, when the caller has measured them; else a filled rectangle of a card's
   proportions, :func:`one_card_shape`), and no play covers more than its cards could.

5. on the indices alone, a single card is read at both its corners and a joker not at all (on designs
   whose indices the models do not know, stray ink reads surely as a joker or a court card), unless the
   seat's hand as dealt is given and each joker is read at both its corners; a
   single card's whole-card reading (``kind="frame"``, once the table's card size is known) may stand
   in, and is declined when the indices read another legal card more surely.

A strict subset of the real play (SQ read of CQ+SQ, whose CQ index went unread; one DQ of two) fails
1-4 rather than being applied; a person is asked instead.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.labels import LABELS
from vision.moved import without_moved_edges, without_pushed
from vision.play_weigh import _reader as _pile_reader
from vision.play_weigh import changed_mask, weighings

SURE = 0.8  # a card of the play: some new index of its own reads it at least this surely
# ... when it is the seat's only legal play (no other play to tell it from). On the training designs it
# changed no reading of 436 plays; held out it read a few more (docs/vision-decisions.md, stop 48), 0 wrong.
SURE_ONLY = 0.5
OTHER = 0.35  # a new index read this surely as a bigger legal play's other card: maybe that play
# A detected index (not an ink blob's pips) read this surely as a card the play does not hold is another
# card that landed, however surely the play's own read (an outside audit: a 升级 seat's D3 D3 answered while
# another seat's D5 D5 landed beside them, all four read 1.0)
OUTSIDE = 0.95
ASPECT = 0.8  # one card's change: its short side over its long side at most (cards are 0.62..0.72)
FILL = 0.85  # ... and it fills this much of its bounding rectangle (two cards in a heap do not)
BIGGER = 1.1  # one card's change is at most this much longer and wider than a card (when its size is known)
# The whole card is cut with this share of its sides around it: the frame reader finds a card by its
# outline (on training designs' singles, 176 of 177 read right with it; 112 right and 6 wrong cut flush).
MARGIN = 0.08
SPECK = 30  # changed patches smaller than this (px at the working size) are noise
# How many cards the change's shape says landed, weighed into the options (chosen on training designs:
# every one of 1,452 singles left a one-card change; 5 of 243 two-card plays did, thrown stacked).
# Two copies of a card read at two places are then two cards, not one card's corners read apart.
ONE_LOOKS_MANY = 0.01  # a single card whose change does not look like one card (a nudge, a hand)
MANY_LOOK_ONE = 0.05  # two cards (or more, when the card's size is known) whose change looks like one
_INDEX = {label: i for i, label in enumerate(LABELS)}


@dataclass(frozen=True)
class Change:
    """The shape of what changed: its convex hull's rectangle (long, short sides, px) and fill."""

    long: float
    short: float
    area: float
    fill: float
    rect: tuple = ()  # cv2.minAreaRect of the hull: ((cx, cy), (w, h), angle)


@dataclass
class PlayRead:
    labels: tuple[str, ...] | None
    confidence: float
    boxes: list[dict[str, Any]] = field(default_factory=list)  # every new index: label, box, confidence
    why: str = ""  # why it was not answered (for the log and the benchmarks)
    change: Change | None = None  # the shape of what changed


def change_shape(before: np.ndarray | None, after: np.ndarray) -> Change | None:
    """The convex hull of everything that changed, or None when nothing did. An older card that the
    throw pushed is not part of it (:mod:`vision.moved`), nor the wedge its moved outline leaves beside
    the new card when it lies mostly under it, nor the specks its motion left far from the new card."""
    if before is None:
        return None
    raw = changed_mask(before, after)
    mask = without_pushed(before, after, raw)
    mask = without_moved_edges(before, after, mask, taken=raw & ~mask).astype(np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    points = [c for c in contours if cv2.contourArea(c) > SPECK]
    if not points:
        return None
    hull = cv2.convexHull(np.concatenate(points))
    (w, h) = cv2.minAreaRect(hull)[1]
    area = float(cv2.contourArea(hull))
    return Change(float(max(w, h)), float(min(w, h)), area, area / max(w * h, 1.0), cv2.minAreaRect(hull))


def one_card_shape(change: Change, card: tuple[float, float] | None) -> bool:
    """Whether a change could be one card: no longer nor wider than ``card`` (long, short sides) when
    known (a fan of two is wider, a heap of two longer); else a filled rectangle of a card's proportions."""
    if card is not None:
        return change.long <= BIGGER * card[0] and change.short <= BIGGER * card[1]
    return change.short <= ASPECT * change.long and change.fill >= FILL


def _own_indices(probs: np.ndarray, play: tuple[str, ...]) -> float:
    """How surely each card of ``play`` is read on a new index of its own (two copies: two indices):
    the least of those readings (0 when a card has none)."""
    free = list(range(len(probs)))
    least = 1.0
    for lab in sorted(play, key=lambda c: -probs[:, _INDEX[c]].max() if len(probs) else 0):
        col = _INDEX[lab]
        best = max(free, key=lambda i: probs[i, col], default=None)
        if best is None:
            return 0.0
        least = min(least, float(probs[best, col]))
        free.remove(best)
    return least


def _surest_other(probs: np.ndarray, play: tuple[str, ...]) -> float:
    """How surely some new index reads a card the play does not hold."""
    if not len(probs):
        return 0.0
    outside = np.ones(probs.shape[1], bool)
    outside[[_INDEX[c] for c in play]] = False
    return float(probs[:, outside].max())


def _bigger_play(play: tuple[str, ...], options: list[tuple[str, ...]]) -> bool:
    """Whether some legal play holds ``play`` and more."""
    have = Counter(play)
    return any(len(o) > len(play) and not have - Counter(o) for o in options)


def _twin_legal(play: tuple[str, ...], options: list[tuple[str, ...]]) -> bool:
    """Whether two copies of the single card ``play`` are a legal play (two decks)."""
    return len(play) == 1 and any(Counter(o) == Counter(play * 2) for o in options)


def _bigger_play_seen(probs: np.ndarray, play: tuple[str, ...], options: list[tuple[str, ...]]) -> bool:
    """Whether a legal play holding ``play`` and more has its other cards read too (each at least
    :data:`OTHER` on some new index): the play may be that one with a card read unsurely. Ink read
    as some card no bigger play holds is a stray (a pip, the art) and weighed as one. A single card
    whose pair is legal and whose index is read counts its own index for the twin, so it is asked: a
    pair dropped exactly stacked hides its second copy (read whole, :func:`_twin_legal` asks it too)."""
    if not len(probs):
        return False
    have = Counter(play)
    for opt in options:
        extra = Counter(opt) - have
        if extra and not have - Counter(opt) and all(probs[:, _INDEX[c]].max() >= OTHER for c in extra):
            return True
    return False


def read_play(
    before, after, options, *, reader: Any = None, card: tuple[float, float] | None = None, refs: Any = None
) -> PlayRead:
    """The option among ``options`` (lists of labels) that ``after`` added to ``before``, or ``labels``
    None when unsure. ``card``: a card's long and short sides in ``after``'s pixels, when known.
    ``refs``: the seat's hand as dealt (:class:`vision.hand_refs.HandRefs`): each new index is likened
    to its cards' own pictures too (:func:`vision.play_weigh.pool`), and the play is also weighed without
    them: it is answered when either weighing answers it and the other does not answer another play (a
    poor reference can drown a clear index, a clear reference a poor one)."""
    options = [tuple(o) for o in options if o]
    if not options:
        return PlayRead(None, 0.0, [], "no play is legal")
    change = change_shape(before, after)
    looks = weighings(before, after, options, reader=reader, refs=refs, prior=count_prior(change, card))
    one = change is not None and one_card_shape(change, card)
    # only once the table's card size is known: a tight fan may look like one card by its shape alone
    top = _top_card(after, change, options, reader) if one and card is not None else None
    hands = [refs is not None, False][: len(looks)]
    if len(looks) > 1 and looks[1].evidence.detected and _stranger(looks[1].evidence.probs, refs.own):
        # a new index reads surely, alone, as a card the seat was not dealt: likened to the hand it would
        # pass for the hand's look-alike (an out-of-turn D5 taken for the seat's D6), so only the indices
        # speak. (Not for ink blobs: their pip clusters read surely as cards anywhere.)
        looks, hands = looks[1:], hands[1:]
    return either([_answer(w, options, change, card, top, hand) for w, hand in zip(looks, hands, strict=True)])


def _stranger(probs: np.ndarray, dealt: set[str]) -> bool:
    """Whether some new index reads, at least :data:`SURE`, as a card not in ``dealt``."""
    return any(row.max() >= SURE and LABELS[int(row.argmax())] not in dealt for row in probs)


def either(reads: list[PlayRead]) -> PlayRead:
    """The first of ``reads`` (weighings of one play) that answers, unless another answers another play;
    the first when none answers."""
    said = {tuple(sorted(r.labels)) for r in reads if r.labels is not None}
    if len(said) > 1:
        first = reads[0]
        return PlayRead(None, first.confidence, first.boxes, "the indices read two plays, with the hand's "
                        "pictures and without", first.change)
    return next((r for r in reads if r.labels is not None), reads[0])


def _answer(w, options, change: Change | None, card, top: tuple[str] | None, hand: bool) -> PlayRead:
    """The play one weighing answers (``hand``: it likened the indices to the hand's pictures), or why not."""
    probs = w.evidence.probs
    boxes = [
        {
            "label": LABELS[int(row.argmax())],
            "box": [round(float(v), 1) for v in where[0]],
            "confidence": round(float(row.max()), 3),
        }
        for row, where in zip(probs, w.evidence.boxes, strict=True)
    ]
    best = w.options[int(w.posterior.argmax())]
    conf = float(w.posterior.max())
    why = _unexplained(w, best, options, change, card)
    if not why and top != best:
        why = _one_look(w, best, hand)
    if top is not None and w.evidence.moved and (why or top != best):
        # an older card slid or straightened: the one card read whole may be that card, not a new one
        return PlayRead(None, conf, boxes, why or "an older card moved", change)
    if top is not None and (why or top != best):
        # the one card that landed, read whole as the dealer camera reads a card: an answer of its own
        if not why:  # the indices and the whole card disagree
            return PlayRead(None, conf, boxes, f"its indices read {best}, the whole card {top}", change)
        if _twin_legal(top, options):  # the whole card shows only the top copy of a stacked pair
            return PlayRead(None, conf, boxes, "its pair is legal, and a pair dropped stacked looks like one card", change)
        if _bigger_play(top, options):  # a pair squared up shows its top card alone (see _unexplained)
            return PlayRead(None, conf, boxes, "a bigger legal play holds the card read whole", change)
        if not _bigger_play_seen(probs, top, options) and not _index_says_other(probs, top, options):
            return PlayRead(top, conf, boxes, "", change)
    return PlayRead(None if why else tuple(w.read.labels), conf, boxes, why, change)


def count_prior(change: Change | None, card: tuple[float, float] | None):
    """Each option's log prior from its number of cards and the change's shape (None: no change seen)."""
    if change is None:
        return None
    one = one_card_shape(change, card)
    many_look_one = float(np.log(MANY_LOOK_ONE))
    one_looks_many = float(np.log(ONE_LOOKS_MANY))

    def prior(opt: tuple[str, ...]) -> float:
        if not opt:
            return 0.0
        if one:  # without the card's size, three cards in a tight fan may look like one
            return 0.0 if len(opt) == 1 or (len(opt) > 2 and card is None) else many_look_one
        return one_looks_many if len(opt) == 1 else 0.0

    return prior


def _one_look(w, best: tuple[str, ...], hand: bool = False) -> str:
    """Why the indices alone are not enough ("" when they are): stray ink on designs whose indices the
    models do not know reads surely as some card, most often a joker or a court card. A joker must be
    read whole, or, with the hand's own pictures, at both corners of each joker (the stray ink read as
    one is unlike the seat's joker); a single card must be read at both its corners (it lies on top:
    both show)."""
    jokers = [c for c in best if c in ("BJ", "RJ")]
    if jokers and not (hand and all(_corners_read(w, c) >= 2 * best.count(c) for c in set(jokers))):
        return "a joker is answered only when read whole"
    if len(best) == 1 and _corners_read(w, best[0]) < 2:
        return "one corner of the card read"
    return ""


def _corners_read(w, label: str) -> int:
    """How many new indices read ``label`` surely (a card's two corners merged count as two)."""
    col = _INDEX[label]
    return sum(len(where) for row, where in zip(w.evidence.probs, w.evidence.boxes, strict=True) if row[col] >= SURE)


def _unexplained(w, best: tuple[str, ...], options, change: Change | None, card) -> str:
    """Why the weighed best play does not explain everything new ("" when it does)."""
    probs = w.evidence.probs
    if w.read.labels is None:
        return "no option is clearly best"
    if (least := _own_indices(probs, best)) < (SURE_ONLY if len(options) == 1 else SURE):
        return "a card of the play is not read on an index of its own"
    if _surest_other(probs, best) > least:
        return "a new index reads a card the play does not hold more surely than the play's own"
    if w.evidence.detected and _surest_other(probs, best) >= OUTSIDE:
        return "a new index reads surely a card the play does not hold (two plays at once?)"
    if _bigger_play_seen(probs, best, options):
        return "a bigger legal play's other cards are read too"
    if change is not None and len(best) == 1 and not one_card_shape(change, card):
        return "more changed than one card"
    if _bigger_play(best, options):
        # the cards read may be part of that play, its other card's index unread or hidden: a fan of n or
        # n + 1 cards look alike, and so do one card and a pair squared up (from above, the lower card may
        # show a sliver of edge or nothing). A CI run applied one card of a ♦4 ♠4 fanned tight, whose change
        # was 1.09 times a card wide; one card "of the known size" (1.1) was answered then. The cost: such
        # a single is asked, a tap. The greedy bots played 4 in 200 hands (no reading of 1,812 offline plays
        # changed); the service's search bots 8 in 30 hands of the five games (0.67 a hand in 挖坑).
        return "a bigger legal play holds it, and the change cannot tell them apart"
    if change is not None and card is not None and change.area > (len(best) + 0.5) * card[0] * card[1]:
        return "more changed than the play's cards cover"
    return ""


def _index_says_other(probs: np.ndarray, top: tuple[str], options: list[tuple[str, ...]]) -> bool:
    """Whether a new index reads another legal single more surely than any reads ``top`` (the whole
    card read S9 where its index read S8 at 1.0)."""
    others = [_INDEX[o[0]] for o in options if len(o) == 1 and o != top]
    if not len(probs) or not others:
        return False
    return bool(probs[:, others].max() > probs[:, _INDEX[top[0]]].max())


def _top_card(after: np.ndarray, change: Change, options, reader: Any) -> tuple[str] | None:
    """The one card that landed, read whole (:func:`upright_card`, the committee's ``frame`` policy),
    when that one card is a legal play; else None."""
    if not any(len(o) == 1 for o in options):
        return None
    got = _pile_reader(reader).reader.read(upright_card(after, change), kind="frame")
    return (got.label,) if got.label is not None and (got.label,) in options else None


def upright_card(after: np.ndarray, change: Change, long: int = 280, margin: float | None = None) -> np.ndarray:
    """The card that one card's change is, cut out and turned upright (its long side vertical; upside
    down or not: its two index corners are alike), with :data:`MARGIN` of the table around it."""
    (cx, cy), (w, h), angle = change.rect
    grow = 1 + (MARGIN if margin is None else margin)
    box = cv2.boxPoints(((cx, cy), (w * grow, h * grow), angle)).astype(np.float32)
    # order the corners so that the first side is a short one
    if np.linalg.norm(box[1] - box[0]) > np.linalg.norm(box[2] - box[1]):
        box = np.roll(box, -1, axis=0)
    short = max(4, int(round(long * change.short / max(change.long, 1.0))))
    dst = np.array([[0, 0], [short, 0], [short, long], [0, long]], np.float32)
    return cv2.warpPerspective(after, cv2.getPerspectiveTransform(box, dst), (short, long))


class CardSize:
    """A card's size on this table (for :func:`read_play`'s ``card``), learnt from plays that surely
    were one card (``options``: every legal play was one card, a trick's follow; or the play as applied
    or confirmed), whose change is a whole card (it fills its rectangle: it landed on the cloth, not half
    over older cards)."""

    KEEP = 15

    def __init__(self) -> None:
        self.seen: list[tuple[float, float]] = []

    def learn(self, change: Change | None, options) -> None:
        if change is not None and change.fill >= 0.95 and options and all(len(o) == 1 for o in options):
            self.seen = [*self.seen[-(self.KEEP - 1) :], (change.long, change.short)]

    @property
    def card(self) -> tuple[float, float] | None:
        if not self.seen:
            return None
        long, short = np.median(np.array(self.seen), axis=0)
        return float(long), float(short)


__all__ = ["PlayRead", "CardSize", "read_play", "change_shape", "one_card_shape", "count_prior"]
