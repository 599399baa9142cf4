"""The journal: append-only, hash-chained, images by SHA-256; tampering fails `hongsi log verify`."""

import json
import sqlite3
import threading

import cv2
import numpy as np
import pytest
from typer.testing import CliRunner

from controller.cli import app
from controller.journal import Journal, JournalError, process_identity

runner = CliRunner()


def _jpeg(value: int) -> bytes:
    img = np.full((40, 30, 3), value, np.uint8)
    cv2.putText(img, str(value), (2, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 255), 2)
    return cv2.imencode(".jpg", img)[1].tobytes()


def _filled(tmp_path) -> tuple[Journal, int]:
    j = Journal(tmp_path / "j" / "journal.db")
    r = j.new_round({"game": "hongsi"})
    for i in range(5):
        j.append(r, "card_read", {"index": i, "label": f"S{i + 2}", "confidence": 0.99}, image=_jpeg(i * 40))
        j.append(r, "eject_done", {"index": i, "seat": i % 4})
    j.append(r, "round_end", {"status": "done", "record": {"game": "hongsi", "hands": [[], [], [], []]}})
    return j, r


def _verify(j: Journal):
    return runner.invoke(app, ["log", "verify", "--journal", str(j.path)])


def test_a_clean_journal_verifies(tmp_path):
    j, _ = _filled(tmp_path)
    report = j.verify()
    assert report.ok and report.rows == 13 and report.images == 5
    result = _verify(j)
    assert result.exit_code == 0 and "13 rows" in result.output


def test_updates_and_deletes_are_refused(tmp_path):
    j, _ = _filled(tmp_path)
    db = sqlite3.connect(j.path)
    for sql in ("UPDATE journal SET data='{}' WHERE seq=3", "DELETE FROM journal WHERE seq=3"):
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            db.execute(sql)
    db.close()
    assert j.verify().ok


def _tamper(j: Journal, sql: str, *args) -> None:
    """What a cheat with the file would do: drop the guard, change the past."""
    db = sqlite3.connect(j.path)
    db.execute("DROP TRIGGER journal_no_update")
    db.execute("DROP TRIGGER journal_no_delete")
    db.execute(sql, args)
    db.commit()
    db.close()


def test_a_changed_row_fails_verify(tmp_path):
    j, _ = _filled(tmp_path)
    row = j.rows()[3]
    forged = json.dumps({**row.data, "label": "H4"}, sort_keys=True, separators=(",", ":"))
    _tamper(j, "UPDATE journal SET data=? WHERE seq=?", forged, row.seq)
    report = j.verify()
    assert not report.ok and any(f"row {row.seq}" in p and "hash" in p for p in report.problems)
    result = _verify(j)
    assert result.exit_code == 1 and "hash mismatch" in result.output


def test_a_row_rehashed_by_a_cheat_still_breaks_the_chain(tmp_path):
    from controller.journal import row_hash

    j, _ = _filled(tmp_path)
    row = j.rows()[3]
    forged = json.dumps({**row.data, "label": "H4"}, sort_keys=True, separators=(",", ":"))
    new_hash = row_hash(row.seq, row.round, row.kind, row.t, forged, row.image, row.prev)
    _tamper(j, "UPDATE journal SET data=?, hash=? WHERE seq=?", forged, new_hash, row.seq)
    report = j.verify()
    assert not report.ok and any(f"row {row.seq + 1}" in p and "chain" in p for p in report.problems)


def test_a_deleted_row_fails_verify(tmp_path):
    j, _ = _filled(tmp_path)
    _tamper(j, "DELETE FROM journal WHERE seq=?", 4)
    assert _verify(j).exit_code == 1


def test_a_changed_or_missing_image_fails_verify(tmp_path):
    j, _ = _filled(tmp_path)
    rows = [r for r in j.rows() if r.image]
    j.image_path(rows[1].image).write_bytes(_jpeg(250))
    j.image_path(rows[2].image).unlink()
    report = j.verify()
    assert any("was changed" in p for p in report.problems)
    assert any("is missing" in p for p in report.problems)
    assert _verify(j).exit_code == 1


def test_concurrent_appends_keep_one_chain(tmp_path):
    j = Journal(tmp_path / "journal.db")
    other = Journal(tmp_path / "journal.db")        # a second connection, as a second process would
    r = j.new_round({"game": "hongsi"})

    def writer(jr, who):
        for i in range(40):
            jr.append(r, "tick", {"who": who, "i": i})

    threads = [threading.Thread(target=writer, args=(jr, n)) for n, jr in enumerate((j, j, other))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert j.verify().ok and len(j.rows()) == 1 + 120


def test_export_writes_record_rows_and_images(tmp_path):
    j, r = _filled(tmp_path)
    out = tmp_path / "out"
    result = runner.invoke(app, ["log", "export", str(r), "--journal", str(j.path), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "record.json").read_text())["game"] == "hongsi"
    lines = (out / "journal.jsonl").read_text().splitlines()
    assert len(lines) == 13 and json.loads(lines[0])["kind"] == "round_start"
    names = sorted(p.name for p in (out / "images").iterdir())
    assert len(names) == 5 and names[0].startswith("000-S2-")
    bad = runner.invoke(app, ["log", "export", "99", "--journal", str(j.path), "--out", str(out)])
    assert bad.exit_code == 2 and "no round 99" in bad.output


def test_status_of_a_round(tmp_path):
    j, r = _filled(tmp_path)
    assert j.status(r) == "done"
    r2 = j.new_round({"game": "hongsi"})
    assert j.status(r2) == "dealing"                # this process opened it and is alive
    j.append(r2, "resumed", {"pid": 2 ** 22 + 12345, "host": "elsewhere"})
    assert j.status(r2) == "interrupted" and j.last_open_round() == r2
    # a pid that runs again after a reboot or a crash belongs to another process: not the owner
    import os

    here = {"pid": os.getpid(), "host": os.uname().nodename}
    j.append(r2, "resumed", {**here, "process": "an-earlier-boot:12345"})
    assert j.status(r2) == "interrupted"
    j.append(r2, "resumed", {**here, "process": process_identity(os.getpid())})
    assert j.status(r2) == "dealing"
    with pytest.raises(JournalError):
        j.status(42)


def test_not_a_journal_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(JournalError, match="not a journal"):
        Journal(bad)
    result = runner.invoke(app, ["log", "verify", "--journal", str(tmp_path / "none.db")])
    assert result.exit_code == 2 and "no journal" in result.output


def test_rounds_opened_at_once_get_distinct_numbers(tmp_path):
    journals = [Journal(tmp_path / "journal.db") for _ in range(3)]
    got: list[int] = []

    def opener(jr):
        for _ in range(10):
            got.append(jr.new_round({"game": "hongsi"}))

    threads = [threading.Thread(target=opener, args=(jr,)) for jr in journals]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(got) == list(range(1, 31)) and journals[0].verify().ok
