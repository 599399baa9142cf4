"""Deal plans per game, the first-player rule per game, and the queued voice."""

import shutil
import stat
import time
import wave
from collections import Counter

import pytest

from controller import fair_deal
from controller.announce import Voice, card_zh, first_player
from controller.plan import BOTTOM, PlanError, make_plan, rebalance_after_double_feed

SIZES = {"hongsi": (4, 52, 0), "wakeng": (3, 52, 4), "zhuohonga": (4, 54, 0), "gongzhu": (4, 52, 0),
         "shengji": (4, 108, 8)}


@pytest.mark.parametrize("game", list(SIZES))
@pytest.mark.parametrize("fair", [False, True])
def test_plan_counts_for_every_game(game, fair):
    seats, total, bottom = SIZES[game]
    plan = make_plan(game, first_seat=1, fair=fair)
    assert (plan.seats, plan.total, plan.bottom) == (seats, total, bottom)
    counts = Counter(plan.order)
    assert counts.get(BOTTOM, 0) == bottom
    assert [counts[s] for s in range(seats)] == list(plan.cards_per_seat)
    if not fair:
        assert plan.order[0] == 1 and plan.order[1] == 2 % seats   # counter-clockwise from seat 1
        assert plan.seed is None
    else:
        assert plan.commitment == fair_deal.commitment(plan.seed)
        assert plan.order == fair_deal.assignment(plan.seed, fair_deal.slots(plan.cards_per_seat, bottom))


def test_first_seat_defaults_to_the_previous_winner_then_zero():
    assert make_plan("hongsi", fair=False, previous_winner=3).first_seat == 3
    assert make_plan("hongsi", fair=False).first_seat == 0
    assert make_plan("hongsi", fair=False, first_seat=2, previous_winner=3).first_seat == 2
    with pytest.raises(PlanError, match="out of range"):
        make_plan("wakeng", first_seat=3)
    with pytest.raises(PlanError, match="unknown game"):
        make_plan("poker")


def test_plan_survives_the_journal_round_trip():
    from controller.plan import Plan

    plan = make_plan("shengji", first_seat=2)
    again = Plan.from_json(plan.to_json())
    assert again.order == plan.order and again.seed == plan.seed and again.deck == plan.deck


def test_rebalance_after_a_double_feed_keeps_every_seats_count():
    order = fair_deal.round_robin([13] * 4, 0, 0)
    new = rebalance_after_double_feed(order, 5, actual=0)   # card 5 (planned seat 1) went to seat 0
    assert new[5] == 0 and Counter(new) == Counter(order)
    assert new[:5] == order[:5]


def _deal_hands(holder_of: dict[str, int], seats: int = 4) -> list[list[str]]:
    hands = [[] for _ in range(seats)]
    for card, seat in holder_of.items():
        hands[seat].append(card)
    return hands


def test_first_player_rules_per_game():
    hands = _deal_hands({"H4": 2, "C2": 1, "H5": 0, "S3": 3})
    fp = first_player("hongsi", hands, [])
    assert (fp.seat, fp.card) == (2, "H4") and fp.text_zh == "红桃四在三号位，三号先出"
    assert "Seat 3" in fp.text_en and "4 of hearts" in fp.text_en
    assert first_player("zhuohonga", hands, []).seat == 2
    assert (first_player("gongzhu", hands, []).seat, first_player("gongzhu", hands, []).card) == (1, "C2")
    assert first_player("shengji", hands, [], dealer=3).seat == 3
    # 挖坑: ♥4 in the bottom → the lowest heart in climbing order (5 before A, 2 and 3)
    wk = _deal_hands({"HA": 0, "H2": 1, "H5": 2}, seats=3)
    fp = first_player("wakeng", wk, ["H4"])
    assert (fp.seat, fp.card, fp.rule) == (2, "H5", "lowest heart")
    assert first_player("wakeng", _deal_hands({"H4": 1, "H5": 2}, 3), []).seat == 1
    with pytest.raises(ValueError, match="no seat holds H4"):
        first_player("hongsi", _deal_hands({"S4": 0}), [])


def test_card_names_in_chinese():
    assert [card_zh(c) for c in ("H4", "C2", "S10", "RJ", "DA")] == ["红桃四", "梅花二", "黑桃十", "大王", "方块A"]


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_voice_writes_a_plausible_wav(tmp_path):
    voice = Voice()
    path = voice.wav("红桃四在三号位，三号先出", tmp_path / "a.wav")
    voice.close()
    with wave.open(str(path)) as w:
        seconds = w.getnframes() / w.getframerate()
    assert 1.0 < seconds < 8.0, seconds


def test_announcements_never_overlap(tmp_path):
    """A stand-in espeak-ng that logs when each utterance starts and ends; the queue runs them in turn."""
    log = tmp_path / "log.txt"
    fake = tmp_path / "espeak"
    fake.write_text(f"#!/bin/sh\necho start $(date +%s.%N) >> {log}\nsleep 0.15\necho end $(date +%s.%N) >> {log}\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    voice = Voice(espeak=str(fake))
    t0 = time.monotonic()
    for text in ("一", "二", "三"):
        voice.say(text)                                   # returns at once: queued
    assert time.monotonic() - t0 < 0.1
    voice.close()
    events = [line.split() for line in log.read_text().splitlines()]
    assert [e[0] for e in events] == ["start", "end"] * 3   # never two starts in a row


def test_voice_falls_back_to_text_without_espeak():
    said = []
    voice = Voice(espeak="/nonexistent/espeak-ng", fallback=said.append)
    voice.say("三号先出", "Seat 3 plays first.")
    voice.close()
    assert said == ["三号先出 — Seat 3 plays first."]
