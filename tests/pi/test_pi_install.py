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
