"""`hongsi vision enroll` from a phone's photos, as a new user writes the CSV (stop-40 audit): a
spreadsheet's header, labels as people write them, a photo listed twice, and memory on big photos."""

import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.decks import read_labels_csv
from vision.enroll import EnrolError
from vision.labels import LABELS, parse
from vision.render import render_tight_photo

REPO = Path(__file__).resolve().parents[2]
SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def hongsi(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "empty.toml").write_text("")
    env = dict(os.environ, HONGSI_DATA_DIR=str(tmp_path / "data"), HONGSI_CONFIG=str(tmp_path / "empty.toml"))
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], capture_output=True, text=True,
                          cwd=REPO, timeout=120, env=env)


def _photos(folder: Path, names: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_bytes(cv2.imencode(".png", np.zeros((8, 8, 3), np.uint8))[1].tobytes())


@given(st.sampled_from(LABELS[:52]), st.booleans(), st.booleans(), st.booleans())
def test_a_label_is_read_as_people_write_it(label, symbol, rank_first, lower):
    suit, rank = label[0], label[1:]
    s = SYMBOLS[suit] if symbol else suit
    text = rank + s if rank_first else s + rank
    assert parse(text.lower() if lower else text) == label


@pytest.mark.parametrize("text", ["", "H", "10", "H1", "H11", "HH4", "4H4", "Z9", "♥", "JOKER"])
def test_what_is_not_a_card_is_none(text):
    assert parse(text) is None


def test_a_spreadsheet_csv_is_read(tmp_path):
    """Saved by a spreadsheet: a BOM, Windows line ends, "File, Label" in another case and with a space,
    an extra column, a blank row, file names with spaces and Chinese, labels like 10H and ♥4 (before: "needs
    the columns file,label")."""
    _photos(tmp_path, ["红桃 4.jpg", "ten of hearts.jpg"])
    path = tmp_path / "labels.csv"
    path.write_bytes("File, Label ,Note\r\n红桃 4.jpg,♥4,phone\r\n,,\r\nten of hearts.jpg,10h,\r\n".encode("utf-8-sig"))
    assert read_labels_csv(path) == [(tmp_path / "红桃 4.jpg", "H4"), (tmp_path / "ten of hearts.jpg", "H10")]


@pytest.mark.parametrize("text, why", [
    ("", "(it is empty)"),
    ("file;label\nx.jpg;H4\n", "separated by commas (its first line: 'file;label')"),
    ("file,label\n", "lists no photo"),
    ("file,label\nx.jpg,H4\n\nx.jpg,H5\n", "line 4: 'x.jpg' is already listed on line 2"),
    ("file,label\nx.jpg,H4\n./x.jpg,H4\n", "line 3: './x.jpg' is already listed on line 2"),
    ("label,file\nH4\n", "line 2: no file"),
    ("file,label\nx.jpg\n", "line 2: no label"),
    ("file,label\nx.jpg,10X\n", "line 2: unknown card label '10X'"),
])
def test_a_bad_csv_is_one_clear_reason(tmp_path, text, why):
    _photos(tmp_path, ["x.jpg"])
    path = tmp_path / "labels.csv"
    path.write_text(text)
    with pytest.raises(EnrolError) as err:
        read_labels_csv(path)
    assert why in str(err.value), str(err.value)


def test_one_photo_listed_with_two_labels_is_refused_and_nothing_written(tmp_path):
    """The same file under two labels taught the deck both cards from one photo (before: enrolled, with
    only a "doubtful" note)."""
    folder = tmp_path / "photos"
    folder.mkdir()
    cv2.imwrite(str(folder / "a.jpg"), render_tight_photo("H4", np.random.default_rng(1), design="bridge"))
    (folder / "labels.csv").write_text("file,label\na.jpg,H4\na.jpg,H5\n")
    proc = hongsi(tmp_path, "vision", "enroll", "--deck", "d", "--labels", str(folder / "labels.csv"))
    assert proc.returncode == 2 and "already listed on line 2" in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and not (tmp_path / "data" / "decks" / "d").exists()


def test_enrolment_holds_one_photo_in_memory_at_a_time(tmp_path):
    """Phone photos are large: enrolling 10 of them peaks near enrolling 1, not 10 times its picture memory
    (before: every photo decoded first; 54 photos of 3000 px took 1.6 GB)."""
    folder = tmp_path / "photos"
    folder.mkdir()
    rng = np.random.default_rng(3)
    rows = []
    for i, label in enumerate(("H4", "S9", "D10", "CQ", "HA", "S2", "C7", "DJ", "SK", "H3")):
        img = cv2.resize(render_tight_photo(label, rng, design="bridge"), (2250, 3000), interpolation=cv2.INTER_CUBIC)
        cv2.imwrite(str(folder / f"{i}.bmp"), img)  # decoded size = file size: 20 MB each
        rows.append(f"{i}.bmp,{label}")
    peaks = []
    for n in (1, 10):
        (folder / f"{n}.csv").write_text("file,label\n" + "\n".join(rows[:n]) + "\n")
        code = ("import resource, sys; from pathlib import Path; from controller.decks import enrol_csv; "
                "from vision.reader import MODEL_PATH; "
                f"enrol_csv(Path(sys.argv[1]), 'd{n}', Path(sys.argv[2]), 'frame', MODEL_PATH); "
                "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
        out = subprocess.run([sys.executable, "-c", code, str(folder / f"{n}.csv"), str(tmp_path / "data")],
                             capture_output=True, text=True, cwd=REPO, timeout=120, check=True)
        peaks.append(int(out.stdout.split()[-1]))
    assert peaks[1] - peaks[0] < 6 * 20_000, peaks  # KiB: less than 6 of the 9 more photos (180 MB)


def test_a_bad_deck_name_is_said_before_the_photos_are_read(tmp_path):
    """(before: 54 phone photos were enrolled for 23 s, then "deck name 'my deck': use letters…")."""
    from controller.decks import enrol_csv
    from vision.reader import MODEL_PATH

    (tmp_path / "broken.jpg").write_bytes(b"not a picture")  # read first, it would stop with another reason
    (tmp_path / "labels.csv").write_text("file,label\nbroken.jpg,H4\n")
    with pytest.raises(EnrolError, match="deck name 'my deck'"):
        enrol_csv(tmp_path / "labels.csv", "my deck", tmp_path / "data", "frame", MODEL_PATH)


def test_a_deck_may_be_named_in_chinese(tmp_path):
    """(before: 红色扑克 was refused; only ASCII letters were names)."""
    from vision.enroll import deck_dir

    assert deck_dir(tmp_path, "红色扑克-2") == tmp_path / "decks" / "红色扑克-2"


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=80))
def test_a_deck_name_never_leaves_the_decks_folder(name):
    from vision.enroll import deck_dir

    root = Path("/data")
    try:
        path = deck_dir(root, name)
    except EnrolError:
        return
    # the name as spelt once (NFKC: a full-width "．．" would be "..", so the checks are on what is kept)
    assert path.parent == root / "decks" and path.name == unicodedata.normalize("NFKC", name)
    assert not path.name.startswith(".") and all(ch.isprintable() and ch not in "/\\ \x00" for ch in path.name)


def test_a_deck_name_has_one_spelling(tmp_path):
    """(an outside audit: "café" typed with a combining accent was refused, full-width ａｂｃ was another deck)"""
    from vision.enroll import deck_dir

    assert deck_dir(tmp_path, "cafe\u0301") == deck_dir(tmp_path, "café")
    assert deck_dir(tmp_path, "ａｂｃ") == tmp_path / "decks" / "abc"
    for sneaky in ("．．", "／etc"):  # full-width ".." and "/": refused as what they spell
        with pytest.raises(EnrolError):
            deck_dir(tmp_path, sneaky)


def test_a_csv_saved_in_a_local_encoding_is_told_to_be_saved_as_utf8(tmp_path):
    from controller.decks import read_labels_csv

    (tmp_path / "labels.csv").write_bytes("file,label\n红桃四.jpg,H4\n".encode("gbk"))
    with pytest.raises(EnrolError, match="save the CSV as \"CSV UTF-8\""):
        read_labels_csv(tmp_path / "labels.csv")
