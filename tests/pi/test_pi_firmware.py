"""`hongsi firmware flash` and `hongsi firmware check` against the virtual rig (the project's firmware behind a
real pty). mpremote is an outside tool: here a stand-in executable on PATH records its arguments, asks the
port for MicroPython's raw REPL as mpremote does (and fails as mpremote does when the firmware holds the
port), copies the files into a folder standing for the Pico's flash, and on `reset` the virtual Pico really
reboots."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from pi_helpers import HONGSI, ROOT, SPEED, env

from controller.firmware_tool import FIRMWARE_FILES, FirmwareError, flash
from firmware_bridge import protocol as P
from firmware_bridge.sim import VirtualRig
from firmware_bridge.sim.fakes import SOFT_RESET

FAKE_MPREMOTE = """#!{python}
import json, os, shutil, sys, time
import serial
args = sys.argv[1:]
with open(os.environ["FAKE_MPREMOTE_LOG"], "a") as log:
    log.write(json.dumps(args) + "\\n")
got = b""
with serial.Serial(args[args.index("connect") + 1], 115200, timeout=0.05) as line:
    line.write(b"\\r\\x03\\x03\\x01")  # as mpremote: interrupt, then the raw REPL
    end = time.time() + 3.0  # a loaded machine is slow to answer
    while time.time() < end and b"raw REPL; CTRL-B to exit" not in got:
        got += line.read(256)
if b"raw REPL; CTRL-B to exit" not in got:
    sys.stderr.write("mpremote: could not enter raw repl\\n")
    sys.exit(1)
pico = os.environ["FAKE_PICO_DIR"]
if "cp" in args:
    for src in args[args.index("cp") + 1:-1]:
        shutil.copy(src, pico)
if args[-1] == "reset":
    open(os.path.join(pico, ".reset"), "w").close()
