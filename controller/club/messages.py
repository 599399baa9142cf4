"""What travels between a table and the club, as data: topics, the envelope, the receipt, and the checks.

Every message a table sends is one :class:`Envelope` with the table's own sequence number ``seq`` (its
outbox's row number): the club stores each (table, seq) once, and acknowledges the highest ``seq`` up to
which it holds everything, so a message lost anywhere is sent again and one sent twice is kept once.

Topics: ``hongsi/<room>/<table>/<kind>``; the club answers on ``hongsi/<room>/<table>/ack``. A table's
name is its broker user name, so the broker's ACL (``deploy/club/``) lets it write under its own only.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass
from typing import Any

from controller.journal import (  # RECEIPT_KINDS: rows a receipt names
    GENESIS,
    RECEIPT_KINDS,
    canonical,
    row_hash,
)

ROOT = "hongsi"
KINDS = ("event", "health", "receipt", "rows", "crop")   # the kinds a table sends in its seq stream
ONLINE = "online"     # retained 1/0 (the last will), outside the stream
ACK = "ack"           # the club's answer: {"seq": n}
NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")
MAX_PAYLOAD = 4 * 1024 * 1024


class MessageError(ValueError):
    """A message the club cannot use; the message says why in one line."""


def check_name(what: str, name: str) -> str:
    if not isinstance(name, str) or not NAME.match(name):
        raise MessageError(f"{what} {name!r}: use 1-32 of a-z, 0-9, '-', '_' (it is an MQTT topic level)")
    return name


def topic(room: str, table: str, kind: str) -> str:
    return f"{ROOT}/{room}/{table}/{kind}"


def parse_topic(text: str) -> tuple[str, str, str]:
    """``hongsi/<room>/<table>/<kind>`` -> (room, table, kind); MessageError for anything else."""
    parts = text.split("/")
    if len(parts) != 4 or parts[0] != ROOT:
        raise MessageError(f"topic {text!r}: not hongsi/<room>/<table>/<kind>")
    _, room, table, kind = parts
    check_name("room", room)
    check_name("table", table)
    if kind not in (*KINDS, ONLINE, ACK):
        raise MessageError(f"topic {text!r}: unknown kind {kind!r}")
    return room, table, kind


@dataclass(frozen=True)
class Envelope:
    """One message of a table's stream."""

    table: str
    seq: int
    kind: str
    body: dict[str, Any]
    sent: float

    def to_bytes(self) -> bytes:
        return json.dumps(asdict(self), ensure_ascii=False, separators=(",", ":")).encode()

    @classmethod
    def from_bytes(cls, raw: bytes, *, table: str, kind: str) -> Envelope:
        """Parse and check a payload that came on ``table``'s topic of ``kind``."""
        if len(raw) > MAX_PAYLOAD:
            raise MessageError(f"{len(raw)} bytes: larger than {MAX_PAYLOAD}")
        try:
            obj = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            raise MessageError(f"not JSON ({exc})") from None
        if not isinstance(obj, dict):
            raise MessageError("not a JSON object")
        seq, body, sent = obj.get("seq"), obj.get("body"), obj.get("sent")
        if obj.get("table") != table:
            raise MessageError(f"says table {obj.get('table')!r} on table {table!r}'s topic")
        if obj.get("kind") != kind:
            raise MessageError(f"says kind {obj.get('kind')!r} on the {kind!r} topic")
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
            raise MessageError(f"seq {seq!r}: not a positive integer")
        if not isinstance(body, dict):
            raise MessageError("body: not a JSON object")
        if not isinstance(sent, (int, float)) or isinstance(sent, bool):
            raise MessageError(f"sent {sent!r}: not a time")
        return cls(table, seq, kind, body, float(sent))


