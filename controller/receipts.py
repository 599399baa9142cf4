"""Receipts: the journal's head hash at the end of every deal and every hand, signed by the rig.

A hash chain proves nothing by itself: whoever holds the file can cut its last rows off (a rollback)
or rewrite it and recompute every hash. It proves something against a head that *someone else* holds.
So when a deal or a hand ends (a row of :data:`RECEIPT_KINDS`), the journal writes a ``receipt`` row
naming that row's hash, signed with the rig's Ed25519 key (``controller.keys``); the display and the
seats show it, ``hongsi deal --json`` prints it. Later ``hongsi log verify --receipt HEX`` fails unless
the chain still holds that row with that hash, and the signature shows the rig issued the receipt.

A receipt (what is shown and exported)::

    {"receipt": "<64 hex>", "short": "ab12 cd34 ef56 7890", "seq": 41, "round": 3, "at": "deal_end",
     "signature": "<128 hex>", "public_key": "<64 hex>"}
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from controller.journal import RECEIPT_KINDS  # noqa: F401 - the rows that end a deal or a hand
from controller.keys import verify as verify_signature

KIND = "receipt"
SHORT_HEX = 16          # 64 bits: grinding a forged chain to match even the short form is out of reach
_HEX = re.compile(r"^[0-9a-f]+$")


def message(seq: int, digest: str) -> bytes:
    """What the rig signs: the row's number and its hash (which covers every row before it)."""
    return json.dumps({"v": 1, "what": "hongsi journal receipt", "seq": int(seq), "hash": digest},
                      sort_keys=True, separators=(",", ":")).encode()


def short(digest: str) -> str:
    """The short form shown on the display: the first 16 hex digits in groups of four."""
    head = digest[:SHORT_HEX]
    return " ".join(head[i:i + 4] for i in range(0, len(head), 4))


def row_data(seq: int, digest: str, at: str, key: Any) -> dict[str, Any]:
    """The data of the ``receipt`` row for row ``seq`` (hash ``digest``, kind ``at``)."""
    return {"of": int(seq), "hash": digest, "at": at, "signature": key.sign(message(seq, digest)),
            "public_key": key.public_hex}


def from_row(round_: int, data: dict[str, Any]) -> dict[str, Any]:
    """A ``receipt`` row's data as the receipt shown to people."""
    return {"receipt": data["hash"], "short": short(str(data["hash"])), "seq": data["of"], "round": round_,
            "at": data.get("at"), "signature": data["signature"], "public_key": data["public_key"]}


def of_rows(rows: Iterable[Any]) -> list[dict[str, Any]]:
    """Every receipt among journal rows (objects with ``kind``, ``round``, ``data``), oldest first."""
    return [from_row(r.round, r.data) for r in rows if r.kind == KIND]


def verify_receipt(receipt: dict[str, Any], public_key: str | None = None) -> bool:
    """Whether a receipt's signature holds (under ``public_key``, the rig's, when given): no journal needed."""
    try:
        key = str(receipt["public_key"])
        ok = verify_signature(key, message(int(receipt["seq"]), str(receipt["receipt"])), str(receipt["signature"]))
    except (KeyError, TypeError, ValueError):
        return False
    return ok and (public_key is None or public_key == key)


def normalise(text: str) -> str:
    """A receipt as typed: spaces, dashes and case do not matter. ValueError unless it is hex of 16+ digits."""
    hex_ = re.sub(r"[\s:-]", "", text).lower()
    if not _HEX.match(hex_) or not SHORT_HEX <= len(hex_) <= 64:
        raise ValueError(f"a receipt is 16 to 64 hex digits (the short form or the whole hash), not {text!r}")
    return hex_


def check_rows(rows: list[Any], public_key: str | None) -> list[str]:
    """Problems with the receipt rows of a whole journal: each must name a row that still has that hash,
    and carry a good signature by the rig's key (``public_key``, when known)."""
    by_seq = {r.seq: r for r in rows}
    problems = []
    for r in rows:
        if r.kind != KIND:
            continue
        d = r.data
        named = by_seq.get(int(d.get("of", -1)))
        if named is None or named.hash != d.get("hash"):
            problems.append(f"row {r.seq}: receipt {short(str(d.get('hash')))} names row {d.get('of')}, "
                            "which no longer has that hash (the journal was rewritten)")
        if not verify_receipt(from_row(r.round, d)):
            problems.append(f"row {r.seq}: receipt {short(str(d.get('hash')))} has a bad signature")
        elif public_key is not None and d.get("public_key") != public_key:
            problems.append(f"row {r.seq}: receipt {short(str(d.get('hash')))} was signed by another key, "
                            "not this rig's")
    return problems


def find(rows: list[Any], receipt_hex: str) -> Any | None:
    """The row whose hash is (or, for a short form, starts with) ``receipt_hex``; None if none is."""
    return next((r for r in rows if r.hash.startswith(receipt_hex)), None)
