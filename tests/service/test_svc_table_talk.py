"""红桃四's table talk through the service, as people at the table meet it: the 趴 a seat is offered,
a 趴 request that holds the bots until it is answered, what the table hears of it, and the seat numbers
in the referee's reasons."""

from __future__ import annotations

import time

import pytest
from svc_helpers import wait_for

CALLABLE_RANKS = ("4", "5", "6", "7", "8", "9", "10")


def _service(tmp_path, name: str, **kw):
    from controller.service.deal import SoftwareDealSource
    from controller.service.table import TableService

    # a round-robin deal from a seeded shuffle: the same hands in every service made this way
    return TableService(tmp_path / name, SoftwareDealSource(card_delay=0.0, seed=5), seed=3, **kw)


def _hands(tmp_path) -> list[list[str]]:
    svc = _service(tmp_path, "peek", bot_delay=0.01)
    try:
        rnd = svc.start_round(game="hongsi", fair_deal=False, bots=[0, 1, 2, 3])
        wait_for(lambda: rnd.hands is not None and rnd.phase in ("playing", "finished"))
        return [[str(c) for c in h] for h in rnd.hands]
    finally:
        svc.close()


def _plays(rnd) -> list[tuple[int, dict]]:
    with rnd.lock:
        return [(i, ev) for i, (ev, ok) in enumerate(zip(rnd.events, rnd.applied, strict=True))
                if ok and ev["action"] == "play"]


def test_a_pa_request_to_a_person_holds_the_bots_until_it_is_answered(tmp_path):
    """The QA's case: the bot holding ♥4 led 0.9 s after one person asked another to 趴, and the answer
    was refused (play had begun). Every declaration now opens the window again, and a person asked to 趴
    is waited for even after saying Ready."""
    hands = _hands(tmp_path)
    h4 = next(s for s, h in enumerate(hands) if "H4" in h)
    people = [s for s in range(4) if s != h4]
    window = 3.0
    svc = _service(tmp_path, "table", bot_delay=0.01, declare_window=window)
    try:
        rnd = svc.start_round(game="hongsi", fair_deal=False, bots=[h4])
        assert [[str(c) for c in h] for h in rnd.hands or []] in ([], hands)
        wait_for(lambda: rnd.called() is not None, timeout=3 * window)  # the bot calls when the window ends
        called = rnd.called()["card"]
        holder = next(s for s, h in enumerate(hands) if called in h)
        asker, target = [s for s in people if s != holder][:2]  # two seats without the called card: a side
        for s in people:
            if s != target:
                svc.ready(rnd.id, s)
        asked_at = time.monotonic()
        assert svc.act(rnd.id, {"seat": asker, "action": "pa", "target": target})["applied"]
        assert rnd.public()["undecided"] == [target]
        svc.ready(rnd.id, target)  # Ready does not answer a request: the seat is still waited for
        assert rnd.public()["undecided"] == [target]
        time.sleep(window / 3)
        assert _plays(rnd) == [], "the bot led while a 趴 request to a person was unanswered"
        assert time.monotonic() - asked_at < window, "the test was too slow to tell"
        answer = svc.act(rnd.id, {"seat": target, "action": "pa_refuse"})
        assert answer["applied"], answer
        first = wait_for(lambda: _plays(rnd), timeout=10)[0]
        assert first[1]["seat"] == h4 and rnd.public()["undecided"] == []
    finally:
        svc.close()


