import numpy as np
import pytest

from vision.labels import LABELS, index, split
from vision.render import (
    DESIGNS,
    named_style,
    random_style,
    render_face,
    render_table_frame,
    render_window_frame,
    table_scene,
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


def test_face_index_box_holds_ink_in_the_suit_colour():
    for label in ("H4", "D10", "S2", "CK", "RJ", "BJ"):
        face = render_face(label, named_style("poker"))
        x0, y0, x1, y1 = face.index_box
        patch = face.bgr[y0:y1, x0:x1].astype(int)
        ink = patch.sum(axis=2) < 500
        assert ink.mean() > 0.05, label
        b, g, r = (patch[..., k][ink].mean() for k in range(3))
        suit, rank = split(label)
        red = rank == "RJ" if suit is None else suit in "HD"
        assert (r > b + 60) == red, label


def test_random_styles_cover_the_aspect_range():
    rng = np.random.default_rng(0)
    aspects = [random_style(rng).aspect for _ in range(300)]
    assert 0.58 <= min(aspects) < 0.6 and 0.73 < max(aspects) <= 0.75


def test_empty_hopper_and_unknown_design():
    empty = render_window_frame(None, np.random.default_rng(1))
    assert empty.shape == (240, 320, 3)
    with pytest.raises(ValueError, match="unknown card design"):
        render_window_frame("H4", np.random.default_rng(1), design="tarot")
    with pytest.raises(KeyError):
        index("H11")
