"""vision.play_corners: the detector's new indices merged into cards (properties on made-up corners;
the real detector on real pixels is in test_play_weigh)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.pile_detect import Corner
from vision.play_corners import _new_box, merge

H, W = 30.0, 20.0  # an index's height and width, px


def _corner(x: float, y: float, up: tuple[float, float], card: tuple[float, float]) -> Corner:
    return Corner((x, y), up, H, W, card, 0.9)


def _one_card(cx: float, cy: float) -> list[Corner]:
    """A 140 x 200 card upright at (cx, cy): its two index corners, facing apart."""
    return [_corner(cx - 55, cy - 80, (0.0, -1.0), (cx, cy)), _corner(cx + 55, cy + 80, (0.0, 1.0), (cx, cy))]


def _rows(labels: list[int]) -> np.ndarray:
    rows = np.full((len(labels), 54), 1e-4)
    rows[np.arange(len(labels)), labels] = 0.99
    return rows


def _boxes(corners: list[Corner]) -> list:
    return [(c.centre[0] - 15, c.centre[1] - 15, c.centre[0] + 15, c.centre[1] + 15) for c in corners]


def test_one_cards_two_corners_are_one_card_and_two_copies_side_by_side_are_two():
    corners = _one_card(200, 200)
    rows, where = merge(_rows([7, 7]), _boxes(corners), corners, 1.0)
    assert len(rows) == 1 and len(where[0]) == 2
    # two copies fanned 40 px apart: both top-left indices face up, and lie on each other's card
    copies = [_one_card(200, 200)[0], _one_card(240, 205)[0]]
    rows, where = merge(_rows([7, 7]), _boxes(copies), copies, 1.0)
    assert len(rows) == 2
    # one card's corners read as two different cards stay two readings
    rows, _ = merge(_rows([7, 9]), _boxes(corners), corners, 1.0)
    assert len(rows) == 2


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(100, 500), st.floats(100, 400), st.sampled_from([3, 7])), min_size=1, max_size=6))
def test_every_index_is_kept_once_and_only_facing_corners_of_one_label_merge(cards):
    corners, labels = [], []
    for cx, cy, label in cards:
        corners += _one_card(cx, cy)
        labels += [label, label]
    rows, where = merge(_rows(labels), _boxes(corners), corners, 2.0)
    assert sum(len(w) for w in where) == len(corners)  # no index lost, none counted twice
    assert len(cards) <= len(rows) <= len(corners)
    assert all(len(w) <= 2 for w in where)
    for row, w in zip(rows, where, strict=True):
        assert row.argmax() in labels
        assert all(abs(b[2] - b[0] - 15) < 1e-6 for b in w)  # the boxes in the picture's pixels (scale 2)


def test_an_index_is_new_only_when_its_middle_changed():
    changed = np.zeros((100, 100), bool)
    changed[40:60, 40:60] = True
    assert _new_box((35, 35, 65, 65), changed)
    assert not _new_box((0, 0, 30, 30), changed)
    ring = np.zeros((100, 100), bool)
    ring[30:70, 30:70] = True
    ring[40:60, 40:60] = False  # a neighbour's edge around an unchanged middle
    assert not _new_box((30, 30, 70, 70), ring)
