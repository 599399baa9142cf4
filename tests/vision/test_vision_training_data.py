"""The training data's pieces (pure numpy/OpenCV; torch is never needed here)."""

import doctest
from dataclasses import replace

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vision.corner_data
import vision.train
from vision.corner_data import (
    MODEL_SIZE,
    NONE_CLASS,
    augment_real,
    index_crop_samples,
    none_samples,
    poor_camera,
    sensor_codec,
    split_index_samples,
    to_input,
    use_input_size,
    use_sensor_codec,
)
from vision.labels import LABELS, split
from vision.render import named_style, render_face, render_split_face
from vision.train import held_out_frames, reps_per_subset


def test_the_doctests_hold():
    assert doctest.testmod(vision.train).failed == 0
    assert doctest.testmod(vision.corner_data).failed == 0


@given(st.lists(st.sampled_from("abcd"), min_size=1, max_size=400), st.integers(1, 40))
@settings(max_examples=60, deadline=None)
def test_every_capture_setup_gets_at_least_the_base_and_no_more_than_the_cap(subsets, base):
    reps = reps_per_subset([{"subset": s} for s in subsets], base)
    assert set(reps) == set(subsets)
    count = {s: subsets.count(s) for s in reps}
    biggest = max(count, key=count.get)
    assert reps[biggest] == base
    for s, r in reps.items():
        assert base <= r <= round(3 * base)
        if count[s] * 3 >= count[biggest]:  # under the cap: the weights even out
            assert abs(r * count[s] - base * count[biggest]) <= count[s]


_PHOTOS = st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 30)), min_size=1, max_size=80)


@given(_PHOTOS, st.floats(0.0, 1.0), st.integers(0, 2**16), st.sets(st.sampled_from("abc"), max_size=3))
@settings(max_examples=80, deadline=None)
def test_a_held_out_photo_keeps_all_its_crops_out_and_only_its_subsets_are_drawn(crops, share, seed, subsets):
    rows = [{"subset": s, "frame": f"{s}{k}"} for s, k in crops]
    subsets = sorted(subsets & {r["subset"] for r in rows}) or None
    held = held_out_frames(rows, share, seed, subsets)
    eligible = {r["frame"] for r in rows if subsets is None or r["subset"] in subsets}
    assert held <= eligible
    assert len(held) == int(len(eligible) * share)  # the share of photos, not of crops
    assert held == held_out_frames(list(reversed(rows)), share, seed, subsets)  # the seed decides, not the order


def test_a_holdout_out_of_reason_or_of_an_unknown_subset_is_refused():
    rows = [{"subset": "webcam_handheld", "frame": "p1"}]
    with pytest.raises(ValueError, match="between 0 and 1"):
        held_out_frames(rows, 1.5, 0)
    with pytest.raises(ValueError, match="no such subset.*webcam_hanheld"):
        held_out_frames(rows, 0.5, 0, ["webcam_hanheld"])


def test_a_poor_camera_blurs_and_darkens_but_keeps_the_crop():
    face = render_face("S7", named_style("poker"))
    crop = np.ascontiguousarray(face.bgr[:64, :64])
    outs = [poor_camera(crop, np.random.default_rng(s)) for s in range(40)]
    assert all(o.shape == crop.shape and o.dtype == np.uint8 for o in outs)
    assert np.array_equal(poor_camera(crop, np.random.default_rng(7)), outs[7])  # deterministic for a seed

    def sharpness(img):  # the steepest edge against the contrast, noise smoothed away first
        g = cv2.blur(img.astype(np.float32).mean(axis=2), (3, 3))
        contrast = np.percentile(g, 99) - np.percentile(g, 1) + 1e-6
        return float(np.percentile(np.abs(np.diff(g, axis=1)), 99.5) / contrast)

    assert np.median([sharpness(o) for o in outs]) < 0.8 * sharpness(crop)
    assert np.median([o.mean() for o in outs]) < crop.mean()


def test_a_joker_can_be_written_across_the_corner_in_any_case():
    base = named_style("poker")
    for word in ("JOKER", "Joker", "joker"):
        across = render_face("RJ", replace(base, joker_across=True, joker_word=word))
        column = render_face("RJ", replace(base, joker_across=False, joker_vertical=True, joker_word=word))
        x0, y0, x1, y1 = across.index_box
        assert x1 - x0 > 2 * (y1 - y0)  # a word lying across
        x0, y0, x1, y1 = column.index_box
        assert y1 - y0 > 2 * (x1 - x0)  # letters stacked in a column
    a = render_face("RJ", replace(base, joker_across=True, joker_word="Joker")).bgr
    b = render_face("RJ", replace(base, joker_across=True, joker_word="JOKER")).bgr
    assert not np.array_equal(a, b)


def test_index_crops_come_at_the_models_size_for_both_corners():
    rng = np.random.default_rng(11)
    for _ in range(20):
        pair = index_crop_samples(rng)
        assert len(pair) == 2 and pair[0][1] == pair[1][1]
        assert all(x.shape == (MODEL_SIZE, MODEL_SIZE, 3) and x.dtype == np.uint8 for x, _ in pair)


@pytest.fixture
def input_size_48():
    use_input_size(48)
    yield 48
    use_input_size(MODEL_SIZE)


def test_a_training_run_for_a_sharper_model_gets_every_sample_at_its_size(input_size_48):
    rng = np.random.default_rng(5)
    real = rng.integers(0, 256, (71, 24, 3), dtype=np.uint8)
    samples = index_crop_samples(rng) + none_samples(rng) + [(augment_real(real, rng), 0), (to_input(real), 0)]
    assert all(x.shape == (48, 48, 3) and x.dtype == np.uint8 for x, _ in samples)
    assert to_input(real, 32).shape == (32, 32, 3)  # a size asked for wins


