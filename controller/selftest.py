"""``hongsi selftest``: check every part of a rig, real or virtual, and say how to fix what fails.

Rows, in order (a row that needs an earlier one that failed is skipped, and says so):

1. **pin factory** — gpiozero's factory suits this board (lgpio on a Pi 5; MockFactory off a Pi).
2. **link** — the serial handshake; the firmware's version and protocol hash are the host's.
3. **homing** — the turntable finds its end-stop.
4. **seat angles** — the turntable turns to each seat's angle (and the 底牌 tray).
5. **eject** — one card into the tray, with the exit sensor's evidence (pulse length, a card_passed event).
6. **camera** — fresh frames from ``camera_url`` and a confident read of the hopper's bottom card.
7. **panel** — the seat LEDs light in turn, the buttons read released, the buzzer beeps.
8. **voice** — espeak-ng speaks (written to a WAV and measured; aloud as well on the table).

>>> rows = run_selftest(load_config(), serial="sim")        # doctest: +SKIP
>>> [r.name for r in rows if r.status == "fail"]           # doctest: +SKIP
[]
"""

from __future__ import annotations

import tempfile
import threading
import time
import wave
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from controller.config import RigConfig

ROWS = ("pin factory", "link", "homing", "seat angles", "eject", "camera", "panel", "voice")
ANGLE_TOLERANCE = 1.0  # degrees between the commanded seat angle and the angle the firmware reports


@dataclass
class Check:
    """One row of the self-test: ``status`` is ``pass``, ``fail`` or ``skip``."""

    name: str
    status: str
    detail: str
    remedy: str = ""

    @property
    def failed(self) -> bool:
        return self.status == "fail"

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


def plan(cfg: RigConfig, serial: str, camera: str, *, eject: bool = True) -> list[str]:
    """What the self-test will do, step by step (``--dry-run`` prints this and touches nothing)."""
    seats = ", ".join(f"seat {i + 1} {a:g}°" for i, a in enumerate(cfg.servo_angles))
    return [
        "pin factory: choose gpiozero's pin factory (lgpio on a Raspberry Pi, MockFactory elsewhere)",
        f"link: open {serial} at {cfg.baud} baud, HELLO; compare firmware version and protocol hash",
        "homing: clear a latched fault, drive the turntable to its end-stop",
        f"seat angles: turn to {seats}, tray {cfg.bottom_angle:g}°",
        ("eject: point at the tray, eject ONE card, time its exit pulse" if eject else
         "eject: skipped (--no-eject)"),
        f"camera: open {camera!r}, grab 3 fresh frames, read the hopper's bottom card",
        "panel: light seat LEDs 1..n in turn, read the deal button and the e-stop, beep",
        "voice: speak a test sentence with espeak-ng" + ("" if cfg.voice else " (voice = false: skipped)"),
    ]


class _Run:
    """Shared state between the rows of one self-test run."""

    def __init__(self, cfg: RigConfig, say: Callable[[str], None]):
        self.cfg, self.say = cfg, say
        self.rig: Any = None
        self.rows: list[Check] = []
        self.passed: set[str] = set()

    def add(self, name: str, status: str, detail: str, remedy: str = "") -> Check:
        row = Check(name, status, detail, remedy)
        self.rows.append(row)
        if status == "pass":
            self.passed.add(name)
        self.say(f"{name}: {status} — {detail}")
        return row

    def needs(self, name: str, *required: str) -> bool:
        missing = [r for r in required if r not in self.passed]
        if missing:
            self.add(name, "skip", f"not run: {', '.join(missing)} did not pass / 前一步未通过")
        return not missing


# ---------------------------------------------------------------------------------------- rows
def check_pins(run: _Run, pin_factory: Any) -> Any:
    from controller.pins import PinFactoryError, board_model, check_pin_factory, setup_pin_factory

    try:
        if pin_factory is None:
            result = setup_pin_factory()
            from gpiozero import Device

            pin_factory = Device.pin_factory
        else:
            result = check_pin_factory(board_model(), type(pin_factory).__name__)
    except PinFactoryError as exc:
        run.add("pin factory", "fail", str(exc), "sudo apt install python3-lgpio; make the venv with "
                "--system-site-packages (deploy/install.sh does both)")
        return None
    remedy = "" if result.ok else result.message
    run.add("pin factory", "pass" if result.ok else "fail", result.line(), remedy)
    return pin_factory


