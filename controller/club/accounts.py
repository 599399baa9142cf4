"""The room's staff accounts: names with scrypt-hashed passwords in PostgreSQL; sessions in memory.

A table's operator token stays on its table; these accounts only open the room page.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time

import psycopg

N, R, P = 2**14, 8, 1
SESSION_S = 12 * 3600


class AccountError(ValueError):
    """A bad staff name or password (the message says which, in one line)."""


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=N, r=R, p=P)
    return f"scrypt${N}${R}${P}${salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str) -> bool:
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        got = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p))
    except ValueError:
        return False
    return kind == "scrypt" and hmac.compare_digest(got.hex(), digest)


def add_staff(dsn: str, name: str, password: str) -> None:
    """Create or reset ``name``'s password."""
    if not name or len(name) > 64 or not name.isprintable():
        raise AccountError(f"staff name {name!r}: 1-64 printable characters")
    if len(password) < 8:
        raise AccountError("the password is shorter than 8 characters")
    with psycopg.connect(dsn) as db:
        db.execute("INSERT INTO staff (name, password_hash) VALUES (%s,%s) ON CONFLICT (name) DO UPDATE "
                   "SET password_hash=excluded.password_hash", (name, hash_password(password)))


class Sessions:
    """Who is logged in to the room page: random tokens (a cookie) that expire."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tokens: dict[str, tuple[str, float]] = {}

    def login(self, dsn: str, name: str, password: str) -> str | None:
        with psycopg.connect(dsn) as db:
            row = db.execute("SELECT password_hash FROM staff WHERE name=%s", (name,)).fetchone()
        if row is None or not check_password(password, row[0]):
            return None
        token = secrets.token_urlsafe(24)
        with self._lock:
            self._tokens[token] = (name, time.time() + SESSION_S)
        return token

    def who(self, token: str | None) -> str | None:
        if not token:
            return None
        with self._lock:
            found = self._tokens.get(token)
            if found is None or found[1] < time.time():
                self._tokens.pop(token, None)
                return None
            return found[0]