"""


@pytest.fixture
def mpremote(tmp_path):
    """(bin dir with the stand-in mpremote, its argument log, the 'Pico flash' folder)."""
    bindir, pico = tmp_path / "bin", tmp_path / "pico"
    bindir.mkdir()
    pico.mkdir()
    exe = bindir / "mpremote"
    exe.write_text(FAKE_MPREMOTE.format(python=sys.executable))
    exe.chmod(0o755)
    return bindir, tmp_path / "mpremote.log", pico


def fw_env(mp, **extra) -> dict[str, str]:
    bindir, log, pico = mp
    return env(PATH=f"{bindir}{os.pathsep}{os.environ['PATH']}", FAKE_MPREMOTE_LOG=str(log),
               FAKE_PICO_DIR=str(pico), **extra)


def calls(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def reboot_on_reset(vr: VirtualRig, pico: Path, stop: threading.Event) -> threading.Thread:
    """The Pico reboots when mpremote resets it."""

    def watch() -> None:
        while not stop.is_set():
            if (pico / ".reset").exists():
                vr.board.request_reset(SOFT_RESET)
                return
            time.sleep(0.01)

    t = threading.Thread(target=watch, daemon=True)
    t.start()
    return t


def test_flash_copies_the_firmware_resets_and_checks_the_new_boot(mpremote):
    bindir, log, pico = mpremote
    stop = threading.Event()
    with VirtualRig(seed=1, speed=SPEED, camera=False) as vr:
        _running(vr)
        first_boots, port = vr.mcu.boots, vr.ends["serial"]
        watcher = reboot_on_reset(vr, pico, stop)
        out = subprocess.run(HONGSI + ["firmware", "flash", "--port", port], capture_output=True,
                             text=True, env=fw_env(mpremote), cwd=ROOT, timeout=60)
        stop.set()
        watcher.join(2)
        boots = vr.mcu.boots
    assert out.returncode == 0, out.stdout + out.stderr
    assert boots == first_boots + 2  # once into the REPL, once into the new firmware, which flash saw
    assert "reboots into the REPL" in out.stdout
    rm, cp, reset = calls(log)
    assert rm[:3] == ["connect", port, "exec"] and "os.remove" in rm[3]  # old .py copies would shadow .mpy
    assert cp[:4] == ["connect", port, "fs", "cp"] and cp[-1] == ":"
    assert reset == ["connect", port, "reset"]
    shipped = [n[:-3] + ".mpy" for n in FIRMWARE_FILES if n != "main.py"] + ["main.py"]
    assert [Path(a).name for a in cp[4:-1]] == shipped  # precompiled modules; main.py (source) last
    assert (pico / "main.py").read_bytes() == (ROOT / "hardware" / "firmware" / "main.py").read_bytes()
    for name in shipped[:-1]:
        assert (pico / name).read_bytes()[:1] == b"M"  # a MicroPython .mpy header
    assert "flashed" in out.stdout and f"{P.PROTOCOL_HASH:04x}" in out.stdout


def test_flash_dry_run_prints_the_commands_and_runs_nothing(mpremote):
    bindir, log, pico = mpremote
    out = subprocess.run(HONGSI + ["firmware", "flash", "--port", "/dev/hongsi-mcu", "--dry-run"],
                         capture_output=True, text=True, env=fw_env(mpremote), cwd=ROOT, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("+ ")]
    assert "command repl" in lines[0] and "/dev/hongsi-mcu" in lines[0]
    assert "connect /dev/hongsi-mcu exec" in lines[1]
    assert "connect /dev/hongsi-mcu fs cp" in lines[2] and lines[2].rstrip().endswith("main.py :")
    assert "firmware.mpy" in lines[2]
    assert lines[3].endswith("connect /dev/hongsi-mcu reset") and "boot report" in lines[4]
    assert not log.exists() and not list(pico.iterdir())


def test_flash_explains_an_older_firmware_that_will_not_free_the_repl(mpremote):
    bindir, log, pico = mpremote
    with VirtualRig(seed=2, speed=SPEED, camera=False) as vr:
        _running(vr).FW_VERSION = (0, 3)  # before the "repl" command: the firmware keeps the port
        boots = vr.mcu.boots
        out = subprocess.run(HONGSI + ["firmware", "flash", "--port", vr.ends["serial"]], capture_output=True,
                             text=True, env=fw_env(mpremote), cwd=ROOT, timeout=60)
        assert vr.mcu.boots == boots and vr.mcu.fw is not None  # still the firmware, never rebooted
    assert out.returncode == 1
    assert "cannot free the REPL itself" in out.stdout
    assert "could not enter raw repl" in out.stderr and "BOOTSEL" in out.stderr
    assert len(calls(log)) == 1 and not list(pico.iterdir())  # nothing was copied


def test_flash_fails_when_the_pico_does_not_come_back_with_a_new_boot(mpremote, monkeypatch):
    bindir, log, pico = mpremote
    monkeypatch.setenv("FAKE_MPREMOTE_LOG", str(log))
    monkeypatch.setenv("FAKE_PICO_DIR", str(pico))
    with VirtualRig(seed=3, speed=SPEED, camera=False) as vr:  # nobody reboots it on reset
        _running(vr)
        with pytest.raises(FirmwareError, match="no boot report"):
            flash(vr.ends["serial"], mpremote=str(bindir / "mpremote"), boot_within=3.0, say=lambda _s: None)
        assert vr.mcu.repl is not None and vr.mcu.fw is None  # left in the REPL, the motors off
    assert len(calls(log)) == 3


def _running(vr: VirtualRig):
    deadline = time.monotonic() + 5
    while vr.mcu.fw is None and time.monotonic() < deadline:
        time.sleep(0.01)
    return vr.mcu.modules["protocol"]


def check(port: str) -> subprocess.CompletedProcess:
    return subprocess.run(HONGSI + ["firmware", "check", "--port", port, "--json"], capture_output=True,
                          text=True, env=env(), cwd=ROOT, timeout=60)


def test_check_round_trips_the_version_and_protocol_hash():
    with VirtualRig(seed=4, speed=SPEED, camera=False) as vr:
        out = check(vr.ends["serial"])
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["ok"] is True
    assert report["fw_version"] == report["host_version"] == f"{P.FW_VERSION[0]}.{P.FW_VERSION[1]}"
    assert report["protocol_hash"] == report["host_protocol_hash"] == f"{P.PROTOCOL_HASH:04x}"
    assert report["reset_cause"] == "power on"


@pytest.mark.parametrize("what", ["FW_VERSION", "PROTOCOL_HASH"])
def test_check_catches_an_older_firmware_or_another_protocol(what):
    with VirtualRig(seed=5, speed=SPEED, camera=False) as vr:
        proto = _running(vr)
        if what == "FW_VERSION":
            proto.FW_VERSION = (0, 2)
        else:
            proto.PROTOCOL_HASH ^= 0x0F0F
        out = check(vr.ends["serial"])
        table = subprocess.run(HONGSI + ["firmware", "check", "--port", vr.ends["serial"]], capture_output=True,
                               text=True, env=env(), cwd=ROOT, timeout=60)
    assert out.returncode == 1 and table.returncode == 1
    report = json.loads(out.stdout)
    assert report["ok"] is False
    if what == "FW_VERSION":
        assert report["fw_version"] == "0.2" and report["protocol_hash"] == report["host_protocol_hash"]
    else:
        assert report["protocol_hash"] != report["host_protocol_hash"]
    assert "DIFFERENT" in table.stdout and "hongsi firmware flash" in table.stdout


def test_check_without_firmware_on_the_line_is_one_clear_error():
    master, slave = os.openpty()
    try:
        out = check(os.ttyname(slave))
    finally:
        os.close(master)
        os.close(slave)
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.startswith("hongsi: no answer to 'hello'") and "hongsi firmware flash" in out.stderr


def test_flash_says_to_stop_the_service_when_the_port_is_in_use(mpremote):
    from firmware_bridge import Rig

    with VirtualRig(seed=3, speed=SPEED, camera=False) as vr:
        holder = Rig(vr.ends["serial"], timeout=3.0)
        holder.connect()  # the table service holds the port
        try:
            out = subprocess.run(HONGSI + ["firmware", "flash", "--port", vr.ends["serial"]], capture_output=True,
                                 text=True, env=fw_env(mpremote), cwd=ROOT, timeout=60)
        finally:
            holder.close()
    assert out.returncode != 0
    said = out.stdout + out.stderr
    assert "stop the service" in said and "BOOTSEL" not in said and "flash_nuke" not in said
    assert "Traceback" not in said


def test_boot_wait_polls_through_a_port_that_is_back_but_cannot_be_configured_yet(tmp_path):
    """While a Pico's USB serial re-enumerates, its device node may be back before it can be configured
    (pyserial's error here; termios' EIO in a CI run, which a pty cannot be made to give): the wait polls on
    until the firmware answers, not a traceback. The port's name points at a node that is no tty, then at
    the virtual Pico."""
    from controller.firmware_tool import wait_for_boot

    port = tmp_path / "ttyACM0"
    not_ready = tmp_path / "not-ready"
    not_ready.write_bytes(b"")
    port.symlink_to(not_ready)
    with VirtualRig(seed=6, speed=SPEED, camera=False) as vr:
        def back() -> None:
            time.sleep(0.8)
            tmp = tmp_path / "next"
            tmp.symlink_to(vr.ends["serial"])
            os.replace(tmp, port)  # atomically, as udev re-links /dev/serial/by-id

        threading.Thread(target=back, daemon=True).start()
        t0 = time.monotonic()
        report = wait_for_boot(str(port), within=15.0)
    assert report.fw_version == f"{P.FW_VERSION[0]}.{P.FW_VERSION[1]}"
    assert time.monotonic() - t0 >= 0.7  # it did wait through the node that was not ready
    with pytest.raises(FirmwareError, match="cannot open serial port"):  # one line, the cause in it
        wait_for_boot(str(not_ready), within=1.0)
