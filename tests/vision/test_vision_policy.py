"""The decline policy (stop 27) and the other diagonal's indices, with the real committed models."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.corner_data import NONE_CLASS
from vision.labels import LABELS
from vision.localize import corner_crops, other_corner_crops
from vision.reader import DECLINE_POLICY, Policy, pooled_features
from vision.render import DESIGNS, named_style, render_face


def _moved_index(label: str, design: str) -> np.ndarray:
    """A face whose indices sit top-right and bottom-left (as KDE's oxygen decks put them): each index
    moved across, not mirrored, the corners it left painted over with the paper."""
    style = named_style(design)
    face = render_face(label, style)
    img = face.bgr.copy()
    H, W = img.shape[:2]
    x0, y0, x1, y1 = face.index_box
    tl = img[y0:y1, x0:x1].copy()
    br = img[H - y1:H - y0, W - x1:W - x0].copy()
    img[y0:y1, x0:x1] = style.paper
    img[H - y1:H - y0, W - x1:W - x0] = style.paper
    img[y0:y1, W - x1:W - x0] = tl
    img[H - y1:H - y0, x0:x1] = br
    return img


def test_the_other_diagonal_is_cut_where_the_main_one_is_not():
    card = np.zeros((180, 128, 3), np.uint8)
    card[:10, -10:] = 255  # the top-right corner only
    tl, br = corner_crops(card)
    tr, bl = other_corner_crops(card)
    assert tl.max() == 0 and br.max() == 0
    assert tr[:10, -10:].min() == 255 and bl.max() == 0


def test_a_card_with_its_index_on_the_other_diagonal_is_read(reader):
    cards = [("H7", DESIGNS[0]), ("SQ", DESIGNS[0]), ("D10", DESIGNS[1]), ("CA", DESIGNS[1])]
    read = [reader.read(_moved_index(label, design), kind="frame").label for label, design in cards]
    assert read == [label for label, _ in cards]


def _lp(choices: list[int], p: float = 0.9) -> np.ndarray:
    """(members, 55) log-probabilities: each member gives ``p`` to its choice, the rest spread."""
    lp = np.full((len(choices), NONE_CLASS + 1), np.log((1 - p) / NONE_CLASS))
    for m, c in enumerate(choices):
        lp[m, c] = np.log(p)
    return lp


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, NONE_CLASS - 1), min_size=1, max_size=5))
def test_agreement_counts_the_members_that_pick_the_pooled_card(choices):
    f = pooled_features(_lp(choices))
    assert f.members == len(choices)
    assert f.agree == choices.count(f.best) and 1 <= f.agree <= f.members
    assert f.agree == max(choices.count(c) for c in choices) or f.agree < f.members


def test_the_policy_answers_with_enough_members_agreeing(reader):
    pol = DECLINE_POLICY["frame"]
    agreeing = [3] * pol.agree + [7] * (5 - pol.agree)
    assert reader._decide(_lp(agreeing, 0.999), "frame", []).label == LABELS[3]
    if pol.agree > 1:
        fewer = [3] * (pol.agree - 1) + [7 + m for m in range(5 - pol.agree + 1)]
        assert reader._decide(_lp(fewer, 0.999), "frame", []).label is None


def test_a_stricter_policy_declines_what_a_looser_one_answers(reader):
    lp = _lp([3, 3, 3, 3, 9], 0.99)
    saved = dict(reader.policy)
    try:
        reader.policy["frame"] = Policy(4, 0.4)
        assert reader._decide(lp, "frame", []).label == LABELS[3]
        reader.policy["frame"] = Policy(5, 0.4)
        assert reader._decide(lp, "frame", []).label is None
    finally:
        reader.policy.update(saved)
