"""`hongsi calibrate` driven end to end through its prompts (a subprocess, answers on its standard input)
against the virtual rig in this process: the jogged seat angles, the measured pulses and the exposure are
saved to the config file, comments kept; the cards really went where the wizard said."""

from __future__ import annotations

import os
import re
import select
import subprocess
import time
import tomllib
from pathlib import Path

import pytest
from pi_helpers import HONGSI, ROOT, SPEED, env, have_model

from controller.calibrate import save_config, update_toml
from controller.config import ConfigError, load_config
from firmware_bridge.sim import VirtualRig

CONFIG = """# my table
serial_port = "/dev/hongsi-mcu"
servo_angles = [0.0, 100.0, 180.0, 270.0]   # seat 2 is 10 degrees off
bottom_angle = 45.0
voice = false
"""


class Session:
    """A tiny expect: read the wizard's output until a prompt shows, then answer it."""

    def __init__(self, cmd: list[str], **kw):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     **kw)
        self.out = ""
        self.pos = 0

    def expect(self, pattern: str, timeout: float = 30.0) -> re.Match:
        deadline = time.monotonic() + timeout
        rx = re.compile(pattern)
        while True:
            m = rx.search(self.out, self.pos)
            if m:
                self.pos = m.end()
                return m
            left = deadline - time.monotonic()
            if left <= 0 or self.proc.poll() is not None and not self._read(0):
                raise AssertionError(f"no {pattern!r} in the wizard's output:\n{self.out[-3000:]}")
            self._read(min(left, 0.5))

    def _read(self, timeout: float) -> bool:
        fd = self.proc.stdout.fileno()
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            return False
        data = os.read(fd, 65536)
        self.out += data.decode("utf-8", "replace")
        return bool(data)

    def send(self, line: str) -> None:
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()

    def answer(self, pattern: str, line: str) -> None:
        self.expect(pattern)
        self.send(line)

    def finish(self, timeout: float = 30.0) -> int:
        self.proc.stdin.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and (self._read(0.2) or self.proc.poll() is None):
            pass
        if self.proc.poll() is None:
            self.proc.kill()
        return self.proc.wait(5)


def wizard(vr: VirtualRig, cfg_path) -> Session:
    return Session(HONGSI + ["calibrate", "--serial", vr.ends["serial"], "--camera", vr.ends["camera"],
                             "--config", str(cfg_path)], env=env(PYTHONUNBUFFERED="1"), cwd=ROOT)


def test_the_wizard_on_the_virtual_rig_saves_angles_pulses_and_exposure(tmp_path):
    cfg_path = tmp_path / "hongsi.toml"
    cfg_path.write_text(CONFIG)
    with VirtualRig(seed=7, speed=SPEED) as vr:
        s = wizard(vr, cfg_path)
        try:
            s.expect("homed in")
            s.answer(r"seat 1 / 1号位: at 0° ", "")
            s.answer(r"seat 2 / 2号位: at 100° ", "--")          # jog back ten degrees
            s.answer(r"seat 2 / 2号位: at 90° ", "nonsense")
            s.expect("input invalid|输入无效")
            s.answer(r"seat 2 / 2号位: at 90° ", "400")
            s.expect("outside the servo's")
            s.answer(r"seat 2 / 2号位: at 90° ", "")
            s.answer(r"seat 3 / 3号位: at 180° ", "")
            s.answer(r"seat 4 / 4号位: at 270° ", "")
            s.answer(r"tray / 底牌盒: at 45° ", "+")
            s.answer(r"tray / 底牌盒: at 46° ", "45")
            s.answer(r"tray / 底牌盒: at 45° ", "")
            s.answer(r"each seat now\?", "y")
            for seat in range(1, 5):
                s.expect(r"exit pulse (\d+\.\d) ms")
                s.answer(rf"land in seat {seat}\?", "y")
            s.expect(r"one card: (\d+\.\d) ms")
            s.expect(r"two cards stuck together")
            vr.board.forced_doubles = 1  # the operator put two stuck cards at the bottom of the hopper
            s.send("y")
            s.expect(r"two cards: (\d+\.\d) ms")
            s.expect(r"the Pico now takes one card as (\d+\.\d) ms and two above (\d+\.\d) ms")
            s.answer(r"a test card in the hopper window", "y")
            s.expect("no exposure control" if have_model() else "exposure not tuned")
            s.answer(r"save to .*\?", "y")
            code = s.finish()
        finally:
            if s.proc.poll() is None:
                s.proc.kill()
        truth = vr.truth()
    assert code == 0 and "saved" in s.out, s.out[-3000:]
    assert [len(h) for h in truth["hands"]] == [1, 1, 1, 1] and "stray" not in truth, truth
    assert len(truth["bottom"]) == 2  # the two stuck cards went to the tray
    text = cfg_path.read_text()
    assert text.startswith("# my table\n") and "# seat 2 is 10 degrees off" in text
    saved = tomllib.loads(text)
    assert saved["servo_angles"] == [0.0, 90.0, 180.0, 270.0] and saved["bottom_angle"] == 45.0
    assert 80 <= saved["exit_pulse_ms"] <= 92
    assert 100 <= saved["double_pulse_ms"] <= 140
    # the firmware took the measured figures (it counts doubles by them) and keeps them in flash
    single_us, double_us = (int(x) for x in vr.board.flash["hongsi_pulses"].split())
    assert abs(single_us / 1000 - saved["exit_pulse_ms"]) < 0.2
    assert saved["exit_pulse_ms"] * 1.08 <= double_us / 1000 < saved["double_pulse_ms"]
    if have_model():
        assert saved["camera_exposure_us"] == 0.0 and "exposure auto: read" in s.out
    cfg = load_config(cfg_path, env={})
    assert cfg.serial_port == "/dev/hongsi-mcu" and cfg.voice is False


