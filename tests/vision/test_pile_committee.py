"""How the pile reader's committee reads one detected index (issue 29, stop 51): its weakest member may
dissent at two cuts, and a cut whose pooled first choice is another card stops the reading. Real ONNX
models on rendered piles of training designs' real card art. The five corner models alone: the pile
committee's own member (stop 52, tests/vision/test_pile_member.py) is left out here."""

import numpy as np
import pytest

from vision import pile_corners
from vision.pile import PileReader
from vision.pile_render import render_pile
from vision.render import face_for

DESIGNS = ("lattmann", "bellot", "kde-jolly-royal")  # training designs (vision.card_art.TRAIN_DESIGNS)


@pytest.fixture(scope="module")
def piles(reader, card_art):
    card_art(*DESIGNS)
    return PileReader(reader, member=None)


def pile(design: str, labels: list[str], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return render_pile([face_for(lab, rng, design) for lab in labels], rng, hand=0.0).image


@pytest.mark.parametrize(("design", "labels", "seed"),
                         [("lattmann", ["D3", "H7"], 0), ("kde-jolly-royal", ["CA"], 0),
                          ("lattmann", ["SK", "C6"], 0), ("bellot", ["C8", "D8"], 2)])
def test_the_weakest_member_alone_does_not_decline_a_pile(piles, monkeypatch, design, labels, seed):
    image = pile(design, labels, seed)
    assert piles.read(image).labels == sorted(labels)
    monkeypatch.setattr(pile_corners, "LAX_MEMBERS", ())  # every member must agree, as before
    assert piles.read(image).labels is None


@pytest.mark.parametrize(("design", "labels", "seed", "named_before"),
                         [("lattmann", ["SJ", "S7"], 0, ["S7", "S8"]),
                          ("kde-jolly-royal", ["C3", "S7"], 29, ["S3", "S7"])])
def test_a_cut_leaning_to_another_card_stops_the_reading(piles, monkeypatch, design, labels, seed, named_before):
    image = pile(design, labels, seed)
    assert piles.read(image).labels is None
    # one cut's sure verdict was enough before, whatever the other cuts leaned to: a card named that is not there
    monkeypatch.setattr(pile_corners, "read_cuts",
                        lambda cuts, lax=(): pile_corners._either([pile_corners.verdict(lp) for lp in cuts]))
    assert piles.read(image).labels == named_before