def test_an_input_size_out_of_reason_is_refused():
    for size in (8, 512):
        with pytest.raises(ValueError, match="not between 16 and 128"):
            use_input_size(size)
    assert vision.corner_data.to_input(np.zeros((5, 5, 3), np.uint8)).shape == (MODEL_SIZE, MODEL_SIZE, 3)


def test_a_no_card_crop_of_a_tall_large_index_face_fits_the_face():
    """This generator's second draw is a face whose index, taken 1.5 times, is taller than the card:
    the window cut away from the indices must still fit (it once raised and stopped a training run)."""
    rng = np.random.default_rng(2364455092)
    samples = none_samples(rng) + none_samples(rng)
    assert samples and all(y == NONE_CLASS and x.shape == (MODEL_SIZE, MODEL_SIZE, 3) for x, y in samples)


def _small_index(label: str, size: int = 14) -> np.ndarray:
    face = render_face(label, named_style("poker"))
    x0, y0, x1, y1 = face.index_box
    return cv2.resize(np.ascontiguousarray(face.bgr[y0:y1, x0:x1]), (size, size), interpolation=cv2.INTER_AREA)


@given(st.integers(0, 2**32 - 1), st.sampled_from(["S7", "CK", "H9", "D5", "SA", "C10"]), st.integers(10, 25))
@settings(max_examples=60, deadline=None)
def test_a_sensor_and_its_encoder_keep_a_small_crop_and_its_colour(seed, label, size):
    """Demosaicing and JPEG at the camera's size: the same size and type, deterministic for a seed, and
    a red index stays redder than a black one (the ink's mean colour survives the colour fringes)."""
    crop = _small_index(label, size)
    out = sensor_codec(crop, np.random.default_rng(seed))
    assert out.shape == crop.shape and out.dtype == np.uint8
    assert np.array_equal(out, sensor_codec(crop, np.random.default_rng(seed)))
    ink = crop.astype(np.float32).mean(axis=2) < 150  # the index's strokes, found on the clean crop
    redness = lambda img: float((img[..., 2].astype(np.float32) - img[..., :2].astype(np.float32).mean(axis=2))[ink].mean())  # noqa: E731
    assert (redness(out) > 40) == (label[0] in "HD")


def test_a_bayer_mosaic_leaves_colour_fringes_on_a_black_pip():
    crop = _small_index("S7", 16)
    grey = lambda img: float(np.abs(np.diff(img.astype(np.float32), axis=2)).mean())  # noqa: E731 -- colour spread
    outs = [sensor_codec(crop, np.random.default_rng(s)) for s in range(40)]
    assert max(grey(o) for o in outs) > 2 * grey(crop) + 2  # some draws fringe (the mosaic, half the time)
    assert np.mean([np.abs(o.astype(np.float32) - crop).mean() for o in outs]) > 1.0  # and every draw alters it


def test_the_sensor_codec_is_a_recipe_choice_off_by_default():
    def first_crops() -> list[np.ndarray]:  # each from a fresh generator: the codec's own draws come last
        return [index_crop_samples(np.random.default_rng(s))[0][0] for s in range(80)]

    plain = first_crops()
    use_sensor_codec(True)
    try:
        coded = first_crops()
    finally:
        use_sensor_codec(False)
    assert all(np.array_equal(a, b) for a, b in zip(plain, first_crops(), strict=True))  # off: as before
    changed = sum(not np.array_equal(a, b) for a, b in zip(plain, coded, strict=True))
    assert 0 < changed < 0.4 * len(plain)  # only the low-resolution share (about a fifth) goes through it


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=15, deadline=None)
def test_a_split_index_crop_is_labelled_with_the_half_of_the_card_it_shows(seed):
    """Rank crops keep the card's rank (any suit), suit crops its suit (any rank): what the crop shows."""
    rng = np.random.default_rng(seed)
    truth = LABELS[int(np.random.default_rng(seed).integers(52))]  # the card split_index_samples draws first
    out = split_index_samples(rng)
    assert len(out) == 4
    assert all(x.shape == (MODEL_SIZE, MODEL_SIZE, 3) and x.dtype == np.uint8 for x, _ in out)
    (_, r1), (_, s1), (_, r2), (_, s2) = out
    assert {split(LABELS[r])[1] for r in (r1, r2)} == {split(truth)[1]}
    assert {split(LABELS[s])[0] for s in (s1, s2)} == {split(truth)[0]}


def test_a_split_face_prints_the_rank_top_right_and_the_suit_bottom_left_and_nothing_at_the_usual_corners():
    face, rbox, sbox = render_split_face("H7", named_style("poker"), white_on_colour=True)
    H, W = face.bgr.shape[:2]
    assert rbox[0] > W / 2 and rbox[3] < H / 4  # the rank: top right
    assert sbox[2] < W / 2 and sbox[1] > 3 * H / 4  # the suit: bottom left
    paper = face.bgr[H // 2, 2].astype(int)
    for x0, y0, x1, y1 in (rbox, sbox):  # white ink on the red card
        ink = face.bgr[y0:y1, x0:x1].astype(int)
        assert (np.abs(ink - paper).max(axis=2) > 100).mean() > 0.05
    assert paper[2] > 120 and paper[0] < 80
    with pytest.raises(ValueError):
        render_split_face("RJ", named_style("poker"))
