"""The indices a play added, as the corner detector finds them (:mod:`vision.pile_detect`), for
:mod:`vision.play_weigh`.

1. The detector finds every index in the picture after the throw. One is new when the middle of its
   box changed (:data:`NEW_INDEX`: an index thrown onto an older white card changes only where its
   ink is) and it is not an older index pushed a few pixels (:func:`vision.moved.shifted_from`), slid
   by hand, or left where it lay with the throw covering part of it (:func:`_slid`).
2. Each new index is cut upright at :data:`vision.pile_corners.PADS` and read by the committee; the
   cuts' and members' log-probabilities are pooled.
3. With the seat's hand as dealt, each is likened to the hand's cards, its views cut as the references
   were (ink groups turned upright both ways: :func:`vision.hand_refs.index_views`).
4. The detector keeps one detection per index, so readings are merged into cards only where two of one
   label are one card's two corners: one lies on the other's card, facing the other way. Two copies
   side by side (two decks) face the same way and stay two.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.corner_data import NONE_CLASS
from vision.moved import shifted_from
from vision.pile_corners import PADS, SURE, _box, _distinct, _other_corner, committee
from vision.pile_detect import Corner, upright
from vision.reader import is_colourless

NEW_INDEX = 0.2  # a detected index may be new when this share of its box's middle changed
# ... unless an index of the picture before whose place changed lies within SLIDE of its heights, turned
# at most TURN degrees, and both read as the same card at least LIKELY sure: a card slid or straightened by
# hand (a card's length is about 6 index heights). It was SAME until an outside audit's HQ slid 27 px read
# 0.69 where it landed (0.79 before) and was answered as its twin. A twin thrown onto its copy at a like
# angle is then not seen; the change's shape asks about it.
SLIDE, TURN, LIKELY = 8.0, 30.0, 0.5
# An index that has not moved at all (within STILL of its heights, turned at most STILL_TURN degrees) whose
# card was read SAME sure before is that old index partly covered by the throw, unless it now reads surely
# as another card (a card thrown over an older one in the very same place is rarer than a corner covered).
STILL, STILL_TURN, SAME = 0.3, 10.0, 0.8
LOOK, NEAR = 2.2, 0.35  # an index is likened to the hand's cards in a cut this many index sizes across,
# by the ink groups whose centre lies within this share of its half-side of the middle


def new_corners(after: np.ndarray, img: np.ndarray, old: np.ndarray | None, changed: np.ndarray,
                scale: float, detector, reader, refs=None) -> tuple[list[Corner], list[tuple], np.ndarray,
                                                                    np.ndarray | None, int]:
    """The detected indices of ``after`` that are new, their boxes in ``img``'s pixels, their readings
    (:func:`read`), their likeness to the hand, and how many changed indices were an older card slid:
    ``img`` and ``old`` are the pictures after and before scaled by ``scale``, ``changed`` where they
    differ. ``reader``: a :class:`vision.reader.CardReader`; ``refs``: the seat's hand as dealt
    (:class:`vision.hand_refs.HandRefs`), to liken each new index to (None: no likeness)."""
    corners, boxes = [], []
    for c in _distinct(detector.detect(after)):
        box = tuple(v * scale for v in _box(c))
        if _new_box(box, changed) and (old is None or not shifted_from(old, img, _middle(box, img.shape, 1 / 3))):
            corners.append(c)
            boxes.append(box)
    if not corners:
        return [], [], np.zeros((0, NONE_CLASS + 1)), None, 0
    p = read(after, corners, reader)
    moved = 0
    if old is not None:
        slid = _slid(corners, p, scale, old, _gone(old, changed, detector), reader)
        keep = [i for i, s in enumerate(slid) if s == NEW]
        moved = slid.count(SLID)
        corners, boxes, p = [corners[i] for i in keep], [boxes[i] for i in keep], p[keep]
    likeness = None if refs is None or not corners else np.stack([_likeness(after, c, refs) for c in corners])
    return corners, boxes, p, likeness, moved


def _gone(old: np.ndarray, changed: np.ndarray, detector) -> list[Corner]:
    """The indices of the picture before (``old``'s pixels) whose place changed: covered, or moved."""
    return [g for g in _distinct(detector.detect(old)) if g.score >= SURE and _new_box(_box(g), changed)]


NEW, SLID, IN_PLACE = 0, 1, 2  # a changed index: a new card's, an older card's slid, or one left in place


def _slid(corners: list[Corner], now: np.ndarray, scale: float, old: np.ndarray, gone: list[Corner],
          reader) -> list[int]:
    """Per new index (``now``: their readings): :data:`NEW`; :data:`SLID`, an index of the picture before
    that left its place, slid or turned there, read as the same card on both sides (:data:`SLIDE`,
    :data:`TURN`, :data:`LIKELY`); or :data:`IN_PLACE`, one that did not move (:data:`STILL`). A card
    straightened or pushed along by hand is no play; a new copy of its card thrown onto its twin at a like
    angle is then asked about."""
    near = [[g for g in gone if np.hypot(c.centre[0] * scale - g.centre[0], c.centre[1] * scale - g.centre[1])
             <= SLIDE * g.height and float(np.dot(c.up, g.up)) >= np.cos(np.radians(TURN))] for c in corners]
    if not any(near):
        return [NEW] * len(corners)
    which = [i for i, n in enumerate(near) if n]
    olds = sorted({id(g): g for i in which for g in near[i]}.values(), key=lambda g: g.centre)
    then = read(old, olds, reader)
    sure = {id(g): p.max() >= SAME for g, p in zip(olds, then[:, :NONE_CLASS], strict=True)}
    likely = {id(g): int(p.argmax()) if p.max() >= LIKELY else -1 for g, p in zip(olds, then[:, :NONE_CLASS], strict=True)}
    out = [NEW] * len(corners)
    for i, p in zip(which, now[which, :NONE_CLASS], strict=True):
        alike = [g for g in near[i] if p.max() >= LIKELY and likely[id(g)] == int(p.argmax())]
        if alike:
            out[i] = IN_PLACE if any(_still(corners[i], g, scale) for g in alike) else SLID
        elif p.max() < SAME and any(sure[id(g)] and _still(corners[i], g, scale) for g in near[i]):
            out[i] = IN_PLACE
    return out


def _still(c: Corner, g: Corner, scale: float) -> bool:
    """Whether ``c`` (the picture after's pixels) lies where ``g`` (``scale`` times them) lay, turned alike."""
    return (np.hypot(c.centre[0] * scale - g.centre[0], c.centre[1] * scale - g.centre[1]) <= STILL * g.height
            and float(np.dot(c.up, g.up)) >= np.cos(np.radians(STILL_TURN)))


# The play member (vision.pile_member_train's model of 21 training designs, vision.pile.PLAY_MEMBER_MODEL)
# pooled with the reader's five on a play's new indices (docs/vision-decisions.md, stop 54).
WITH_MEMBER = True


class Pooled:
    """A reader whose committee is ``reader``'s with ``member`` (a :class:`vision.reader.CardReader` of the
    play member's model) beside it, for :func:`read`."""

    def __init__(self, reader, member) -> None:
        self.reader, self.member = reader, member

    def committee_log_probs(self, crops: list[np.ndarray], colourless: bool = False) -> np.ndarray:
        return committee(self.reader, self.member, crops, colourless, sixth=True)[0]


def read(picture: np.ndarray, corners: list[Corner], reader) -> np.ndarray:
    """(n, 55) the committee's pooled probabilities of each index of ``picture`` ("no card" last).
    ``reader``: a :class:`vision.reader.CardReader`."""
    grey = is_colourless(picture)
    lp = np.concatenate([reader.committee_log_probs([upright(picture, c, pad) for c in corners], grey)
                         for pad in PADS])  # (members x cuts, n, 55)
    pooled = lp.mean(axis=0)
    p = np.exp(pooled - pooled.max(axis=1, keepdims=True))
    return p / p.sum(axis=1, keepdims=True)


def merge(cards: np.ndarray, boxes: list, corners: list[Corner], scale: float) -> tuple[list[np.ndarray], list]:
    """Per card: its row of ``cards`` (the surer corner's where two are one card's), and its index
    boxes (``boxes`` divided by ``scale``)."""
    labels = cards.argmax(axis=1)
    used = [False] * len(corners)
    rows, where = [], []
    for a in np.argsort(-cards.max(axis=1)):
        if used[a]:
            continue
        used[a] = True
        row, seen = cards[a].copy(), [tuple(float(v) / scale for v in boxes[a])]
        for b in range(len(corners)):
            if not used[b] and labels[b] == labels[a] and (_other_corner(corners[b], corners[a])
                                                           or _other_corner(corners[a], corners[b])):
                used[b] = True
                row = np.maximum(row, cards[b])
                seen.append(tuple(float(v) / scale for v in boxes[b]))
                break
        rows.append(row)
        where.append(seen)
    return rows, where


def _likeness(after: np.ndarray, c: Corner, refs) -> np.ndarray:
    """(54,): an index's likeness to the hand's cards; the detector's own upright cuts when no ink
    group lies in its middle."""
    from vision.hand_refs import index_views

    m = max(c.height, c.width)  # a square cut, so the ink keeps its shape
    around = upright(after, replace(c, height=m, width=m), LOOK, size=max(int(round(LOOK * m)), 16))
    half = around.shape[0] / 2
    views = index_views(around, lambda x, y: abs(x - half) < NEAR * half and abs(y - half) < NEAR * half)
    if not views:
        views = [upright(after, c, pad) for pad in PADS[:2]]
    return refs.scores(views).max(axis=0)


def _middle(box, shape: tuple, share: float) -> tuple[int, int, int, int]:
    """The middle ``share`` of an index box each way from its centre, in whole pixels within a picture
    of ``shape`` (the index's ink, not its card's edge)."""
    H, W = shape[:2]
    x0, y0, x1, y1 = box
    cx, cy, rx, ry = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) * share, (y1 - y0) * share
    return max(int(cx - rx), 0), max(int(cy - ry), 0), min(int(np.ceil(cx + rx)), W), min(int(np.ceil(cy + ry)), H)


def _new_box(box, changed: np.ndarray) -> bool:
    """Whether the middle half of an index box (a neighbour's edge does not count) changed enough."""
    x0, y0, x1, y1 = _middle(box, changed.shape, 1 / 4)
    part = changed[y0:y1, x0:x1]
    return part.size > 0 and float(part.mean()) >= NEW_INDEX


__all__ = ["new_corners", "read", "merge", "NEW_INDEX"]
