"""The journal: an append-only, hash-chained log of everything the rig does (SQLite, WAL mode).

Every event is one row. Each row's ``hash`` is the SHA-256 of its own fields *and the previous row's
hash*, so changing, inserting or deleting any row breaks the chain from there on. Card crops (the
camera's evidence) are JPEG files named by their SHA-256; the row holds that name, so a changed image
is caught as well. Updates and deletes are refused by triggers: the journal is append-only.

Write before move: the dealer journals the *intent* of a motion before it moves, and the *result* after,
so that after a crash (even ``kill -9``) the journal tells exactly what may have happened.

>>> j = Journal(tmp / "journal.db")                                  # doctest: +SKIP
>>> r = j.new_round({"game": "hongsi"})                               # doctest: +SKIP
>>> j.append(r, "card_read", {"index": 0, "label": "H4"}, image=jpeg_bytes)  # doctest: +SKIP
>>> j.verify().ok                                                      # doctest: +SKIP
True
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import os
import shutil
import sqlite3
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

GENESIS = "0" * 64
log = logging.getLogger("hongsi.journal")
RECEIPT_KINDS = ("deal_end", "reveal", "service_dealt", "round_end")  # see controller.receipts

# Every kind of row, the one list (docs quote it). The deal writes each motion's intent before it and its
# result after; a good deal ends with deal_end, the hand with round_end (done, stopped or void).
ROW_KINDS = (
    "round_start", "resumed",                                          # a round opened, or taken up again
    "deal_plan", "shuffle_intent", "shuffle_done", "home_intent", "home_done",
    "card_read", "rotate_intent", "rotate_done", "eject_intent", "eject_done",
    "double_feed", "placed", "handed_over", "fault", "reconnected", "pause", "resume_after_pause", "resync", "mcu_baseline",
    "decoded", "first_player", "deal_end", "reveal",                   # the deal
    "service_dealt", "service_fault", "action", "estop", "ready",      # the table service and the play
    "round_end",
    "receipt", "contribution",                                         # signed heads; seats' seed shares
    "seat_name", "session",                                            # a player's name; a new session
    "referee_view",                                                    # the operator saw a live hand, openly
    "table_play",                                                      # a play the table camera saw (frame, crops)
    "order",                                                           # older journals only (a double feed's order)
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS journal (
    seq   INTEGER PRIMARY KEY,
    round INTEGER NOT NULL,
    kind  TEXT NOT NULL,
    t     REAL NOT NULL,
    data  TEXT NOT NULL,
    image TEXT,
    prev  TEXT NOT NULL,
    hash  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS journal_round ON journal(round, seq);
CREATE TRIGGER IF NOT EXISTS journal_no_update BEFORE UPDATE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER IF NOT EXISTS journal_no_delete BEFORE DELETE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
"""


def private_dir(path: Path) -> Path:
    """Make ``path`` (and its parents) a directory only its owner may enter: it holds hands as dealt
    and camera crops, secret until a hand is over. Returns ``path``."""
    path = Path(path).expanduser()
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    _owner_only(path, 0o700)
    return path


def _private_files(db: Path) -> None:
    """The journal and SQLite's ``-wal`` and ``-shm`` beside it: owner-only (0600). The file is made
    0600 before SQLite opens it, and SQLite gives its companions the database's mode."""
    if not db.exists():
        os.close(os.open(db, os.O_WRONLY | os.O_CREAT, 0o600))
    for path in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        if path.exists():
            _owner_only(path, 0o600)


def _owner_only(path: Path, mode: int) -> None:
    try:
        if path.stat().st_uid == os.getuid() and path.stat().st_mode & 0o777 != mode:
            path.chmod(mode)
    except OSError:  # not ours to change (a read-only medium, say): the deployment sets it
        pass


class JournalError(RuntimeError):
    """The journal cannot be used (unreadable file, unknown round, ...)."""


class JournalWriteError(JournalError):
    """The journal cannot be written: its disk is full (``full``), or the medium or the permissions
    refuse writes. Nothing journalled before is lost; the row that failed was not written (so the
    motion it announced did not start)."""

    def __init__(self, path: Path, reason: str, full: bool = False):
        self.path, self.reason, self.full = path, reason, full
        super().__init__(f"the journal's disk is full ({path})" if full
                         else f"cannot write the journal {path}: {reason}")