def test_the_table_hears_who_leads_when_a_pa_moves_the_lead(tmp_path):
    """The ♥4 holder lies down at its partner's request: the partner leads, and the table is told so
    (voice and display), not only the ♥4 holder of the deal."""
    hands = _hands(tmp_path)
    h4 = next(s for s, h in enumerate(hands) if "H4" in h)
    card = next(c for s, h in enumerate(hands) if s != h4 for c in h if c[1:] in CALLABLE_RANKS)
    partner = next(s for s, h in enumerate(hands) if card in h)
    said: list[tuple[str, str]] = []
    svc = _service(tmp_path, "table", bot_delay=0.01, declare_window=60.0)
    svc.voice.say = lambda zh, en: said.append((zh, en))  # what the voice is given, in order
    try:
        rnd = svc.start_round(game="hongsi", fair_deal=False, bots=[s for s in range(4) if s not in (h4, partner)])
        wait_for(lambda: rnd.phase == "playing")
        assert svc.act(rnd.id, {"seat": h4, "action": "call", "card": card})["applied"]
        # the caller is offered every other seat for a 趴: it does not know who holds the called card
        offered = [a["target"] for a in rnd.seat_view(h4)["legal"] if a["action"] == "pa"]
        assert offered == [s for s in range(4) if s != h4]
        assert [a["target"] for a in rnd.seat_view(partner)["legal"] if a["action"] == "pa"] == [h4]
        assert rnd.seat_view(h4)["view"]["partner"] is None
        assert svc.act(rnd.id, {"seat": partner, "action": "pa", "target": h4})["applied"]
        assert svc.act(rnd.id, {"seat": h4, "action": "pa_accept"})["applied"]
        zh, en = said[-1]
        assert zh == f"{'一二三四'[h4]}号位趴下，{'一二三四'[partner]}号位先出", zh
        assert en == f"Seat {h4 + 1} lies down; Seat {partner + 1} leads.", en
        assert rnd.public()["table"]["first_leader"] == partner
        # and so do the seat pages' words (they kept "Seat N holds ♥4 and plays first")
        assert rnd.public()["first_words"] == [f"{'一二三四'[partner]}号先出", f"Seat {partner + 1} plays first."]
    finally:
        svc.close()


def test_the_referees_reason_names_seats_as_the_table_does(tmp_path):
    hands = _hands(tmp_path)
    h4 = next(s for s, h in enumerate(hands) if "H4" in h)
    other = (h4 + 1) % 4
    svc = _service(tmp_path, "table", bot_delay=0.01, declare_window=60.0)
    try:
        rnd = svc.start_round(game="hongsi", fair_deal=False, bots=[])
        wait_for(lambda: rnd.phase == "playing")
        card = next(c for c in hands[other] if c[1:] in CALLABLE_RANKS)
        assert svc.act(rnd.id, {"seat": h4, "action": "call", "card": card})["applied"]
        out = svc.act(rnd.id, {"seat": other, "action": "play", "cards": [hands[other][0]]})
        v = out["violations"][0]
        assert v["rule"] == "turn"
        assert f"Seat {h4 + 1}" in v["message"] and f"Seat {other + 1}" in v["message"], v
        assert f"{'一二三四'[h4]}号位" in v["message_zh"], v
        # the record keeps the engine's own words (seats from 0, as the record numbers them)
        assert f"seat {h4}" in rnd.violations[-1]["list"][0]["message"]
    finally:
        svc.close()


def test_a_refusal_that_would_tell_what_a_hand_holds_is_not_told_to_the_table():
    from controller.service.rounds import public_violation

    follow = {"rule": "follow_suit", "severity": "error", "message": "follow suit: seat 0 holds C"}
    assert public_violation(follow)["rule"] == "refused"
    assert "C" not in public_violation(follow)["message"].split()
    assert public_violation({"rule": "turn", "severity": "error"})["rule"] == "turn"


def test_nobody_is_waited_for_once_nothing_more_may_be_declared(tmp_path):
    """After a 对挑 no one may declare or 趴 any more: the display stops saying it waits for declarations
    (the QA saw "等待声明" stay up), while one 挑 still leaves a second one open."""
    svc = _service(tmp_path, "table", bot_delay=0.01, declare_window=60.0)
    try:
        rnd = svc.start_round(game="hongsi", fair_deal=False, bots=[])
        wait_for(lambda: rnd.phase == "playing")
        assert rnd.public()["undecided"] == [0, 1, 2, 3]
        assert svc.act(rnd.id, {"seat": 1, "action": "tiao"})["applied"]
        assert rnd.public()["undecided"] == [0, 1, 2, 3]
        assert svc.act(rnd.id, {"seat": 3, "action": "tiao"})["applied"]
        assert rnd.public()["undecided"] == [] and rnd.public()["table"]["talk_open"] is False
    finally:
        svc.close()


