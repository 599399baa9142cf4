"""The club's archive on PostgreSQL (psycopg 3): one transaction per batch of arrived messages.

Each (room, table, seq) is stored once (``ON CONFLICT DO NOTHING``), whatever the broker or the table
sends again. On arrival, journal rows are checked (their own hash, the link to their neighbours, a row
already held with another hash) and receipts too (their signature, the table's pinned key, the head
against the row it names): a mismatch becomes a :data:`flag` on the table, shown loud on the room page.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from controller.club.messages import (
    Envelope,
    MessageError,
    Receipt,
    check_link,
    check_row,
    crop_digest,
    verify_signature,
)

log = logging.getLogger("hongsi.club")
MIGRATIONS = Path(__file__).with_name("migrations")


def migrate(dsn: str) -> None:
    """Bring the schema to the newest revision (Alembic)."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    url = dsn.replace("postgresql://", "postgresql+psycopg://", 1).replace("%", "%%")
    cfg.set_main_option("sqlalchemy.url", url)
    command.upgrade(cfg, "head")


@dataclass
class Outcome:
    """What a stored batch changed: the live events to push to the room page and the new acknowledgements."""

    live: list[dict[str, Any]] = field(default_factory=list)
    acks: dict[tuple[str, str], int] = field(default_factory=dict)
    stored: int = 0
    dropped: int = 0


# how a public event moves a table's live state (data, not code paths)
PHASE_OF = {"round": "dealing", "deal": "dealing", "dealt": "playing", "finished": "finished",
            "void": "void", "interrupted": "interrupted", "resumed": "dealing"}


def event_patch(ev: dict[str, Any]) -> dict[str, Any]:
    """How one public event moves a table's live state."""
    kind = ev.get("type")
    patch: dict[str, Any] = {"last": ev}
    if kind in PHASE_OF:
        patch["phase"] = PHASE_OF[kind]
    if "round" in ev:
        patch["round"] = ev["round"]
    if kind == "estop":
        patch["estop"] = ev.get("reason") or True
    elif kind in ("cleared", "resumed"):
        patch["estop"] = None
    if kind == "deal" and "dealt" in ev:
        patch["dealt"], patch["total"] = ev.get("dealt"), ev.get("total")
    if kind == "finished":
        patch["ledger"] = ev.get("ledger")
    return patch


