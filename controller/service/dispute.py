"""The dispute view: a round's record replayed step by step, with the camera's evidence.

:func:`replay` judges the record event by event through the engine (as ``hongsi referee`` does) and
gives, for every step, the event, its violations and the verdict so far; and for every dealt card the
journal's ``card_read`` row (what the camera read, its confidence, and the crop's image id).

>>> view = replay(record, journal, round_id)          # doctest: +SKIP
>>> view["steps"][3]["violations"]                    # doctest: +SKIP
[{'event': 3, 'rule': 'follow', ...}]
"""

from __future__ import annotations

from typing import Any

from controller.announce import violation_for_people
from controller.journal import Journal, export_record
from controller.service.referee import JOURNAL_OVER
from controller.text import seat_en, seat_zh
from engine.record import RecordError, parse_record
from engine.registry import get_game

BOTTOM = -1          # a bottom card's seat in the deal's rows (controller.fair_deal.BOTTOM)


def card_reads(journal: Journal, rid: int, record: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The camera's reads of round ``rid``: index, label, the seat the card went to (from 0, ``"bottom"``,
    or None: not dealt), ``seat_label`` (Seat 2 / 二号位), confidence and the crop's image id."""
    rows = journal.rows(rid)
    seats = card_seats(rows, record if record is not None else export_record(rows))
    out = []
    for row, seat in zip((r for r in rows if r.kind == "card_read"), seats, strict=True):
        d = row.data
        out.append({"index": d.get("index"), "label": d.get("label"), "seat": seat,
                    "seat_label": seat_label(seat), "seat_label_zh": seat_label_zh(seat),
                    "confidence": d.get("confidence"), "image": row.image, "seq": row.seq})
    return out


def seat_label(seat: int | str | None) -> str:
    return seat_en(seat) if isinstance(seat, int) else "the bottom" if seat == "bottom" else "not dealt"


def seat_label_zh(seat: int | str | None) -> str:
    return seat_zh(seat) + "位" if isinstance(seat, int) else "底牌" if seat == "bottom" else "未发出"


def card_seats(rows: list[Any], record: dict[str, Any] | None = None) -> list[int | str | None]:
    """For each ``card_read`` row, in order, the seat its card finally went to (from 0), ``"bottom"``, or
    None. The deal's own answer when it has one (``controller.deal.state.card_seats``); else the rows
    that moved each card (eject, double feed, hand-over), the read's own ``seat``, and last the record's
    hands (who holds a card with that label)."""
    try:
        from controller.deal.state import card_seats as dealt_seats  # the deal's, once it has one
    except ImportError:
        dealt_seats = None
    try:
        seats: list[int | str | None] = list(dealt_seats(rows)) if dealt_seats is not None else _moved_seats(rows)
    except (KeyError, TypeError, ValueError):  # rows the deal's reader does not take: the rows that moved cards
        seats = _moved_seats(rows)
    holders = _holders(record)
    reads = [r.data for r in rows if r.kind == "card_read"]
    for k, d in enumerate(reads):
        if seats[k] is None and isinstance(d.get("seat"), int):
            seats[k] = "bottom" if d["seat"] == BOTTOM else d["seat"]
        if seats[k] is None and d.get("label") in holders:
            seats[k] = holders[d["label"]]
    return seats


def _moved_seats(rows: list[Any]) -> list[int | str | None]:
    final: dict[int, int] = {}
    reads: list[Any] = []
    for r in rows:
        d = r.data
        if r.kind == "card_read":
            reads.append(d.get("index"))
            continue
        try:
            if r.kind == "eject_done":
                final[int(d["index"])] = int(d["seat"])
            elif r.kind == "double_feed":       # the card it carried past the camera, unseen
                final[int(d.get("unseen", d.get("ghost", d["index"] + 1)))] = int(d["seat"])
            elif r.kind == "handed_over":       # a person moved a double-fed card to its seat
                final[int(d["index"])] = int(d["to"])
        except (KeyError, TypeError, ValueError):  # a row this reader does not know: the fallbacks decide
            continue
    return [None if i not in final else "bottom" if final[i] == BOTTOM else final[i] for i in reads]


