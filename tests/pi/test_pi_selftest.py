"""The self-test on the virtual rig: a healthy rig passes every row; each injected fault fails the right row
(with its remedy) and skips only the rows that depend on it."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin
from pi_helpers import HONGSI, ROOT, SPEED, env, have_model

from controller.config import load_config
from controller.selftest import ROWS, run_selftest
from firmware_bridge import protocol as P
from firmware_bridge.sim import VirtualRig

CFG = load_config(None, env={})


def selftest(vr: VirtualRig | None, *, serial: str | None = None, camera: str | None = None,
             pin_factory=None, **kw) -> dict[str, object]:
    rows = run_selftest(CFG, serial=serial or vr.ends["serial"], camera=camera or vr.ends["camera"],
                        pin_factory=pin_factory or MockFactory(pin_class=MockPWMPin), aloud=False, blink=0, **kw)
    assert [r.name for r in rows] == list(ROWS)
    return {r.name: r for r in rows}


def statuses(rows) -> dict[str, str]:
    return {name: r.status for name, r in rows.items()}


def test_a_healthy_virtual_rig_passes_every_row():
    with VirtualRig(seed=1, speed=SPEED) as vr:
        rows = selftest(vr)
        truth = vr.truth()
    want = {name: "pass" for name in ROWS}
    if not have_model():
        want["camera"] = "fail"
    assert statuses(rows) == want, {n: r.detail for n, r in rows.items()}
    assert "MockFactory" in rows["pin factory"].detail and "not a Raspberry Pi" in rows["panel"].detail
    assert f"firmware {P.FW_VERSION[0]}.{P.FW_VERSION[1]}" in rows["link"].detail
    assert truth["bottom"] == ["S2"]  # exactly one card went, to the tray
    if have_model():
        assert "read S3" in rows["camera"].detail  # the next card in the hopper's window


def test_a_greyscale_camera_passes_with_a_word_about_the_jokers(tmp_path):
    import cv2
    import numpy as np

    from vision.reader import is_colourless
    from vision.render import render_window_frame

    colour, grey = tmp_path / "colour", tmp_path / "grey"
    colour.mkdir()
    grey.mkdir()
    rng = np.random.default_rng(3)
    for k in range(3):
        frame = render_window_frame("S3", rng, design="poker")
        while is_colourless(frame):  # a few renders are grey already
            frame = render_window_frame("S3", rng, design="poker")
        cv2.imwrite(str(colour / f"{k}.png"), frame)
        cv2.imwrite(str(grey / f"{k}.png"), cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    with VirtualRig(seed=1, speed=SPEED) as vr:
        rows = {name: selftest(vr, camera=str(folder))["camera"] for name, folder in (("c", colour), ("g", grey))}
    if have_model():
        assert rows["c"].status == rows["g"].status == "pass", rows
        assert "read S3" in rows["g"].detail and "read S3" in rows["c"].detail
    assert ("jokers" in rows["g"].detail) == (rows["g"].status == "pass")
    assert "jokers" not in rows["c"].detail


# fault -> (how to inject it into the virtual rig, the failing row, words in its remedy, rows skipped)
FAULTS = {
    "jam": (dict(jam_rate=1.0), None, "eject", "clear the card path", ()),
    "double feed": (dict(), lambda vr: setattr(vr.board, "forced_doubles", 1), "eject", "fan the test cards", ()),
    "mcu reset": (dict(mcu_reset_at=1), None, "eject", "rebooted", ()),
    "camera dropout": (dict(camera_dropout=1.0), None, "camera", "camera_url", ()),
    "homing sensor": (dict(), lambda vr: setattr(vr.board, "endstop_connected", False), "homing",
                      "end-stop micro-switch", ("seat angles", "eject")),
    "dead servo": (dict(), lambda vr: _dead_at_home(vr), "homing", "servo turns", ("seat angles", "eject")),
    "e-stop pressed": (dict(), lambda vr: vr.press_estop(True), "homing", "release the e-stop",
                       ("seat angles", "eject")),
    "empty hopper": (dict(), lambda vr: vr.load([]), "eject", "load a few test cards", ()),
    "stale firmware": (dict(), lambda vr: _old_firmware(vr), "link", "hongsi firmware flash",
                       ("homing", "seat angles", "eject")),
}


def _dead_at_home(vr: VirtualRig) -> None:
    """The turntable was left on its home switch and the servo no longer moves: the switch reads
    "home" already, so only seeing it open as the servo leaves proves the servo turns."""
    with vr.board.lock:
        vr.board.angle_from = vr.board.angle_to = 0.0
        vr.board.servo_dead = True


def _old_firmware(vr: VirtualRig) -> None:
    """The Pico runs a firmware built from another protocol definition."""
    import time

    deadline = time.monotonic() + 5
    while vr.mcu.fw is None and time.monotonic() < deadline:
        time.sleep(0.01)
    vr.mcu.modules["protocol"].PROTOCOL_HASH ^= 0x5A5A


@pytest.mark.parametrize("fault", list(FAULTS))
def test_each_injected_fault_fails_its_row_with_a_remedy(fault):
    kwargs, inject, row, remedy, skipped = FAULTS[fault]
    with VirtualRig(seed=2, speed=SPEED, **kwargs) as vr:
        if inject:
            inject(vr)
        rows = selftest(vr)
    got = statuses(rows)
    assert got[row] == "fail", (fault, rows[row])
    assert remedy in rows[row].remedy, rows[row]
    for name in skipped:
        assert got[name] == "skip" and "did not pass" in rows[name].detail
    others = {n for n in ROWS if n not in (row, *skipped)}
    if fault == "empty hopper" or not have_model():
        others.discard("camera")  # nothing (or no model) to read in the window
        if fault == "empty hopper":
            assert got["camera"] == "fail" and "no card" in rows["camera"].detail
    assert {n: got[n] for n in others} == {n: "pass" for n in others}, {n: rows[n].detail for n in others}


def test_no_firmware_behind_the_port_fails_the_link_and_skips_the_motion_rows():
    master, slave = os.openpty()  # a serial line with nobody on the other end
    try:
        with VirtualRig(seed=3, speed=SPEED) as vr:
            rows = selftest(vr, serial=os.ttyname(slave))
    finally:
        os.close(master)
        os.close(slave)
    assert rows["link"].status == "fail" and "USB cable" in rows["link"].remedy
    assert [rows[n].status for n in ("homing", "seat angles", "eject")] == ["skip"] * 3


def test_a_pressed_panel_estop_and_a_broken_espeak_fail_panel_and_voice():
    from firmware_bridge.panel import ESTOP_PIN

    factory = MockFactory(pin_class=MockPWMPin)
    factory.pin(ESTOP_PIN).drive_high()  # the Pi's e-stop contact open: pressed, or its wire cut
    with VirtualRig(seed=4, speed=SPEED) as vr:
        rows = selftest(vr, pin_factory=factory, espeak="/nonexistent/espeak-ng")
    assert rows["panel"].status == "fail" and "e-stop reads pressed" in rows["panel"].detail
    assert rows["voice"].status == "fail" and "espeak-ng" in rows["voice"].remedy
    assert rows["link"].status == rows["eject"].status == "pass"


def test_the_command_prints_a_table_and_exits_non_zero_on_a_failure():
    with VirtualRig(seed=5, speed=SPEED) as vr:
        ok = subprocess.run(HONGSI + ["selftest", "--serial", vr.ends["serial"], "--camera", vr.ends["camera"],
                                      "--json"], capture_output=True, text=True, env=env(), cwd=ROOT, timeout=60)
        bad = subprocess.run(HONGSI + ["selftest", "--serial", vr.ends["serial"], "--camera", "/nonexistent"],
                             capture_output=True, text=True, env=env(), cwd=ROOT, timeout=60)
    rows = {r["name"]: r for r in json.loads(ok.stdout)}
    assert rows["link"]["status"] == "pass" and rows["voice"]["status"] == "skip"  # HONGSI_VOICE=false
    assert ok.returncode == (0 if have_model() else 1), ok.stderr
    assert bad.returncode == 1
    assert "FAIL" in bad.stdout and "camera_url" in bad.stdout and "failed: camera" in bad.stdout


def test_dry_run_prints_the_plan_and_touches_nothing():
    out = subprocess.run(HONGSI + ["selftest", "--dry-run", "--serial", "/dev/hongsi-mcu", "--camera", "picamera"],
                         capture_output=True, text=True, env=env(), cwd=ROOT, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "open /dev/hongsi-mcu" in out.stdout and "eject ONE card" in out.stdout and "'picamera'" in out.stdout
