"""The table's outbox: every message to the club, on disk (SQLite, WAL) until the club acknowledges it.

``put`` is one short local insert: the table never waits for the network. The sender reads rows in
``seq`` order; ``ack(n)`` (the club holds everything up to ``n``) deletes them. The outbox also
remembers which rounds' journal rows and which receipts it has queued, so a restart sends each once.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL,
                                   body TEXT NOT NULL, t REAL NOT NULL);
CREATE TABLE IF NOT EXISTS marks (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS queued (what TEXT PRIMARY KEY);
"""


class Outbox:
    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # a crashed process loses nothing; an OS crash
        self._db.executescript(_SCHEMA)                 # may lose the last few, which the journal still holds

    def put(self, kind: str, body: dict[str, Any], mark: str | None = None) -> int:
        """Queue one message; return its seq. ``mark`` (a round's rows, a receipt) is remembered with it,
        in the same transaction, so it is queued once."""
        text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
        with self._lock:
            cur = self._db.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                cur.execute("INSERT INTO outbox (kind, body, t) VALUES (?,?,?)", (kind, text, time.time()))
                seq = int(cur.lastrowid or 0)
                if mark is not None:
                    cur.execute("INSERT OR IGNORE INTO queued VALUES (?)", (mark,))
                cur.execute("COMMIT")
            except BaseException:
                cur.execute("ROLLBACK")
                raise
        return seq

    def is_queued(self, mark: str) -> bool:
        with self._lock:
            return self._db.execute("SELECT 1 FROM queued WHERE what=?", (mark,)).fetchone() is not None

    def pending(self, after: int, limit: int = 200) -> list[tuple[int, str, dict[str, Any], float]]:
        """Messages with seq > ``after``, oldest first."""
        with self._lock:
            rows = self._db.execute("SELECT seq, kind, body, t FROM outbox WHERE seq>? ORDER BY seq LIMIT ?",
                                    (after, limit)).fetchall()
        return [(s, k, json.loads(b), t) for s, k, b, t in rows]

    def ack(self, upto: int) -> None:
        """The club holds everything up to ``upto``: forget it."""
        with self._lock:
            self._db.execute("DELETE FROM outbox WHERE seq<=?", (upto,))
            self._db.execute("INSERT INTO marks VALUES ('acked', ?) ON CONFLICT(name) DO UPDATE SET "
                             "value=max(value, excluded.value)", (upto,))

    @property
    def acked(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT value FROM marks WHERE name='acked'").fetchone()
        return int(row[0]) if row else 0

    def mark(self, name: str) -> int:
        with self._lock:
            row = self._db.execute("SELECT value FROM marks WHERE name=?", (name,)).fetchone()
        return int(row[0]) if row else 0

    def set_mark(self, name: str, value: int) -> None:
        with self._lock:
            self._db.execute("INSERT INTO marks VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value=excluded.value",
                             (name, value))

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM outbox").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
