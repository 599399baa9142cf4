"""``hongsi calibrate``: an interactive terminal wizard that fits the config to one table's rig.

Steps (each asks before it moves anything; Ctrl-D or Ctrl-C stops with nothing saved):

1. **seat angles** — the turntable goes to each seat's angle from the config; jog it (``+``/``-`` one
   degree, ``++``/``--`` ten, or type an angle) until the exit points at the seat, Enter keeps it; then the
   底牌 tray.
2. **test ejects** — one card into each seat; you say whether it landed there (if not, jog again).
3. **card-exit pulses** — the exit beam's pulse for one card (from the test ejects) and for two cards
   stuck together; the firmware's double-feed threshold must lie between them.
4. **camera focus** — a Pi camera with a focus motor (Camera Module 3): with a test card in the window,
   the lens is set to each distance from 10 to 15 cm and the sharpest is kept (``camera_url`` gets
   ``@CM``): the mount holds the window ~12 cm away, but each module's lens lands a little differently.
   Other cameras are skipped without a question.
5. **camera exposure** — with a test card in the hopper window, each exposure the camera offers is tried
   until the card reader is confident; the best is kept (a stream or a folder has no exposure control).
6. **save** — the changed keys are written into the config TOML (comments and other keys kept).

>>> update_toml('seats = 4\\nservo_angles = [0.0, 90.0]  # degrees\\n', {"servo_angles": [1.5, 91.0]})
'seats = 4\\nservo_angles = [1.5, 91.0]  # degrees\\n'
"""

from __future__ import annotations

import re
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.camera import set_exposure
from controller.config import ConfigError, RigConfig, find_config, load_config, to_toml

JOG = {"+": 1.0, "-": -1.0, "++": 10.0, "--": -10.0}
EXPOSURES_US = (0.0, 2000.0, 4000.0, 8000.0, 16000.0, 33000.0)  # 0 = automatic
CONFIDENT = 0.8


class CalibrationError(RuntimeError):
    """The wizard cannot go on (no rig, no config to write); the message says why."""


class Aborted(Exception):
    """The operator ended the wizard (end of input or Ctrl-C)."""


# ---------------------------------------------------------------------------------------- the TOML file
def _toml_value(value: Any) -> str:
    return to_toml(_Probe(value)).split(" = ", 1)[1].rstrip("\n")


class _Probe:
    """Lets :func:`controller.config.to_toml` format one value the way it formats the whole config."""

    def __init__(self, value: Any):
        self.value = value

    def model_dump(self) -> dict[str, Any]:
        return {"x": self.value}


def update_toml(text: str, updates: dict[str, Any]) -> str:
    """``text`` with each key of ``updates`` set: a top-level ``key = …`` line is rewritten in place
    (its trailing comment kept); a key not in the file is added at the end of the top-level keys."""
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    top_end = next((i for i, ln in enumerate(lines) if ln.lstrip().startswith("[")), len(lines))
    for key, value in updates.items():
        pattern = re.compile(rf"^(\s*{re.escape(key)}\s*=\s*)([^#\n]*?)(\s*#.*)?$")
        for i, line in enumerate(lines[:top_end]):  # the top-level table only
            m = pattern.match(line.rstrip("\n"))
            if m:
                lines[i] = f"{m.group(1)}{_toml_value(value)}{m.group(3) or ''}\n"
                break
        else:  # a new key goes at the end of the top-level table
            lines.insert(top_end, f"{key} = {_toml_value(value)}\n")
            top_end += 1
    return "".join(lines)


def save_config(path: Path, updates: dict[str, Any]) -> RigConfig:
    """Write ``updates`` into the TOML file at ``path`` (created if missing) after checking that the
    result is a valid config; the old file stays as it was if it is not."""
    text = path.read_text(encoding="utf-8") if path.exists() else (
        "# hongsi config written by `hongsi calibrate`; `hongsi config show` prints all keys\n")
    new = update_toml(text, updates)
    tmp = path.with_name(path.name + ".new")
    tmp.write_text(new, encoding="utf-8")
    try:
        cfg = load_config(tmp, env={})
    except ConfigError:
        tmp.unlink()
        raise
    tmp.replace(path)
    return cfg


