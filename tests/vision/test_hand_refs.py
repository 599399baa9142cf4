"""A seat's hand as dealt (vision.hand_refs) read into its plays (issue 29): real ONNX models on rendered
dealer-window frames and rendered plays."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vision.hand_refs import HandRefs
from vision.labels import LABELS
from vision.pile import PileReader
from vision.pile_render import render_pile
from vision.play_weigh import new_candidates, pool, read_play, weigh_evidence
from vision.reader import CardReader
from vision.render import face_for, render_window_frame

SUITED = LABELS[:52]


@pytest.fixture(scope="module")
def piles(reader, card_art):
    card_art("paris", "kde-paris")
    return PileReader(reader)


def _refs(hand: list[str], design: str, piles: PileReader, seed: int = 8) -> HandRefs:
    frames = [render_window_frame(lab, np.random.default_rng([seed, 8, i]), design=design,
                                  face=face_for(lab, np.random.default_rng(0), design)) for i, lab in enumerate(hand)]
    return HandRefs.from_window_frames(frames, hand, piles)


def _one_card(label: str, design: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng([seed, 7])
    stages: list = []
    render_pile([face_for(label, rng, design)], rng, hand=0.0, plays=[1], stages=stages)
    return stages[-1]


def held_out_case(design: str, seed: int) -> tuple[list[str], str, np.ndarray]:
    """A hand of 8, and the picture of its first card thrown alone onto the cloth."""
    rng = np.random.default_rng([seed, 7])
    hand = [LABELS[i] for i in rng.choice(52, 8, replace=False)]
    stages: list = []
    render_pile([face_for(hand[0], rng, design)], rng, hand=0.0, plays=[1], stages=stages)
    return hand, hand[0], stages[-1]


@pytest.mark.parametrize("seed", [1, 11])
def test_a_held_out_card_the_models_ask_about_is_read_with_the_hand(reader, card_art, seed):
    """kde-paris is a held-out design: its index cut from ink blobs leaves the models unsure; likened to
    the seat's own cards as the dealer camera saw them, it is read right."""
    card_art("kde-paris")
    blobs = PileReader(reader, detector=None)
    hand, played, after = held_out_case("kde-paris", seed)
    options = [(c,) for c in hand] + [()]
    assert read_play(None, after, options, reader=blobs).labels is None
    assert read_play(None, after, options, reader=blobs, refs=_refs(hand, "kde-paris", blobs, seed)).labels == (played,)


@pytest.mark.parametrize("seed", [1, 11])
def test_a_held_out_card_found_by_the_detector_is_read_with_the_hand_or_asked(piles, seed):
    """The corner detector's cut of the same card: read right alone or asked, and right with the hand."""
    hand, played, after = held_out_case("kde-paris", seed)
    options = [(c,) for c in hand] + [()]
    assert read_play(None, after, options, reader=piles).labels in (None, (played,))
    assert read_play(None, after, options, reader=piles, refs=_refs(hand, "kde-paris", piles, seed)).labels == (played,)


def test_each_card_of_the_hand_has_references_most_like_itself(piles):
    hand = ["S3", "H3", "D9", "CK"]
    refs = _refs(hand, "poker", piles)
    assert refs.cards == set(hand)
    again = _refs(hand, "poker", piles, seed=9)  # other frames of the same cards
    for lab in hand:
        views = again.embeddings[again.labels == LABELS.index(lab)]
        sim = np.einsum("ij,kj->ik", views, refs.embeddings)
        nearest = refs.labels[sim.argmax(axis=1)]
        assert np.mean(nearest == LABELS.index(lab)) >= 0.5


def test_the_deals_crops_make_references_too(reader, piles):
    """What the journal keeps of a deal read (the reader's index corners) is enough."""
    hand = ["H7", "SQ"]
    frames = [render_window_frame(lab, np.random.default_rng(i), design="paris") for i, lab in enumerate(hand)]
    crops = [CardReader.read(reader, f, "window").crops for f in frames]
    refs = HandRefs.from_corner_crops(crops, hand, piles)
    assert refs.cards == set(hand)


def test_without_references_the_reading_is_the_models_alone(piles):
    after = _one_card("H4", "poker", 1)
    options = [("H4",), ("S7",), ("D9",), ()]
    c = new_candidates(None, after, piles, _refs(["H4", "S7", "D9"], "poker", piles))
    alone = weigh_evidence(pool(replace(c, likeness=None)), options)
    plain = read_play(None, after, options, reader=piles)
    assert alone.read.labels == plain.labels and alone.read.confidence == pytest.approx(plain.confidence)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_the_read_play_is_always_an_option_or_none(piles, data):
    """Whatever the references (the hand's own, or another card set's), the answer is one of the seat's
    options or a question: refs never name a card outside the hand."""
    hand = data.draw(st.lists(st.sampled_from(SUITED), min_size=3, max_size=8, unique=True))
    other = data.draw(st.lists(st.sampled_from(SUITED), min_size=3, max_size=6, unique=True))
    played = data.draw(st.sampled_from(sorted(set(SUITED) - set(hand))))  # maybe a card not in the hand
    design = data.draw(st.sampled_from(["paris", "kde-paris", "poker"]))
    after = _one_card(played if data.draw(st.booleans()) else hand[0], design, data.draw(st.integers(0, 50)))
    options = [(c,) for c in hand] + [()]
    for refs in (_refs(hand, design, piles), _refs(other, design, piles)):
        got = read_play(None, after, options, reader=piles, refs=refs).labels
        assert got is None or got in options