class Store:
    def __init__(self, dsn: str):
        self.dsn = dsn
        self.db = psycopg.connect(dsn)

    def close(self) -> None:
        self.db.close()

    def reconnect(self) -> None:
        try:
            self.db.close()
        finally:
            self.db = psycopg.connect(self.dsn)

    # ------------------------------------------------------------------ arrival
    def ingest(self, batch: list[tuple[str, Envelope]]) -> Outcome:
        """Store ``batch`` ((room, envelope) pairs) in one transaction; return what changed. The messages go
        in with one statement; events and health only change each table's live state once per batch."""
        out = Outcome()
        unique = list({(room, env.table, env.seq): (room, env) for room, env in batch}.values())
        touched = sorted({(room, env.table) for room, env in unique})
        with self.db.transaction():
            cur = self.db.cursor()
            for room, table in touched:
                cur.execute("INSERT INTO club_table (room, tbl, online) VALUES (%s,%s,true) ON CONFLICT "
                            "(room, tbl) DO UPDATE SET last_seen=now(), online=true", (room, table))
            new = self._insert(cur, unique)   # what was not held already (a resend is held)
            state: dict[tuple[str, str], dict[str, Any]] = {}
            health: dict[tuple[str, str], dict[str, Any]] = {}
            for room, env in sorted(unique, key=lambda p: (p[1].table, p[1].seq)):
                if (room, env.table, env.seq) not in new:
                    continue
                out.stored += 1
                key = (room, env.table)
                if env.kind == "event":
                    state.setdefault(key, {}).update(event_patch(env.body))
                    out.live.append({"table": env.table, "room": room, "seq": env.seq, "sent": env.sent,
                                     "type": "event", "event": env.body})
                elif env.kind == "health":
                    health[key] = env.body
                    out.live.append({"table": env.table, "room": room, "seq": env.seq, "type": "health",
                                     "health": env.body})
                else:
                    self._one(cur, room, env, out)
            for (room, table), patch in state.items():
                cur.execute("UPDATE club_table SET state = state || %s WHERE room=%s AND tbl=%s",
                            (Jsonb(patch), room, table))
            for (room, table), body in health.items():
                cur.execute("UPDATE club_table SET health=%s WHERE room=%s AND tbl=%s", (Jsonb(body), room, table))
            for room, table in touched:
                out.acks[(room, table)] = self._advance_ack(cur, room, table)
        return out

    def _insert(self, cur: Any, batch: list[tuple[str, Envelope]]) -> set[tuple[str, str, int]]:
        cols: list[list[Any]] = [[], [], [], [], [], []]
        for room, env in batch:
            for col, value in zip(cols, (room, env.table, env.seq, env.kind, json.dumps(self._keep_body(env)),
                                         env.sent), strict=True):
                col.append(value)
        rows = cur.execute("INSERT INTO message (room, tbl, seq, kind, body, sent) "
                           "SELECT r, t, s, k, b::jsonb, x FROM unnest(%s::text[], %s::text[], %s::bigint[], "
                           "%s::text[], %s::text[], %s::float8[]) AS m(r, t, s, k, b, x) "
                           "ON CONFLICT DO NOTHING RETURNING room, tbl, seq", cols).fetchall()
        return {(r, t, int(q)) for r, t, q in rows}

    def _one(self, cur: Any, room: str, env: Envelope, out: Outcome) -> None:
        """A receipt, a hand's rows or a crop: checked and stored on its own savepoint."""
        try:
            with self.db.transaction():   # a savepoint: a bad body loses only itself
                getattr(self, f"_on_{env.kind}")(cur, room, env, out)
        except MessageError as exc:       # its seq stays stored, so the stream goes on
            log.warning("club: %s/%s message %d (%s) dropped: %s", room, env.table, env.seq, env.kind, exc)
            out.dropped += 1

    @staticmethod
    def _keep_body(env: Envelope) -> dict[str, Any]:
        """What the message table keeps (crops and rows have their own tables)."""
        if env.kind == "crop":
            return {"sha256": env.body.get("sha256")}
        if env.kind == "rows":
            return {"round": env.body.get("round"), "rows": len(env.body.get("rows") or [])}
        return env.body

    def _advance_ack(self, cur: Any, room: str, table: str) -> int:
        acked = cur.execute("SELECT acked FROM club_table WHERE room=%s AND tbl=%s", (room, table)).fetchone()[0]
        seqs = cur.execute("SELECT seq FROM message WHERE room=%s AND tbl=%s AND seq>%s ORDER BY seq LIMIT 20000",
                           (room, table, acked)).fetchall()
        for (seq,) in seqs:
            if seq != acked + 1:
                break
            acked = seq
        cur.execute("UPDATE club_table SET acked=%s WHERE room=%s AND tbl=%s", (acked, room, table))
        return int(acked)

    def flag(self, cur: Any, room: str, table: str, reason: str, out: Outcome) -> None:
        log.warning("club: table %s/%s flagged: %s", room, table, reason)
        cur.execute("INSERT INTO flag (room, tbl, reason) VALUES (%s,%s,%s)", (room, table, reason))
        out.live.append({"table": table, "room": room, "type": "flag", "reason": reason})

    # ------------------------------------------------------------------ each kind
    def _on_crop(self, cur: Any, room: str, env: Envelope, out: Outcome) -> None:
        name = str(env.body.get("sha256"))
        try:
            jpeg = base64.b64decode(str(env.body.get("jpeg")), validate=True)
        except (binascii.Error, ValueError):
            raise MessageError("crop: not base64") from None
        if crop_digest(jpeg) != name:
            self.flag(cur, room, env.table, f"crop {name[:12]}…: its content does not match its name", out)
            return
        cur.execute("INSERT INTO crop VALUES (%s,%s,%s,%s) ON CONFLICT DO NOTHING", (room, env.table, name, jpeg))

    def _on_receipt(self, cur: Any, room: str, env: Envelope, out: Outcome) -> None:
        r = Receipt.from_body(env.body)
        t = env.table
        if verify_signature(r) is False:
            self.flag(cur, room, t, f"forged receipt for row {r.row_seq} (round {r.round}): bad signature", out)
            return
        if r.public_key is not None:
            pinned = cur.execute("SELECT public_key FROM club_table WHERE room=%s AND tbl=%s",
                                 (room, t)).fetchone()[0]
            if pinned is None:
                cur.execute("UPDATE club_table SET public_key=%s WHERE room=%s AND tbl=%s", (r.public_key, room, t))
            elif pinned != r.public_key:
                self.flag(cur, room, t, f"forged receipt for row {r.row_seq}: signed with another key", out)
                return
        held = cur.execute("SELECT head FROM receipt WHERE room=%s AND tbl=%s AND row_seq=%s",
                           (room, t, r.row_seq)).fetchone()
        if held is not None:
            if held[0] != r.head:
                self.flag(cur, room, t, f"two receipts for row {r.row_seq} with different heads", out)
            return
        cur.execute("INSERT INTO receipt VALUES (%s,%s,%s,%s,%s,%s,%s,%s)",
                    (room, t, r.row_seq, r.round, r.row_kind, r.head, r.signature, r.public_key))
        row = cur.execute("SELECT hash FROM journal_row WHERE room=%s AND tbl=%s AND seq=%s",
                          (room, t, r.row_seq)).fetchone()
        if row is not None and row[0] != r.head:
            self.flag(cur, room, t, f"receipt for row {r.row_seq} does not match the journal's row", out)
        out.live.append({"table": t, "room": room, "seq": env.seq, "type": "receipt", "round": r.round,
                         "row_seq": r.row_seq, "signed": r.signature is not None})

    def _on_rows(self, cur: Any, room: str, env: Envelope, out: Outcome) -> None:
        """A hand's journal rows: each checked on its own, against its neighbours (held or in this message)
        and against its receipt; the new ones stored with one statement."""
        rows = env.body.get("rows")
        if not isinstance(rows, list):
            raise MessageError("rows: not a list")
        t = env.table
        good = []
        for row in rows:
            problems = check_row(row)
            for p in problems:
                self.flag(cur, room, t, p, out)
            if not problems:
                good.append(row)
        near = sorted({s + d for s in (r["seq"] for r in good) for d in (-1, 0, 1)})
        known = {seq: (h, prev) for seq, h, prev in cur.execute(
            "SELECT seq, hash, prev FROM journal_row WHERE room=%s AND tbl=%s AND seq = ANY(%s)", (room, t, near))}
        receipts = dict(cur.execute("SELECT row_seq, head FROM receipt WHERE room=%s AND tbl=%s AND row_seq = ANY(%s)",
                                    (room, t, [r["seq"] for r in good])).fetchall())
        new = []
        for row in sorted(good, key=lambda r: r["seq"]):
            seq = row["seq"]
            if seq in known:
                if known[seq][0] != row["hash"]:
                    self.flag(cur, room, t, f"row {seq} changed since it was archived (the history was rewritten)", out)
                continue
            problems = check_link(known[seq - 1][0] if seq - 1 in known else None, row)
            if seq + 1 in known and known[seq + 1][1] != row["hash"]:
                problems.append(f"row {seq + 1} does not link to row {seq} (the history was changed)")
            if seq in receipts and receipts[seq] != row["hash"]:
                problems.append(f"row {seq} does not match its receipt (the history was changed)")
            for p in problems:
                self.flag(cur, room, t, p, out)
            known[seq] = (row["hash"], row["prev"])
            new.append(row)
            if row["kind"] == "round_end" and isinstance(row["data"].get("scores"), list):
                self._ledger(cur, room, t, row)
        if new:
            cols = [[r[k] for r in new] for k in ("seq", "round", "kind", "t")]
            cur.execute("INSERT INTO journal_row SELECT %s, %s, s, r, k, t, d::jsonb, i, p, h FROM unnest("
                        "%s::bigint[], %s::bigint[], %s::text[], %s::float8[], %s::text[], %s::text[], %s::text[], "
                        "%s::text[]) AS x(s, r, k, t, d, i, p, h)",
                        (room, t, *cols, [json.dumps(r["data"], ensure_ascii=False) for r in new],
                         [r["image"] for r in new], [r["prev"] for r in new], [r["hash"] for r in new]))
        out.live.append({"table": t, "room": room, "seq": env.seq, "type": "archived",
                         "round": env.body.get("round"), "rows": len(rows)})

    def _ledger(self, cur: Any, room: str, t: str, row: dict[str, Any]) -> None:
        record = row["data"].get("record") or {}
        names = record.get("players") if isinstance(record, dict) else None
        day = dt.datetime.fromtimestamp(row["t"]).date()
        for seat, delta in enumerate(row["data"]["scores"]):
            player = str(names[seat]) if isinstance(names, list) and seat < len(names) else f"{t} seat {seat}"
            cur.execute("INSERT INTO ledger VALUES (%s,%s,%s,%s,%s,%s,%s,%s) ON CONFLICT DO NOTHING",
                        (room, t, row["round"], seat, player, int(delta), row["t"], day))

    # ------------------------------------------------------------------ reading (the room page)
    def offline(self, room: str, table: str, online: bool) -> None:
        with self.db.transaction():
            self.db.execute("INSERT INTO club_table (room, tbl, online) VALUES (%s,%s,%s) ON CONFLICT (room, tbl) "
                            "DO UPDATE SET online=excluded.online", (room, table, online))

    def acks(self, room: str) -> dict[str, int]:
        with self.db.transaction():
            return dict(self.db.execute("SELECT tbl, acked FROM club_table WHERE room=%s", (room,)).fetchall())


