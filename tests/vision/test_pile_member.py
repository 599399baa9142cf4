"""The pile committee's own member (issue 29, stop 52): the corner models' network trained on the corner
detector's cuts of rendered piles of the training designs joins the five corner models when the pile reader
reads the detector's indices, and nowhere else. Real ONNX models on rendered piles of training designs' real
card art."""

import numpy as np
import pytest

from vision import pile_corners
from vision.model_store import weight_storage
from vision.pile import MEMBER_MODEL, PileReader
from vision.pile_render import render_pile
from vision.reader import CardReader
from vision.render import face_for

DESIGNS = ("lattmann", "kde-jolly-royal")  # training designs (vision.card_art.TRAIN_DESIGNS)


@pytest.fixture(scope="module")
def piles(reader, card_art):
    card_art(*DESIGNS)
    return PileReader(reader), PileReader(reader, member=None)


def pile(design: str, labels: list[str], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return render_pile([face_for(lab, rng, design) for lab in labels], rng, hand=0.0).image


def test_the_member_is_small_and_stored_as_the_other_members():
    assert MEMBER_MODEL.exists()
    assert MEMBER_MODEL.stat().st_size < 400_000
    assert weight_storage(MEMBER_MODEL) == weight_storage(MEMBER_MODEL.parent / "card_corner_b.onnx")


def test_the_member_joins_the_pile_committee_only(reader, piles):
    member = piles[0].member
    assert member is not None and member.paths == [MEMBER_MODEL]
    crops = [np.full((32, 32, 3), 230, np.uint8), np.zeros((40, 30, 3), np.uint8)]
    lp, names = pile_corners.committee(reader, member, crops)
    assert names == [p.name for p in reader.paths] + [MEMBER_MODEL.name]  # a sixth vote: e stays, and may dissent
    assert lp.shape == (6, 2, 55)
    assert np.allclose(lp[:5], reader.committee_log_probs(crops), atol=1e-5)
    assert np.allclose(lp[5], CardReader(model_path=MEMBER_MODEL).log_probs(crops), atol=1e-5)
    assert len(reader.paths) == 5  # the reader's own committee (the deal, the play reader) is unchanged
    assert pile_corners.committee(reader, None, crops)[1] == [p.name for p in reader.paths]


@pytest.mark.parametrize(("design", "labels", "seed"),
                         [("lattmann", ["D2", "CQ"], 39), ("kde-jolly-royal", ["C6", "DK"], 17)])
def test_a_pile_the_five_declined_is_read(piles, design, labels, seed):
    with_member, without = piles
    image = pile(design, labels, seed)
    assert without.read(image).labels is None
    assert with_member.read(image).labels == sorted(labels)
