"""`hongsi deal` as a user runs it, against `hongsi simulate`: --json prints the record; kill -9 at ten
random points, `--resume` each time, and the hands still equal the truth; `--void`; the journal of a
real deal verifies, and a tampered row or image fails `hongsi log verify`; verify-deal on a real deal."""

import json
import os
import random
import signal
import sqlite3
import subprocess
import time

from ctl_simrig import HONGSI, ROOT, _env, assert_equals_truth, read_truth, run_deal, simulator, start_deal

from controller.journal import Journal


def _rows(journal_path, kind: str | None = None) -> int:
    """How many rows the journal has (of ``kind``), read as another process would."""
    try:
        db = sqlite3.connect(f"file:{journal_path}?mode=ro", uri=True, timeout=5)
        try:
            if kind is None:
                return db.execute("SELECT COUNT(*) FROM journal").fetchone()[0]
            return db.execute("SELECT COUNT(*) FROM journal WHERE kind=?", (kind,)).fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error:
        return 0


def _hongsi(*args):
    return subprocess.run([*HONGSI, *args], capture_output=True, text=True,
                          env=_env(), cwd=ROOT, timeout=60)


def test_deal_json_then_verify_export_and_tamper(tmp_path):
    journal = tmp_path / "journal.db"
    with simulator(tmp_path, seed=21) as (ends, truth_path):
        proc = run_deal(ends, journal, "--json", "--first-seat", "2", "--frames", "3")
        assert proc.returncode == 0, proc.stderr[-3000:]
        record = json.loads(proc.stdout)
        assert "events" not in record and record["game"] == "hongsi"
        assert_equals_truth("hongsi", record, read_truth(truth_path))
        assert "first plays" in proc.stderr or "plays first" in proc.stderr
    # the record is one the referee takes
    rec_file = tmp_path / "record.json"
    rec_file.write_text(json.dumps(record))
    assert _hongsi("referee", str(rec_file)).returncode == 0
    # the fair deal's proof is in the record: verify-deal accepts it, and rejects it changed
    assert _hongsi("verify-deal", str(rec_file)).returncode == 0
    seats = record["deal"]["proof"]["seats"]
    k = next(i for i in range(1, len(seats)) if seats[i] != seats[0])
    seats[0], seats[k] = seats[k], seats[0]
    rec_file.write_text(json.dumps(record))
    bad = _hongsi("verify-deal", str(rec_file))
    assert bad.returncode == 1 and "REJECTED" in bad.stdout
    # the journal verifies, also against the receipt the deal printed; the export has the record and one
    # image per card
    assert _hongsi("log", "verify", "--journal", str(journal)).returncode == 0
    assert len(record["receipt"]) == 64
    assert _hongsi("log", "verify", "--journal", str(journal), "--receipt", record["receipt"]).returncode == 0
    assert _hongsi("log", "verify", "--journal", str(journal), "--receipt", "ab" * 32).returncode == 1
    out = tmp_path / "export"
    assert _hongsi("log", "export", "1", "--journal", str(journal), "--out", str(out)).returncode == 0
    assert json.loads((out / "record.json").read_text())["hands"] == record["hands"]
    assert len(list((out / "images").iterdir())) == 52
    # an evidence image changed → verify fails
    j = Journal(journal)
    img_row = next(r for r in j.rows() if r.image)
    path = j.image_path(img_row.image)
    original = path.read_bytes()
    path.write_bytes(original[:-10] + bytes(10))
    failed = _hongsi("log", "verify", "--journal", str(journal))
    assert failed.returncode == 1 and "was changed" in failed.stdout
    path.write_bytes(original)
    # a row changed (a card's seat) → verify fails
    db = sqlite3.connect(journal)
    db.execute("DROP TRIGGER journal_no_update")
    row = next(r for r in j.rows() if r.kind == "eject_done")
    db.execute("UPDATE journal SET data=? WHERE seq=?",
               (json.dumps({**row.data, "seat": (row.data["seat"] + 1) % 4}), row.seq))
    db.commit()
    db.close()
    failed = _hongsi("log", "verify", "--journal", str(journal))
    assert failed.returncode == 1 and f"row {row.seq}" in failed.stdout
    j.close()


