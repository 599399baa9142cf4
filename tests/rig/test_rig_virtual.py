"""The virtual rig as others use it: `hongsi simulate` in a subprocess, whole deals, the camera, truth."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import Counter

import pytest

from firmware_bridge import Rig
from firmware_bridge.sim import VirtualRig


def _snapshot(url: str) -> tuple[int, int, bytes]:
    snap = url.replace("stream.mjpg", "snapshot.jpg")
    with urllib.request.urlopen(snap, timeout=5) as r:
        return int(r.headers["X-Sensor-Timestamp"]), int(r.headers["X-Hopper-Cards"]), r.read()


def test_hongsi_simulate_prints_its_ends_deals_writes_truth_and_stops_on_sigterm(tmp_path):
    truth = tmp_path / "truth.json"
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "simulate", "--seed", "5", "--speed", "40",
                             "--truth", str(truth)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ends = json.loads(proc.stdout.readline())
        assert set(ends) == {"serial", "camera", "table_camera"} and ends["serial"].startswith("/dev/pts/")
        assert ends["camera"].startswith("http://127.0.0.1:")
        rig = Rig(ends["serial"], timeout=3.0)
        rig.connect()
        rig.home()
        rig.shuffle(1)
        seq0, left0, jpg = _snapshot(ends["camera"])
        assert left0 == 52 and jpg[:2] == b"\xff\xd8"
        for i in range(52):
            rig.rotate_to(i % 4)
            rig.eject()
            seq, left, _ = _snapshot(ends["camera"])
            assert left == 51 - i and seq > seq0  # a newer exposure shows the card gone when eject() returns
            seq0 = seq
        rig.close()
        deadline = time.monotonic() + 5
        while not truth.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        got = json.loads(truth.read_text())
        assert [len(h) for h in got["hands"]] == [13, 13, 13, 13] and got["bottom"] == []
        assert len({c for h in got["hands"] for c in h}) == 52
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0


def test_simulate_rejects_a_bad_card_with_one_line():
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "simulate", "--missing", "H11"],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and "not a card" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_two_deals_on_one_virtual_rig_conserve_the_deck(make_rig):
    vr, rig = make_rig(speed=40, decks=1, jokers=True, missing=["S2"], extra=["H4"])
    rig.home()
    deck = Counter(vr.hopper)
    assert sum(deck.values()) == 54 and deck["H4"] == 2 and "S2" not in deck
    orders = []
    for _deal in range(2):
        rig.shuffle(2)
        orders.append(list(vr.hopper))
        for i in range(50):
            rig.rotate_to("bottom" if i >= 48 else i % 4)
            rig.eject()
        t = vr.truth()
        assert [len(h) for h in t["hands"]] == [12, 12, 12, 12] and len(t["bottom"]) == 2
        dealt = Counter(c for h in t["hands"] for c in h) + Counter(t["bottom"]) + Counter(vr.hopper)
        assert dealt == deck
    assert orders[0] != orders[1]


def test_the_camera_shows_the_cards_only_to_whoever_was_given_its_url():
    """The virtual camera's frames show each card as it is dealt: anyone else on the machine who finds its
    port gets a 404, on the old well-known paths and on a guessed one (the audit read 53 of 54 cards so)."""
    vr = VirtualRig(seed=2, speed=20)
    ends = vr.start()
    try:
        base = ends["camera"].rsplit("/", 2)[0]
        for path in ("/stream.mjpg", "/snapshot.jpg", "/", "/x/snapshot.jpg", "/../snapshot.jpg"):
            with pytest.raises(urllib.error.HTTPError) as err:
                urllib.request.urlopen(base + path, timeout=5)
            assert err.value.code == 404, path
        assert _snapshot(ends["camera"])[2][:2] == b"\xff\xd8"
        assert VirtualRig(seed=2).camera.secret != vr.camera.secret  # a new secret for every rig
    finally:
        vr.stop()


def test_camera_dropout_loses_frames_but_not_the_stream():
    vr = VirtualRig(seed=2, speed=20, camera_dropout=0.5)
    ends = vr.start()
    try:
        codes = []
        for _ in range(30):
            try:
                _snapshot(ends["camera"])
                codes.append(200)
            except urllib.error.HTTPError as exc:
                codes.append(exc.code)
        assert set(codes) == {200, 503}
        with urllib.request.urlopen(ends["camera"], timeout=5) as r:
            assert r.headers["Content-Type"].startswith("multipart/x-mixed-replace")
            assert b"X-Sensor-Timestamp" in r.read(4000)
    finally:
        vr.stop()


@pytest.mark.parametrize("decks", [2])
def test_two_decks_fill_the_hopper(decks):
    vr = VirtualRig(seed=1, decks=decks, camera=False)
    assert len(vr.hopper) == 104 and Counter(vr.hopper)["H4"] == 2


def test_camera_frames_of_one_hopper_state_vary_like_a_real_camera(make_rig):
    import cv2
    import numpy as np

    vr, rig = make_rig(camera=True)
    url = vr.ends["camera"]
    shots = [_snapshot(url) for _ in range(3)]
    assert len({s[1] for s in shots}) == 1 and len({s[2] for s in shots}) == 3  # one scene, three looks
    img = cv2.imdecode(np.frombuffer(shots[0][2], np.uint8), cv2.IMREAD_COLOR)
    assert img is not None and img.ndim == 3
    rig.home()
    rig.eject()
    seq, left, _ = _snapshot(url)
    assert seq > shots[0][0] and left == 51


def test_a_zero_pass_shuffle_reloads_the_empty_hopper_unshuffled(make_rig):
    vr, rig = make_rig(speed=40)
    vr.load(["H4", "S3", "DA"])
    rig.home()
    rig.shuffle(0)
    assert vr.hopper == ["H4", "S3", "DA"]  # not empty: nothing gathered, nothing riffled
    for seat in (2, 0, 1):
        rig.rotate_to(seat)
        rig.eject()
    assert vr.truth()["hands"] == [["S3"], ["DA"], ["H4"], []]
    rig.shuffle(0)  # the next deal: the operator puts the cards back, seat by seat
    assert vr.hopper == ["S3", "DA", "H4"] and vr.truth()["hands"] == [[], [], [], []]
