"""The deal package's small parts on their own: problems as data and their one text table, the one
operator, the typed rig errors, and older journals read in one place."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.announce import card_zh
from controller.deal.operators import EventOperator
from controller.deal.problems import TEXT, Problem, card_name
from controller.deal.state import card_seats, upgrade
from controller.plan import BOTTOM
from firmware_bridge.errors import EStop, Fault, HopperEmpty, RigError, fault_error
from vision.labels import LABELS

CARDS = [c for c in LABELS if c not in ("RJ", "BJ")]


@given(seat=st.integers(0, 5), count=st.integers(0, 60), want=st.integers(0, 60))
def test_seats_are_numbered_from_one_in_both_languages(seat, count, want):
    p = Problem("seat_count", {"seat": seat, "count": count, "want": want})
    assert p.en == f"seat {seat + 1} has {count} cards, not {want}"
    assert p.zh == f"{seat + 1}号位有{count}张牌，应为{want}张"


@given(card=st.sampled_from(CARDS), at=st.sampled_from([0, 1, 2, 3, BOTTOM]), belongs=st.integers(0, 3))
def test_a_card_is_named_with_its_suit_sign_in_english_and_its_chinese_name_in_chinese(card, at, belongs):
    p = Problem("misplaced", {"card": card, "at": at, "belongs": belongs})
    sign = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[card[0]] + card[1:]
    assert f"put {sign} at" in p.en and card not in p.en        # ♠5, never the reader's S5
    assert card_zh(card) in p.zh and card not in p.zh
    assert ("底牌" in p.zh) == (at == BOTTOM) and f"{belongs + 1}号位" in p.zh


@given(now=st.sampled_from(CARDS), known=st.sampled_from(CARDS), n=st.integers(1, 108))
def test_the_public_words_of_a_problem_that_names_cards_name_none(now, known, n):
    p = Problem("mismatch", {"now": now, "known": known, "n": n})
    assert f"({card_name(now, 'en')})" in p.en and card_zh(known) in p.zh
    words = " ".join(p.public)
    assert not any(c in words.split() or card_name(c, "en") in words or card_zh(c) in words for c in (now, known))


def test_jokers_and_unknown_cards_are_named_in_words():
    assert Problem("foreign", {"card": "RJ"}).en.startswith("the big joker does not belong")
    assert Problem("missing", {"card": "BJ"}).zh.startswith("缺少小王")
    assert Problem("missing", {"card": "?"}).en.startswith("? is missing")


def test_every_code_has_english_and_chinese_and_public_words_when_it_names_cards():
    for code, text in TEXT.items():
        assert len(text) in (2, 4), code
        assert text[0] != text[1], code
    assert Problem("unseen_check").names_cards and not Problem("jam").names_cards


def test_a_stopped_deal_keeps_every_problem_in_one_message():
    twice, missing = Problem("twice", {"card": "S5"}), Problem("missing", {"card": "H4"})
    stopped = Problem("stopped", {"problems": [twice, missing]})
    assert f"{twice.en}; {missing.en}" in stopped.en
    assert f"{twice.zh}；{missing.zh}" in stopped.zh and "红桃四" in stopped.zh


def test_an_answer_given_between_expect_and_attend_is_kept():
    op = EventOperator()
    problem = {"reason": "jam"}
    op.expect(problem)
    assert op.waiting
    op.resolve("void")
    assert op.attend(problem) == "void" and not op.waiting


def test_attend_without_expect_waits_for_the_answer():
    op = EventOperator()
    answers: list[str] = []
    t = threading.Thread(target=lambda: answers.append(op.attend()))
    t.start()
    while not op.waiting:
        threading.Event().wait(0.01)
    assert answers == []
    op.resolve("resume")
    t.join(5)
    assert answers == ["resume"]
    with pytest.raises(ValueError):
        op.resolve("maybe")


def test_the_rig_errors_are_typed():
    assert isinstance(fault_error("x", "e-stop"), EStop) and isinstance(fault_error("x", "e-stop"), Fault)
    assert type(fault_error("x", "jam")) is Fault and fault_error("x", "jam").code == "jam"
    assert issubclass(HopperEmpty, RigError) and not issubclass(HopperEmpty, Fault)


def test_older_journal_rows_read_as_todays():
    rows = [("eject_done", {"index": i, "seat": 0, "pulse_ms": 70.0}, None) for i in range(3)]
    rows += [("eject_done", {"index": 3, "seat": 1, "pulse_ms": 150.0}, None),
             ("order", {"order": [9, 9], "reason": "double feed at card 4"}, None),
             ("double_feed", {"index": 3, "seat": 1, "flag": "f"}, None),
             ("card_read", {"index": 4, "label": None, "ghost": True}, None),
             ("order", {"order": [7], "reason": "double feed at card 9"}, None)]   # never finished: dropped
    out = upgrade(rows)
    assert [d["double"] for k, d, _ in out if k == "eject_done"] == [False, False, False, True]
    feed = next(d for k, d, _ in out if k == "double_feed")
    assert feed["unseen"] == 4 and feed["order"] == [9, 9]
    assert next(d for k, d, _ in out if k == "card_read")["unseen"] is True
    assert not any(k == "order" for k, _, _ in out)


def test_each_read_card_s_final_seat_comes_from_the_journal_rows():
    """What the dispute view shows for ``cards[].seat``: the eject that dealt the card, the seat a double
    feed carried an unseen card to, a person's hand-over; older rows without ``seat`` (and with
    ``ghost``) all the same; None for a card read but never dealt."""
    rows = [("card_read", {"index": 0, "label": "S5"}, None),                      # an older journal: no seat
            ("eject_done", {"index": 0, "seat": 2, "pulse_ms": 70.0}, None),
            ("card_read", {"index": 1, "label": "H4", "seat": 3}, None),
            ("eject_done", {"index": 1, "seat": BOTTOM, "pulse_ms": 70.0, "double": True}, None),
            ("double_feed", {"index": 1, "seat": BOTTOM, "flag": "f", "unseen": 2}, None),
            ("card_read", {"index": 2, "label": None, "ghost": True}, None),         # older: a ghost, no seat
            ("card_read", {"index": 3, "label": "D9", "seat": 1}, None),
            ("eject_done", {"index": 3, "seat": 0, "pulse_ms": 70.0, "double": True}, None),
            ("double_feed", {"index": 3, "seat": 0, "flag": "f", "unseen": 4}, None),
            ("card_read", {"index": 4, "label": None, "unseen": True, "seat": 0}, None),
            ("handed_over", {"index": 4, "card": "CA", "from": 0, "to": 1, "flag": "g"}, None),
            ("card_read", {"index": 5, "label": "SA", "seat": None}, None)]           # left over in the hopper
    assert card_seats(rows) == [2, "bottom", "bottom", 0, 1, None]
    assert card_seats(rows[:10]) == [2, "bottom", "bottom", 0, 0]    # before the hand-over: where it went