def test_kill_9_at_ten_random_points_then_resume(tmp_path):
    rng = random.Random(int(os.environ.get("HONGSI_KILL_SEED", "8")))
    journal = tmp_path / "journal.db"
    with simulator(tmp_path, seed=31) as (ends, truth_path):
        proc = start_deal(ends, journal, "--no-fair", "--first-seat", "1", "--frames", "1")
        kills = 0
        resumed = False
        while kills < 10:
            start = _rows(journal)
            target = start + rng.randint(4, 30)           # some rows further: any step of the deal
            deadline = time.monotonic() + 60
            while _rows(journal) < target and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.002)
            if proc.poll() is not None or _rows(journal, "deal_end"):
                break                                     # it finished before this kill point
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
            kills += 1
            status = Journal(journal)
            open_round = status.last_open_round()
            status.close()
            if open_round is None:                        # killed just after the hand was written: done
                proc = None
                break
            proc = start_deal(ends, journal, "--resume", "--frames", "1")
            resumed = True
        if proc is not None:
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err[-3000:]
        assert kills >= 6 and resumed, kills
        j = Journal(journal)
        rows = j.rows(1)
        end = [r for r in rows if r.kind == "deal_end"]
        assert len(end) == 1 and end[0].data["status"] == "done"
        assert_equals_truth("hongsi", end[0].data["record"], read_truth(truth_path))
        assert sum(r.kind == "resumed" for r in rows) in (kills, kills - 1)
        # no card's seat was ever guessed: each card left exactly once, to its planned seat
        done = [r.data for r in rows if r.kind == "eject_done"]
        assert sorted(d["index"] for d in done) == list(range(52))
        assert j.verify().ok
        j.close()


def test_void_ends_an_interrupted_hand(tmp_path):
    journal = tmp_path / "journal.db"
    with simulator(tmp_path, seed=41) as (ends, _):
        proc = start_deal(ends, journal, "--no-fair")
        while _rows(journal) < 40 and proc.poll() is None:
            time.sleep(0.005)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
        again = run_deal(ends, journal)                  # a new deal is refused while one is interrupted
        assert again.returncode == 2 and "--resume" in again.stderr
        voided = run_deal(ends, journal, "--void")
        assert voided.returncode == 0 and "voided" in voided.stderr
        j = Journal(journal)
        assert j.status(1) == "void" and j.last_open_round() is None
        j.close()
        fresh = run_deal(ends, journal, "--json", "--game", "gongzhu")
        assert fresh.returncode == 0, fresh.stderr[-2000:]
        assert json.loads(fresh.stdout)["game"] == "gongzhu"


def test_deal_bad_input_is_one_clear_line(tmp_path):
    cases = [
        (["--game", "poker"], "unknown game"),
        (["--game", "wakeng", "--first-seat", "3"], "seats 0..2"),
        (["--serial", str(tmp_path / "no-such-port")], "cannot reach the rig"),
        (["--resume"], "no interrupted hand"),
        (["--void"], "no interrupted hand"),
    ]
    for extra, words in cases:
        args = ["deal", "--serial", "/dev/null", "--camera", "http://127.0.0.1:9/x", "--journal",
                str(tmp_path / "j.db"), *extra]
        if "--serial" in extra:
            args = args[:1] + args[3:]
        proc = _hongsi(*args)
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        assert proc.returncode == 2 and len(lines) == 1 and words in lines[0], (extra, proc.stderr)


def test_a_deck_that_is_not_enrolled_is_one_line_before_the_rig_moves(tmp_path):
    env = {**_env(), "HONGSI_DATA_DIR": str(tmp_path / "data")}
    proc = subprocess.run([*HONGSI, "deal", "--serial", "/dev/null-no-rig", "--camera", "sim", "--deck", "felt",
                           "--journal", str(tmp_path / "j.db")], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=60)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "no deck named 'felt' is enrolled" in lines[0], proc.stderr
