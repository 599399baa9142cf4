"""Reading a play against the seat's options (vision.play_weigh), issue 29: real ONNX models on
rendered pictures of the play area before and after a throw."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.labels import LABELS
from vision.pile import PileReader
from vision.pile_render import place
from vision.play_weigh import Evidence, PlayRead, option_log_likelihoods, read_play
from vision.render import _composite, _texture, named_style, render_face

OLD = ("S7", (170, 240), 80.0)
NEW = ("H4", (450, 240), 20.0)


@pytest.fixture(scope="module")
def piles(reader):
    return PileReader(reader)


def _table(cards: list[tuple[str, tuple[float, float], float]]) -> np.ndarray:
    """A picture of cards (label, centre, angle) on a plain table, the later ones on top; a little
    sensor noise of its own, as two frames of one camera differ."""
    rng = np.random.default_rng(len(cards))
    img = _texture(np.random.default_rng(0), 640, 480, base=(40, 110, 40), blobs=0).astype(np.float32)
    for label, centre, angle in cards:
        face = render_face(label, named_style("poker"))
        img = _composite(img, face, place(face, centre, 200, angle)[0], shadow=0.2)
    img += rng.normal(0, 2, img.shape[:2] + (1,)).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def test_a_card_on_an_empty_table_is_the_play(piles):
    r = read_play(None, _table([NEW]), [("H4",), ("S7",), ("D9",), ()], reader=piles)
    assert isinstance(r, PlayRead)
    assert r.labels == ("H4",) and 0.7 <= r.confidence <= 1.0
    assert r.boxes and all(300 < (b[0] + b[2]) / 2 < 600 for b in r.boxes)  # where the H4 lies


def test_only_what_is_new_is_read(piles):
    """The S7 lay there before: it is no part of this play, though the seat could have played it."""
    before, after = _table([OLD]), _table([OLD, NEW])
    r = read_play(before, after, [("S7",), ("H4",), ("S7", "H4"), ()], reader=piles)
    assert r.labels == ("H4",)
    assert read_play(before, before, [("S7",), ("H4",), ()], reader=piles).labels == ()


def test_nothing_new_and_no_pass_allowed_is_unsure(piles):
    before = _table([OLD])
    r = read_play(before, before, [("H4",), ("D9",)], reader=piles)
    assert r.labels is None and r.confidence < 0.9


def test_the_order_of_an_options_cards_does_not_matter(piles):
    after = _table([NEW])
    r = read_play(None, after, [("H4", "S7"), ("S7", "H4"), ("H4",)], reader=piles)
    assert r.labels == ("H4",)


def test_bad_input_is_a_clear_error(piles):
    img = _table([NEW])
    with pytest.raises(ValueError, match="after is not an image"):
        read_play(None, np.zeros((0, 0, 3), np.uint8), [("H4",)], reader=piles)
    with pytest.raises(ValueError, match="names no card"):
        read_play(None, img, [("H44",)], reader=piles)
    with pytest.raises(ValueError, match="no options"):
        read_play(None, img, [], reader=piles)


def _rows(draw_probs):
    rows = np.array(draw_probs, float)
    return rows / np.maximum(rows.sum(axis=1, keepdims=True), 1.0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.floats(0, 1), min_size=len(LABELS), max_size=len(LABELS)), min_size=0, max_size=5),
       st.lists(st.sampled_from(LABELS[:8]), min_size=1, max_size=3), st.randoms())
def test_weighing_does_not_depend_on_the_options_order(rows, play, rnd):
    ev = Evidence(_rows(rows) if rows else np.zeros((0, len(LABELS))), [[] for _ in rows])
    options = [tuple(play), (), (play[0],), ("D9", "C2")]
    ll = option_log_likelihoods(ev, options)
    order = list(range(len(options)))
    rnd.shuffle(order)
    assert np.allclose(option_log_likelihoods(ev, [options[i] for i in order]), ll[order])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(LABELS[:20]), min_size=1, max_size=4, unique=True), st.sampled_from(LABELS[20:40]))
def test_the_cards_read_surely_beat_any_play_missing_one(play, other):
    """Sure readings of exactly the play's cards: the play is likelier than the play with one card
    swapped for another, or left out, or a pass."""
    probs = np.zeros((len(play), len(LABELS)))
    for i, lab in enumerate(play):
        probs[i, LABELS.index(lab)] = 0.97
    ev = Evidence(probs, [[] for _ in play])
    rivals = [tuple(play[1:]) + (other,), tuple(play[1:]), ()]
    ll = option_log_likelihoods(ev, [tuple(play)] + rivals)
    assert (ll[0] > ll[1:]).all()


def test_two_copies_side_by_side_are_two_cards_and_one_card_is_one(piles):
    """Two decks: the corner detector keeps one reading per index, so two copies fanned a little apart
    (both facing one way) are a pair, and one card's two corners (facing apart) are one card."""
    options = [("CA",), ("CA", "CA"), ("H4",), ()]
    pair = _table([("CA", (300, 240), 10.0), ("CA", (340, 250), 10.0)])
    assert read_play(None, pair, options, reader=piles).labels == ("CA", "CA")
    single = _table([("CA", (320, 240), 10.0)])
    assert read_play(None, single, options, reader=piles).labels == ("CA",)


def test_an_older_card_pushed_a_few_pixels_is_not_read_as_new(piles):
    """A throw that nudges an older card: its indices moved, but they are not the play's."""
    before = _table([OLD])
    pushed = ("S7", (OLD[1][0] + 5, OLD[1][1] - 3), OLD[2] + 1.5)
    r = read_play(before, _table([pushed, NEW]), [("S7",), ("H4",), ("S7", "H4"), ()], reader=piles)
    assert r.labels == ("H4",)


def test_a_card_slid_by_hand_is_no_play(piles):
    """Someone straightens the pile: the last card slides 20-80 px (beyond a throw's push) and turns a
    little. Its index left its place and shows up elsewhere, read as the same card: nothing new landed.
    (In a two-deck game the seat may hold the other copy: read as new, it was applied as a play.)"""
    options = [("S7",), ("H4",), ()]
    for dx, turn in ((20, 0.0), (45, 3.0), (80, -4.0)):
        before = _table([OLD, NEW])
        moved = (NEW[0], (NEW[1][0] - dx, NEW[1][1] + dx / 3), NEW[2] + turn)
        r = read_play(before, _table([OLD, moved]), options, reader=piles)
        assert r.labels != ("H4",), (dx, r)


def test_a_picture_too_narrow_to_read_is_a_clear_error(piles):
    with pytest.raises(ValueError, match="too small or too narrow"):
        read_play(None, np.zeros((2, 4000, 3), np.uint8), [("H4",)], reader=piles)
