"""The referee: judge a record event by event and produce the verdict.

A violating event is reported (rule id, severity, English and Chinese message) and, for errors, not
applied; judging goes on with the next event. The verdict is ``State.verdict()`` plus ``violations``.
"""

from __future__ import annotations

from typing import Any

from engine.record import Record, parse_record
from engine.registry import get_game


def judge_record(record: Record) -> dict[str, Any]:
    game = get_game(record.game)
    settings = game.settings(record.preset, record.rules)
    state = game.new_state(record.hands, record.bottom, settings)
    violations = []
    judge = state.judge
    for index, event in enumerate(record.events):
        found = judge(event)
        if found:  # (most events are clean: no generator made for them)
            # a violation may name an earlier event (e.g. a count not announced after a play): keep it
            violations.extend(v.at(index) for v in found)
    verdict = state.verdict()
    verdict["violations"] = [v.to_json() for v in violations]
    return verdict


def referee(obj: Any) -> dict[str, Any]:
    """Validate a decoded JSON value as a record (``RecordError`` if not) and judge it."""
    return judge_record(parse_record(obj))
