"""Each seat's hand as the dealer camera saw it, for reading that seat's plays (issue 29).

The deal journals every card read at the window (``card_read`` rows) with its evidence image: the
reader's index corner crops side by side (``controller.deal.window.evidence_jpeg``). Those crops of the
cards a seat was dealt are :class:`vision.hand_refs.HandRefs`: its plays' indices are then likened to
its own cards' pictures. A deal with no camera (software) has none: the models read alone.
"""

from __future__ import annotations

import logging
from typing import Any

import cv2
import numpy as np

log = logging.getLogger("hongsi.table_camera")


def seat_refs(journal: Any, rid: int, seat: int, reader: Any = None) -> Any:
    """The :class:`vision.hand_refs.HandRefs` of the cards dealt to ``seat`` in round ``rid`` (and the
    bottom's, which a seat may take up), or None when the deal kept no picture of them."""
    from controller.report import split_strip
    from controller.service.dispute import card_reads
    from vision.hand_refs import HandRefs
    from vision.play_weigh import _reader

    try:
        reads = card_reads(journal, rid)
    except Exception as exc:  # rows this reader does not take: read without the hand's pictures
        log.info("table camera: no hand pictures for round %s: %s", rid, exc)
        return None
    crops, labels = [], []
    for r in reads:
        if r.get("seat") not in (seat, "bottom") or not r.get("label") or not r.get("image"):
            continue
        path = journal.image_path(r["image"])
        image = cv2.imdecode(np.fromfile(str(path), np.uint8), cv2.IMREAD_COLOR) if path.exists() else None
        if image is None:
            continue
        crops.append(split_strip(image))
        labels.append(str(r["label"]))
    if not labels:
        return None
    refs = HandRefs.from_corner_crops(crops, labels, _reader(reader))
    return refs if len(refs.labels) else None
