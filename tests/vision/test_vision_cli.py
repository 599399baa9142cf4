import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.render import render_table_frame
from vision.train import REAL_DIR

REPO = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller.cli", "vision", "classify", *args],
                          capture_output=True, text=True, cwd=REPO, timeout=120)


def test_classify_prints_one_json_line_per_image(tmp_path):
    rng = np.random.default_rng(8)
    files = []
    for label in ("H4", "SK", "D10"):
        p = tmp_path / f"{label}.png"
        cv2.imwrite(str(p), render_table_frame(label, rng, design="poker"))
        files.append(str(p))
    proc = run(*files)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(ln) for ln in proc.stdout.splitlines()]
    assert [ln["file"] for ln in lines] == files
    for ln, label in zip(lines, ("H4", "SK", "D10"), strict=True):
        assert set(ln) == {"file", "label", "confidence"}
        assert 0.0 <= ln["confidence"] <= 1.0
        assert ln["label"] in (label, None)
    assert sum(ln["label"] is not None for ln in lines) >= 2


def test_classify_corner_kind_on_real_crops(tmp_path):
    import pytest

    from vision.train import real_rows

    rows = real_rows("eval", REAL_DIR)
    if not rows:
        pytest.skip("real photos not beside the repository")
    rows = [r for r in rows if r["subset"] == "phone_std_deck"][:6]
    proc = run("--kind", "corner", *[str(REAL_DIR / r["file"]) for r in rows])
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(ln) for ln in proc.stdout.splitlines()]
    assert len(lines) == 6
    assert sum(ln["label"] == r["label"] for ln, r in zip(lines, rows, strict=True)) >= 4


def test_unreadable_files_get_an_error_line_and_exit_1(tmp_path):
    bad = tmp_path / "notes.jpg"
    bad.write_text("this is not a picture")
    good = tmp_path / "card.png"
    cv2.imwrite(str(good), render_table_frame("C7", np.random.default_rng(1), design="poker"))
    proc = run(str(bad), str(tmp_path / "missing.png"), str(good))
    assert proc.returncode == 1
    lines = [json.loads(ln) for ln in proc.stdout.splitlines()]
    assert len(lines) == 3
    assert lines[0]["label"] is None and lines[0]["error"] == "not a readable image"
    assert lines[1]["error"] == "no such file"
    assert "error" not in lines[2]
    assert "notes.jpg" in proc.stderr


def test_unknown_kind_is_a_clear_error(tmp_path):
    proc = run("--kind", "sideways", str(tmp_path / "x.png"))
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("hongsi:") and "frame" in proc.stderr