def check_link(run: _Run, serial: str) -> None:
    from controller.firmware_tool import HOST_VERSION, read_boot
    from firmware_bridge import Rig
    from firmware_bridge import protocol as P
    from firmware_bridge.errors import LinkLost, RigError

    cfg = run.cfg
    try:
        report = read_boot(serial, cfg.baud)
    except LinkLost as exc:
        run.add("link", "fail", str(exc), f"check the Pico's USB cable and serial_port = {serial!r} "
                "(ls -l /dev/hongsi-mcu); is the firmware flashed? hongsi firmware flash")
        return
    except RigError as exc:
        run.add("link", "fail", str(exc), "hongsi firmware flash")
        return
    if not report.ok:
        run.add("link", "fail", f"the Pico runs firmware {report.fw_version} protocol {report.protocol_hash:04x}; "
                f"the host has {HOST_VERSION} {P.PROTOCOL_HASH:04x}", "hongsi firmware flash")
        return
    rig = Rig(serial, cfg.baud, angles=cfg.servo_angles, bottom_angle=cfg.bottom_angle)
    try:
        boot = rig.connect()
    except RigError as exc:
        rig.close()
        run.add("link", "fail", str(exc), "hongsi firmware check; check the USB cable")
        return
    run.rig = rig
    run.add("link", "pass", f"firmware {boot.fw_version}, protocol {boot.protocol_hash:04x} (as the host), "
            f"last reset: {boot.reset_cause}")


def _fault_remedy(exc: Exception) -> str:
    code = getattr(exc, "code", "")
    if code == "e-stop":
        return "release the e-stop (both contacts), then run the self-test again"
    if code == "jam":
        return "clear the card path (ejector wheel, exit throat), then run the self-test again"
    return "hongsi firmware check; see journalctl -u hongsi"


def check_homing(run: _Run) -> None:
    from firmware_bridge.errors import Fault, McuRebooted, RigError

    if not run.needs("homing", "link"):
        return
    rig = run.rig
    try:
        fault = rig.status()["fault"]
        cleared = ""
        if fault != "none":
            rig.clear_fault()
            cleared = f" (cleared a latched {fault} fault first)"
        ms = rig.home()
    except McuRebooted as exc:
        run.add("homing", "fail", str(exc), "the Pico rebooted: check its USB cable and the 6 V supply")
        return
    except Fault as exc:
        if exc.code == "home":
            remedy = ("the turntable never left or never reached the home switch: check that the servo turns "
                      "(its 6 V power, its signal on Pico GPIO 15) and the end-stop micro-switch at 0° (Pico "
                      "GPIO 20, LOW when pressed) and its wiring")
        else:
            remedy = _fault_remedy(exc)
        run.add("homing", "fail", str(exc), remedy)
        return
    except RigError as exc:
        run.add("homing", "fail", str(exc), "hongsi firmware check; check the USB cable")
        return
    run.add("homing", "pass", f"end-stop reached in {ms:.0f} ms{cleared}")


def check_seats(run: _Run) -> None:
    from firmware_bridge.errors import RigError

    if not run.needs("seat angles", "homing"):
        return
    rig, cfg = run.rig, run.cfg
    seen, bad = [], []
    places: list[int | str] = [*range(len(cfg.servo_angles)), "bottom"]
    try:
        for place in places:
            target = rig.seat_angle(place)
            rig.rotate_to(place)
            angle = rig.status()["angle"]
            label = "tray" if place == "bottom" else f"seat {int(place) + 1}"
            seen.append(f"{label} {angle:g}°")
            if abs(angle - target) > ANGLE_TOLERANCE:
                bad.append(f"{label}: at {angle:g}°, wanted {target:g}°")
    except RigError as exc:
        run.add("seat angles", "fail", f"{', '.join(seen)}; {exc}", _fault_remedy(exc))
        return
    if bad:
        run.add("seat angles", "fail", "; ".join(bad), "hongsi calibrate (servo_angles within the servo's range)")
    else:
        run.add("seat angles", "pass", ", ".join(seen))