def test_the_uncorrected_angle_sends_the_card_astray_and_the_operator_can_rejog(tmp_path):
    cfg_path = tmp_path / "hongsi.toml"
    cfg_path.write_text(CONFIG)
    with VirtualRig(seed=8, speed=SPEED) as vr:
        s = wizard(vr, cfg_path)
        try:
            for _ in range(5):  # keep every angle, seat 2's wrong one too
                s.answer(r": at \d+° ", "")
            s.answer(r"each seat now\?", "y")
            s.answer(r"land in seat 1\?", "y")
            s.answer(r"land in seat 2\?", "n")  # it did not: the turntable pointed 10° past seat 2
            assert vr.truth().get("stray"), vr.truth()
            s.answer(r"seat 2 / 2号位: at 100° ", "90")
            s.answer(r"seat 2 / 2号位: at 90° ", "")
            s.answer(r"land in seat 2\?", "y")
            hands = vr.truth()["hands"]
            assert len(hands[1]) == 1
            code = s.finish()  # end of input (Ctrl-D) at the next question: stop without saving
        finally:
            if s.proc.poll() is None:
                s.proc.kill()
    assert code == 1 and "nothing saved" in s.out
    assert cfg_path.read_text() == CONFIG


def test_a_jam_during_the_test_ejects_is_reported_cleared_and_retried(tmp_path):
    cfg_path = tmp_path / "hongsi.toml"
    cfg_path.write_text(CONFIG.replace("100.0", "90.0"))
    with VirtualRig(seed=9, speed=SPEED) as vr:
        s = wizard(vr, cfg_path)
        try:
            for _ in range(5):
                s.answer(r": at \d+° ", "")
            vr.board.forced_jams = 3  # the first card sticks in the throat through all three tries
            s.answer(r"each seat now\?", "y")
            s.expect(r"card jammed 3 times")
            assert not any(vr.truth()["hands"])
            s.answer(r"cleared\? / 已清理？", "y")
            s.answer(r"land in seat 1\?", "n")
            s.answer(r"seat 1 / 1号位: at 0° ", "")
            s.expect(r"exit pulse \d+\.\d ms")  # the retry went
            hands = vr.truth()["hands"]
            s.answer(r"land in seat 1\?", "y")
            code = s.finish()
        finally:
            if s.proc.poll() is None:
                s.proc.kill()
    assert [len(h) for h in hands] == [1, 0, 0, 0]
    assert code == 1 and "nothing saved" in s.out