_FULL_ERRNOS = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}
_NOT_A_DB = {"SQLITE_NOTADB", "SQLITE_CORRUPT"}


def _write_error(path: Path, exc: BaseException) -> JournalWriteError:
    """A failed write (an OSError or SQLite's error) as the one clear JournalWriteError."""
    if isinstance(exc, OSError):
        return JournalWriteError(path, exc.strerror or str(exc), full=exc.errno in _FULL_ERRNOS)
    name = getattr(exc, "sqlite_errorname", "") or ""
    full = name == "SQLITE_FULL" or "disk is full" in str(exc)
    return JournalWriteError(path, str(exc), full=full)


def _sqlite_uri(path: Path, **params: str) -> str:
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return f"file:{urllib.parse.quote(str(path.resolve()))}?{query}"


@dataclass(frozen=True)
class Row:
    """One journal entry."""

    seq: int
    round: int
    kind: str
    t: float
    data: dict[str, Any]
    image: str | None
    prev: str
    hash: str


@dataclass
class VerifyReport:
    """What :meth:`Journal.verify` found. ``ok`` is true when the chain and every image check out."""

    rows: int = 0
    images: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def canonical(data: Any) -> str:
    """The one JSON text of a value that the hash covers (sorted keys, no spaces, UTF-8)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def row_hash(seq: int, round_: int, kind: str, t: float, data_text: str, image: str | None, prev: str) -> str:
    body = canonical([seq, round_, kind, repr(float(t)), data_text, image or "", prev])
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


class Journal:
    """An append-only hash-chained journal in ``path`` (SQLite) with images in ``path.parent/images``.

    Thread-safe; several processes may append to the same file (each append is one IMMEDIATE
    transaction that reads the chain's head and writes the next row). ``durable`` (the default) syncs
    every row and image to disk before returning, so even a power cut keeps what was journalled; without
    it a crashed process still loses nothing, an OS crash may lose the last rows.
    """

    def __init__(self, path: Path | str, images: Path | str | None = None, *, durable: bool = True,
                 readonly: bool = False, receipts: bool = True):
        """Open (or create) the journal. ``readonly`` opens an existing one for reading only
        (``hongsi log verify`` / ``export``): nothing is created or changed, so it works on a read-only
        medium or a write-protected copy. ``receipts``: sign a receipt after every row that ends a deal
        or a hand (``controller.receipts``), with the rig's key kept next to the journal."""
        self.path = Path(path).expanduser()
        self.readonly = readonly
        self.durable = durable
        self._lock = threading.Lock()
        self._tmpdir: str | None = None
        self._receipt_listeners: list[Any] = []
        if readonly:
            self.images = Path(images).expanduser() if images is not None else self.path.parent / "images"
            self._db = self._open_readonly()
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.images = private_dir(Path(images) if images is not None else self.path.parent / "images")
        except OSError as exc:
            raise _write_error(self.path, exc) from None
        if self.path.exists() and not os.access(self.path, os.W_OK):
            raise JournalWriteError(self.path, "the file is read-only")
        if not os.access(self.path.parent, os.W_OK):
            raise JournalWriteError(self.path, f"its folder {self.path.parent} is read-only")
        self.sign_receipts = receipts
        self._key: Any = None
        db = None
        try:
            _private_files(self.path)  # before SQLite makes its -wal and -shm: they take the file's mode
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            _check_tables(db, self.path)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
            db.executescript(_SCHEMA)
            _private_files(self.path)
        except sqlite3.DatabaseError as exc:
            if db is not None:
                db.close()
            if getattr(exc, "sqlite_errorname", None) in _NOT_A_DB or type(exc) is sqlite3.DatabaseError:
                raise JournalError(f"{self.path}: not a journal ({exc})") from None
            raise _write_error(self.path, exc) from None
        except JournalError:
            if db is not None:
                db.close()
            raise
        except OSError as exc:
            if db is not None:
                db.close()
            raise _write_error(self.path, exc) from None
        self._db = db

    def _open_readonly(self) -> sqlite3.Connection:
        """Connect without writing anything. SQLite's ``mode=ro`` still needs the ``-shm`` file of a
        WAL journal (it creates it when the folder is writable); in a folder nobody can write, no
        writer can be at work, so without a ``-wal`` the file is opened ``immutable``. A ``-wal`` with
        rows in it but no usable ``-shm`` on a read-only medium: the two files are read from a private
        temporary copy."""
        path = self.path
        if not path.is_file():
            raise JournalError(f"no journal at {path}")
        if not os.access(path, os.R_OK):
            raise JournalError(f"{path}: cannot read the journal (permission denied)")
        wal = path.with_name(path.name + "-wal")
        has_wal = wal.exists()
        # a folder with no write bits is a write-protected copy even for root (whom access() lets write)
        folder_writable = os.access(path.parent, os.W_OK) and bool(path.parent.stat().st_mode & 0o222)
        attempts = [_sqlite_uri(path, mode="ro")] if folder_writable or has_wal else []
        if not has_wal or wal.stat().st_size == 0:
            attempts.append(_sqlite_uri(path, mode="ro", immutable="1"))
        last: sqlite3.Error | None = None
        for uri in attempts:
            try:
                return self._connect_ro(uri)
            except sqlite3.DatabaseError as exc:
                if getattr(exc, "sqlite_errorname", None) in _NOT_A_DB or type(exc) is sqlite3.DatabaseError:
                    raise JournalError(f"{path}: not a journal ({exc})") from None
                last = exc
        if has_wal:
            self._tmpdir = tempfile.mkdtemp(prefix="hongsi-journal-")
            copy = Path(self._tmpdir) / path.name
            try:
                shutil.copyfile(path, copy)
                shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
                return self._connect_ro(_sqlite_uri(copy, mode="ro"))
            except (OSError, sqlite3.DatabaseError) as exc:
                self._cleanup()
                last = exc  # type: ignore[assignment]
        raise JournalError(f"{path}: cannot read the journal ({last})")

    def _connect_ro(self, uri: str) -> sqlite3.Connection:
        db = sqlite3.connect(uri, uri=True, timeout=30, isolation_level=None, check_same_thread=False)
        try:
            _check_tables(db, self.path, need_journal=True)
        except BaseException:
            db.close()
            raise
        return db

    def _cleanup(self) -> None:
        if self._tmpdir is not None:
            shutil.rmtree(self._tmpdir, ignore_errors=True)
            self._tmpdir = None

    def close(self) -> None:
        with self._lock:
            self._db.close()
            self._cleanup()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ writing
    def store_image(self, jpeg: bytes) -> str:
        """Write a JPEG under its SHA-256 name (idempotent); return the hex digest."""
        digest = hashlib.sha256(jpeg).hexdigest()
        target = self.image_path(digest)
        if not target.exists():
            tmp = target.with_suffix(f".tmp{os.getpid()}")
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                with open(tmp, "wb") as fh:
                    fh.write(jpeg)
                    fh.flush()
                    if self.durable:
                        os.fsync(fh.fileno())
                os.replace(tmp, target)
            except OSError as exc:
                try:
                    tmp.unlink(missing_ok=True)     # no half-written image left behind
                except OSError:
                    pass
                raise _write_error(self.path, exc) from None
        return digest

    def image_path(self, digest: str) -> Path:
        return self.images / digest[:2] / f"{digest}.jpg"

    def append(self, round_: int | None, kind: str, data: dict[str, Any] | None = None,
               image: bytes | None = None) -> Row:
        """Append one row (and its image, written first); return it once it is on disk.
        ``round_`` None opens a new round (the next number, taken in the same transaction)."""
        if self.readonly:
            raise JournalWriteError(self.path, "it was opened read-only")
        digest = self.store_image(image) if image is not None else None
        text = canonical(data or {})
        key = None
        if self.sign_receipts and kind in RECEIPT_KINDS:
            try:
                key = self.rig_key()
            except JournalWriteError as exc:  # the row goes on disk all the same; a receipt can come later
                log.warning("no receipt for this %s row: %s", kind, exc)
        row, receipt_row = self._write(round_, kind, text, digest, key)
        if receipt_row is not None:
            self._tell_receipt(receipt_row)
        return row

    def _write(self, round_: int | None, kind: str, text: str, digest: str | None,
               key: Any = None) -> tuple[Row, Row | None]:
        with self._lock:
            try:
                return self._append_locked(round_, kind, text, digest, key)
            except sqlite3.OperationalError as exc:
                if getattr(exc, "sqlite_errorname", None) in ("SQLITE_BUSY", "SQLITE_LOCKED"):
                    raise
                raise _write_error(self.path, exc) from None

    # ------------------------------------------------------------------ receipts
    def rig_key(self) -> Any:
        """The rig's signing key (``controller.keys``), kept next to the journal; made the first time."""
        from controller.keys import RigKey, RigKeyError

        if self._key is None:
            try:
                self._key = RigKey.load_or_create(self.path.parent)
            except RigKeyError as exc:
                raise JournalWriteError(self.path, str(exc)) from None
        return self._key

    def issue_receipt(self, row: Row | None = None) -> dict[str, Any]:
        """Sign ``row`` (default: the journal's head) as a receipt: journal the ``receipt`` row and
        return the receipt (``{"receipt", "short", "signature", "public_key", ...}``)."""
        from controller import receipts

        if row is None:
            row = self.head()
            if row is None:
                raise JournalError(f"{self.path}: the journal is empty: nothing to give a receipt for")
        data = receipts.row_data(row.seq, row.hash, row.kind, self.rig_key())
        receipt_row, _ = self._write(row.round, receipts.KIND, canonical(data), None)
        return self._tell_receipt(receipt_row)

    def _tell_receipt(self, receipt_row: Row) -> dict[str, Any]:
        """The receipt of a journalled ``receipt`` row, told to every listener."""
        from controller import receipts

        receipt = receipts.from_row(receipt_row.round, receipt_row.data)
        for listener in list(self._receipt_listeners):
            try:
                listener(receipt)
            except Exception:  # noqa: BLE001 - a display that fails must not undo a journalled receipt
                log.exception("a receipt listener failed")
        return receipt

    def on_receipt(self, fn: Any) -> None:
        """Call ``fn(receipt)`` after every receipt this journal signs (the service publishes it)."""
        self._receipt_listeners.append(fn)

    def receipts(self, round_: int | None = None, limit: int = 20) -> list[dict[str, Any]]:
        """The receipts of ``round_`` (else of the whole journal), the latest ``limit``, oldest first."""
        from controller import receipts

        where, args = ("WHERE kind=? AND round=?", (receipts.KIND, round_)) if round_ is not None else (
            "WHERE kind=?", (receipts.KIND,))
        rows = list(self._rows(f"SELECT * FROM journal {where} ORDER BY seq DESC LIMIT ?", (*args, int(limit))))
        return receipts.of_rows(reversed(rows))

    def receipt(self, round_: int) -> dict[str, Any] | None:
        """The latest receipt issued in ``round_`` (what ``hongsi deal --json`` prints), or None."""
        from controller import receipts

        found = receipts.of_rows(self.rows(round_))
        return found[-1] if found else None

    def head(self) -> Row | None:
        """The last row of the journal."""
        return next(self._rows("SELECT * FROM journal ORDER BY seq DESC LIMIT 1"), None)

    def _append_locked(self, round_: int | None, kind: str, text: str, digest: str | None,
                       key: Any = None) -> tuple[Row, Row | None]:
        """Insert one row, and with ``key`` its signed ``receipt`` row, in one transaction: a reader
        never sees a deal's or a hand's end without its receipt."""
        cur = self._db.cursor()
        cur.execute("BEGIN IMMEDIATE")
        try:
            if round_ is None:
                round_ = (cur.execute("SELECT MAX(round) FROM journal").fetchone()[0] or 0) + 1
            row = self._insert(cur, round_, kind, text, digest)
            receipt_row = None
            if key is not None:
                from controller import receipts

                data = receipts.row_data(row.seq, row.hash, row.kind, key)
                receipt_row = self._insert(cur, round_, receipts.KIND, canonical(data), None)
            cur.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:   # SQLite may have rolled back already (a full disk)
                try:
                    cur.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
            raise
        return row, receipt_row

    @staticmethod
    def _insert(cur: sqlite3.Cursor, round_: int, kind: str, text: str, digest: str | None) -> Row:
        last = cur.execute("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1").fetchone()
        seq, prev = (last[0] + 1, last[1]) if last else (1, GENESIS)
        t = time.time()
        h = row_hash(seq, round_, kind, t, text, digest, prev)
        cur.execute("INSERT INTO journal VALUES (?,?,?,?,?,?,?,?)", (seq, round_, kind, t, text, digest, prev, h))
        return Row(seq, round_, kind, t, json.loads(text), digest, prev, h)

    def new_round(self, data: dict[str, Any]) -> int:
        """Open a round: append its ``round_start`` row and return the new round number."""
        return self.append(None, "round_start", {**data, **owner_fields()}).round

    # ------------------------------------------------------------------ reading
    def _rows(self, sql: str, args: tuple[Any, ...] = ()) -> Iterator[Row]:
        with self._lock:
            fetched = self._db.execute(sql, args).fetchall()
        for seq, rnd, kind, t, data, image, prev, h in fetched:
            yield Row(seq, rnd, kind, t, json.loads(data), image, prev, h)

    def rows(self, round_: int | None = None) -> list[Row]:
        if round_ is None:
            return list(self._rows("SELECT * FROM journal ORDER BY seq"))
        return list(self._rows("SELECT * FROM journal WHERE round=? ORDER BY seq", (round_,)))

    def rows_of_kind(self, kind: str) -> list[Row]:
        """Every row of one kind, oldest first (the service's seat names)."""
        return list(self._rows("SELECT * FROM journal WHERE kind=? ORDER BY seq", (kind,)))

    def image_rounds(self, digest: str) -> list[int]:
        """The rounds whose rows name the image ``digest`` (a camera crop)."""
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT DISTINCT round FROM journal WHERE image=?", (digest,))]

    def rounds(self) -> list[int]:
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT DISTINCT round FROM journal ORDER BY round")]

    def status(self, round_: int) -> str:
        """``done``, ``stopped``, ``void`` (the ``round_end`` row's status); ``dealt`` once the deal
        ended well (``deal_end``) and the hand is in play; ``dealing`` while the process that opened
        it is alive on this host; else ``interrupted``."""
        rows = self.rows(round_)
        if not rows:
            raise JournalError(f"no round {round_} in {self.path}")
        for row in reversed(rows):
            if row.kind == "round_end":
                return str(row.data.get("status", "done"))
        if any(row.kind == "deal_end" for row in rows):
            return "dealt"              # dealt and announced; the hand is being played
        pid, host = _owner(rows)
        if pid and host == os.uname().nodename and _alive(int(pid), _owner_process(rows)):
            return "dealing"
        return "interrupted"

    def owner(self, round_: int) -> tuple[int | None, str | None]:
        """The pid and host of the process that last took the round on (it opened or resumed it)."""
        return _owner(self.rows(round_))

    def last_open_round(self) -> int | None:
        """The latest round that has not ended (interrupted or still dealing), or None."""
        for round_ in reversed(self.rounds()):
            if self.status(round_) in ("interrupted", "dealing"):
                return round_
        return None

    # ------------------------------------------------------------------ checking
    def verify(self) -> VerifyReport:
        """Check the whole chain (every hash, every link) and every image's content."""
        report = VerifyReport()
        prev = GENESIS
        expected_seq = 1
        with self._lock:
            fetched = self._db.execute("SELECT * FROM journal ORDER BY seq").fetchall()
        for seq, rnd, kind, t, data, image, link, h in fetched:
            report.rows += 1
            if seq != expected_seq:
                report.problems.append(f"row {seq}: expected row {expected_seq} (a row was removed)")
            expected_seq = seq + 1
            if link != prev:
                report.problems.append(f"row {seq}: does not link to the row before it (chain broken)")
            if row_hash(seq, rnd, kind, t, data, image, link) != h:
                report.problems.append(f"row {seq} ({kind}, round {rnd}): hash mismatch (the row was changed)")
            prev = h
            for digest in [image] if image else []:
                report.images += 1
                path = self.image_path(digest)
                if not path.exists():
                    report.problems.append(f"row {seq}: image {digest[:12]}… is missing")
                elif hashlib.sha256(path.read_bytes()).hexdigest() != digest:
                    report.problems.append(f"row {seq}: image {digest[:12]}… was changed")
            if kind == "table_play":  # a play's crops are named in its (hashed) data
                for digest in json.loads(data).get("crops") or []:
                    report.images += 1
                    path = self.image_path(str(digest))
                    if not path.exists() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
                        report.problems.append(f"row {seq}: crop {str(digest)[:12]}… is missing or changed")
        return report

    # ------------------------------------------------------------------ export
    def export(self, round_: int, out: Path | str) -> Path:
        """Write what a dispute needs for one round into ``out``: ``record.json`` (the game record),
        ``journal.jsonl`` (the round's rows with their hashes), and ``images/NNN-<card>.jpg``.
        Return ``out``. Raise :class:`JournalError` for an unknown round or one without a record."""
        rows = self.rows(round_)
        if not rows:
            raise JournalError(f"no round {round_} in {self.path} (rounds: {self.rounds() or 'none'})")
        record = export_record(rows)
        out = Path(out)
        (out / "images").mkdir(parents=True, exist_ok=True)
        with open(out / "journal.jsonl", "w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(canonical({"seq": r.seq, "round": r.round, "kind": r.kind, "t": r.t,
                                    "data": r.data, "image": r.image, "prev": r.prev, "hash": r.hash}) + "\n")
        for r in rows:
            if r.image and r.kind == "card_read":
                src = self.image_path(r.image)
                name = f"{int(r.data.get('index', 0)):03d}-{r.data.get('label') or 'unread'}-{r.image[:12]}.jpg"
                if src.exists():
                    (out / "images" / name).write_bytes(src.read_bytes())
            if r.kind == "table_play":  # the table camera's picture of a play, and its crops
                for digest in [r.image, *(r.data.get("crops") or [])]:
                    src = self.image_path(digest) if digest else None
                    if src is not None and src.exists():
                        (out / "images" / f"table-{r.seq:05d}-seat{r.data.get('seat')}-{digest[:12]}.jpg").write_bytes(
                            src.read_bytes())
        if record is not None:
            (out / "record.json").write_text(json.dumps(record, ensure_ascii=False, indent=2) + "\n",
                                             encoding="utf-8")
        from controller import receipts

        (out / "receipts.json").write_text(json.dumps(receipts.of_rows(rows), indent=2) + "\n", encoding="utf-8")
        return out