# ---------------------------------------------------------------------------------------- receipts
@dataclass(frozen=True)
class Receipt:
    """The head of a table's journal chain at a ``deal_end`` or ``reveal`` row: what the table vouches
    for. ``signature``/``public_key`` (hex, Ed25519) when the table signs (issue 31's receipts)."""

    round: int
    row_seq: int
    row_kind: str
    head: str
    signature: str | None = None
    public_key: str | None = None

    def signed_text(self) -> bytes:
        """What the signature covers: the rig's own receipt message (``controller.receipts``), so a
        receipt row the table's journal signed is checked here as it is."""
        from controller.receipts import message

        return message(self.row_seq, self.head)

    def to_body(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_body(cls, body: dict[str, Any]) -> Receipt:
        try:
            r = cls(int(body["round"]), int(body["row_seq"]), str(body["row_kind"]), str(body["head"]),
                    body.get("signature"), body.get("public_key"))
        except (KeyError, TypeError, ValueError) as exc:
            raise MessageError(f"receipt: missing or wrong field ({exc})") from None
        if r.row_kind not in RECEIPT_KINDS:
            raise MessageError(f"receipt: row kind {r.row_kind!r} is not one of {RECEIPT_KINDS}")
        if not re.fullmatch(r"[0-9a-f]{64}", r.head):
            raise MessageError("receipt: head is not a SHA-256 in hex")
        for name in ("signature", "public_key"):
            value = getattr(r, name)
            if value is not None and not (isinstance(value, str) and re.fullmatch(r"[0-9a-f]+", value)):
                raise MessageError(f"receipt: {name} is not hex")
        return r


def verify_signature(receipt: Receipt) -> bool | None:
    """True/False for a signed receipt (Ed25519 over :meth:`Receipt.signed_text`); None when unsigned."""
    if receipt.signature is None:
        return None
    if receipt.public_key is None:
        return False
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(receipt.public_key))
        key.verify(bytes.fromhex(receipt.signature), receipt.signed_text())
    except (InvalidSignature, ValueError):
        return False
    return True


def sign(receipt: Receipt, private_key: Any) -> Receipt:
    """``receipt`` signed with an ``Ed25519PrivateKey`` (what a table with a key does)."""
    from cryptography.hazmat.primitives import serialization

    pub = private_key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return Receipt(receipt.round, receipt.row_seq, receipt.row_kind, receipt.head,
                   private_key.sign(receipt.signed_text()).hex(), pub.hex())


# ---------------------------------------------------------------------------------------- journal rows
ROW_FIELDS = ("seq", "round", "kind", "t", "data", "image", "prev", "hash")


def row_to_body(row: Any) -> dict[str, Any]:
    """A journal :class:`~controller.journal.Row` as the wire's dict."""
    return {"seq": row.seq, "round": row.round, "kind": row.kind, "t": row.t, "data": row.data,
            "image": row.image, "prev": row.prev, "hash": row.hash}


def check_row(row: dict[str, Any]) -> list[str]:
    """Problems with one row on its own: its fields and its hash."""
    if not isinstance(row, dict) or set(row) != set(ROW_FIELDS):
        return ["a journal row without the fields " + ", ".join(ROW_FIELDS)]
    try:
        ok = row_hash(int(row["seq"]), int(row["round"]), str(row["kind"]), float(row["t"]),
                      canonical(row["data"]), row["image"], str(row["prev"])) == row["hash"]
    except (TypeError, ValueError):
        return [f"row {row.get('seq')!r}: a field of the wrong type"]
    return [] if ok else [f"row {row['seq']} ({row['kind']}, round {row['round']}): its hash does not match "
                          "its content (the row was changed)"]


def check_link(prev_hash: str | None, row: dict[str, Any]) -> list[str]:
    """Problems linking ``row`` to the row before it (``prev_hash``: that row's hash; None = not held)."""
    if row["seq"] == 1 and row["prev"] != GENESIS:
        return ["row 1 does not start the chain"]
    if prev_hash is not None and row["prev"] != prev_hash:
        return [f"row {row['seq']} does not link to row {row['seq'] - 1} (the history was changed)"]
    return []


def crop_digest(jpeg: bytes) -> str:
    return hashlib.sha256(jpeg).hexdigest()
