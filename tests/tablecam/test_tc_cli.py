"""``hongsi serve --table-camera`` on a real rig without a table camera configured: one line, exit 2."""

from __future__ import annotations

import os
import subprocess
import sys


def test_serve_table_camera_without_a_camera_is_one_line(tmp_path):
    cfg = tmp_path / "hongsi.toml"
    cfg.write_text(f'data_dir = "{tmp_path / "data"}"\n')
    env = {**os.environ, "HONGSI_CONFIG": str(cfg)}
    out = subprocess.run([sys.executable, "-m", "controller.cli", "serve", "--no-rig", "--table-camera",
                          "--port", "18765"], capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 2
    lines = [ln for ln in out.stderr.splitlines() if ln.strip()]
    assert "Traceback" not in out.stderr and "[table_camera] source" in lines[-1]
