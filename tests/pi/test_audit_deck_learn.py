"""Audit (issue 28): `hongsi deck learn` as a new user runs it against `hongsi simulate`, whose hopper holds
its deck in another order than the default new-deck order. Learning on would save every card under
another card's name; it must stop, say so in one line and save nothing."""

from __future__ import annotations

import subprocess

from pi_helpers import HONGSI, ROOT, SPEED, env

from firmware_bridge.sim import VirtualRig


def test_a_hopper_in_another_order_than_listed_stops_the_learning_and_saves_nothing(tmp_path):
    data = tmp_path / "data"
    with VirtualRig(seed=3, speed=SPEED, design="bridge") as vr:  # (a built-in design: no card art needed) its own deck: S2..SA, H2..HA, ...
        proc = subprocess.run(HONGSI + ["deck", "learn", "--serial", vr.ends["serial"], "--camera", vr.ends["camera"],
                                        "--deck", "anglo", "--frames", "1"],
                              capture_output=True, text=True, env=env(HONGSI_DATA_DIR=str(data)), cwd=ROOT,
                              timeout=300)
        left = len(vr.hopper)
    assert proc.returncode == 2, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert "listed order" in last and "nothing was saved" in last and "Traceback" not in proc.stderr
    assert left >= 40  # it stopped at once, not after dealing the whole deck
    assert not (data / "decks" / "anglo").exists()


def test_a_damaged_deck_is_said_before_the_rig_deals_a_card(tmp_path):
    data = tmp_path / "data"
    (data / "decks" / "anglo").mkdir(parents=True)
    (data / "decks" / "anglo" / "refs.npz").write_bytes(b"PK\x03\x04 cut short")
    with VirtualRig(seed=3, speed=SPEED, design="bridge") as vr:
        full = len(vr.hopper)
        proc = subprocess.run(HONGSI + ["deck", "learn", "--serial", vr.ends["serial"], "--camera", vr.ends["camera"],
                                        "--deck", "anglo", "--frames", "1"],
                              capture_output=True, text=True, env=env(HONGSI_DATA_DIR=str(data)), cwd=ROOT,
                              timeout=300)
        left = len(vr.hopper)
    assert proc.returncode == 2 and "damaged" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert left == full  # not one card dealt
    assert (data / "decks" / "anglo" / "refs.npz").read_bytes() == b"PK\x03\x04 cut short"