def _holders(record: dict[str, Any] | None) -> dict[str, int | str]:
    """label -> the seat holding it in the record (a label held twice, two decks, is not decided here)."""
    if not isinstance(record, dict):
        return {}
    where: dict[str, list[int | str]] = {}
    for seat, hand in enumerate(record.get("hands") or []):
        for c in hand:
            where.setdefault(str(c), []).append(seat)
    for c in record.get("bottom") or []:
        where.setdefault(str(c), []).append("bottom")
    return {c: s[0] for c, s in where.items() if len(s) == 1}


def replay(record: dict[str, Any], journal: Journal | None = None, rid: int | None = None) -> dict[str, Any]:
    """Every step of ``record``: ``{"index", "event", "violations", "verdict", "hands"}``."""
    reads = card_reads(journal, rid, record) if journal is not None and rid is not None else []
    crops = {}
    for r in reads:
        if r["label"] and r["image"]:
            crops.setdefault(r["label"], r["image"])
    try:
        rec = parse_record(record)
    except RecordError as exc:
        return {"round": rid, "error": f"the record cannot be replayed yet: {exc}", "steps": [], "cards": reads}
    game = get_game(rec.game)
    state = game.new_state(rec.hands, rec.bottom, game.settings(rec.preset, rec.rules))
    remaining = [[str(c) for c in h] for h in rec.hands]
    steps = []
    for index, event in enumerate(rec.events):
        violations = [violation_for_people(v.at(index)) for v in state.judge(event)]
        applied = not any(v["severity"] == "error" for v in violations)
        if applied and event.get("action") == "play":
            for c in event.get("cards") or []:
                if c in remaining[event["seat"]]:
                    remaining[event["seat"]].remove(c)
        verdict = state.verdict()
        steps.append({"index": index, "event": dict(event), "applied": applied, "violations": violations,
                      "verdict": verdict, "hands": [list(h) for h in remaining],
                      "crops": {c: crops.get(c) for c in (event.get("cards") or [event.get("card")]) if c}})
    if journal is not None and rid is not None:
        table_frames(steps, journal, rid)
    return {"round": rid, "game": rec.game, "hands": [[str(c) for c in h] for h in rec.hands],
            "cards": reads, "steps": steps}


def table_frames(steps: list[dict[str, Any]], journal: Journal, rid: int) -> None:
    """Each play the table camera saw: its picture and its indices' crops, on the step it became."""
    by_index = {r.data.get("index"): r for r in journal.rows(rid) if r.kind == "table_play" and r.data.get("index") is not None}
    for step in steps:
        row = by_index.get(step["index"])
        if row is not None:
            step["table_camera"] = {"frame": row.image, "crops": row.data.get("crops") or [],
                                    "verdict": row.data.get("verdict"), "confidence": row.data.get("confidence")}


# ---------------------------------------------------------------------------------------- rounds the journal holds
def journal_rounds(journal: Journal, known: set[int], n: int = 50) -> list[dict[str, Any]]:
    """Summaries of the journal's newest rounds the service does not hold in memory (a CLI deal into
    the service's data directory, rounds of an earlier run): ``{"id", "game", "phase", "source"}``.
    The phase is the journal's status (done -> finished; ``dealt`` by the CLI: dealt, not refereed)."""
    out = []
    for rid in reversed(journal.rounds()):
        if rid in known or rid <= 0:
            continue
        rows = journal.rows(rid)
        start = next((r.data for r in rows if r.kind == "round_start"), {})
        status = journal.status(rid)
        out.append({"id": rid, "game": start.get("game") or "?", "phase": "finished" if status == "done" else status,
                    "source": "service" if any(r.kind == "service_dealt" for r in rows) else "cli"})
        if len(out) >= n:
            break
    return out


def journal_replay(journal: Journal, rid: int) -> tuple[bool, dict[str, Any]] | None:
    """A round the service does not hold, replayed from the journal alone: (private, view); None if the
    journal has no such round. ``private``: for the operator only, as the hand may still be played: not
    ended (a CLI deal's hand is played at the table, unrefereed, with no end journalled)."""
    rows = journal.rows(rid)
    if not rows:
        return None
    live = journal.status(rid) not in JOURNAL_OVER
    record = export_record(rows)
    if record is None:
        return live, {"round": rid, "error": "the round has no record: its deal did not finish", "steps": [],
                      "cards": card_reads(journal, rid)}
    return live, replay(record, journal, rid)