# ---------------------------------------------------------------------------------------- camera focus
FOCUS_CM = tuple(cm / 2 for cm in range(20, 31))   # 10 to 15 cm every 5 mm: the window is ~12 cm from the lens
FOCUS_SETTLE_S = 0.1                                 # the focus motor moves in tens of ms


# ---------------------------------------------------------------------------------------- camera exposure
# ---------------------------------------------------------------------------------------- the wizard
def pulse_threshold(singles: list[float], double: float | None) -> float:
    """The double-feed threshold from measured pulses (ms): midway to a measured double, never closer
    to the single cards than their own spread allows (the slowest single plus 6 %, at least 8 % over the
    median)."""
    median = statistics.median(singles)
    floor = max(max(singles) * 1.06, median * 1.08)
    if double is None or double <= floor:
        return round(max(floor, median * 1.12), 1)
    return round(max(floor, (median + double) / 2), 1)


@dataclass
class Results:
    angles: list[float]
    bottom_angle: float
    single_pulses: list[float] = field(default_factory=list)
    double_pulse: float | None = None
    threshold: float | None = None  # the double-feed threshold sent to the Pico
    exposure_us: float | None = None
    focus_cm: float | None = None


class Wizard:
    """The steps, on a connected :class:`firmware_bridge.Rig`, a camera source and a console."""

    def __init__(self, cfg: RigConfig, rig: Any, camera: str, console: Any, *, reader: Any = None):
        self.cfg, self.rig, self.camera, self.console, self.reader = cfg, rig, camera, console, reader
        self.res = Results(list(cfg.servo_angles), cfg.bottom_angle)

    # -------------------------------------------------------------- input
    def ask(self, prompt: str) -> str:
        try:
            return self.console.input(f"{prompt} › ").strip()
        except (EOFError, KeyboardInterrupt):
            raise Aborted() from None

    def yes(self, prompt: str, default: bool = True) -> bool:
        while True:
            answer = self.ask(f"{prompt} [{'Y/n' if default else 'y/N'}]").lower()
            if not answer:
                return default
            if answer in ("y", "yes", "是", "n", "no", "否"):
                return answer in ("y", "yes", "是")
            self.console.print("answer y or n / 请输入 y 或 n")

    def say(self, text: str) -> None:
        self.console.print(text, highlight=False)

    # -------------------------------------------------------------- steps
    def connect(self) -> None:
        boot = self.rig.connect()
        self.say(f"connected: firmware {boot.fw_version}, protocol {boot.protocol_hash:04x}")
        if self.rig.status()["fault"] != "none":
            self.say(f"clearing a latched fault: {self.rig.clear_fault()}")
        self.say(f"homed in {self.rig.home():.0f} ms / 转盘已归位")

    def jog(self, label: str, angle: float) -> float:
        """Jog the turntable for one place; return the angle the operator kept."""
        top = self.cfg.servo_range
        self.rig.rotate_to_angle(angle)
        while True:
            answer = self.ask(f"{label}: at {angle:g}° — + / - jog 1°, ++ / -- 10°, a number goes there, "
                              "Enter keeps it")
            if not answer:
                return angle
            if answer in JOG:
                target = angle + JOG[answer]
            else:
                try:
                    target = float(answer)
                except ValueError:
                    self.say(f"{answer!r}: type +, -, ++, --, an angle, or press Enter / 输入无效")
                    continue
            if not 0 <= target <= top:
                self.say(f"{target:g}° is outside the servo's 0..{top:g}° / 超出舵机范围")
                continue
            angle = self.rig.rotate_to_angle(target)

    def seat_angles(self) -> None:
        self.say("[bold]1. seat angles / 座位角度[/]")
        for i, angle in enumerate(self.res.angles):
            self.res.angles[i] = self.jog(f"seat {i + 1} / {i + 1}号位", angle)
        self.res.bottom_angle = self.jog("底牌 tray / 底牌盒", self.res.bottom_angle)
        self.rig.angles = list(self.res.angles)
        self.rig.bottom_angle = self.res.bottom_angle

    def eject_into(self, place: int | str) -> float | None:
        """One card to a seat or the tray; its pulse (ms), or None after a reported failure."""
        from firmware_bridge.errors import DoubleFeed, Fault, RigError

        self.rig.rotate_to(place)
        try:
            ev = self.rig.eject()
        except DoubleFeed as exc:
            self.say(f"two cards left together ({exc.evidence.pulse_ms:.1f} ms): fan the deck / 双张")
            return None
        except Fault as exc:
            self.say(f"[red]{exc}[/] — clear it, then the wizard clears the fault")
            if self.yes("cleared? / 已清理？"):
                self.rig.clear_fault()
            return None
        except RigError as exc:
            self.say(f"[red]{exc}[/]")
            return None
        self.say(f"  exit pulse {ev.pulse_ms:.1f} ms, travel {ev.travel_ms:.0f} ms")
        return ev.pulse_ms

    def test_ejects(self) -> None:
        self.say("[bold]2. test ejects / 试发牌[/]")
        if not self.yes("eject one test card into each seat now? / 现在向每个座位试发一张？"):
            return
        for i in range(len(self.res.angles)):
            for _try in range(3):
                pulse = self.eject_into(i)
                if pulse is not None:
                    self.res.single_pulses.append(pulse)
                if self.yes(f"did the card land in seat {i + 1}? / 牌落在{i + 1}号位了吗？"):
                    break
                self.res.angles[i] = self.jog(f"seat {i + 1} / {i + 1}号位", self.res.angles[i])
                self.rig.angles = list(self.res.angles)

    def pulses(self) -> None:
        self.say("[bold]3. card-exit pulses / 出牌脉冲[/]")
        from controller.selftest import expected_pulse_ms

        if not self.res.single_pulses and self.yes("eject one card into the tray to time it? / 向底牌盒发一张？"):
            pulse = self.eject_into("bottom")
            if pulse is not None:
                self.res.single_pulses.append(pulse)
        if not self.res.single_pulses:
            self.say("no single-card pulse measured: skipped")
            return
        single = statistics.median(self.res.single_pulses)
        self.say(f"one card: {single:.1f} ms (median of {len(self.res.single_pulses)})")
        if self.yes("now two cards stuck together at the bottom of the hopper — ready? / 放两张粘在一起的牌"):
            from firmware_bridge.errors import DoubleFeed, RigError

            try:
                self.rig.rotate_to("bottom")
                ev = self.rig.eject()
                pulse = ev.pulse_ms
            except DoubleFeed as exc:
                pulse = exc.evidence.pulse_ms
            except RigError as exc:
                self.say(f"[red]{exc}[/]")
                pulse = None
            if pulse is not None and pulse > single * 1.1:
                self.res.double_pulse = pulse
                self.say(f"two cards: {pulse:.1f} ms ({pulse / single:.2f} × one card)")
            elif pulse is not None:
                self.say(f"that pulse ({pulse:.1f} ms) is one card's: the two cards came apart; skipped")
        from firmware_bridge.errors import RigError

        self.res.threshold = pulse_threshold(self.res.single_pulses, self.res.double_pulse)
        fw_single, fw_threshold = expected_pulse_ms()
        try:  # the firmware keeps the measured figures in flash and counts doubles by them from now on
            got = self.rig.pulses(single, self.res.threshold)
            self.say(f"the Pico now takes one card as {got[0]:.1f} ms and two above {got[1]:.1f} ms "
                     f"(the parts' figures: {fw_single:.1f} / {fw_threshold:.1f} ms)")
        except RigError as exc:
            self.say(f"[red]{exc}[/]: the Pico keeps its thresholds")

    def focus(self) -> None:
        """The sharpest lens distance for the test card in the window (a camera with ``set_focus`` and a
        focus motor); the wizard's later steps use it."""
        from controller.camera import CameraError, open_camera
        from controller.camera_picamera import sharpness, with_focus

        try:
            cam = open_camera(self.camera)
        except (CameraError, FileNotFoundError):
            return                                   # the exposure step says what is wrong with it
        try:
            if not getattr(cam, "focus_cm", 0):      # no focus motor, a stream, a folder: nothing to tune
                return
            self.say("[bold]4. camera focus / 相机对焦[/]")
            if not self.yes(f"a test card in the hopper window, camera {self.camera!r} — go? / 放一张测试牌"):
                return
            scores: list[tuple[float, float]] = []
            for cm in FOCUS_CM:
                cam.set_focus(cm)
                time.sleep(FOCUS_SETTLE_S)
                try:
                    frames = cam.grab(2, timeout=5.0, skip=1)   # the first may have been exposed mid-move
                except CameraError as exc:
                    self.say(f"  {cm:g} cm: [red]{exc}[/]")
                    continue
                scores.append((statistics.median(sharpness(f.image) for f in frames), cm))
                self.say(f"  {cm:g} cm: sharpness {scores[-1][0]:.0f}")
        finally:
            cam.close()
        if not scores:
            self.say("[yellow]no frame at any focus: focus unchanged[/]")
            return
        best, cm = max(scores)
        self.res.focus_cm = cm
        self.camera = with_focus(self.camera, cm)
        self.say(f"focus {cm:g} cm (sharpness {best:.0f})")

    def exposure(self) -> None:
        from controller.camera import CameraError, open_camera

        self.say("[bold]5. camera exposure / 相机曝光[/]")
        if not self.yes(f"a test card in the hopper window, camera {self.camera!r} — go? / 放一张测试牌"):
            return
        try:
            reader = self.reader
            if reader is None:
                from vision.reader import CardReader

                reader = CardReader(threads=1)
            cam = open_camera(self.camera)
        except (CameraError, FileNotFoundError) as exc:
            self.say(f"[red]{exc}[/]: exposure not tuned")
            return
        best: tuple[float, float, str | None] | None = None
        try:
            control = set_exposure(cam, EXPOSURES_US[0])
            candidates = EXPOSURES_US if control else EXPOSURES_US[:1]
            if not control:
                self.say("this source has no exposure control (a stream or a folder): automatic only")
            for us in candidates:
                if control:
                    set_exposure(cam, us)
                    time.sleep(0.3)
                try:
                    frames = [f.image for f in cam.grab(3, timeout=5.0)]
                except CameraError as exc:
                    self.say(f"  {'auto' if not us else f'{us:g} µs'}: [red]{exc}[/]")
                    continue
                r = reader.read_votes(frames)
                name = "auto" if not us else f"{us:g} µs"
                self.say(f"  {name}: read {r.label or '—'} (confidence {r.confidence:.2f})")
                if r.label is not None and (best is None or r.confidence > best[1]):
                    best = (us, r.confidence, r.label)
                if best is not None and best[1] >= CONFIDENT and not control:
                    break
        finally:
            cam.close()
        if best is None:
            self.say("[yellow]the reader was never confident: check the LED ring, the focus, the window; "
                     "exposure unchanged[/]")
            return
        self.res.exposure_us = best[0]
        self.say(f"exposure {'auto' if not best[0] else f'{best[0]:g} µs'}: read {best[2]} "
                 f"(confidence {best[1]:.2f})")

    def updates(self) -> dict[str, Any]:
        out: dict[str, Any] = {"servo_angles": [round(a, 1) for a in self.res.angles],
                               "bottom_angle": round(self.res.bottom_angle, 1)}
        if self.res.single_pulses:
            out["exit_pulse_ms"] = round(statistics.median(self.res.single_pulses), 1)
        if self.res.double_pulse is not None:
            out["double_pulse_ms"] = round(self.res.double_pulse, 1)
        if self.res.focus_cm is not None:
            out["camera_url"] = self.camera
        if self.res.exposure_us is not None:
            out["camera_exposure_us"] = float(self.res.exposure_us)
        return out


