"""Guards around `hongsi deal` and the journal (QA s16 findings 4-6), all with the real CLI and SQLite:
a hand another live process is dealing is refused (--void, --resume, a new deal) and its serial port is
exclusive; a journal whose disk fills mid-deal gives one line, leaves no half image and loses nothing;
a read-only journal still verifies and exports without a byte written, and `deal` on it is one line."""

import hashlib
import json
import os
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import textwrap
import time
from functools import cache
from pathlib import Path

import pytest
from ctl_simrig import (
    HONGSI,
    ROOT,
    _env,
    assert_equals_truth,
    deal_cmd,
    read_truth,
    run_deal,
    simulator,
    start_deal,
)

from controller.journal import Journal
from firmware_bridge.errors import LinkLost
from firmware_bridge.link import Link


def _rows(journal: Path, kind: str | None = None) -> int:
    try:
        db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True, timeout=5)
        try:
            q = "SELECT COUNT(*) FROM journal" + (" WHERE kind=?" if kind else "")
            return db.execute(q, (kind,) if kind else ()).fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error:
        return 0


def _hongsi(*args: str, prefix: tuple[str, ...] = (), timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([*prefix, *HONGSI, *args], capture_output=True, text=True, env=_env(), cwd=ROOT,
                          timeout=timeout)


def _lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.strip()]


@cache
def _namespaces() -> bool:
    """Root may mount in a private mount namespace (`unshare -m`): a real read-only or full filesystem."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return False
    probe = subprocess.run(["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"],
                           capture_output=True)
    return probe.returncode == 0


# ---------------------------------------------------------------- 4. one process per hand, one per port
def test_a_hand_being_dealt_is_refused_and_its_port_is_exclusive(tmp_path):
    journal = tmp_path / "journal.db"
    with simulator(tmp_path, seed=31, speed=1) as (ends, _):     # real time: ~35 s a deal, never done here
        proc = start_deal(ends, journal, "--no-fair", "--frames", "1")
        try:
            deadline = time.monotonic() + 60
            while _rows(journal, "eject_done") < 1 and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.01)
            assert proc.poll() is None, proc.communicate()[1][-2000:]
            for extra in (["--void"], ["--resume"], ["--no-fair"]):
                second = run_deal(ends, journal, *extra, timeout=30)
                assert proc.poll() is None, "the first deal ended before the test was done: slow the simulator"
                lines = _lines(second.stderr)
                assert second.returncode == 2 and len(lines) == 1, (extra, second.stderr[-2000:])
                assert f"hand 1 is being dealt by pid {proc.pid} on {os.uname().nodename}" in lines[0], lines
                assert "wait for it or stop it" in lines[0]
            # a second controller with a journal of its own still cannot share the rig's port
            other = run_deal(ends, tmp_path / "other.db", "--no-fair", timeout=30)
            lines = _lines(other.stderr)
            assert other.returncode == 2 and len(lines) == 1, other.stderr[-2000:]
            assert "in use by another program" in lines[0], lines
            assert proc.poll() is None                       # the first deal goes on, undisturbed
            j = Journal(journal)
            assert j.rounds() == [1] and j.status(1) == "dealing"
            assert not [r for r in j.rows(1) if r.kind in ("round_end", "resumed", "deal_end")]
            j.close()
            with Journal(tmp_path / "other.db") as o:
                assert o.rounds() == []                      # nothing journalled by the refused one
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
    with Journal(journal) as j:                              # its owner gone, the hand can be resumed
        assert j.status(1) == "interrupted"


def test_the_serial_port_is_opened_exclusively():
    master, slave = os.openpty()
    name = os.ttyname(slave)
    try:
        first = Link(name, timeout=0.5)
        with pytest.raises(LinkLost) as taken:
            Link(name, timeout=0.5)
        assert "in use by another program" in str(taken.value) and "\n" not in str(taken.value)
        first.close()
        Link(name, timeout=0.5).close()                      # free again once closed
    finally:
        os.close(master)
        os.close(slave)


# ---------------------------------------------------------------- 5. the journal's disk fills mid-deal
_FULL_SCRIPT = textwrap.dedent("""
    import json, os, subprocess, sys, time, sqlite3
    from pathlib import Path
    full, cmd, resume_cmd, verify_cmd = Path(sys.argv[1]), *map(json.loads, sys.argv[2:5])
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(full)], check=True)
    db = full / "journal.db"
    def rows(kind):
        try:
            c = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
            try: return c.execute("SELECT COUNT(*) FROM journal WHERE kind=?", (kind,)).fetchone()[0]
            finally: c.close()
        except sqlite3.Error: return 0
    deal = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while rows("eject_done") < 5 and deal.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    filler = full / "filler"
    try:  # fill what is left (the deal may already have met a full disk: nothing to open then)
        with open(filler, "wb") as fh:
            while True: fh.write(bytes(65536))
    except OSError: pass
    out, err = deal.communicate(timeout=60)
    dealt = rows("eject_done")
    tmp_files = [str(p) for p in (full / "images").rglob("*.tmp*")]
    sys.path.insert(0, os.getcwd())
    from controller.journal import Journal
    j = Journal(db)
    try:
        j.append(1, "note", {"x": 1}, image=os.urandom(300000))
        direct = "appended"
    except Exception as exc:
        direct = f"{getattr(exc, 'full', None)}: {exc}"
    tmp_files += [str(p) for p in (full / "images").rglob("*.tmp*")]
    j.close()
    filler.unlink(missing_ok=True)
    verify = subprocess.run(verify_cmd, capture_output=True, text=True)
    resumed = subprocess.run(resume_cmd, capture_output=True, text=True, timeout=120)
    print(json.dumps({"rc": deal.returncode, "stderr": err, "dealt": dealt, "tmp": tmp_files,
                      "direct": direct, "verify": [verify.returncode, verify.stdout + verify.stderr],
                      "resume": [resumed.returncode, resumed.stdout, resumed.stderr[-3000:]]}))