def export_record(rows: list[Row]) -> dict[str, Any] | None:
    """A round's game record as exported: the last one journalled (the hand's end, else the deal's end),
    with the fair deal's proof from the ``reveal`` row, which a CLI deal writes after ``deal_end``."""
    record = next((r.data.get("record") for r in reversed(rows) if r.kind in ("round_end", "deal_end")
                   and r.data.get("record")), None)
    proof = next((r.data.get("proof") for r in reversed(rows) if r.kind == "reveal" and r.data.get("proof")), None)
    if record is None or proof is None or not isinstance(record.get("deal"), dict):
        return record
    return {**record, "deal": {**record["deal"], "proof": record["deal"].get("proof") or proof}}


def _check_tables(db: sqlite3.Connection, path: Path, need_journal: bool = False) -> None:
    """Refuse a file that is not a journal: not SQLite (DatabaseError), or an SQLite database holding
    other tables and no ``journal`` (or, reading, no ``journal`` table at all)."""
    names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "journal" not in names and (names or need_journal):
        raise JournalError(f"{path}: not a journal (no journal table"
                           + (f"; it holds {', '.join(sorted(names))})" if names else ")"))


def owner_fields() -> dict[str, Any]:
    """Who takes a round on: this process's pid and host, and what tells this process from a later one
    given the same pid (after a reboot, say)."""
    return {"pid": os.getpid(), "host": os.uname().nodename, "process": process_identity(os.getpid())}


def process_identity(pid: int) -> str | None:
    """The boot and the start time of process ``pid`` (Linux's /proc), which a recycled pid does not
    share; None where /proc does not tell."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        stat = Path(f"/proc/{pid}/stat").read_text()
        return f"{boot}:{stat.rsplit(')', 1)[1].split()[19]}"  # field 22, after the command's name
    except (OSError, IndexError):
        return None


def _owner_row(rows: list[Row]) -> Row | None:
    return next((r for r in reversed(rows) if r.kind in ("round_start", "resumed")), rows[0] if rows else None)


def _owner(rows: list[Row]) -> tuple[int | None, str | None]:
    owner = _owner_row(rows)
    if owner is None:
        return None, None
    pid, host = owner.data.get("pid"), owner.data.get("host")
    return (int(pid) if pid else None), (str(host) if host else None)


def _owner_process(rows: list[Row]) -> str | None:
    owner = _owner_row(rows)
    return None if owner is None else owner.data.get("process")


def _alive(pid: int, process: str | None = None) -> bool:
    """Whether ``pid`` still runs the process that took the round on (``process``: its identity, when the
    journal has it: a pid given to another process after a reboot or a crash is not the owner)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return process is None or process_identity(pid) in (process, None)
