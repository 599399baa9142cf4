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
    assert lines[0]["label"] is None and lines[0]["error"].startswith("not a readable image")
    assert lines[1]["error"] == "no such file"
    assert "error" not in lines[2]
    assert "notes.jpg" in proc.stderr


def test_unknown_kind_is_a_clear_error(tmp_path):
    proc = run("--kind", "sideways", str(tmp_path / "x.png"))
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("hongsi:") and "frame" in proc.stderr


def test_odd_file_names_folders_and_cut_short_photos_each_get_their_line(tmp_path):
    """An audit crashed the whole run (a segfault inside OpenCV's imread) on a file name that is not UTF-8,
    as photos named in GBK and unzipped on Linux are; a folder or a half-copied JPEG said nothing useful."""
    import os

    rng = np.random.default_rng(3)
    ok, jpg = cv2.imencode(".jpg", render_table_frame("H4", rng, design="poker"))
    odd = os.fsencode(str(tmp_path)) + b"/\xc7\xe5\xcc\xd2\xcb\xc4.jpg"  # 红桃四 in GBK
    with open(odd, "wb") as fh:
        fh.write(jpg.tobytes())
    (tmp_path / "half.jpg").write_bytes(jpg.tobytes()[: len(jpg) // 3])
    (tmp_path / "folder.jpg").mkdir()
    good = tmp_path / "红桃四.jpg"
    good.write_bytes(jpg.tobytes())
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "vision", "classify", odd,
                           str(tmp_path / "half.jpg"), str(tmp_path / "folder.jpg"), str(good)],
                          capture_output=True, cwd=REPO, timeout=120)
    assert proc.returncode == 1, proc.stderr
    lines = [json.loads(ln) for ln in proc.stdout.decode().splitlines()]
    assert len(lines) == 4
    assert lines[0]["label"] == lines[3]["label"] == "H4" and "error" not in lines[0]
    assert os.fsencode(lines[0]["file"]) == odd
    assert "cut short" in lines[1]["error"] and lines[1]["label"] is None
    assert "folder" in lines[2]["error"]
    assert lines[3]["file"].endswith("红桃四.jpg")


def test_a_phone_photo_is_read_upright_by_its_exif_orientation(tmp_path):
    """A phone stores a photo sideways and says so in EXIF (orientation 6): read as a viewer shows it."""
    from vision.render import named_style, render_face

    face = render_face("SK", named_style("bridge"))
    x0, y0, x1, y1 = face.index_box
    crop = np.ascontiguousarray(face.bgr[max(0, y0 - 8):y1 + 8, max(0, x0 - 8):x1 + 8])
    stored = np.ascontiguousarray(np.rot90(crop, 1))  # what the sensor wrote; EXIF 6 turns it back
    ok, jpg = cv2.imencode(".jpg", stored)
    data = jpg.tobytes()
    # an APP1 Exif segment with one IFD entry: Orientation (0x0112) = 6, big-endian TIFF
    tiff = b"MM\x00*\x00\x00\x00\x08" + b"\x00\x01" + b"\x01\x12\x00\x03\x00\x00\x00\x01\x00\x06\x00\x00" + b"\x00\x00\x00\x00"
    app1 = b"Exif\x00\x00" + tiff
    data = data[:2] + b"\xff\xe1" + (len(app1) + 2).to_bytes(2, "big") + app1 + data[2:]
    path = tmp_path / "phone.jpg"
    path.write_bytes(data)
    decoded = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert decoded.shape[:2] == crop.shape[:2]  # OpenCV turned it upright
    proc = run("--kind", "corner", str(path))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["label"] in ("SK", None)


def test_a_huge_picture_gets_an_error_line_not_a_memory_blow_up(tmp_path):
    import struct
    import zlib

    chunk = b"IHDR" + struct.pack(">IIBBBBB", 30_000, 30_000, 8, 2, 0, 0, 0)
    huge = tmp_path / "huge.png"  # a few bytes saying 30,000 × 30,000: 2.7 GB if decoded
    huge.write_bytes(b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk)))
    proc = run(str(huge))
    assert proc.returncode == 1
    line = json.loads(proc.stdout)
    assert line["label"] is None and "900 MP" in line["error"] and "Traceback" not in proc.stderr
