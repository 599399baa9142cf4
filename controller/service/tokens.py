"""Bearer tokens of the table service: one operator token and any number of seat tokens.

Tokens are random (``secrets``), stored only as SHA-256 hashes in ``<data_dir>/tokens.json`` and
compared in constant time (``hmac.compare_digest`` against every stored hash, no early exit). The
operator token is created on first start; its clear text is also kept in ``<data_dir>/operator.token``
(mode 0600) so that ``hongsi token`` can print it again. A seat token is shown once, when it is made.

>>> store = TokenStore(Path(tmp))                                  # doctest: +SKIP
>>> op = store.operator_token()                                    # doctest: +SKIP
>>> store.identify(op)                                             # doctest: +SKIP
Identity(role='operator', seat=None)
>>> store.identify(store.new_seat_token(2)).seat                   # doctest: +SKIP
2

The server and the ``hongsi token`` command share the files: a token made by the command while the
server runs is seen at once (the store reloads when the file changes; writes are atomic and locked).
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import os
import secrets
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.journal import private_dir

TOKEN_BYTES = 24


@dataclass(frozen=True)
class Identity:
    """Who a token belongs to: ``role`` is ``operator`` or ``seat`` (then ``seat`` is its number)."""

    role: str
    seat: int | None = None

    @property
    def is_operator(self) -> bool:
        return self.role == "operator"


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _new_seat_tokens(old: dict[str, Any], new: dict[str, Any]) -> list[int]:
    """The seats with a token in ``new`` that ``old`` did not hold."""
    known = {e["hash"] for entries in old.get("seats", {}).values() for e in entries}
    return sorted({int(seat) for seat, entries in new["seats"].items() for e in entries if e["hash"] not in known})


class TokenStore:
    """The hashed tokens of one data directory."""

    def __init__(self, data_dir: Path):
        self.dir = Path(data_dir).expanduser()
        private_dir(self.dir)
        self.path = self.dir / "tokens.json"
        self.operator_path = self.dir / "operator.token"
        self._lock = threading.Lock()
        self._mtime: float | None = None
        self._data: dict[str, Any] = {"operator": None, "seats": {}}
        self.on_new_seat: Callable[[int], None] | None = None  # a seat token appeared in the file
        self._made: list[int] = []
        with self._locked_file():
            self._load()
            if not self._data.get("operator") or not self.operator_path.exists():
                self._make_operator()

    # ------------------------------------------------------------ file handling
    @contextmanager
    def _locked_file(self):
        lock_path = self.dir / ".tokens.lock"
        with self._lock, open(lock_path, "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _load(self) -> None:
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            self._data = {"operator": None, "seats": {}}
            self._mtime = None
            return
        if self._mtime == stat.st_mtime_ns:
            return
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise RuntimeError(f"{self.path}: unreadable token file ({exc}); remove it to start afresh") from None
        data.setdefault("seats", {})
        made = _new_seat_tokens(self._data, data) if self._mtime is not None else []
        self._data = data
        self._mtime = stat.st_mtime_ns
        self._made += made  # made by another process (``hongsi token --seat``): told once the file lock is let go

    def _save(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(self._data, f, indent=1)
        os.replace(tmp, self.path)
        self._mtime = self.path.stat().st_mtime_ns

    def _make_operator(self) -> None:
        token = secrets.token_urlsafe(TOKEN_BYTES)
        fd = os.open(self.operator_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(token + "\n")
        self._data["operator"] = _hash(token)
        self._save()

    def _refresh(self) -> None:
        try:
            changed = self.path.stat().st_mtime_ns != self._mtime
        except FileNotFoundError:
            changed = True
        if changed:
            with self._locked_file():
                self._load()
        made, self._made = self._made, []
        for seat in made:  # outside the lock: the callback takes the service's own
            if self.on_new_seat is not None:
                self.on_new_seat(seat)

    # ------------------------------------------------------------ public API
    def operator_token(self) -> str:
        """The operator token's clear text (from ``operator.token``)."""
        return self.operator_path.read_text(encoding="utf-8").strip()

    def new_seat_token(self, seat: int, label: str = "") -> str:
        """Make a new token for ``seat``; return its clear text (it is not stored)."""
        if not isinstance(seat, int) or isinstance(seat, bool) or seat < 0:
            raise ValueError(f"seat {seat!r}: a seat is a number from 0")
        token = secrets.token_urlsafe(TOKEN_BYTES)
        with self._locked_file():
            self._load()
            entry = {"hash": _hash(token), "created": time.time(), "label": label}
            self._data["seats"].setdefault(str(seat), []).append(entry)
            self._save()
        return token

    def revoke_seat(self, seat: int) -> int:
        """Forget every token of ``seat``; return how many there were."""
        with self._locked_file():
            self._load()
            gone = self._data["seats"].pop(str(seat), [])
            self._save()
        return len(gone)

    def seats_with_tokens(self) -> dict[int, int]:
        """Seat → how many tokens it has."""
        self._refresh()
        return {int(s): len(v) for s, v in self._data["seats"].items() if v}

    def identify(self, token: str | None) -> Identity | None:
        """The identity of ``token``, or ``None`` for an unknown token. Constant time per stored hash."""
        if not token:
            return None
        self._refresh()
        digest = _hash(token)
        found: Identity | None = None
        if hmac.compare_digest(digest, self._data.get("operator") or ""):
            found = Identity("operator")
        for seat, entries in self._data["seats"].items():
            for entry in entries:
                if hmac.compare_digest(digest, entry["hash"]) and found is None:
                    found = Identity("seat", int(seat))
        return found