""")


@pytest.mark.skipif(not _namespaces(), reason="needs root and `unshare -m` for a real full filesystem")
def test_a_full_disk_mid_deal_is_one_line_and_loses_nothing(tmp_path):
    full = tmp_path / "full"
    full.mkdir()
    journal = full / "journal.db"
    with simulator(tmp_path, seed=11) as (ends, truth_path):
        cmd = deal_cmd(ends, journal, "--no-fair", "--frames", "1")
        resume = deal_cmd(ends, journal, "--resume", "--frames", "1", "--json")
        verify = [*HONGSI, "log", "verify", "--journal", str(journal)]
        script = tmp_path / "full.py"
        script.write_text(_FULL_SCRIPT)
        proc = subprocess.run(["unshare", "-m", sys.executable, str(script), str(full), json.dumps(cmd),
                               json.dumps(resume), json.dumps(verify)],
                              capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=200)
        assert proc.returncode == 0, proc.stderr[-3000:]
        got = json.loads(proc.stdout)
        errors = [ln for ln in _lines(got["stderr"]) if ln.startswith("hongsi:") or "Traceback" in ln]
        assert got["rc"] == 3 and "Traceback" not in got["stderr"], got["stderr"][-3000:]
        assert errors == [f"hongsi: the journal's disk is full ({journal}): free space, then run "
                          "hongsi deal --resume (日志磁盘已满：清理空间后继续)"], got["stderr"][-3000:]
        assert got["dealt"] < 52
        assert got["tmp"] == []                              # no 0-byte half image left behind
        assert got["direct"].startswith("True: the journal's disk is full"), got["direct"]
        assert got["verify"][0] == 0, got["verify"]          # nothing journalled was lost
        assert got["resume"][0] == 0, got["resume"][2]
        assert_equals_truth("hongsi", json.loads(got["resume"][1]), read_truth(truth_path))


# ---------------------------------------------------------------- 6. a read-only journal
def _made_journal(path: Path) -> Journal:
    j = Journal(path)
    r = j.new_round({"game": "hongsi"})
    for i in range(4):
        j.append(r, "card_read", {"index": i, "label": f"S{i + 2}"}, image=bytes([i]) * 500)
        j.append(r, "eject_done", {"index": i, "seat": i})
    j.append(r, "deal_end", {"status": "done", "record": {"game": "hongsi", "hands": [["S2"], ["S3"], ["S4"], ["S5"]]}})
    return j


def _snapshot(folder: Path) -> dict[str, tuple[str, int, int]]:
    return {str(p.relative_to(folder)): (hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "",
                                         p.stat().st_mtime_ns, p.stat().st_mode)
            for p in sorted(folder.rglob("*"))}


def _write_protect(folder: Path, on: bool) -> None:
    for p in [*sorted(folder.rglob("*"), reverse=True), folder]:
        mode = p.stat().st_mode
        p.chmod(mode & ~0o222 if on else mode | stat.S_IWUSR)


def _ro_prefix(folder: Path) -> tuple[str, ...]:
    """Run a command with ``folder`` really read-only: a read-only bind mount in a private mount
    namespace as root; as anyone else, the write-protection bits already refuse writes."""
    if os.geteuid() != 0:
        return ()
    if not _namespaces():
        pytest.skip("root without `unshare -m`: cannot make a read-only filesystem")
    return ("unshare", "-m", "sh", "-c", 'mount --bind -o ro "$0" "$0" && exec "$@"', str(folder))


def test_a_write_protected_journal_verifies_and_exports_without_a_write(tmp_path):
    archive = tmp_path / "archive"
    _made_journal(archive / "journal.db").close()           # closed: no -wal, as an archived copy is
    _write_protect(archive, True)
    try:
        before = _snapshot(archive)
        verify = _hongsi("log", "verify", "--journal", str(archive / "journal.db"))
        assert verify.returncode == 0 and "ok: 11 rows, 4 images" in verify.stdout, verify.stderr
        out = tmp_path / "export"
        export = _hongsi("log", "export", "1", "--journal", str(archive / "journal.db"), "--out", str(out))
        assert export.returncode == 0, export.stderr
        assert json.loads((out / "record.json").read_text())["hands"][0] == ["S2"]
        assert len(list((out / "images").iterdir())) == 4
        # not a byte, not a timestamp, not a new -wal/-shm file: nothing was written, even by root
        assert _snapshot(archive) == before
    finally:
        _write_protect(archive, False)


def test_a_journal_on_a_read_only_filesystem(tmp_path):
    clean = tmp_path / "clean"
    _made_journal(clean / "journal.db").close()
    live = tmp_path / "live"                                 # copied while a writer had it open
    wal_only = tmp_path / "wal_only"                         # ... and its -shm lost on the way
    j = _made_journal(tmp_path / "src" / "journal.db")
    for folder in (live, wal_only):
        shutil.copytree(tmp_path / "src" / "images", folder / "images")
        for suffix in ("", "-wal", "-shm"):
            shutil.copyfile(f"{j.path}{suffix}", folder / f"journal.db{suffix}")
    j.close()
    (wal_only / "journal.db-shm").unlink()
    assert (live / "journal.db-wal").stat().st_size > 0
    for folder in (clean, live, wal_only):
        prefix = _ro_prefix(folder)
        if not prefix:
            _write_protect(folder, True)
        try:
            before = _snapshot(folder)
            verify = _hongsi("log", "verify", "--journal", str(folder / "journal.db"), prefix=prefix)
            assert verify.returncode == 0 and "ok: 11 rows, 4 images" in verify.stdout, (folder, verify.stderr)
            out = tmp_path / f"export-{folder.name}"
            export = _hongsi("log", "export", "1", "--journal", str(folder / "journal.db"), "--out", str(out),
                             prefix=prefix)
            assert export.returncode == 0 and (out / "record.json").exists(), (folder, export.stderr)
            deal = _hongsi("deal", "--serial", "/dev/null", "--camera", "http://127.0.0.1:9/x", "--journal",
                           str(folder / "journal.db"), prefix=prefix)
            lines = _lines(deal.stderr)
            assert deal.returncode == 2 and len(lines) == 1, (folder, deal.stderr[-2000:])
            assert f"cannot write the journal {folder / 'journal.db'}" in lines[0], lines
            assert _snapshot(folder) == before
        finally:
            if not prefix:
                _write_protect(folder, False)
    # a new journal in a folder that cannot be made: one line, no traceback
    prefix = _ro_prefix(clean)
    if not prefix:
        _write_protect(clean, True)
    try:
        deal = _hongsi("deal", "--serial", "/dev/null", "--camera", "http://127.0.0.1:9/x", "--journal",
                       str(clean / "new" / "journal.db"), prefix=prefix)
        lines = _lines(deal.stderr)
        assert deal.returncode == 2 and len(lines) == 1 and "cannot write the journal" in lines[0], deal.stderr
    finally:
        if not prefix:
            _write_protect(clean, False)


def test_what_is_not_a_journal_still_says_so_and_stays_untouched(tmp_path):
    text = tmp_path / "notes.db"
    text.write_text("these are not the rows you are looking for\n" * 50)
    other = tmp_path / "other.db"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE scores (who TEXT, points INT)")
    db.execute("INSERT INTO scores VALUES ('ann', 3)")
    db.commit()
    db.close()
    for path in (text, other):
        before = path.read_bytes()
        for args in (["log", "verify", "--journal", str(path)],
                     ["log", "export", "1", "--journal", str(path), "--out", str(tmp_path / "x")],
                     ["deal", "--serial", "/dev/null", "--camera", "http://127.0.0.1:9/x", "--journal", str(path)]):
            proc = _hongsi(*args)
            lines = _lines(proc.stderr)
            assert proc.returncode == 2 and len(lines) == 1 and f"{path}: not a journal" in lines[0], \
                (path, args, proc.stdout, proc.stderr)
        assert path.read_bytes() == before                   # no schema slipped into someone else's file
