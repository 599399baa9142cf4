"""Tight photos (issue 28): a card that fills the picture or is cut by its edge, whose outline the plain
search loses or takes at a court card's picture frame."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.labels import LABELS
from vision.localize import filling_cards, localize, quad_error
from vision.render import DESIGNS, tight_scene


@settings(max_examples=40, deadline=None)
@given(
    st.integers(160, 480), st.integers(160, 480), st.booleans(), st.floats(0.9, 1.1), st.floats(0.66, 0.74)
)
def test_a_card_filling_the_picture_is_near_one_of_the_placements(w, h, upright, scale, aspect):
    if upright:  # the card's long side vertical, as big as the picture holds, times scale
        ch = scale * min(h, w / aspect)
        cw = ch * aspect
    else:
        cw = scale * min(w, h / aspect)
        ch = cw * aspect
    x0, y0 = (w - cw) / 2, (h - ch) / 2
    truth = np.array([[x0, y0], [x0 + cw, y0], [x0 + cw, y0 + ch], [x0, y0 + ch]], np.float32)
    placements = filling_cards(np.zeros((h, w, 3), np.uint8))
    assert min(quad_error(p.quad, truth) for p in placements) < 0.05
    assert all(p.card.shape[1] == 128 and p.card.shape[0] > p.card.shape[1] for p in placements)


def _cut_card() -> tuple[np.ndarray, np.ndarray]:
    """A white card across a dark picture, cut by its left and right edges, with a red picture frame
    inside it (a court card's) that the plain search takes for the card."""
    img = np.full((320, 240, 3), 40, np.uint8)
    card = np.array([[-6, 75], [246, 75], [246, 245], [-6, 245]], np.float32)
    cv2.rectangle(img, (0, 75), (239, 245), (250, 250, 250), -1)
    cv2.rectangle(img, (40, 100), (200, 220), (40, 40, 200), -1)
    return img, card


def test_a_card_cut_by_the_picture_edge_is_found_by_the_thorough_search():
    img, card = _cut_card()
    plain = localize(img)
    assert plain is None or quad_error(plain.quad, card) > 0.1  # the plain search misses the card
    found = localize(img, thorough=True)
    assert found is not None and quad_error(found.quad, card) < 0.06


def test_tight_photos_the_plain_search_misses_are_read(reader):
    rng = np.random.default_rng(37)
    right = wrong = n = 0
    for k in range(60):
        truth = LABELS[int(rng.integers(52))]
        img, quad = tight_scene(truth, rng, design=DESIGNS[k % len(DESIGNS)])
        found = localize(img)
        if found is not None and quad_error(found.quad, quad) < 0.1:
            continue  # the plain search found the card: not the path under test
        label = reader.read(img, kind="frame").label
        right += label == truth
        wrong += label is not None and label != truth
        n += 1
        if n == 12:
            break
    assert n == 12
    assert wrong == 0
    assert right >= 10  # the picture read whole as the card (stop 28) read about half
