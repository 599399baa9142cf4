"""The installer on a Pi: the venv's numpy stays 1.x, or picamera2 (through Debian's simplejpeg, built
against Debian's numpy 1.x) fails with "numpy.dtype size changed"."""

from __future__ import annotations

import subprocess
from pathlib import Path

INSTALL = Path(__file__).resolve().parents[2] / "deploy" / "install.sh"


def test_the_installer_pins_numpy_below_2_in_the_venv():
    proc = subprocess.run(["bash", str(INSTALL), "--dry-run"], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    pip = [line for line in proc.stdout.splitlines() if "/.venv/bin/pip install" in line]
    assert len(pip) == 1 and "numpy<2" in pip[0], pip


def _dry_run(tmp_path, props: str | None) -> subprocess.CompletedProcess:
    """The installer's dry run with a stand-in ``udevadm`` answering ``props`` for one ttyACM."""
    import os

    (tmp_path / "udevadm").write_text(f"#!/bin/sh\ncat <<'EOF'\n{props or ''}\nEOF\n")
    (tmp_path / "udevadm").chmod(0o755)
    env = {**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}", "HONGSI_TTYS": "/dev/null" if props else ""}
    return subprocess.run(["bash", str(INSTALL), "--dry-run"], capture_output=True, text=True, timeout=30, env=env)


def test_the_udev_rule_is_pinned_to_the_plugged_in_picos_serial(tmp_path):
    rule = (INSTALL.parent / "99-hongsi.rules").read_text()
    assert 'ENV{ID_MM_DEVICE_IGNORE}="1"' in rule and 'ATTRS{serial}=="*"' in rule
    pico = _dry_run(tmp_path, "ID_VENDOR_ID=2e8a\nID_SERIAL_SHORT=E6614103E7452D2F")
    assert pico.returncode == 0, pico.stderr
    assert 'ATTRS{serial}=="E6614103E7452D2F"' in pico.stdout and "/etc/udev/rules.d/99-hongsi.rules" in pico.stdout
    other = _dry_run(tmp_path, "ID_VENDOR_ID=1a86\nID_SERIAL_SHORT=0001")   # a USB serial adapter, not a Pico
    assert other.returncode == 0 and "0001" not in other.stdout and "no Pico on USB" in other.stderr