def expected_pulse_ms() -> tuple[float, float]:
    """(one card's exit pulse, the double-feed threshold) in ms, from the firmware's own config."""
    from firmware_bridge.sim.fakes import load_config as firmware_config

    fw = firmware_config()
    return fw.SINGLE_PULSE_US / 1000, fw.DOUBLE_PULSE_US / 1000


def _eject_remedies() -> tuple[tuple[type, str], ...]:
    from firmware_bridge.errors import DoubleFeed, Jam, McuRebooted, PortGone, RigError
    from firmware_bridge.rig import HopperEmpty

    return (
        (HopperEmpty, "load a few test cards into the hopper (the card-present sensor, Pico GPIO 19, must "
                      "see them)"),
        (Jam, "clear the card path; check the ejector wheel's grip and the exit beam (Pico GPIO 18); then "
              "hongsi selftest again"),
        (DoubleFeed, "two cards left together: fan the test cards; check the separator gap under the hopper"),
        (McuRebooted, "the Pico rebooted while ejecting: the motor browns out its supply — check the 6 V rail "
                      "and the capacitor, the USB cable"),
        (PortGone, "the Pico's USB port vanished: it rebooted while ejecting (the motor browns out its supply — "
                   "check the 6 V rail and the capacitor) or the USB cable dropped out"),
        (RigError, "hongsi firmware check; check the USB cable"),
    )


def check_eject(run: _Run, enabled: bool) -> None:
    from firmware_bridge.errors import RigError
    from firmware_bridge.rig import HopperEmpty

    if not enabled:
        run.add("eject", "skip", "--no-eject: no card was moved")
        return
    if not run.needs("eject", "homing"):
        return
    rig = run.rig
    passed = threading.Event()
    pulses: list[float] = []

    def on_event(ev: Any) -> None:
        if ev.name == "card_passed":
            pulses.append(ev.fields["pulse_us"] / 1000)
            passed.set()

    rig.on_event(on_event)
    single, double = expected_pulse_ms()
    try:
        if not rig.status()["hopper"]:
            raise HopperEmpty("the hopper is empty / 发牌盒已空")
        rig.rotate_to("bottom")
        ev = rig.eject()
    except RigError as exc:
        remedy = next(text for kind, text in _eject_remedies() if isinstance(exc, kind))
        run.add("eject", "fail", str(exc), remedy)
        return
    passed.wait(2.0)
    detail = (f"one card to the tray: exit pulse {ev.pulse_ms:.1f} ms (one card ≈ {single:.0f} ms), "
              f"travel {ev.travel_ms:.0f} ms, {ev.attempts} attempt(s)")
    if not pulses:
        run.add("eject", "fail", detail + "; no card_passed event", "hongsi firmware check")
    elif not 0.5 * single <= ev.pulse_ms <= double:
        run.add("eject", "fail", detail + f"; outside {0.5 * single:.0f}..{double:.0f} ms",
                "check the exit beam's alignment; hongsi calibrate (card-exit pulse)")
    else:
        run.add("eject", "pass", detail)


def check_camera(run: _Run, camera: str, reader: Any, frames: int = 3) -> None:
    from controller.camera import CameraError, open_camera
    from vision.reader import is_colourless

    try:
        with open_camera(camera, exposure_us=run.cfg.camera_exposure_us) as cam:  # as calibrated
            images = [f.image for f in cam.grab(frames, timeout=5.0)]
    except CameraError as exc:
        run.add("camera", "fail", str(exc), f"check camera_url = {camera!r}: the cable or ribbon, ls /dev/video*, "
                "rpicam-hello for a Pi camera, the URL in a browser for a stream")
        return
    shape = "x".join(str(s) for s in images[0].shape[1::-1])
    try:
        if reader is None:
            from vision.reader import CardReader

            reader = CardReader(threads=1)
    except FileNotFoundError as exc:
        run.add("camera", "fail", f"{len(images)} frames {shape}; {exc}",
                "the card model ships in vision/models/: reinstall hongsi")
        return
    reading = reader.read_votes(images)
    grey = ""
    if all(is_colourless(i) for i in images):  # works, but the two jokers differ only by colour
        grey = ("; a greyscale camera: the two jokers cannot be told apart, so they are flagged for the operator "
                "/ 黑白相机分不清大小王")
    if reading.label is not None:
        run.add("camera", "pass", f"{len(images)} fresh frames {shape}; read {reading.label} "
                f"(confidence {reading.confidence:.2f}){grey}",
                "a colour camera for decks with jokers" if grey else "")
    elif not reading.found:
        run.add("camera", "fail", f"{len(images)} frames {shape}; no card in the window",
                "load cards into the hopper; check the LED ring and that the camera looks at the window")
    else:
        run.add("camera", "fail", f"{len(images)} frames {shape}; unsure (confidence {reading.confidence:.2f})",
                "hongsi calibrate (camera exposure); clean the hopper window; check the focus")


