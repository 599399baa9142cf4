"""红桃四 referee: for every rule id of the digest, a legal case and a violation; the digest's examples;
the leaders; count announcements. Hands are built so that the cards say who holds what (see
``engine.hongsi.examples``: seat 0 holds the hearts, 1 the spades, 2 the diamonds, 3 the clubs)."""

import pytest

from engine.hongsi.examples import (
    DIGEST_EXAMPLES,
    SUITED,
    accept,
    announce,
    baomen,
    call,
    hands_with,
    pa,
    pass_,
    play,
    record,
    refuse,
    tiao,
)
from engine.referee import referee

STRAIGHT_0 = [f"H{r}" for r in ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")]


def judge(events, hands=SUITED, **rules):
    return referee(record(hands, events, **rules))


def found(v):
    """(event, rule, severity) of every violation."""
    return [(x["event"], x["rule"], x["severity"]) for x in v["violations"]]


def test_violations_carry_both_languages():
    v = judge([play(0, "H4")])
    (x,) = v["violations"]
    assert x["message"] and x["message_zh"] and x["message"] != x["message_zh"]
    assert any("\u4e00" <= ch <= "\u9fff" for ch in x["message_zh"])


# ---------------------------------------------------------------- turn
def test_turn():
    assert found(judge([call(0, "S10"), play(0, "H4"), play(1, "S5")])) == []
    assert found(judge([call(0, "S10"), play(1, "S5")])) == [(1, "turn", "error")]
    assert found(judge([call(0, "S10"), play(0, "H4"), play(2, "D5")])) == [(2, "turn", "error")]


def test_turn_spectator_and_lying_down_seat():
    v = judge([tiao(1), tiao(2), play(1, "S4"), play(0, "H5")])  # seat 0 watches the 对挑
    assert found(v) == [(3, "turn", "error")]
    v = judge([call(0, "S10"), pa(1, 0), accept(0), play(1, "S4"), play(2, "D5"), play(3, "C6"), play(0, "H7")])
    assert found(v) == [(6, "turn", "error")]


# ---------------------------------------------------------------- phase
def test_phase_play_or_pass_before_the_call():
    assert found(judge([play(0, "H4")])) == [(0, "phase", "error")]
    assert found(judge([pass_(1)])) == [(0, "phase", "error")]
    assert found(judge([call(0, "S10"), play(0, "H4")])) == []


def test_phase_declarations_close_at_the_call_and_at_the_first_play():
    assert found(judge([call(0, "S10"), tiao(2)])) == [(1, "phase", "error")]
    assert found(judge([call(0, "S10"), baomen(0)])) == [(1, "phase", "error")]
    assert found(judge([tiao(2), play(0, "H4"), tiao(1)])) == [(2, "phase", "error")]
    assert found(judge([tiao(2), tiao(1)])) == []


def test_phase_second_call_call_in_declared_mode_and_unknown_action():
    assert found(judge([call(0, "S10"), call(0, "S9")])) == [(1, "phase", "error")]
    assert found(judge([tiao(3), call(0, "S9")])) == [(1, "phase", "error")]
    assert found(judge([{"seat": 0, "action": "dance"}])) == [(0, "phase", "error")]


def test_phase_pa_before_call_and_answer_after_play():
    assert found(judge([pa(1, 0)])) == [(0, "phase", "error")]
    v = judge([call(0, "S10"), pa(1, 0), play(0, "H4"), accept(0)])
    assert found(v) == [(3, "phase", "error")]
    assert v["mode"] == "normal" and v["lying_down"] == []  # unanswered at the first play: refused


# ---------------------------------------------------------------- not_in_hand
def test_not_in_hand():
    assert found(judge([call(0, "S10"), play(0, "S4")])) == [(1, "not_in_hand", "error")]
    assert found(judge([call(0, "S10"), play(0, "H4", "H4")])) == [(1, "not_in_hand", "error")]
    v = judge([call(0, "S10"), play(0, "H4"), pass_(1), pass_(2), pass_(3), play(0, "H4")])
    assert found(v) == [(5, "not_in_hand", "error")]  # already played


# ---------------------------------------------------------------- combo
@pytest.mark.parametrize("cards,rules,ok", [
    (["H4", "H5", "H6"], {}, True),                                  # straight
    (STRAIGHT_0, {}, True),                                          # the longest straight 4..K
    (["H4", "H6"], {}, False),
    (["HK", "HA", "H2"], {}, False),                                 # A, 2, 3 never in a straight
    (["HQ", "HK", "HA"], {}, False),
    (["H4", "H5"], {}, False),                                       # two ranks: no combination
    (["H4", "S4", "H5", "S5", "H6", "S6"], {}, True),               # 445566
    (["H4", "S4", "H5", "S5"], {}, False),                           # 4455 with min_pair_run 3
    (["H4", "S4", "H5", "S5"], {"min_pair_run": 2}, True),
    (["HK", "SK", "HA", "SA", "H2", "S2"], {}, False),               # KKAA22: A, 2 not in a run
    (["H4", "S4", "D4", "H5"], {}, False),                           # 三带一 is not a combination
    (["H4", "S4", "D4", "C4"], {}, False),                           # no bombs by default
    (["H4", "S4", "D4", "C4"], {"bombs": True}, True),
])
def test_combo(cards, rules, ok):
    hands = hands_with({0: cards + (["H4"] if "H4" not in cards else [])})
    v = judge([call(0, "S10"), play(0, *cards)], hands=hands, **rules)
    assert found(v) == ([] if ok else [(1, "combo", "error")])


# ---------------------------------------------------------------- follow / lead_pass
def test_follow_same_kind_same_size_higher():
    base = [call(0, "S10"), play(0, "H6")]
    assert found(judge(base + [play(1, "S7")])) == []
    assert found(judge(base + [play(1, "S6")])) == [(2, "follow", "error")]  # equal is not higher
    assert found(judge(base + [play(1, "S5")])) == [(2, "follow", "error")]
    base = [call(0, "S10"), play(0, "H4", "H5", "H6")]
    assert found(judge(base + [play(1, "S5", "S6", "S7")])) == []
    assert found(judge(base + [play(1, "S5", "S6", "S7", "S8")])) == [(2, "follow", "error")]
    assert found(judge(base + [play(1, "S3")])) == [(2, "follow", "error")]


def test_follow_bombs_beat_non_bombs_and_lower_bombs():
    hands = hands_with({1: ["S5", "H5", "D5", "C5"], 2: ["S6", "H6", "D6", "C6"]})
    events = [call(0, "S10"), play(0, "H4"), play(1, "S5", "H5", "D5", "C5"), play(2, "S6", "H6", "D6", "C6")]
    v = judge(events, hands=hands, bombs=True)
    assert found(v) == [] and v["bombs"] == 2
    events = [call(0, "S10"), play(0, "H4"), play(2, "S6", "H6", "D6", "C6")]
    v = judge(events[:2] + [pass_(1)] + events[2:] + [play(3, "C3")], hands=hands, bombs=True)
    assert found(v) == [(4, "follow", "error")]  # nothing but a higher bomb beats a bomb


def test_passes_count_since_the_last_play():
    events = [call(0, "S10"), play(0, "H4"), pass_(1), play(2, "D5"), pass_(3), pass_(0), play(1, "S6")]
    assert found(judge(events)) == []
    # everyone else passed: the player who made the last play leads again, anything
    events = [call(0, "S10"), play(0, "H4"), pass_(1), pass_(2), pass_(3), play(0, "H5", "H6", "H7")]
    assert found(judge(events)) == []


def test_lead_pass():
    assert found(judge([call(0, "S10"), pass_(0)])) == [(1, "lead_pass", "error")]
    events = [call(0, "S10"), play(0, "H4"), pass_(1), pass_(2), pass_(3), pass_(0)]
    assert found(judge(events)) == [(5, "lead_pass", "error")]
    assert found(judge([call(0, "S10"), play(0, "H4"), pass_(1)])) == []


# ---------------------------------------------------------------- call
@pytest.mark.parametrize("seat,card,ok", [
    (0, "S10", True), (0, "D4", True), (0, "H5", True),
    (1, "S10", False), (0, "H4", False), (0, "SJ", False), (0, "S3", False), (0, None, False),
])
def test_call(seat, card, ok):
    event = call(seat, card) if card else {"seat": seat, "action": "call"}
    v = judge([event])
    assert found(v) == ([] if ok else [(0, "call", "error")])


def test_call_sets_partner_and_anjiao():
    v = judge([call(0, "D7")])
    assert (v["mode"], v["partner"], v["teams"]) == ("normal", 2, [[0, 2], [1, 3]])
    v = judge([call(0, "H7")])
    assert (v["mode"], v["partner"], v["teams"], v["exposed"]) == ("anjiao", None, [[0], [1, 2, 3]], False)


# ---------------------------------------------------------------- tiao / baomen
def test_tiao():
    v = judge([tiao(2)])
    assert found(v) == [] and v["mode"] == "dantiao" and v["teams"] == [[0, 1, 3], [2]]
    assert found(judge([tiao(2), tiao(2)])) == [(1, "tiao", "error")]
    assert found(judge([tiao(2), tiao(1), tiao(3)])) == [(2, "tiao", "error")]
    assert found(judge([baomen(0), tiao(1)])) == [(1, "tiao", "error")]


def test_baomen():
    v = judge([tiao(1), tiao(2), baomen(0)])
    assert found(v) == [] and v["mode"] == "baomen" and v["spectators"] == []  # 爆闷 voids the 挑s
    assert found(judge([baomen(1)])) == [(0, "baomen", "error")]
    assert found(judge([baomen(0), baomen(0)])) == [(1, "baomen", "error")]


# ---------------------------------------------------------------- pa
def test_pa_legal_requests_and_answers():
    v = judge([call(0, "S10"), pa(2, 3), refuse(3), pa(3, 2), accept(2)])
    assert found(v) == [] and v["mode"] == "pa" and v["lying_down"] == [2]


@pytest.mark.parametrize("events,at", [
    ([call(0, "S10"), pa(1, 1)], 1),                      # oneself
    ([call(0, "S10"), pa(1, 2)], 1),                      # not a teammate
    ([call(0, "S10"), pa(0, 3)], 1),
    ([tiao(1), pa(2, 3)], 1),                             # in 单挑
    ([tiao(1), tiao(3), pa(0, 2)], 2),                    # in 对挑
    ([baomen(0), pa(1, 2)], 1),                           # in 爆闷
    ([call(0, "S10"), accept(1)], 1),                     # answering a request not made to you
    ([call(0, "S10"), pa(2, 3), accept(1)], 2),
    ([call(0, "S10"), pa(2, 3), accept(3), pa(3, 2)], 3),  # a request by a lying-down player
    ([call(0, "S10"), pa(2, 3), refuse(3), pa(2, 3)], 3),  # a second request by the same seat
    ([call(0, "H10"), pa(0, 1)], 1),                      # in 暗叫 the caller has no teammate
])
def test_pa_violations(events, at):
    assert found(judge(events)) == [(at, "pa", "error")]


# ---------------------------------------------------------------- count (warning)
def _to_three_left():
    """Seat 0 plays a 10-card straight and holds 3 cards."""
    return [call(0, "S10"), play(0, *STRAIGHT_0)]


def test_count_announced():
    assert found(judge(_to_three_left() + [announce(0, 3), pass_(1)])) == []


def test_count_missing_is_a_warning_on_the_play_and_the_action_stands():
    v = judge(_to_three_left() + [pass_(1), pass_(2)])
    assert found(v) == [(1, "count", "warning")]


def test_count_wrong_or_not_due_is_a_warning_on_the_announce():
    assert found(judge(_to_three_left() + [announce(0, 2), pass_(1)])) == [(2, "count", "warning")]
    assert found(judge([call(0, "S10"), play(0, "H4"), announce(0, 12)])) == [(2, "count", "warning")]
    assert found(judge(_to_three_left() + [announce(1, 13), announce(0, 3)])) == [(2, "count", "warning")]


@pytest.mark.parametrize("stray", [play(2, "D4"), play(0, "H3"), tiao(3), {"seat": 1, "action": "shout"}])
def test_count_a_refused_action_does_not_close_the_announcement(stray):
    """A refused action is not applied, so it does not use up the announcer's turn to announce: only the
    error is reported, not a missing or an untimely count."""
    v = judge(_to_three_left() + [stray, announce(0, 3), pass_(1)])
    assert [(r, s) for _, r, s in found(v)] == [(found(v)[0][1], "error")] and found(v)[0][0] == 2


def test_count_an_applied_action_before_the_announcement_still_closes_it():
    assert found(judge(_to_three_left() + [pass_(1), announce(0, 3)])) == [(1, "count", "warning"),
                                                                          (3, "count", "warning")]


def test_count_record_ending_after_the_play_draws_no_warning():
    assert found(judge(_to_three_left())) == []


def test_count_announce_at_setting():
    assert found(judge(_to_three_left() + [pass_(1)], count_announce_at=2)) == []
    hands = hands_with({0: ["H4", "H5", "H6", "H7", "H8", "H9", "H10", "HJ", "S4", "S5", "S6", "S7", "S8"]})
    events = [call(0, "S10"), play(0, "H4", "H5", "H6", "H7", "H8", "H9", "H10", "HJ"), pass_(1)]
    assert found(judge(events, hands=hands, count_announce_at=5)) == [(1, "count", "warning")]
    assert found(judge(events, hands=hands)) == []


# ---------------------------------------------------------------- finished
def test_finished():
    done = DIGEST_EXAMPLES["baomen_failure"]["events"]
    assert found(judge(done)) == []
    assert found(judge(done + [pass_(2)])) == [(3, "finished", "error")]
    assert found(judge(done + [announce(1, 12)])) == [(3, "finished", "error")]


def test_precedence_finished_phase_turn_not_in_hand_combo():
    done = DIGEST_EXAMPLES["baomen_failure"]["events"]
    assert found(judge(done + [play(3, "S4", "H9")])) == [(3, "finished", "error")]
    assert found(judge([play(1, "H4", "D9")])) == [(0, "phase", "error")]
    assert found(judge([call(0, "S10"), play(1, "H4", "D9")])) == [(1, "turn", "error")]
    assert found(judge([call(0, "S10"), play(0, "S4", "H9")])) == [(1, "not_in_hand", "error")]
    assert found(judge([call(0, "S10"), play(0, "H4", "H9")])) == [(1, "combo", "error")]


def test_a_rejected_event_is_not_applied_and_judging_goes_on():
    v = judge([call(0, "S10"), play(1, "S4"), play(0, "H4", "H6"), play(0, "H4"), play(1, "S5")])
    assert found(v) == [(1, "turn", "error"), (2, "combo", "error")]
    assert v["leader"] == 0


# ---------------------------------------------------------------- the digest's examples
def test_pa_three_cases():
    v = referee(DIGEST_EXAMPLES["pa_case_1_partner_asks_h4"])
    assert (v["mode"], v["lying_down"], v["leader"], v["violations"]) == ("pa", [0], 1, [])
    v = referee(DIGEST_EXAMPLES["pa_case_2_the_other_side"])
    assert (v["mode"], v["lying_down"], v["leader"], v["violations"]) == ("pa", [3], 0, [])
    v = referee(DIGEST_EXAMPLES["pa_case_3_h4_asks_partner"])
    assert (v["mode"], v["lying_down"], v["leader"], v["violations"]) == ("pa", [1], 0, [])
    # case 1, but the ♥4 holder tries to lead although lying down
    bad = [call(0, "S10"), pa(1, 0), accept(0), play(0, "H4")]
    assert found(judge(bad)) == [(3, "turn", "error")]


def test_dui_pa():
    v = referee(DIGEST_EXAMPLES["dui_pa"])
    assert (v["mode"], v["lying_down"], v["leader"], v["violations"]) == ("dui_pa", [0, 3], 1, [])
    # the two askers play 1 vs 1
    events = DIGEST_EXAMPLES["dui_pa"]["events"] + [play(2, "D5"), play(1, "S6")]
    assert found(judge(events)) == []


def test_anjiao_exposed():
    v = referee(DIGEST_EXAMPLES["anjiao_exposed"])
    assert (v["mode"], v["exposed"], v["lying_down"], v["leader"]) == ("anjiao", True, [], 0)
    assert v["violations"] == [] and v["teams"] == [[0], [1, 2, 3]]
    # nobody lies down: seat 3 still plays; a later 趴 is refused
    assert found(judge([call(0, "H10"), pa(2, 3), accept(3), pa(1, 2)])) == [(3, "pa", "error")]
    events = DIGEST_EXAMPLES["anjiao_exposed"]["events"] + [play(1, "S5"), play(2, "D6"), play(3, "C7")]
    assert found(judge(events)) == []


def test_anjiao_refused_pa_stays_hidden():
    v = judge([call(0, "H10"), pa(2, 3), refuse(3), play(0, "H4")])
    assert (v["mode"], v["exposed"], v["violations"]) == ("anjiao", False, [])


def test_baomen_success_and_failure():
    v = referee(DIGEST_EXAMPLES["baomen_success"])
    assert (v["finished"], v["first_out"], v["winners"], v["scores"], v["next_first_seat"]) == (
        True, 0, [0], [24, -8, -8, -8], 0)
    assert v["violations"] == []
    v = referee(DIGEST_EXAMPLES["baomen_failure"])
    assert (v["finished"], v["first_out"], v["winners"], v["scores"], v["next_first_seat"]) == (
        True, None, [1, 2, 3], [-24, 8, 8, 8], 1)


def test_baomen_passes_do_not_intercept():
    events = [baomen(0), play(0, "H4"), pass_(1), pass_(2), pass_(3), play(0, "H5")]
    v = judge(events)
    assert not v["finished"] and found(v) == []


# ---------------------------------------------------------------- leaders
def _rotated(k):
    """SUITED moved k seats on: seat k holds the hearts."""
    return [SUITED[(s - k) % 4] for s in range(4)]


def test_duitiao_leader_duelist_with_h4():
    v = judge([tiao(2), tiao(0), play(0, "H4")])
    assert (v["mode"], v["leader"], v["spectators"], v["teams"]) == ("duitiao", 0, [1, 3], [[0], [2]])
    assert found(judge([tiao(2), tiao(0), play(2, "D4")])) == [(2, "turn", "error")]


def test_duitiao_leader_heart_order():
    hands = hands_with({1: ["H6"] + [f"S{r}" for r in "45678"], 3: ["H5"], 2: ["H7", "H8"]})
    v = judge([tiao(1), tiao(2), play(2, "H7")], hands=hands)  # ♥5 is the spectator's: ♥6 decides
    assert found(v) == [(2, "turn", "error")]
    v = judge([tiao(1), tiao(2), play(1, "H6")], hands=hands)
    assert found(v) == [] and v["leader"] == 1 and v["teams"] == [[1], [2]]  # neither has ♥4: seat order
    hands = hands_with({0: [f"H{r}" for r in ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")],
                        3: ["H3"]})
    v = judge([tiao(3), tiao(1), play(3, "H3")], hands=hands)  # ♥3 comes last in the order
    assert found(v) == [] and v["leader"] == 3 and v["teams"] == [[1], [3]]


def test_duitiao_leader_without_hearts_is_the_first_duelist_after_h4():
    v = judge([tiao(3), tiao(1), play(1, "S4")])  # seat 0 holds every heart
    assert found(v) == [] and v["leader"] == 1
    hands = _rotated(2)  # seat 2 holds the hearts; duelists 0 and 3: after 2 comes 3
    v = judge([tiao(0), tiao(3), play(3, "S4")], hands=hands)
    assert found(v) == [] and v["leader"] == 3
    assert found(judge([tiao(0), tiao(3), play(0, "D4")], hands=hands)) == [(2, "turn", "error")]


def test_dantiao_h4_leads_even_if_not_the_declarer():
    v = judge([tiao(2), play(0, "H4")])
    assert found(v) == [] and v["leader"] == 0 and v["teams"] == [[0, 1, 3], [2]]
