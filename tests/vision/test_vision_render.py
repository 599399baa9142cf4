from dataclasses import replace

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.labels import LABELS, index, split
from vision.render import (
    DESIGNS,
    _pip_mask,
    named_style,
    random_style,
    render_face,
    render_table_frame,
    render_window_frame,
    table_scene,
    use_more_pip_shapes,
)


@pytest.mark.parametrize("design", [*DESIGNS, None])
def test_window_frames_are_deterministic_for_a_seed(design):
    a = render_window_frame("H4", np.random.default_rng(42), design=design)
    b = render_window_frame("H4", np.random.default_rng(42), design=design)
    c = render_window_frame("H4", np.random.default_rng(43), design=design)
    assert a.dtype == np.uint8 and a.shape == (240, 320, 3)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_table_frames_are_deterministic_and_keep_the_card_inside():
    a, qa = table_scene("SA", np.random.default_rng(5))
    b, qb = table_scene("SA", np.random.default_rng(5))
    assert np.array_equal(a, b) and np.array_equal(qa, qb)
    assert np.array_equal(render_table_frame("SA", np.random.default_rng(5)), a)
    h, w = a.shape[:2]
    for seed in range(30):
        _, q = table_scene("D7", np.random.default_rng(seed))
        assert (q[:, 0] >= 0).all() and (q[:, 0] < w).all() and (q[:, 1] >= 0).all() and (q[:, 1] < h).all()


@pytest.mark.parametrize("design", DESIGNS)
def test_every_card_has_its_own_face_in_every_design(design):
    faces = [render_face(label, named_style(design)).bgr for label in LABELS]
    assert len(faces) == 54
    seen = {f.tobytes() for f in faces}
    assert len(seen) == 54  # no two labels draw the same face
    for label, f in zip(LABELS, faces, strict=True):
        assert f.std() > 5, label  # something is drawn


def _assert_index_inked_in_suit_colour(face, label: str) -> None:
    x0, y0, x1, y1 = face.index_box
    patch = face.bgr[y0:y1, x0:x1].astype(int)
    ink = patch.sum(axis=2) < 500
    assert ink.mean() > 0.05, label
    b, g, r = (patch[..., k][ink].mean() for k in range(3))
    suit, rank = split(label)
    red = rank == "RJ" if suit is None else suit in "HD"
    assert (r > b + 60) == red, label


def test_face_index_box_holds_ink_in_the_suit_colour():
    for label in ("H4", "D10", "S2", "CK", "RJ", "BJ"):
        _assert_index_inked_in_suit_colour(render_face(label, named_style("poker")), label)


def test_random_styles_cover_the_aspect_range():
    rng = np.random.default_rng(0)
    aspects = [random_style(rng).aspect for _ in range(300)]
    assert 0.58 <= min(aspects) < 0.6 and 0.73 < max(aspects) <= 0.75


def _variants_drawn(seed: int, n: int = 400) -> set[int]:
    rng = np.random.default_rng(seed)
    return {random_style(rng).pip_variant for _ in range(n)}


def test_more_pip_shapes_are_a_training_recipe_off_by_default():
    rng = np.random.default_rng(5)
    before = [random_style(rng) for _ in range(40)]
    assert _variants_drawn(0) == {0, 1, 2, 3}
    use_more_pip_shapes(True)
    try:
        assert _variants_drawn(0) == set(range(12))
        named = {d: render_face("SK", named_style(d)).bgr for d in DESIGNS}  # the rig's camera is unchanged
    finally:
        use_more_pip_shapes(False)
    rng = np.random.default_rng(5)
    assert [random_style(rng) for _ in range(40)] == before  # off again: the same styles as before
    for d, face in named.items():
        assert np.array_equal(face, render_face("SK", named_style(d)).bgr), d


def _body_solidity(mask: np.ndarray) -> float:
    """Area over convex-hull area of a pip's top 70% (its lobes, without the stem)."""
    top = (mask[: int(0.7 * mask.shape[0])] > 0.5).astype(np.uint8)
    contour = max(cv2.findContours(top, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0], key=cv2.contourArea)
    return cv2.contourArea(contour) / cv2.contourArea(cv2.convexHull(contour))


@pytest.mark.parametrize("variant", range(4, 12))
def test_the_rounder_spades_are_one_convex_blob_and_clubs_keep_their_notches(variant):
    spade, club = _pip_mask("S", variant), _pip_mask("C", variant)
    for mask in (spade, club):
        assert cv2.connectedComponents((mask > 0.5).astype(np.uint8))[0] == 2  # one shape (and background)
        assert 0.95 <= mask.shape[0] / mask.shape[1] <= 1.2  # about as tall as wide, stem included
    assert _body_solidity(spade) > 0.98  # a round blob with a point or blunt top: what a small camera sees
    assert _body_solidity(club) < 0.93  # three lobes: the notches between them are what tell it apart
    assert not np.array_equal(spade, _pip_mask("S", variant % 4))  # a new shape, not an old one again


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 11), st.sampled_from(["S2", "S10", "SK", "SA", "C3", "CQ", "H4", "D9"]),
       st.floats(0.08, 0.19))
def test_every_pip_shape_draws_a_legible_index_in_its_colour(variant, label, suit_h):
    face = render_face(label, replace(named_style("poker"), pip_variant=variant, suit_h=suit_h))
    _assert_index_inked_in_suit_colour(face, label)


def test_empty_hopper_and_unknown_design():
    empty = render_window_frame(None, np.random.default_rng(1))
    assert empty.shape == (240, 320, 3)
    with pytest.raises(ValueError, match="unknown card design"):
        render_window_frame("H4", np.random.default_rng(1), design="tarot")
    with pytest.raises(KeyError):
        index("H11")
