"""Audit (issues 28 and 29): the reader's documented commands run for real as a new user would, with the
bad input the issues name. Each case was a hole found by running the command; see the report."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.render import render_window_frame

REPO = Path(__file__).resolve().parents[2]


def hongsi(tmp_path: Path, *args: str, timeout: float = 300, **extra: str) -> subprocess.CompletedProcess:
    (tmp_path / "empty.toml").write_text("")
    env = dict(os.environ, HONGSI_DATA_DIR=str(tmp_path / "data"), HONGSI_CONFIG=str(tmp_path / "empty.toml"),
               HONGSI_VOICE="false", **extra)
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], capture_output=True, text=True,
                          cwd=REPO, timeout=timeout, env=env)


def one_line(proc: subprocess.CompletedProcess) -> str:
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


@pytest.fixture(scope="module")
def enrolled(tmp_path_factory) -> Path:
    """A data dir with deck 'd' enrolled from two window frames."""
    tmp = tmp_path_factory.mktemp("deck")
    rng = np.random.default_rng(4)
    for label in ("H4", "S3"):
        cv2.imwrite(str(tmp / f"{label}.png"), render_window_frame(label, rng, design="bridge"))
    (tmp / "labels.csv").write_text("file,label\nH4.png,H4\nS3.png,S3\n")
    proc = hongsi(tmp, "vision", "enroll", "--deck", "d", "--labels", str(tmp / "labels.csv"), "--kind", "window")
    assert proc.returncode == 0, proc.stderr
    return tmp


def test_classify_pile_takes_the_documented_deck_option(enrolled, tmp_path):
    """docs/interfaces.md: `vision classify --kind window|pile [--deck NAME]`; --kind pile refused --deck."""
    frame = tmp_path / "f.png"
    cv2.imwrite(str(frame), render_window_frame("H4", np.random.default_rng(1), design="bridge"))
    proc = hongsi(enrolled, "vision", "classify", "--kind", "pile", "--deck", "d", str(frame))
    assert proc.returncode == 0, proc.stderr
    line = json.loads(proc.stdout)
    assert set(line) == {"file", "labels", "confidence"} and line["file"] == str(frame)
    proc = hongsi(enrolled, "vision", "classify", "--kind", "pile", "--deck", "nosuch", str(frame))
    assert proc.returncode == 2 and "no deck named 'nosuch'" in one_line(proc)


@pytest.mark.parametrize("kind", ["frame", "window", "pile"])
def test_an_empty_deck_name_is_refused_not_ignored(tmp_path, kind):
    cv2.imwrite(str(tmp_path / "f.png"), np.full((60, 80, 3), 90, np.uint8))
    proc = hongsi(tmp_path, "vision", "classify", "--kind", kind, "--deck", "", str(tmp_path / "f.png"))
    assert proc.returncode == 2 and "deck name ''" in one_line(proc) and proc.stdout == ""


def test_serve_with_a_config_deck_not_enrolled_is_one_line_before_the_rig_moves(tmp_path):
    """README: a config `deck` that is not enrolled is one line before the rig moves; with --sim the
    service fell back to dealing in software and kept running."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = hongsi(tmp_path, "serve", "--sim", "--port", str(port), timeout=60, HONGSI_DECK="nosuch")
    assert proc.returncode == 2
    assert "deck = 'nosuch'" in one_line(proc) and "no deck named" in proc.stderr


def test_enrol_bad_csv_shapes_are_named_plainly_and_lose_nothing(enrolled):
    refs = enrolled / "data" / "decks" / "d" / "refs.npz"
    before = refs.read_bytes()
    (enrolled / "adir").mkdir(exist_ok=True)
    proc = hongsi(enrolled, "vision", "enroll", "--deck", "d", "--labels", str(enrolled / "adir"))
    assert proc.returncode == 2 and "not a file (a folder?)" in one_line(proc)
    for text, why in (("file,label\nH4.png\n", "line 2: no label"),
                      ("file,label\nadir,H4\n", "line 2: a folder, not a file 'adir'")):
        (enrolled / "bad.csv").write_text(text)
        proc = hongsi(enrolled, "vision", "enroll", "--deck", "d", "--labels", str(enrolled / "bad.csv"))
        assert proc.returncode == 2 and why in one_line(proc)
    assert refs.read_bytes() == before
