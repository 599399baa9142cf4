"""Camera timing from the sensor: the virtual camera exposes a frame every FRAME_MS and hands it over
exposure + readout + ISP later (Camera Module 3's figures, hardware/parts.py), so the newest frame to
arrive may show a card that has gone; each frame carries its exposure start (X-Sensor-Timestamp, like
libcamera's SensorTimestamp) and the host judges freshness by that, not by arrival."""

from __future__ import annotations

import time

from controller.camera import open_camera
from firmware_bridge.sim import VirtualRig
from firmware_bridge.sim.camera import CameraServer, Sensor
from firmware_bridge.sim.clock import ManualClock
from firmware_bridge.sim.fakes import load_config
from firmware_bridge.sim.model import Board

CFG = load_config()


def test_the_sensors_timing_comes_from_the_parts():
    s = Sensor()
    assert s.frame_ms == CFG.FRAME_MS and s.exposure_ms == CFG.CAM_EXPOSURE_MS
    assert s.latency_ms() == CFG.CAM_EXPOSURE_MS + CFG.CAM_READOUT_MS + CFG.CAM_ISP_MS > CFG.FRAME_MS


def test_the_newest_frame_shows_the_scene_of_its_exposure_not_of_now():
    clock = ManualClock()
    board = Board(clock, seed=1)
    cam = CameraServer(board, seed=1)
    clock.advance(1000)
    before = board.frame_seq
    board.load(["H4", "S2"])              # the scene changes now
    seq, _jpg, left, _ = cam.frame()
    assert seq == before and left == 52   # the frame in hand was exposed before: it shows the old deck
    clock.advance(cam.sensor.latency_ms() + cam.sensor.frame_ms + 0.01)
    seq, _jpg, left, _ = cam.frame()
    assert seq == board.frame_seq and left == 2


def test_a_grab_after_a_change_never_returns_a_frame_exposed_before_it():
    """At speed 1 a frame arrives ~55 ms after its exposure began: a grab right after the hopper changed
    would take the old scene's frames if it judged them by arrival."""
    vr = VirtualRig(seed=3, speed=1.0)
    ends = vr.start()
    try:
        with open_camera(ends["camera"]) as cam:
            cam.grab(1, timeout=10.0)        # the stream is up (the first renderings are slow)
            for cards in (["H4", "S2"], ["D7"], ["C9", "SA", "H2"]):
                vr.load(cards)
                new = vr.board.frame_seq
                began = time.monotonic()
                frames = cam.grab(2, timeout=10.0)
                assert all(f.exposed > began for f in frames)
                assert [vr.camera.looks.get(f.jpeg) for f in frames] == [new, new], cards
    finally:
        vr.stop()
