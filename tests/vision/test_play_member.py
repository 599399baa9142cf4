"""The member pooled on a play's new indices (stop 54): the pile member's trainer on 21 training designs,
beside the five corner models when the play reader reads the indices a throw added. Real ONNX models on the
virtual table's pictures of lattmann, a training design the member never learnt (it is one of the five the
rules are chosen on)."""

import cv2
import numpy as np
import pytest

from firmware_bridge.sim.table_camera import VirtualTable
from vision import play_corners, play_read
from vision.model_store import weight_storage
from vision.pile import MEMBER_MODEL, PLAY_MEMBER_MODEL, PileReader
from vision.reader import CardReader


@pytest.fixture(scope="module")
def piles(reader, card_art):
    card_art("lattmann")
    return PileReader(reader), PileReader(reader, play_member=None)


def throw(card: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The empty play area and the same with ``card`` thrown onto it, through the stream's JPEG."""
    vt = VirtualTable(seed=seed, design="lattmann", hand_rate=0.0, nudge=0.0)
    vt.noise = np.random.default_rng([seed, 7])
    try:
        shots = []
        for step in (None, [card]):
            if step:
                with vt.lock:
                    vt.land(step)
            jpg = cv2.imencode(".jpg", vt.picture(), [cv2.IMWRITE_JPEG_QUALITY, 88])[1]
            shots.append(cv2.imdecode(jpg, cv2.IMREAD_COLOR))
    finally:
        vt.stop()
    return shots[0], shots[1]


def test_the_play_member_is_small_and_another_model_than_the_pile_member():
    assert PLAY_MEMBER_MODEL.exists() and PLAY_MEMBER_MODEL.stat().st_size < 400_000
    assert weight_storage(PLAY_MEMBER_MODEL) == weight_storage(MEMBER_MODEL)
    assert PLAY_MEMBER_MODEL.read_bytes() != MEMBER_MODEL.read_bytes()


def test_pooled_adds_the_members_vote_to_the_five(reader, piles):
    member = piles[0].play_member
    assert member is not None and member.paths == [PLAY_MEMBER_MODEL] and piles[1].play_member is None
    crops = [np.full((32, 32, 3), 230, np.uint8), np.zeros((40, 30, 3), np.uint8)]
    lp = play_corners.Pooled(reader, member).committee_log_probs(crops)
    assert lp.shape == (6, 2, 55)
    assert np.allclose(lp[:5], reader.committee_log_probs(crops), atol=1e-5)
    assert np.allclose(lp[5], CardReader(model_path=PLAY_MEMBER_MODEL).log_probs(crops), atol=1e-5)


@pytest.mark.parametrize(("card", "seed"), [("DJ", 0), ("DQ", 1)])
def test_a_court_card_the_five_asked_about_is_read(piles, monkeypatch, card, seed):
    with_member, without = piles
    before, after = throw(card, seed)
    options = [[card], ["S3"], ["H7"], ["CK"]]
    monkeypatch.setattr(play_corners, "WITH_MEMBER", True)
    assert play_read.read_play(before, after, options, reader=without).labels is None  # no member to pool
    assert play_read.read_play(before, after, options, reader=with_member).labels == (card,)
    # a card the seat could not play is still asked, not taken for one it could
    assert play_read.read_play(before, after, [["DK"], ["S3"], ["CJ"]], reader=with_member).labels is None


def test_the_play_reader_pools_the_member_by_default():
    assert play_corners.WITH_MEMBER
