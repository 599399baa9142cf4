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
from controller.journal import Journal
from engine.record import RecordError, parse_record
from engine.registry import get_game


def card_reads(journal: Journal, rid: int) -> list[dict[str, Any]]:
    """The camera's reads of round ``rid``: index, label, seat, confidence and the crop's image id."""
    out = []
    for row in journal.rows(rid):
        if row.kind != "card_read":
            continue
        d = row.data
        out.append({"index": d.get("index"), "label": d.get("label"), "seat": d.get("seat"),
                    "confidence": d.get("confidence"), "image": row.image, "seq": row.seq})
    return out


def replay(record: dict[str, Any], journal: Journal | None = None, rid: int | None = None) -> dict[str, Any]:
    """Every step of ``record``: ``{"index", "event", "violations", "verdict", "hands"}``."""
    reads = card_reads(journal, rid) if journal is not None and rid is not None else []
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
    return {"round": rid, "game": rec.game, "hands": [[str(c) for c in h] for h in rec.hands],
            "cards": reads, "steps": steps}
