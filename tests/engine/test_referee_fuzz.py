"""Any input to the referee gives a verdict or a clear RecordError — never another exception.

Records come from real self-play of every game, then get mutated: events dropped, duplicated, swapped,
fields given wrong types or values, seats changed, unknown actions added."""

import copy
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.record import RecordError
from engine.referee import referee
from engine.registry import game_names, get_game

_RECORDS: dict[str, list[dict]] = {}


def records(game: str) -> list[dict]:
    if game not in _RECORDS:
        rng = random.Random(7)
        _RECORDS[game] = [get_game(game).bot_hand(rng, bot=b) for b in ("random", "greedy")]
    return _RECORDS[game]


WEIRD = [None, True, -1, 99, 2.5, "", "H4", "XX", [], ["H4", "H4"], ["ZZ"], {}, {"a": 1}, "pass", 10**12]
FIELDS = ["seat", "action", "cards", "card", "target", "count", "value", "dealt", "consent", "agree"]


def mutate(record: dict, rng: random.Random) -> dict:
    rec = copy.deepcopy(record)
    events = rec["events"]
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(6)
        if not events:
            events.append({"seat": 0, "action": "play", "cards": ["H4"]})
        i = rng.randrange(len(events))
        if op == 0:
            events.pop(i)
        elif op == 1:
            events.insert(i, copy.deepcopy(events[rng.randrange(len(events))]))
        elif op == 2:
            j = rng.randrange(len(events))
            events[i], events[j] = events[j], events[i]
        elif op == 3:
            events[i][rng.choice(FIELDS)] = rng.choice(WEIRD)
        elif op == 4:
            events[i]["action"] = rng.choice(["fly", "PLAY", "bid", "call", "xuan", "expose", "bury", "declare",
                                              "tiao", "pa", "announce", "take_bottom", "black_dig"])
        else:
            rec[rng.choice(["rules", "preset", "bottom", "hands"])] = rng.choice(WEIRD)
    return rec


@pytest.mark.parametrize("game", game_names())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_mutated_records_never_crash(game, seed):
    rng = random.Random(seed)
    rec = mutate(rng.choice(records(game)), rng)
    rec = json.loads(json.dumps(rec))  # only what JSON can carry
    try:
        verdict = referee(rec)
    except RecordError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert isinstance(verdict["violations"], list)
    for v in verdict["violations"]:
        assert v["severity"] in ("error", "warning") and v["message"] and v["message_zh"]
        assert 0 <= v["event"] < len(rec["events"])


@pytest.mark.parametrize("game", game_names())
def test_unmutated_bot_records_are_clean(game):
    for rec in records(game):
        verdict = referee(json.loads(json.dumps(rec)))
        assert verdict["violations"] == [] and verdict["finished"] is True