def read_tables(db: psycopg.Connection, room: str) -> list[dict[str, Any]]:
    rows = db.execute("SELECT t.tbl, t.online, t.acked, t.state, t.health, t.last_seen, "
                      "(SELECT json_agg(json_build_object('at', f.at, 'reason', f.reason) ORDER BY f.id) "
                      " FROM flag f WHERE f.room=t.room AND f.tbl=t.tbl) "
                      "FROM club_table t WHERE t.room=%s ORDER BY t.tbl", (room,)).fetchall()
    return [{"table": tbl, "online": online, "acked": acked, "state": state, "health": health,
             "last_seen": seen.isoformat(), "flags": flags or []}
            for tbl, online, acked, state, health, seen, flags in rows]


def read_ledger(db: psycopg.Connection, room: str) -> list[dict[str, Any]]:
    rows = db.execute("SELECT player, tbl, session, round, delta, t FROM ledger WHERE room=%s ORDER BY t, tbl, seat",
                      (room,)).fetchall()
    return [{"player": p, "table": tb, "session": s.isoformat(), "round": r, "delta": d, "t": t}
            for p, tb, s, r, d, t in rows]


def read_round(db: psycopg.Connection, room: str, table: str, rnd: int) -> dict[str, Any]:
    rows = db.execute("SELECT seq, round, kind, t, data, image, prev, hash FROM journal_row "
                      "WHERE room=%s AND tbl=%s AND round=%s ORDER BY seq", (room, table, rnd)).fetchall()
    receipts = db.execute("SELECT row_seq, row_kind, head, signature IS NOT NULL FROM receipt "
                          "WHERE room=%s AND tbl=%s AND round=%s ORDER BY row_seq", (room, table, rnd)).fetchall()
    hashes = {r[0]: r[7] for r in rows}
    return {"table": table, "round": rnd,
            "rows": [dict(zip(("seq", "round", "kind", "t", "data", "image", "prev", "hash"), r, strict=True))
                     for r in rows],
            "receipts": [{"row_seq": s, "kind": k, "head": h, "signed": sg,
                          "matches": hashes.get(s) == h if s in hashes else None} for s, k, h, sg in receipts]}


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, default=str)
