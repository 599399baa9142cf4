"""One play read from the play area: the cards added between two settled pictures.

A minimal stand-in with the pile reader's interface (the pile reader's own version replaces it):
the pixels that changed are kept, the rest painted with the table's colour, the picture read with
:class:`vision.pile.PileReader`, and the option (a legal play: a multiset of cards) that the indices
read name exactly is picked; ``labels`` None when the reader is unsure of anything in view (a card of
the play may be unread), or when no option, or more than one, fits.

>>> r = read_play(before, after, [["S3"], ["S3", "H3"]])     # doctest: +SKIP
>>> r.labels, r.confidence                                   # ("S3", "H3"), 0.93
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

CHANGED = 28  # grey levels a pixel must change by to be part of the play
GROW = 21  # the hull of the change grows by this (px): a fanned card's paper over older paper hardly changes


@dataclass
class PlayRead:
    labels: tuple[str, ...] | None
    confidence: float
    boxes: list[dict[str, Any]] = field(default_factory=list)  # every index read: label, box, confidence


_reader = None


def _default_reader() -> Any:
    global _reader
    if _reader is None:
        from vision.pile import PileReader

        _reader = PileReader()
    return _reader


def _diff(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    d = cv2.absdiff(cv2.GaussianBlur(before, (5, 5), 0), cv2.GaussianBlur(after, (5, 5), 0)).max(axis=2)
    return (d > CHANGED).astype(np.uint8) * 255


def changed_mask(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """Where the cards thrown lie (uint8 0/255): the hull of what changed. A card thrown lies on top,
    and its paper over older paper hardly changes, so the changed pixels are only its outline's parts."""
    mask = cv2.morphologyEx(_diff(before, after), cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    points = [c for c in contours if cv2.contourArea(c) > 30]
    filled = np.zeros_like(mask)
    if points:
        cv2.fillConvexPoly(filled, cv2.convexHull(np.concatenate(points)), 255)
        filled = cv2.dilate(filled, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (GROW, GROW)))
    return filled


def only_new(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """``after`` with everything that did not change painted the table's colour."""
    mask = changed_mask(before, after)
    out = after.copy()
    edge = np.concatenate([after[:4].reshape(-1, 3), after[-4:].reshape(-1, 3)])  # the cloth shows at the edges
    cloth = np.median(edge, axis=0)
    out[mask == 0] = cloth.astype(np.uint8)
    return out


def _new(diff: np.ndarray, box: Sequence[float]) -> bool:
    """Whether an index's box changed: its ink was not there before."""
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    patch = diff[max(0, y0):max(0, y1), max(0, x0):max(0, x1)]
    return patch.size > 0 and float(patch.mean()) / 255 > 0.15


def read_play(before: np.ndarray, after: np.ndarray, options: Sequence[Sequence[str]], *,
              reader: Any = None) -> PlayRead:
    """The option ``after`` added to ``before``, or ``labels`` None when unsure."""
    reading = (reader or _default_reader()).read(only_new(before, after))
    diff = _diff(before, after)
    found = [f for f in reading.found if _new(diff, f.box)]  # an older card's index inside the hull is not new
    boxes = [{"label": f.label, "box": [round(v, 1) for v in f.box], "confidence": round(f.confidence, 3)}
             for f in found]
    seen = {f.label for f in found}
    # the reader must account for everything new in view: a fan whose other indices it missed (labels
    # None) is not the one card it read, however legal that card alone would be
    if not seen or reading.labels is None:
        return PlayRead(None, float(reading.confidence), boxes)
    shown = Counter(reading.labels)  # every card in view, with any older one inside the hull
    fits = {tuple(sorted(o)) for o in options if set(o) == seen and not Counter(o) - shown}
    if len(fits) != 1:  # none, or a card once and twice (two decks) both fit
        return PlayRead(None, float(reading.confidence), boxes)
    return PlayRead(next(iter(fits)), float(reading.confidence), boxes)
