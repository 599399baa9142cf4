"""A dealer read's evidence strip (its corner crops side by side, as the journal keeps it) is not one
corner: read as ``--kind corner`` it is declined, while each crop in it reads as its card. Real single
corner crops, some stretched to 5:1 by their exporter, are never taken for a strip."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from controller.deal.window import evidence_jpeg
from vision.render import render_window_frame


@pytest.mark.parametrize("label", ["H4", "S10", "C7", "DQ"])
def test_an_evidence_strip_is_declined_but_its_crops_read(reader, label):
    rng = np.random.default_rng(sum(map(ord, label)))
    frames = [render_window_frame(label, rng, design="poker") for _ in range(3)]
    reading = reader.read_votes(frames)
    assert reading.label == label and len(reading.crops) == 6
    strip = cv2.imdecode(np.frombuffer(evidence_jpeg(reading, [SimpleNamespace(image=f) for f in frames]),
                                       np.uint8), cv2.IMREAD_COLOR)
    assert reader.is_strip(strip)
    assert reader.read(strip, kind="corner").label is None          # no joker at 0.95 any more
    assert reader.read(reading.crops[0], kind="corner").label == label
    assert not reader.is_strip(reading.crops[0])


def test_no_real_corner_crop_is_taken_for_a_strip(reader):
    from vision.train import REAL_DIR, real_rows

    rows = real_rows("fit", REAL_DIR)
    if not rows:
        pytest.skip(f"the real photos are not beside the repository ({REAL_DIR})")
    wide = []
    for row in rows:
        img = cv2.imread(str(REAL_DIR / row["file"]))
        if img is not None and reader.is_strip(img):
            wide.append(row["file"])
    assert wide == []
