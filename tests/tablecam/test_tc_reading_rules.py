"""The play reader's answer rules that depend on what the seat may play and on its hand as dealt: a joker
read at its corners with the seat's own pictures, and a seat's only legal play."""

from __future__ import annotations

import numpy as np
import pytest

from firmware_bridge.sim.table_camera import VirtualTable
from vision.labels import LABELS
from vision.pile import PileReader
from vision.play_read import SURE, SURE_ONLY, _unexplained, read_play
from vision.play_weigh import Evidence, weigh_evidence


@pytest.fixture(scope="module")
def reader():
    return PileReader(threads=1)


def _refs(hand: list[str], design: str, reader):
    """The seat's hand as the dealer camera saw it: one window frame per card."""
    from vision.hand_refs import HandRefs
    from vision.render import face_for, render_window_frame

    rng = np.random.default_rng([1, 29])
    frames = [render_window_frame(c, rng, design=design, face=face_for(c, rng, design)) for c in hand]
    return HandRefs.from_window_frames(frames, hand, reader)


def _one_card(design: str, seed: int, card: str) -> tuple[np.ndarray, np.ndarray]:
    vt = VirtualTable(seed=seed, design=design, hand_rate=0.0)
    try:
        vt.noise = np.random.default_rng(seed)
        cloth = vt.picture()
        vt.base = vt._lay(vt.cloth.copy(), [card])
        return cloth, vt.picture()
    finally:
        vt.stop()


def test_a_joker_read_at_both_corners_is_answered_with_the_seats_own_pictures(card_art, reader):
    """Without the hand's pictures a joker is answered only when read whole (stray ink on designs the
    models do not know reads as a joker); with them, a joker read surely at both corners is answered.
    On these tables (tango, a training design) none was answered before."""
    card_art("tango")
    hand = ["BJ", "RJ", "C5", "H9", "SQ"]
    refs = _refs(hand, "tango", reader)
    options = [[c] for c in hand]
    answered = 0
    for seed in (1, 2, 4):
        for joker in ("BJ", "RJ"):
            before, after = _one_card("tango", seed, joker)
            plain = read_play(before, after, options, reader=reader)
            assert plain.labels is None, plain
            got = read_play(before, after, options, reader=reader, refs=refs)
            assert got.labels in (None, (joker,)), got
            answered += got.labels == (joker,)
    assert answered >= 5


@pytest.mark.parametrize("design", ["kde-oxygen", "kde-oxygen-air"])
def test_no_card_of_a_design_the_models_cannot_read_is_answered_as_a_joker(card_art, reader, design):
    """kde-oxygen prints the rank alone in a corner; its C6, CK and H7 were once applied as jokers. With the
    seat's own pictures, and even when only jokers are legal, none is answered as a joker."""
    card_art(design)
    hand = ["BJ", "RJ", "C6", "CK", "H7", "S6"]
    refs = _refs(hand, design, reader)
    for seed in (0, 3):
        for card in ("C6", "CK", "H7"):
            before, after = _one_card(design, seed, card)
            got = read_play(before, after, [[c] for c in hand], reader=reader, refs=refs)
            assert got.labels in (None, (card,)), got
            assert read_play(before, after, [["BJ"], ["RJ"]], reader=reader, refs=refs).labels is None


def _weighed(rows: list[dict[str, float]], options):
    probs = np.zeros((len(rows), len(LABELS)))
    for i, row in enumerate(rows):
        for label, p in row.items():
            probs[i, LABELS.index(label)] = p
        probs[i] /= max(probs[i].sum(), 1.0)
    boxes = [[(10.0 * i, 0.0, 10.0 * i + 8, 8.0), (10.0 * i + 50, 50.0, 10.0 * i + 58, 58.0)] for i in range(len(rows))]
    options = [tuple(o) for o in options]
    w = weigh_evidence(Evidence(probs, boxes), options)
    return w, w.options[int(w.posterior.argmax())]


@pytest.mark.parametrize("unsure", [SURE_ONLY, (SURE_ONLY + SURE) / 2, SURE - 0.01])
def test_the_only_legal_play_is_answered_on_a_less_sure_index_of_its_own(unsure):
    """A card of the seat's only legal play read at least SURE_ONLY on an index of its own is enough: no
    other play is there to be taken for it. With a second legal play it stays a question, and an index
    that reads a card outside the play more surely still asks."""
    rows = [{"H3": 0.99}, {"C3": unsure, "D3": 1 - unsure}]
    w, best = _weighed(rows, [["C3", "H3"]])
    assert best == ("C3", "H3") and _unexplained(w, best, [best], None, None) == ""
    two = [("C3", "H3"), ("D3", "H3")]
    w, best = _weighed(rows, two)
    assert _unexplained(w, best, two, None, None) != ""
    w, best = _weighed([{"H3": 0.99}, {"C3": unsure, "S9": 1 - unsure}, {"S9": 0.95}], [["C3", "H3"]])
    assert "does not hold" in _unexplained(w, best, [best], None, None)
    w, best = _weighed([{"H3": 0.99}, {"C3": SURE_ONLY - 0.05, "D3": 0.2}], [["C3", "H3"]])
    assert "not read on an index of its own" in _unexplained(w, best, [best], None, None)
