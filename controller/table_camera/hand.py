"""Each seat's hand as the dealer camera saw it, for reading that seat's plays (issue 29).

The deal journals every card read at the window (``card_read`` rows) with its evidence image: the
reader's index corner crops side by side (``controller.deal.window.evidence_jpeg``). Those crops of the
cards dealt are :class:`vision.hand_refs.HandRefs`: a seat's plays' indices are then likened to the
pictures of every card dealt, its own hand's being the ones it may play. A deal with no camera (software)
has none: the models read alone.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

log = logging.getLogger("hongsi.table_camera")


@dataclass
class Dealt:
    """Every card read at a deal, as references, and where each went."""

    refs: Any  # vision.hand_refs.HandRefs of every card with a picture
    places: dict[Any, list[str]]  # seat (or "bottom") -> the labels read for it

    def seat(self, seat: int) -> Any:
        """The references for reading ``seat``'s plays: every card dealt at the table, the seat's own being
        its hand and the bottom (which a seat may take up). Likened to the whole table, a card of another
        seat is likest its own pictures: it cannot pass for the hand's look-alike."""
        return self.refs.for_seat(self.places.get(seat, []) + self.places.get("bottom", []))


def dealt_refs(journal: Any, rid: int, reader: Any = None) -> Dealt | None:
    """The :class:`Dealt` of round ``rid``, or None when the deal kept no picture of its cards."""
    from controller.report import split_strip
    from controller.service.dispute import card_reads
    from vision.hand_refs import HandRefs
    from vision.play_weigh import _reader

    try:
        reads = card_reads(journal, rid)
    except Exception as exc:  # rows this reader does not take: read without the hand's pictures
        log.info("table camera: no hand pictures for round %s: %s", rid, exc)
        return None
    crops, labels, places = [], [], {}
    for r in reads:
        if r.get("seat") is None or not r.get("label") or not r.get("image"):
            continue
        path = journal.image_path(r["image"])
        image = cv2.imdecode(np.fromfile(str(path), np.uint8), cv2.IMREAD_COLOR) if path.exists() else None
        if image is None:
            continue
        crops.append(split_strip(image))
        labels.append(str(r["label"]))
        places.setdefault(r["seat"], []).append(str(r["label"]))
    if not labels:
        return None
    refs = HandRefs.from_corner_crops(crops, labels, _reader(reader))
    return Dealt(refs, places) if len(refs.labels) else None
