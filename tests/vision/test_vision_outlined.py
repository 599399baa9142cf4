"""Stop 42 (issue 28): a photo read from its plain outline is judged by the ``outlined`` policy, with the
real committed models on rendered photos of training designs (never held-out ones)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.corner_data import NONE_CLASS
from vision.labels import LABELS
from vision.reader import DECLINE_POLICY, Policy, pooled_features
from vision.render import render_table_frame

# Table photos of training designs (design, seed, card) that the photo policy (all five agree) declined: four
# members named the card surely and one (mostly e, never trained on real card art) another.
LONE_DISSENT = [("anglo_modern", 1, "SK"), ("anglo_modern", 4, "C7"), ("bellot", 4004, "SA"),
                ("berlin", 5004, "H6"), ("dondorf", 6000, "D6"), ("gnomangelo", 7000, "DJ"),
                ("guyenne-classic", 8001, "CA"), ("lattmann", 9004, "DK"), ("neoclassical", 10001, "SJ"),
                ("neoclassical_4_color", 11004, "C10"), ("neoclassical_4_color", 11005, "S8")]
TRAINING = sorted({d for d, _, _ in LONE_DISSENT})
FRAME_POLICY = DECLINE_POLICY["frame"]


def _lp(choices: list[int], p: float = 0.99) -> np.ndarray:
    lp = np.full((len(choices), NONE_CLASS + 1), np.log((1 - p) / NONE_CLASS))
    for m, c in enumerate(choices):
        lp[m, c] = np.log(p)
    return lp


def test_the_outlined_policy_is_looser_than_the_photo_policy_and_applies_to_photos_only(reader):
    out = DECLINE_POLICY["outlined"]
    assert out.agree <= FRAME_POLICY.agree and out.confidence <= FRAME_POLICY.confidence
    lone = _lp([3, 3, 3, 3, 9])
    assert reader._decide(lone, "frame", [], outlined=True).label == LABELS[3]
    assert reader._decide(lone, "frame", [], outlined=False).label is None
    three = _lp([3, 3, 3, 9, 9])  # two dissenting: still declined
    assert reader._decide(three, "frame", [], outlined=True).label is None
    saved = dict(reader.policy)
    try:  # a window frame or a corner crop is never judged by the photos' outlined policy
        reader.policy["outlined"] = Policy(1, 0.0)
        for kind in ("window", "corner"):
            assert reader._decide(_lp([3, 9, 11, 12, 13]), kind, [], outlined=True).label is None
    finally:
        reader.policy.update(saved)


def test_training_table_photos_lost_to_one_dissenting_member_are_read(reader, card_art):
    card_art(*TRAINING)
    for design, seed, truth in LONE_DISSENT:
        photo = render_table_frame(truth, np.random.default_rng(seed), design=design)
        outlined: set = set()
        lp, _ = reader._evidence(photo, "frame", False, None, outlined)
        f = pooled_features(lp)
        assert id(photo) in outlined and LABELS[f.best] == truth and f.agree == 4, (design, seed)
        assert reader.read(photo, kind="frame").label == truth, (design, seed)


@pytest.fixture(scope="module")
def strict_reader():
    from vision.reader import CardReader

    r = CardReader(threads=1)
    r.policy["outlined"] = FRAME_POLICY  # the reader as it was before stop 42
    return r


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from(TRAINING), st.sampled_from(LABELS))
def test_the_outlined_policy_only_answers_what_was_declined(reader, strict_reader, card_art, seed, design, truth):
    card_art(design)
    photo = render_table_frame(truth, np.random.default_rng(seed), design=design)
    before, after = strict_reader.read(photo, kind="frame").label, reader.read(photo, kind="frame").label
    assert after == before or before is None