def test_dry_run_prints_the_steps_and_saves_nothing(tmp_path):
    cfg_path = tmp_path / "hongsi.toml"
    cfg_path.write_text(CONFIG)
    out = subprocess.run(HONGSI + ["calibrate", "--dry-run", "--config", str(cfg_path)], capture_output=True,
                         text=True, env=env(), cwd=ROOT, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "/dev/hongsi-mcu" in out.stdout and "[0.0, 100.0, 180.0, 270.0]" in out.stdout
    assert str(cfg_path) in out.stdout.replace("\n", "")
    assert cfg_path.read_text() == CONFIG
    assert "play area" not in out.stdout  # no table camera configured: no such step


def test_dry_run_lists_the_play_area_step_with_a_table_camera(tmp_path):
    cfg_path = tmp_path / "hongsi.toml"
    cfg_path.write_text(CONFIG + '\n[table_camera]\nsource = "/dev/video2"\n')
    before = cfg_path.read_text()
    out = subprocess.run(HONGSI + ["calibrate", "--dry-run", "--config", str(cfg_path)], capture_output=True,
                         text=True, env=env(), cwd=ROOT, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.replace("\n", " ")
    assert "play area" in lines and "/dev/video2" in lines
    assert lines.index("play area") < lines.index("6. save")
    assert "[table_camera] corners to" in " ".join(lines[lines.index("6. save"):].split())  # as a real run saves
    assert cfg_path.read_text() == before


def test_update_toml_rewrites_keys_in_place_and_appends_new_ones():
    text = 'a = 1\nservo_angles = [1.0]  # note\nservo_angles_old = 3\n\n[extra]\nbottom_angle = 9\n'
    new = update_toml(text, {"servo_angles": [2.0, 3.5], "bottom_angle": 40.0, "exit_pulse_ms": 72.5})
    assert "servo_angles = [2.0, 3.5]  # note\n" in new and "servo_angles_old = 3\n" in new
    # another table's key is not the top-level one; new keys stay in the top-level table
    assert new.endswith("\nbottom_angle = 40.0\nexit_pulse_ms = 72.5\n[extra]\nbottom_angle = 9\n")
    assert tomllib.loads(new)["bottom_angle"] == 40.0


def test_a_bad_value_is_refused_and_the_file_kept(tmp_path):
    path = tmp_path / "hongsi.toml"
    path.write_text(CONFIG)
    with pytest.raises(ConfigError, match="servo_angles"):
        save_config(path, {"servo_angles": [0.0, 90.0]})  # two angles for four seats
    assert path.read_text() == CONFIG and not list(tmp_path.glob("*.new"))


class _DimPiCamera:
    """picamera2's surface over the virtual rig's window renderer, with physics enough for exposure: the
    image scales with the exposure time (8 ms is right), and automatic exposure meters the bright LED ring
    and comes out far too dark."""

    def __init__(self, index: int = 0):
        import numpy as np

        self.rng = np.random.default_rng(index)
        self.exposure_us: float | None = None
        self.controls: list[dict] = []

    def create_video_configuration(self, main: dict) -> dict:
        return {"main": main}

    def configure(self, config: dict) -> None:
        pass

    def start(self) -> None:
        pass

    def set_controls(self, controls: dict) -> None:
        self.controls.append(dict(controls))
        self.exposure_us = None if controls.get("AeEnable", False) else controls["ExposureTime"]

    def capture_array(self, name: str = "main"):
        import numpy as np

        from vision.render import render_window_frame

        time.sleep(0.01)
        gain = 0.01 if self.exposure_us is None else self.exposure_us / 8000
        img = render_window_frame("H4", self.rng).astype(np.float32) * gain
        return np.clip(img, 0, 255).astype(np.uint8)

    def stop(self) -> None:
        pass

    def close(self) -> None:
        pass


@pytest.mark.skipif(not have_model(), reason="the card model is not in vision/models yet")
def test_exposure_tuning_leaves_a_too_dark_auto_exposure_for_one_the_reader_is_sure_of(monkeypatch):
    import io
    import sys
    import types

    from rich.console import Console

    from controller.calibrate import Wizard
    from vision.reader import CardReader

    cams: list[_DimPiCamera] = []
    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(
        Picamera2=lambda index=0: cams.append(_DimPiCamera(index)) or cams[-1]))
    answers = iter(["y"])
    monkeypatch.setattr("builtins.input", lambda *a: next(answers))
    out = io.StringIO()
    wizard = Wizard(load_config(None, env={}), None, "picamera", Console(file=out, width=200),
                    reader=CardReader(threads=1))
    wizard.exposure()
    text = out.getvalue()
    readings = {name: (label, float(conf)) for name, label, conf in
                re.findall(r"  (auto|\d+ µs): read (\S+) \(confidence ([\d.]+)\)", text)}
    assert readings["auto"][0] == "—", text  # too dark: the reader declined
    chosen = f"{wizard.res.exposure_us:g} µs"
    assert wizard.res.exposure_us > 0 and readings[chosen][0] == "H4", text
    assert readings[chosen][1] == max(conf for _label, conf in readings.values()) >= 0.8, text
    assert f"exposure {chosen}: read H4" in text
    assert wizard.updates()["camera_exposure_us"] == wizard.res.exposure_us
    tried = [c["ExposureTime"] for c in cams[0].controls if "ExposureTime" in c]
    assert tried == [2000, 4000, 8000, 16000, 33000]


def test_the_threshold_keeps_clear_of_the_measured_singles():
    from controller.calibrate import pulse_threshold

    singles = [85.0, 86.1, 87.3, 85.9]
    assert pulse_threshold(singles, 118.0) == round((86.0 + 118.0) / 2, 1)  # midway to the double
    assert pulse_threshold(singles, 90.0) >= 87.3 * 1.06  # a double that is barely longer: not midway
    assert pulse_threshold(singles, None) == round(86.0 * 1.12, 1)


class _FocusPiCamera(_DimPiCamera):
    """A Camera Module 3: a focus motor (``AfMode``, ``LensPosition`` in dioptres) over the window
    renderer, the card sharp when the lens is set 12.5 cm away and blurred in proportion the farther off."""

    camera_controls = {"AfMode": (0, 2, 0), "LensPosition": (0.0, 15.0, 1.0)}
    SHARP_AT_CM = 12.5

    def __init__(self, index: int = 0):
        super().__init__(index)
        self.lens = 0.0

    def set_controls(self, controls: dict) -> None:
        self.controls.append(dict(controls))
        self.lens = controls.get("LensPosition", self.lens)

    def capture_array(self, name: str = "main"):
        import cv2

        from vision.render import render_window_frame

        time.sleep(0.005)
        img = render_window_frame("H4", self.rng)
        sigma = 6.0 * abs(self.lens - 100.0 / self.SHARP_AT_CM)
        return cv2.GaussianBlur(img, (0, 0), sigma) if sigma > 0.05 else img


def test_the_focus_step_keeps_the_sharpest_lens_distance_and_the_camera_opens_at_it(monkeypatch):
    """The mount puts the window 12 cm away, this module's lens is sharpest at 12.5: calibration finds
    it, saves it in camera_url, and the camera opens focused there. Other cameras skip the step unasked."""
    import io
    import sys
    import types

    from rich.console import Console

    from controller.calibrate import FOCUS_CM, Wizard
    from controller.camera import CameraError, open_camera

    cams: list[_FocusPiCamera] = []
    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(
        Picamera2=lambda index=0: cams.append(_FocusPiCamera(index)) or cams[-1]))
    monkeypatch.setattr("builtins.input", lambda *a: "y")
    out = io.StringIO()
    wizard = Wizard(load_config(None, env={}), None, "picamera", Console(file=out, width=200))
    wizard.focus()
    assert wizard.res.focus_cm == 12.5, out.getvalue()
    assert wizard.updates()["camera_url"] == "picamera@12.5"
    tried = [round(100 / c["LensPosition"], 2) for c in cams[0].controls if "LensPosition" in c]
    assert tried[0] == 12.0 and tried[1:] == list(FOCUS_CM)     # opened at the window, then the sweep
    with open_camera("picamera@12.5") as cam:
        assert cam.focus_cm == 12.5 and cams[-1].lens == 100 / 12.5
    with pytest.raises(CameraError, match="focuses from 10 cm"):
        open_camera("picamera@6")

    monkeypatch.setattr("builtins.input", lambda *a: pytest.fail("a camera without a focus motor is not asked"))
    plain = Wizard(load_config(None, env={}), None, str(Path(__file__).parent), Console(file=io.StringIO()))
    plain.focus()
    assert plain.res.focus_cm is None and "camera_url" not in plain.updates()