def test_a_pa_asked_of_the_other_side_is_told_to_the_whole_table_and_is_the_seats_one_ask(tmp_path):
    """The digest makes a 趴 asked of a non-teammate a violation, so its refusal says the two are not a
    side. The whole table then learns it with the asker (the refused request names its target in
    public), and a seat asks once a hand, right or wrong: it cannot try seat after seat to find the
    partner (the QA's second pass did just that)."""
    from controller.service.table import ServiceError

    hands = _hands(tmp_path)
    h4 = next(s for s, h in enumerate(hands) if "H4" in h)
    card = next(c for s, h in enumerate(hands) if s != h4 for c in h if c[1:] in CALLABLE_RANKS)
    partner = next(s for s, h in enumerate(hands) if card in h)
    asker = next(s for s in range(4) if s not in (h4, partner))
    svc = _service(tmp_path, "table", bot_delay=0.01, declare_window=60.0)
    try:
        rnd = svc.start_round(game="hongsi", fair_deal=False, bots=[])
        wait_for(lambda: rnd.phase == "playing")
        assert svc.act(rnd.id, {"seat": h4, "action": "call", "card": card})["applied"]
        assert partner in [a["target"] for a in rnd.seat_view(asker)["legal"] if a["action"] == "pa"]
        out = svc.act(rnd.id, {"seat": asker, "action": "pa", "target": partner})  # the other side
        assert not out["applied"] and out["violations"][0]["rule"] == "pa"
        assert "队友" in out["violations"][0]["message_zh"]
        public = rnd.public()["actions"][-1]
        assert public["action"] == "pa" and public["target"] == partner and not public["applied"]
        assert [a for a in rnd.seat_view(asker)["legal"] if a["action"] == "pa"] == []
        with pytest.raises(ServiceError) as err:
            svc.act(rnd.id, {"seat": asker, "action": "pa", "target": [s for s in range(4)
                                                                       if s not in (asker, h4, partner)][0]})
        assert err.value.status == 409
    finally:
        svc.close()


def test_a_refused_call_names_the_card_as_a_card(tmp_path):
    """The engine quotes the card code ('SA'); the seat reads ♠A (the QA's second pass)."""
    hands = _hands(tmp_path)
    h4 = next(s for s, h in enumerate(hands) if "H4" in h)
    svc = _service(tmp_path, "table", bot_delay=0.01, declare_window=60.0)
    try:
        rnd = svc.start_round(game="hongsi", fair_deal=False, bots=[])
        wait_for(lambda: rnd.phase == "playing")
        out = svc.act(rnd.id, {"seat": h4, "action": "call", "card": "SA"})
        assert not out["applied"] and "♠A" in out["violations"][0]["message"], out
        assert "'SA'" in rnd.violations[-1]["list"][0]["message"]  # the record keeps the engine's words
    finally:
        svc.close()


def test_a_pa_refused_for_another_reason_is_not_the_seats_ask(tmp_path):
    """Asked before the call (a phase error), the request names no side: the seat may still ask later,
    and the table is not told whom it asked."""
    hands = _hands(tmp_path)
    h4 = next(s for s, h in enumerate(hands) if "H4" in h)
    card = next(c for s, h in enumerate(hands) if s != h4 for c in h if c[1:] in CALLABLE_RANKS)
    partner = next(s for s, h in enumerate(hands) if card in h)
    svc = _service(tmp_path, "table", bot_delay=0.01, declare_window=60.0)
    try:
        rnd = svc.start_round(game="hongsi", fair_deal=False, bots=[])
        wait_for(lambda: rnd.phase == "playing")
        early = svc.act(rnd.id, {"seat": partner, "action": "pa", "target": h4})
        assert not early["applied"] and early["violations"][0]["rule"] == "phase"
        assert "target" not in rnd.public()["actions"][-1]
        assert svc.act(rnd.id, {"seat": h4, "action": "call", "card": card})["applied"]
        assert svc.act(rnd.id, {"seat": partner, "action": "pa", "target": h4})["applied"]
    finally:
        svc.close()

