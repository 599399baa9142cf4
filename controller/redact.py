"""Journal rows as the operator may see them while a hand is live: no hidden card, no way to one.

The journal holds the hands as dealt (the camera's reads and crops, the seed and the position-to-seat
order, the record). At a home table the operator usually plays, so while a hand is live ``GET
/api/journal`` must show only the rows' shape: every field that names a card, or the seed or order that
would place one, is dropped, and a crop's digest is withheld (``/api/images`` would serve it). Once the
hand is over, rows are shown whole. A dispute that needs them during play opens a referee view that the
table is told about (not here).

>>> redact_row({"kind": "card_read", "data": {"index": 3, "label": "HA"}, "image": "ab…"}, live=True)
{'kind': 'card_read', 'data': {'index': 3}, 'image': None, 'redacted': True}
"""

from __future__ import annotations

from typing import Any

# fields that name a card, or say where one is, at any depth of a row's data
SECRET_KEYS = frozenset({"label", "labels", "probs", "card", "cards", "hands", "hand", "bottom", "record", "seed",
                         "order", "proof", "flag", "flags", "problems", "message", "message_zh", "event",
                         "violations", "truth", "place", "misplaced", "corrected_labels", "read", "reads",
                         "crops"})  # the table camera's crops of a play: /api/images would serve them
# a deal's pause keeps its instruction for the operator, who must act on it while the hand is live
PAUSE_WORDS = ("message", "message_zh")
# what a round ends with: after it the hand is no secret
OVER_KINDS = ("round_end", "reveal")
# the operator opened the round's referee view, in front of the table (controller.service.referee)
REFEREE_KIND = "referee_view"


def redact_data(value: Any) -> Any:
    """``value`` without any :data:`SECRET_KEYS` field, at any depth."""
    if isinstance(value, dict):
        return {k: redact_data(v) for k, v in value.items() if k not in SECRET_KEYS}
    if isinstance(value, list):
        return [redact_data(v) for v in value]
    return value


def redact_row(row: dict[str, Any], live: bool) -> dict[str, Any]:
    """A journal row (as the API shows it) for the operator: whole once the hand is over, else without
    a hidden card (and marked ``redacted``, since its hash no longer covers what is shown)."""
    if not live:
        return row
    out = {**row, "data": redact_data(row.get("data") or {})}
    if row.get("image"):
        out["image"] = None
    if "event" in (row.get("data") or {}):          # an action: who did what kind of thing, not the cards
        event = row["data"]["event"] if isinstance(row["data"]["event"], dict) else {}
        out["data"]["event"] = {k: event.get(k) for k in ("seat", "action") if k in event}
    if row.get("kind") == "pause":   # what the operator must do now (a double feed names the cards to check);
        data = row.get("data") or {}  # the table heard that the operator checks (the pause's public words)
        out["data"].update({k: data[k] for k in PAUSE_WORDS if k in data})
    out["redacted"] = True
    return out


def live_rounds(kinds_by_round: dict[int, list[str]]) -> set[int]:
    """The rounds whose hand is live: journalled, ended by no :data:`OVER_KINDS` row, and with no
    referee view open (:data:`REFEREE_KIND`). Round 0 holds no hand (the journal's own rows)."""
    return {r for r, kinds in kinds_by_round.items()
            if r and not any(k in OVER_KINDS or k == REFEREE_KIND for k in kinds)}


def redact_rows(rows: list[Any], all_rows_of: Any) -> list[dict[str, Any]]:
    """``rows`` (journal Rows) as the operator sees them now; ``all_rows_of(round)`` gives a round's rows
    (to tell whether its hand is over)."""
    rounds = {r.round for r in rows}
    live = live_rounds({n: [r.kind for r in all_rows_of(n)] for n in rounds})
    return [redact_row({"seq": r.seq, "round": r.round, "kind": r.kind, "t": r.t, "data": r.data, "image": r.image,
                        "hash": r.hash}, r.round in live) for r in rows]
