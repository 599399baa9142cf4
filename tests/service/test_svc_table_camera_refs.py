"""The table camera reads each seat's plays against that seat's hand as the dealer camera saw it (issue
29): the deal's journalled window reads (their index crops) become references, every card dealt, the
seat's own being the ones it may play. Real service,
real journal, real ONNX models on rendered pixels."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from controller.deal.window import evidence_jpeg
from controller.service.deal import SoftwareDealSource
from controller.service.table import TableService
from controller.table_camera.watcher import TableWatcher
from vision.labels import LABELS
from vision.pile import PileReader
from vision.pile_render import render_pile
from vision.play_read import read_play
from vision.reader import CardReader
from vision.render import face_for, render_window_frame

DESIGN = "kde-paris"  # held out: the models never learnt it



@pytest.fixture(scope="module")
def piles(card_art):
    card_art(DESIGN)
    return PileReader(CardReader(threads=1))


def _deal(svc: TableService, piles: PileReader, hands: dict[int, list[str]], seed: int) -> int:
    """A round whose deal read every card at the window, journalled as the dealer journals it."""
    rid = svc.journal.new_round({"game": "wakeng"})
    index = 0
    for seat, hand in hands.items():
        for i, lab in enumerate(hand):
            frame = render_window_frame(lab, np.random.default_rng([seed, 8, i]), design=DESIGN)
            reading = piles.reader.read(frame, "window")
            # the label as the deal's decoding settles it (exact), the crops as the window read cut them
            svc.journal.append(rid, "card_read", {"index": index, "label": lab, "seat": seat,
                                                  "confidence": float(reading.confidence)},
                               image=evidence_jpeg(reading, []))
            index += 1
    return rid


def _play(seed: int, k: int) -> tuple[list[str], tuple[str, ...], np.ndarray]:
    """A hand of 8, and the picture of its first ``k`` cards thrown onto the cloth."""
    rng = np.random.default_rng([seed, 7])
    hand = [LABELS[i] for i in rng.choice(52, 8, replace=False)]
    stages: list = []
    render_pile([face_for(c, rng, DESIGN) for c in hand[:k]], rng, hand=0.0, plays=[k], stages=stages)
    return hand, tuple(hand[:k]), stages[-1]


@pytest.mark.parametrize("seed, k", [(13, 2), (36, 1)])
def test_a_seats_play_is_read_against_its_own_dealt_cards(tmp_path: Path, piles, seed, k):
    svc = TableService(tmp_path / "data", SoftwareDealSource(card_delay=0.0, seed=7), bot_delay=0.0, seed=3)
    try:
        hand, played, after = _play(seed, k)
        other = [c for c in LABELS[:52] if c not in hand][:8]
        rid = _deal(svc, piles, {0: other, 1: hand}, seed)
        watcher = TableWatcher(svc, camera=None, reader=piles)
        refs = watcher._hand(rid, 1)
        # likened to every card dealt, the seat's own being the ones it may play
        assert refs is not None and refs.own == set(hand) and refs.cards == set(hand) | set(other)
        dealt = watcher.hands[rid]
        assert watcher._hand(rid, 0).own == set(other) and watcher.hands[rid] is dealt  # built once per hand
        options = [tuple(c) for c in itertools.combinations(hand, k)]
        # indices found as ink blobs: the models alone ask, the hand's pictures settle it
        blobs = PileReader(piles.reader, detector=None)
        assert read_play(None, after, options, reader=blobs).labels is None
        assert read_play(None, after, options, reader=blobs, refs=refs).labels == played
        # found by the corner detector (the service's way): right or asked alone, right with the hand
        assert read_play(None, after, options, reader=piles).labels in (None, played)
        assert read_play(None, after, options, reader=piles, refs=refs).labels == played
        # another seat's cards never make it name a card outside the hand
        got = read_play(None, after, options, reader=piles, refs=watcher._hand(rid, 0)).labels
        assert got is None or got in options
    finally:
        svc.close()


def test_a_deal_without_pictures_reads_with_the_models_alone(tmp_path: Path, piles):
    svc = TableService(tmp_path / "data", SoftwareDealSource(card_delay=0.0, seed=7), bot_delay=0.0, seed=3)
    try:
        rid = svc.journal.new_round({"game": "wakeng"})
        assert TableWatcher(svc, camera=None, reader=piles)._hand(rid, 0) is None
    finally:
        svc.close()
