"""`hongsi deck learn` on the virtual rig: the rig deals a deck of known order into one pile while the camera
enrols each card; the deck then reads other pictures of that design."""

from __future__ import annotations

import json
import subprocess

import numpy as np
from pi_helpers import HONGSI, ROOT, SPEED, env

from engine.cards import parse_card
from firmware_bridge.sim import VirtualRig
from vision.labels import LABELS
from vision.render import render_window_frame

DESIGN = "bridge"


def test_the_rig_learns_a_deck_in_a_listed_order_and_the_deck_then_reads_its_cards(tmp_path):
    from vision.enroll import DeckRefs, Embedder, read_with_deck
    from vision.reader import MODEL_PATH, CardReader

    order = list(np.random.default_rng(5).permutation(LABELS))
    (tmp_path / "order.txt").write_text(" ".join(order))
    data = tmp_path / "data"
    DeckRefs(np.eye(2, 8, dtype=np.float32), np.array([0, 1]), "an-older-model").save(data, "bridge-red")
    with VirtualRig(seed=5, speed=SPEED, design=DESIGN, jokers=True) as vr:
        vr.load(order)  # the first listed card leaves first
        proc = subprocess.run(HONGSI + ["deck", "learn", "--serial", vr.ends["serial"], "--camera", vr.ends["camera"],
                                        "--deck", "bridge-red", "--order", str(tmp_path / "order.txt"),
                                        "--frames", "2"],
                              capture_output=True, text=True, env=env(HONGSI_DATA_DIR=str(data)), cwd=ROOT,
                              timeout=300)
        assert proc.returncode == 0, proc.stderr
        assert "its 2 references made with another model were replaced by the rig's frames'" in proc.stderr
        pile = vr.truth()["hands"][0]  # every card went to the one pile
        assert vr.hopper == [] and sorted(pile) == sorted(str(parse_card(c)) for c in order)
    assert json.loads(proc.stdout)["cards"] == len(LABELS)
    refs = DeckRefs.load(data, "bridge-red")
    assert refs.whole_cards() and sorted(set(refs.look_labels.tolist())) == list(range(len(LABELS)))
    rng = np.random.default_rng(6)
    embedder, reader = Embedder(MODEL_PATH), CardReader(threads=1)
    got = [read_with_deck(embedder, refs, render_window_frame(lab, rng, design=DESIGN), "window", reader).label
           for lab in LABELS]
    assert sum(g == t for g, t in zip(got, LABELS, strict=True)) >= len(LABELS) - 2
    assert all(g in (t, None) for g, t in zip(got, LABELS, strict=True))


def test_a_deck_order_the_hopper_does_not_hold_saves_nothing(tmp_path):
    """The hopper holds 52 cards, the order lists 54: the rig runs out, one line, nothing saved."""
    (tmp_path / "order.txt").write_text(" ".join(LABELS))
    data = tmp_path / "data"
    with VirtualRig(seed=7, speed=SPEED, design=DESIGN) as vr:
        vr.load(LABELS[:52])
        proc = subprocess.run(HONGSI + ["deck", "learn", "--serial", vr.ends["serial"], "--camera", vr.ends["camera"],
                                        "--deck", "short", "--order", str(tmp_path / "order.txt"), "--frames", "1"],
                              capture_output=True, text=True, env=env(HONGSI_DATA_DIR=str(data)), cwd=ROOT,
                              timeout=300)
    assert proc.returncode == 2 and "nothing was saved" in proc.stderr and "Traceback" not in proc.stderr
    assert not (data / "decks" / "short").exists()
