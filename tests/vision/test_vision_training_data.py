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
    to_input,
    use_input_size,
)
from vision.render import named_style, render_face
from vision.train import reps_per_subset


def test_the_doctests_hold():
    assert doctest.testmod(vision.train).failed == 0


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
