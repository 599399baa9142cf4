import cv2
import numpy as np
import pytest

from vision.labels import LABELS
from vision.localize import corner_crops, localize
from vision.render import render_window_frame, table_scene


def corner_error(found: np.ndarray, truth: np.ndarray) -> float:
    """Largest corner distance (any cyclic order), relative to the card's diagonal."""
    best = min(np.abs(np.roll(found, k, axis=0) - truth).max() for k in range(4))
    return best / np.linalg.norm(truth[0] - truth[2])


@pytest.mark.parametrize("design", ["poker", "guandan", "dark"])
def test_finds_the_card_at_every_rotation(design):
    rng = np.random.default_rng(2026)
    for angle in range(0, 360, 15):
        frame, truth = table_scene(LABELS[angle % 54], rng, design=design, angle=float(angle), clutter=False)
        found = localize(frame)
        assert found is not None, angle
        assert corner_error(found.quad, truth) < 0.06, angle
        assert found.card.shape[1] == 128 and 0.52 <= found.aspect <= 0.82
        assert len(found.corners) == 2


def test_finds_most_cards_on_cluttered_tables():
    rng = np.random.default_rng(7)
    hits = 0
    for k in range(60):
        frame, truth = table_scene(LABELS[k % 54], rng)
        found = localize(frame)
        hits += found is not None and corner_error(found.quad, truth) < 0.06
    assert hits >= 51  # >= 85%


def test_finds_the_card_in_dealer_window_frames_either_way_up():
    rng = np.random.default_rng(3)
    for k in range(54):
        found = localize(render_window_frame(LABELS[k], rng, design=[None, "poker", "guandan", "dark"][k % 4]))
        assert found is not None, LABELS[k]
        assert 0.55 <= found.aspect <= 0.8


def test_reports_no_card_on_empty_and_blank_frames():
    rng = np.random.default_rng(4)
    none_seen = sum(localize(render_window_frame(None, rng)) is None for _ in range(60))
    assert none_seen >= 54
    assert localize(np.zeros((240, 320, 3), np.uint8)) is None
    assert localize(np.full((240, 320), 200, np.uint8)) is None
    assert localize(np.zeros((0, 0, 3), np.uint8)) is None


def test_corner_crops_turn_the_bottom_right_index_upright():
    card = np.zeros((180, 128, 3), np.uint8)
    card[2:10, 3:12] = 255  # a mark at the top-left
    card[170:178, 116:125] = 255  # its 180° twin at the bottom-right
    tl, br = corner_crops(card)
    assert tl.shape == br.shape
    assert np.array_equal(tl, br)


def test_a_pale_card_on_a_pale_table_is_found_from_its_broken_outline():
    from vision.localize import _order
    from vision.render import table_scene

    rng = np.random.default_rng(99)  # the 19th scene of this seed: a pale H7 whose outline has gaps
    for k in range(19):
        frame, truth = table_scene(LABELS[k], rng, design=["poker", "guandan", "bridge"][k % 3])
    found = localize(frame)
    assert found is not None
    truth = _order(truth.astype(np.float32))
    long_side = max(np.linalg.norm(truth[i] - truth[(i + 1) % 4]) for i in range(4))
    error = min(np.abs(np.roll(truth, s, axis=0) - found.quad).max() for s in range(4))
    assert error < 0.1 * long_side


def test_a_card_no_mask_closes_is_found_from_its_straight_sides():
    import vision.localize as localize_module

    rng = np.random.default_rng(7)  # scenes 31 and 53 of this seed: outlines that no mask closes
    scenes = [table_scene(LABELS[k % 54], rng) for k in range(54)]
    for k in (31, 53):
        frame, truth = scenes[k]
        found = localize(frame)
        assert found is not None, k
        assert corner_error(found.quad, truth) < 0.06, k
    real_line_quad = localize_module._line_quad
    try:  # the same scenes without the straight-edge stage: lost
        localize_module._line_quad = lambda grey, strong: None
        assert all(localize(scenes[k][0]) is None for k in (31, 53))
    finally:
        localize_module._line_quad = real_line_quad


def test_straight_edges_make_a_card_of_a_broken_outline_with_a_shape_against_it():
    from vision.localize import _line_quad, _order

    grey = np.full((240, 320), 170, np.uint8)
    truth = np.array([[90, 50], [210, 70], [185, 225], [65, 205]], np.float32)  # 0.74 aspect, turned ~9°
    cv2.fillConvexPoly(grey, truth.astype(np.int32), 230)
    cv2.circle(grey, (240, 120), 45, 40, -1)  # a dark shape lying against the right side
    cv2.line(grey, (110, 50), (150, 58), 170, 6)  # a gap in the top side
    strong = cv2.dilate((cv2.Laplacian(grey, cv2.CV_16S, ksize=3) != 0).astype(np.uint8), np.ones((5, 5), np.uint8))
    quad = _line_quad(grey, strong)
    assert quad is not None
    assert corner_error(_order(quad), truth) < 0.03
    assert _line_quad(np.full((240, 320), 170, np.uint8), strong) is None  # no lines, no card


@pytest.mark.parametrize(("table", "finger", "floor"), [("pattern", False, 20), ("white", False, 15), (None, True, 20)])
def test_finds_most_cards_on_a_white_or_patterned_table_and_under_a_finger(table, finger, floor):
    """Issue 28 item 2. Floors (of 24) a little under what the localizer does now (24 frames of seed 11:
    patterned 23, white 18, a finger over a corner 23); a pale card on a white table is the weak case."""
    rng = np.random.default_rng(11)
    hits = 0
    for k in range(24):
        design = [None, "poker", "guandan", "dark"][k % 4]
        frame, truth = table_scene(LABELS[k % 54], rng, design=design, table=table, finger=finger)
        found = localize(frame)
        hits += found is not None and corner_error(found.quad, truth) < 0.06
    assert hits >= floor


def test_an_unknown_table_is_refused():
    with pytest.raises(ValueError, match="unknown table"):
        table_scene("H4", np.random.default_rng(0), table="velvet")
