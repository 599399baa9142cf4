"""The Pi install files are well formed: the systemd unit, the udev rule, the installer's dry run."""

import configparser
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"


def unit() -> configparser.ConfigParser:
    cp = configparser.ConfigParser(strict=False, interpolation=None)
    cp.optionxform = str
    cp.read(DEPLOY / "hongsi.service")
    return cp


def test_unit_restarts_runs_as_its_own_user_and_logs_to_the_journal():
    cp = unit()
    assert cp["Service"]["Restart"] == "on-failure"
    assert cp["Service"]["User"] == "hongsi"
    assert set(cp["Service"]["SupplementaryGroups"].split()) >= {"gpio", "dialout", "video"}
    assert cp["Service"]["StandardOutput"] == "journal"
    assert "hongsi serve" in cp["Service"]["ExecStart"]
    assert cp["Install"]["WantedBy"] == "multi-user.target"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
def test_systemd_analyze_verifies_the_unit(tmp_path):
    text = (DEPLOY / "hongsi.service").read_text()
    # verify checks that the binary exists: point it at one that does, keep everything else
    text = re.sub(r"^ExecStart=\S+", f"ExecStart={sys.executable}", text, flags=re.M)
    (tmp_path / "hongsi.service").write_text(text)
    proc = subprocess.run(["systemd-analyze", "verify", "--man=no", str(tmp_path / "hongsi.service")],
                          capture_output=True, text=True)
    problems = [ln for ln in (proc.stdout + proc.stderr).splitlines() if "hongsi.service" in ln]
    assert proc.returncode == 0 and not problems, proc.stdout + proc.stderr


def test_udev_rule_names_the_pico():
    lines = [ln for ln in (DEPLOY / "99-hongsi.rules").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
    assert len(lines) == 1
    pairs = dict(re.findall(r'([A-Za-z]+(?:\{\w+\})?)[=+]=?"([^"]*)"', lines[0]))
    assert pairs["SUBSYSTEM"] == "tty"
    assert pairs["ATTRS{idVendor}"] == "2e8a" and pairs["ATTRS{idProduct}"] == "0005"
    assert pairs["SYMLINK"] == "hongsi-mcu"


def test_installer_dry_run_prints_every_step_and_changes_nothing():
    watched = [Path("/opt/hongsi"), Path("/etc/hongsi"), Path("/etc/systemd/system/hongsi.service")]
    before = [p.exists() for p in watched]
    proc = subprocess.run(["bash", str(DEPLOY / "install.sh"), "--dry-run"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for step in ["apt-get install", "python3-lgpio", "espeak-ng", "fonts-wqy-microhei", "useradd", "usermod -aG gpio",
                 "usermod -aG dialout", "usermod -aG video", "/etc/hongsi/config.toml",
                 "/etc/udev/rules.d/99-hongsi.rules", "systemctl enable --now hongsi.service"]:
        assert step in out, step
    assert [p.exists() for p in watched] == before


def test_shipped_config_loads():
    from controller.config import load_config

    cfg = load_config(DEPLOY / "config.toml", env={})
    assert cfg.serial_port == "/dev/hongsi-mcu" and str(cfg.data_dir) == "/var/lib/hongsi"