STEPS = (
    "connect to the Pico on {serial}, clear a latched fault, home the turntable",
    "1. seat angles: turn to each seat's angle {angles} and the tray {bottom}°; jog until you press Enter",
    "2. test ejects: one card into each seat (you confirm where it landed)",
    "3. card-exit pulses: one card, then two stuck together; compare with the firmware's threshold",
    "4. camera focus (a Pi camera with a focus motor): the sharpest lens distance from 10 to 15 cm",
    "5. camera exposure: read a test card from {camera!r} at each exposure the source offers",
    "6. save: servo_angles, bottom_angle, exit_pulse_ms, double_pulse_ms, camera_url (@focus), camera_exposure_us "
    "to {path}",
)
# Only with a table camera configured (issue 29), before the save: what a real run does then.
PLAY_AREA_STEP = ("5b. table camera {source!r}: find the play area's corners in a picture of the cleared table; "
                  "saved as [table_camera] corners")


def target_path(config: Path | None) -> Path:
    """The config file the wizard writes: ``--config``, else the one in force, else ./hongsi.toml."""
    if config is not None:
        return Path(config)
    return find_config(None) or Path("hongsi.toml")


def calibrate_command(*, serial: str | None, camera: str | None, config: Path | None, dry_run: bool = False,
                      console: Any = None, reader: Any = None) -> int:
    """``hongsi calibrate``: 0 when saved, 1 when stopped or not saved."""
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    path = target_path(config)
    cfg = load_config(path if path.exists() else None)
    serial = serial or cfg.serial_port
    camera = camera or cfg.camera_url
    if dry_run:
        console.print("[bold]hongsi calibrate --dry-run[/]: would do, moving and saving nothing:")
        steps = list(STEPS)
        if cfg.table_camera.source:
            steps.insert(-1, PLAY_AREA_STEP.format(source=cfg.table_camera.source))
            steps[-1] = steps[-1].replace(" to {path}", ", [table_camera] corners to {path}")
        for step in steps:
            console.print("+ " + step.format(serial=serial, angles=cfg.servo_angles, bottom=cfg.bottom_angle,
                                             camera=camera, path=path), markup=False, highlight=False)
        return 0
    from controller.selftest import virtual_rig_if_sim
    from firmware_bridge import Rig
    from firmware_bridge.errors import RigError

    vr, serial, camera = virtual_rig_if_sim(cfg, serial, camera, console, speed=5)
    rig = Rig(serial, cfg.baud, angles=cfg.servo_angles, bottom_angle=cfg.bottom_angle)
    wizard = Wizard(cfg, rig, camera, console, reader=reader)
    console.print(f"[bold]hongsi calibrate[/] — writes {path} at the end / 校准向导")
    try:
        wizard.connect()
        wizard.seat_angles()
        wizard.test_ejects()
        wizard.pulses()
        wizard.focus()
        wizard.exposure()
        corners = None
        if cfg.table_camera.source:  # the play area of the table camera (issue 29)
            from controller.table_camera.setup import play_area_step, save_play_area

            corners = play_area_step(wizard, cfg)
        updates = wizard.updates()
        table = Table(title="changes / 修改")
        for col in ("key", "was", "now"):
            table.add_column(col)
        current = cfg.model_dump()
        for key, value in updates.items():
            table.add_row(key, _toml_value(current.get(key)), _toml_value(value))
        console.print(table)
        if not wizard.yes(f"save to {path}? / 保存？"):
            console.print("not saved / 未保存")
            return 1
        save_config(path, updates)
        if corners:
            save_play_area(path, corners)
            console.print(f"[table_camera] corners = {corners}", markup=False)
        console.print(f"[green]saved {path} / 已保存[/]; restart the service: sudo systemctl restart hongsi")
        return 0
    except (Aborted, KeyboardInterrupt):
        console.print("\nstopped: nothing saved / 已退出，未保存")
        return 1
    except RigError as exc:
        raise CalibrationError(f"{exc} — nothing saved; hongsi selftest shows what is wrong") from None
    finally:
        rig.close()
        if vr is not None:
            vr.stop()