def check_panel(run: _Run, pin_factory: Any, blink: float) -> None:
    from firmware_bridge.panel import DEAL_BUTTON_PIN, ESTOP_PIN, Panel

    if pin_factory is None:
        run.add("panel", "skip", "no pin factory (see the pin factory row)")
        return
    simulated = type(pin_factory).__name__.startswith("Mock")
    try:
        panel = Panel(pin_factory=pin_factory)
    except Exception as exc:  # noqa: BLE001 - gpiozero raises many kinds (pins busy, no access)
        run.add("panel", "fail", f"cannot open the panel's pins: {exc}",
                "is the user in the gpio group? is another hongsi running (systemctl stop hongsi)?")
        return
    problems = []
    try:
        n = len(panel.lights.leds)
        for seat in range(n):
            panel.lights.light(seat)
            want = tuple(1 if i == seat else 0 for i in range(n))
            if panel.lights.value != want:
                problems.append(f"seat LED {seat + 1} reads {panel.lights.value}")
            time.sleep(blink)
        panel.lights.off()
        if panel.deal.is_pressed:
            problems.append(f"the deal button reads pressed (stuck or shorted, Pi GPIO {DEAL_BUTTON_PIN})")
        if panel.estop.is_active:
            problems.append(f"the e-stop reads pressed or its wire is cut (Pi GPIO {ESTOP_PIN})")
        panel.buzzer.beep(1, length=min(0.08, blink) or 0.001)
    finally:
        panel.close()
    where = " — simulated: not a Raspberry Pi (gpiozero MockFactory) / 模拟 GPIO" if simulated else ""
    if problems:
        run.add("panel", "fail", "; ".join(problems) + where,
                "check the panel wiring (hardware/wiring.md); release the e-stop")
    else:
        run.add("panel", "pass", f"{n} seat LEDs lit in turn, deal button and e-stop released, buzzer beeped{where}")


def check_voice(run: _Run, espeak: str | None, aloud: bool) -> None:
    from controller.announce import Voice

    if not run.cfg.voice:
        run.add("voice", "skip", "voice = false in the config")
        return
    text_zh, text_en = "自检：声音正常", "Self-test: the voice works."
    voice = Voice(enabled=True, espeak=espeak, fallback=lambda _t: None)
    try:
        if not voice.speaks:
            run.add("voice", "fail", "espeak-ng is not installed / 未安装 espeak-ng", "sudo apt install espeak-ng")
            return
        with tempfile.TemporaryDirectory() as tmp:
            wav = Path(tmp) / "voice.wav"
            voice.wav(text_zh, wav)
            seconds = 0.0
            if wav.exists() and wav.stat().st_size > 44:
                with wave.open(str(wav)) as w:
                    seconds = w.getnframes() / max(1, w.getframerate())
        if seconds <= 0.2:
            run.add("voice", "fail", f"espeak-ng ({voice.espeak}) wrote no audio",
                    "run espeak-ng -v cmn 你好 by hand; reinstall espeak-ng (espeak-ng-data)")
            return
        if aloud:
            from controller.service.voice import output_problem  # espeak-ng exits 0 without a sound card

            if (problem := output_problem(voice.espeak)) is not None:
                run.add("voice", "fail", f"espeak-ng wrote {seconds:.1f} s of Mandarin, but: {problem} / 没有音频输出设备",
                        "plug in the speaker (or a USB sound card); aplay -l lists the cards")
                return
            voice.say(text_zh, text_en, wait=True)
        run.add("voice", "pass", f"espeak-ng spoke {seconds:.1f} s of Mandarin"
                + (" and sent it to the speaker" if aloud else ""))
    finally:
        voice.close()


# ---------------------------------------------------------------------------------------- the run
def run_selftest(cfg: RigConfig, *, serial: str | None = None, camera: str | None = None, eject: bool = True,
                 reader: Any = None, pin_factory: Any = None, espeak: str | None = None, aloud: bool = True,
                 blink: float = 0.25, say: Callable[[str], None] = lambda _s: None) -> list[Check]:
    """Run every row against the rig on ``serial`` and the camera ``camera`` (defaults: the config's)."""
    serial = serial or cfg.serial_port
    camera = camera or cfg.camera_url
    run = _Run(cfg, say)
    try:
        pin_factory = check_pins(run, pin_factory)
        check_link(run, serial)
        check_homing(run)
        check_seats(run)
        check_eject(run, eject)
        check_camera(run, camera, reader)
        if cfg.table_camera.source:  # the camera over the play area (issue 29)
            from controller.table_camera.setup import check_table_camera

            check_table_camera(run, cfg.table_camera.source, cfg)
        check_panel(run, pin_factory, blink)
        check_voice(run, espeak, aloud)
    finally:
        if run.rig is not None:
            run.rig.close()
    return run.rows


def render(rows: list[Check], console: Any) -> None:
    """The pass/fail table, with the remedy for each failure."""
    from rich.table import Table

    colours = {"pass": "[green]PASS[/]", "fail": "[bold red]FAIL[/]", "skip": "[yellow]SKIP[/]"}
    table = Table(title="hongsi self-test / 自检", show_lines=True)
    table.add_column("check / 项目")
    table.add_column("result / 结果")
    table.add_column("detail / 详情", overflow="fold")
    table.add_column("remedy / 处理", overflow="fold")
    for r in rows:
        table.add_row(r.name, colours.get(r.status, r.status), r.detail, r.remedy)
    console.print(table)
    failed = [r.name for r in rows if r.failed]
    if failed:
        console.print(f"[bold red]{len(failed)} failed: {', '.join(failed)} / {len(failed)} 项未通过[/]")
    else:
        console.print("[green]all checks passed / 全部通过[/]")


def virtual_rig_if_sim(cfg: RigConfig, serial: str, camera: str, console: Any, *, speed: float
                       ) -> tuple[Any, str, str]:
    """``serial = "sim"`` (the default config): start a virtual rig in this process and return it with its
    serial port and (when ``camera`` is "sim" too) its camera URL; else (None, serial, camera)."""
    if serial != "sim":
        return None, serial, camera
    from firmware_bridge.sim import VirtualRig

    vr = VirtualRig(speed=speed, angles=cfg.servo_angles, bottom_angle=cfg.bottom_angle)
    ends = vr.start()
    serial, camera = ends["serial"], (ends["camera"] if camera == "sim" else camera)
    console.print(f"on a virtual rig ({serial}, {camera}) / 虚拟设备", highlight=False)
    return vr, serial, camera


def selftest_command(*, serial: str | None, camera: str | None, config: Path | None, eject: bool = True,
                     dry_run: bool = False, as_json: bool = False, console: Any = None) -> int:
    """``hongsi selftest``: exit 0 when every row passed (or was skipped), 1 when one failed.
    ``serial = "sim"`` (the default config) runs the self-test on a virtual rig in this process."""
    import json
    import sys

    from rich.console import Console
    from rich.progress import Progress

    from controller.config import load_config

    console = console or Console(stderr=as_json)  # --json: standard output holds the JSON alone
    cfg = load_config(config)
    serial = serial or cfg.serial_port
    camera = camera or cfg.camera_url
    if dry_run:
        console.print("[bold]hongsi selftest --dry-run[/]: would do, and change nothing:")
        for step in plan(cfg, serial, camera, eject=eject):
            console.print(f"+ {step}", markup=False, highlight=False)
        return 0
    vr, serial, camera = virtual_rig_if_sim(cfg, serial, camera, console, speed=10)
    try:
        with Progress(console=console, transient=True, disable=as_json) as progress:
            task = progress.add_task("self-test / 自检", total=len(ROWS))
            rows = run_selftest(cfg, serial=serial, camera=camera, eject=eject,
                                say=lambda _s: progress.advance(task))
    finally:
        if vr is not None:
            vr.stop()
    if as_json:
        sys.stdout.write(json.dumps([r.to_dict() for r in rows], ensure_ascii=False, indent=2) + "\n")
    else:
        render(rows, console)
    return 1 if any(r.failed for r in rows) else 0
