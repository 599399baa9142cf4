"""捉红A: each rule of the rules text legal and illegal, every outcome and declaration,
hidden aces, properties, 2,000 self-played hands refereed with zero violations, and the two commands."""

import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_climbing import broken, ev, held_and_played, judge_events, passes, play, random_step
from typer.testing import CliRunner

from controller.cli import app
from engine.cards import parse_cards
from engine.referee import referee
from engine.zhuohonga import ZhuohongaGame

GAME = ZhuohongaGame()


def judge(hands, events, rules=None):
    return judge_events("zhuohonga", hands, events, rules=rules)


# 2 v 2: seats 0 (♥A, ♥4) and 2 (♦A) against 1 and 3
TWO_TWO = [["H4", "HA"], ["S5", "S6"], ["DA"], ["S7", "S8"]]
OPEN = [play(0, "HA"), *passes(1, 2, 3)]  # ♥A stands; seat 0 leads again
# 1 v 3: seat 0 holds both red aces
ALONE = [["H4", "HA", "DA"], ["S5"], ["S6", "S7"], ["S8", "S9"]]


# ---------------------------------------------------------------------------- play
def test_h4_leads_and_the_leader_may_not_pass():
    v = judge(TWO_TWO, [play(1, "S5"), ev(0, "pass"), play(0, "H4"), play(1, "S4")])
    assert broken(v) == [(0, "turn"), (1, "lead_pass"), (3, "not_in_hand")]
    assert v["leader"] == 0 and v["h4_holder"] == 0


@pytest.mark.parametrize(("lead", "follow", "rule"), [
    (["S6"], ["S7"], None), (["S7"], ["S6"], "follow"), (["S7"], ["H7"], "follow"),
    (["S3", "H3"], ["BJ", "RJ"], None), (["BJ"], ["RJ"], None), (["RJ"], ["S3"], "follow"),
    (["S6", "H6"], ["S7", "H7", "D7"], "follow"), (["S6", "H6", "D6", "C6"], ["S7", "H7", "D7", "C7"], None),
    (["S6"], ["S7", "S8", "S9"], "combo"), (["S6"], ["BJ", "S3"], "combo"),
    (["S6", "H6"], ["SK", "HK", "DK", "CK"], "follow"),
])
def test_combinations_by_rank_with_equal_counts(lead, follow, rule):
    hands = [["H4", *lead, "C5"], [*follow, "C9"], ["HA"], ["DA"]]
    v = judge(hands, [play(0, "H4"), *passes(1, 2, 3), play(0, *lead), play(1, *follow)])
    assert broken(v) == ([] if rule is None else [(5, rule)])


def test_no_runs_in_zhuohonga():
    v = judge([["H4", "S5", "S6", "C9"], ["HA"], ["DA"], ["S8"]], [play(0, "H4", "S5", "S6")])
    assert broken(v) == [(0, "combo")]


def test_dache_after_a_player_goes_out_the_next_seat_leads():
    v = judge(TWO_TWO, [*OPEN, play(0, "H4"), *passes(1, 2, 3), play(2, "DA"), play(1, "S5")])
    assert broken(v) == [(8, "turn")]
    assert v["finishing_order"] == [0] and not v["finished"]


def test_first_lead_must_show_h4_when_the_table_says_so():
    hands = [["H4", "S4", "C9"], ["HA"], ["DA"], ["S8"]]
    v = judge(hands, [play(0, "C9"), play(0, "S4"), play(0, "S4", "H4")], rules={"first_lead_h4": True})
    assert broken(v) == [(0, "lead"), (1, "lead")]
    assert broken(judge(hands, [play(0, "C9")])) == []


# ---------------------------------------------------------------------------- outcomes
def test_wu_ling_first_and_second():
    v = judge(TWO_TWO, [*OPEN, play(0, "H4"), play(1, "S5"), play(2, "DA")])
    assert broken(v) == [] and v["outcome"] == "wu_ling" and v["finished"]
    assert v["winners"] == [0, 2] and v["scores"] == [5, -5, 5, -5] and v["teams"] == [[0, 2], [1, 3]]
    assert v["titles"]["da_gong"] == 0 and v["titles"]["er_gong"] == 2 and v["first_out"] == 0


def test_wu_ling_first_and_third():
    v = judge(TWO_TWO, [*OPEN, play(0, "H4"), play(1, "S5"), *passes(2, 3), play(1, "S6"), play(2, "DA")])
    assert broken(v) == [] and v["outcome"] == "wu_ling" and v["finishing_order"] == [0, 1, 2]
    assert v["scores"] == [5, -5, 5, -5]
    assert v["next_first_seat"] == 3 and v["titles"]["mo_gong"] == 3  # 末贡 is dealt first next


def test_draw_when_the_other_side_takes_second_and_third():
    v = judge(TWO_TWO, [*OPEN, play(0, "H4"), play(1, "S5"), *passes(2, 3), play(1, "S6"), ev(2, "pass"),
                        play(3, "S7"), ev(2, "pass"), play(3, "S8")])
    assert broken(v) == [] and v["outcome"] == "draw" and v["winners"] == [] and v["scores"] == [0, 0, 0, 0]
    assert v["finishing_order"] == [0, 1, 3]


def test_shi_ling_the_lone_holder_goes_out_first():
    v = judge(ALONE, [play(0, "HA", "DA"), *passes(1, 2, 3), play(0, "H4")])
    assert broken(v) == [] and v["outcome"] == "shi_ling" and v["teams"] == [[0], [1, 2, 3]]
    assert v["scores"] == [15, -5, -5, -5] and v["winners"] == [0]


def test_lone_holder_second_is_a_draw_last_is_a_loss():
    v = judge(ALONE, [play(0, "H4"), play(1, "S5"), play(2, "S6"), play(3, "S8"), play(0, "HA"), *passes(2, 3),
                      play(0, "DA")])
    assert broken(v) == [] and v["outcome"] == "draw" and v["scores"] == [0, 0, 0, 0]
    assert v["finishing_order"] == [1, 0]
    alone = [["H4", "HA", "DA"], ["S5"], ["S6"], ["S7"]]
    v = judge(alone, [play(0, "H4"), play(1, "S5"), play(2, "S6"), play(3, "S7")])
    assert broken(v) == [] and v["outcome"] == "lost_alone" and v["scores"] == [-15, 5, 5, 5]
    assert v["winners"] == [1, 2, 3] and v["next_first_seat"] == 0


# ---------------------------------------------------------------------------- declarations
def test_du_xuan_must_take_da_gong():
    v = judge(ALONE, [ev(0, "xuan"), play(0, "HA", "DA"), *passes(1, 2, 3), play(0, "H4")])
    assert v["xuan"] == "du_xuan" and v["multiplier"] == 2 and v["scores"] == [30, -10, -10, -10]
    v = judge(ALONE, [ev(0, "xuan"), play(0, "H4"), play(1, "S5"), ev(2, "pass")])
    assert broken(v) == [(3, "finished")]  # no 平局: decided at the first seat out
    assert v["outcome"] == "lost_alone" and v["scores"] == [-30, 10, 10, 10]


def test_fan_xuan_by_the_whole_other_side_doubles_again():
    events = [ev(0, "xuan"), ev(1, "fan_xuan"), ev(2, "fan_xuan"), ev(3, "fan_xuan"),
              play(0, "HA", "DA"), *passes(1, 2, 3), play(0, "H4")]
    v = judge(ALONE, events)
    assert broken(v) == [] and v["fan_xuan"] and v["multiplier"] == 4 and v["scores"] == [60, -20, -20, -20]
    v = judge(ALONE, [events[0], events[1], *events[4:]])
    assert not v["fan_xuan"] and v["multiplier"] == 2 and v["fan_xuan_by"] == [1]


def test_xuan_with_consent_doubles_and_refusal_scores_normally():
    finish = [*OPEN, play(0, "H4"), play(1, "S5"), play(2, "DA")]
    v = judge(TWO_TWO, [ev(2, "xuan"), ev(0, "xuan_consent"), *finish])
    assert broken(v) == [] and v["xuan"] == "xuan" and v["xuan_by"] == 2 and v["scores"] == [10, -10, 10, -10]
    v = judge(TWO_TWO, [ev(2, "xuan"), ev(0, "xuan_consent"), ev(1, "fan_xuan"), ev(3, "fan_xuan"), *finish])
    assert v["multiplier"] == 4 and v["scores"] == [20, -20, 20, -20]
    v = judge(TWO_TWO, [ev(2, "xuan"), ev(0, "xuan_refuse"), ev(1, "fan_xuan"), *finish])
    assert broken(v) == [(2, "fan_xuan")] and v["xuan"] == "refused" and v["scores"] == [5, -5, 5, -5]


def test_xuan_violations():
    events = [ev(1, "xuan"), ev(2, "xuan"), play(0, "HA"), ev(1, "xuan_consent"), ev(0, "xuan_consent"),
              ev(0, "xuan"), ev(0, "fan_xuan"), ev(1, "fan_xuan"), ev(1, "fan_xuan"), play(0, "HA"),
              ev(3, "fan_xuan"), ev(0, "xuan_refuse")]
    v = judge(TWO_TWO, events)
    assert broken(v) == [(0, "xuan"), (2, "turn"), (3, "xuan"), (5, "xuan"), (6, "fan_xuan"), (8, "fan_xuan"),
                         (10, "phase"), (11, "xuan")]
    v = judge(TWO_TWO, [ev(2, "xuan"), ev(0, "xuan_refuse"), ev(0, "xuan")])
    assert broken(v) == [(2, "xuan")]  # one 宣 a hand
    v = judge(TWO_TWO, [ev(2, "xuan"), ev(0, "xuan_consent"), ev(1, "fan_xuan")], rules={"fan_xuan": False})
    assert broken(v) == [(2, "fan_xuan")]


def test_you_xuan_bi_gen_needs_no_consent():
    v = judge(TWO_TWO, [ev(2, "xuan"), ev(0, "xuan_consent")], rules={"you_xuan_bi_gen": True})
    assert broken(v) == [(1, "xuan")] and v["xuan"] == "xuan" and v["multiplier"] == 2


def test_tian_xuan_a_red_ace_among_the_first_three_cards():
    hands = [["S9", "H4", "S10", "HA"], ["S5", "DA"], ["S6"], ["S7"]]
    v = judge(hands, [], rules={"tian_xuan": True})
    assert v["xuan"] == "xuan" and v["tian_xuan"] and v["multiplier"] == 2 and v["xuan_by"] == 1
    v = judge([["S9", "H4", "S10", "HA"], ["S5", "S6", "S7", "DA"], ["S8"], ["C7"]], [], rules={"tian_xuan": True})
    assert v["xuan"] is None and not v["tian_xuan"]
    v = judge([["HA", "H4", "DA"], ["S5"], ["S6"], ["S7"]], [ev(0, "xuan")], rules={"tian_xuan": True})
    assert v["xuan"] == "du_xuan" and broken(v) == [(0, "xuan")]


# ---------------------------------------------------------------------------- hidden aces
def test_aces_are_face_down_until_the_end():
    state = GAME.new_state([parse_cards(h) for h in TWO_TWO], [], GAME.settings())
    for a in OPEN[:2]:
        assert state.judge(a) == []
    for seat in (None, 0, 1, 2, 3):
        view = state.public_view(seat)
        text = json.dumps(view)
        assert "?A" in json.dumps(view["history"]) and view["trick"]["standing"]["cards"] == ["?A"]
        assert '"HA"' not in text and ('"DA"' in text) == (seat == 2)  # only in its holder's own hand
        assert view["red_side"] is None
    for a in [*OPEN[2:], play(0, "H4"), play(1, "S5"), play(2, "DA")]:
        assert state.judge(a) == []
    view = state.public_view(1)
    assert ["HA"] in [a.get("cards") for a in view["history"]] and view["red_side"] == [0, 2]


def test_a_successful_xuan_turns_the_aces_face_up():
    state = GAME.new_state([parse_cards(h) for h in TWO_TWO], [], GAME.settings())
    for a in [ev(0, "xuan"), ev(2, "xuan_consent"), play(0, "HA")]:
        assert state.judge(a) == []
    assert state.public_view(3)["trick"]["standing"]["cards"] == ["HA"]


def test_settings_are_typed_and_checked():
    assert GAME.settings().extra_cards == "first_two" and not GAME.settings().tian_xuan
    assert GAME.settings("hebei-tianxuan").tian_xuan and GAME.settings("hebei-youxuanbigen").you_xuan_bi_gen
    for bad in ({"extra_cards": "middle"}, {"base": 0}, {"tian_xuan": "yes"}, {"unknown": True}):
        with pytest.raises(ValueError):
            GAME.settings(None, bad)


def test_the_deal_gives_the_extra_cards_to_the_first_two_seats_dealt():
    rng = random.Random(5)
    hands = GAME.deal(rng, GAME.settings(), first_seat=2)
    assert [len(h) for h in hands] == [13, 13, 14, 14]
    hands = GAME.deal(rng, GAME.settings(None, {"extra_cards": "last_two"}), first_seat=0)
    assert [len(h) for h in hands] == [13, 13, 14, 14]
    assert Counter(c for h in hands for c in h) == Counter(str(c) for c in GAME.deal_plan(GAME.settings()).deck.cards())


# ---------------------------------------------------------------------------- properties
def _no_hidden_card_in_view(state, seat):
    view = state.public_view(seat)
    text = json.dumps(view["history"]) + json.dumps(view["trick"])
    if not (state.xuan_ok or state.over):
        for ace in ("HA", "DA", "SA", "CA"):
            assert f'"{ace}"' not in text
    rest = json.dumps({k: v for k, v in view.items() if k not in ("hand", "verdict")})  # the verdict: hand over
    for other in range(4):
        if other != seat:
            for card in state.hands[other].cards():
                assert f'"{card}"' not in rest, (seat, card)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), tian=st.booleans(), bi_gen=st.booleans(), first=st.integers(0, 3))
def test_random_playouts_keep_every_invariant(seed, tian, bi_gen, first):
    rng = random.Random(seed)
    s = GAME.settings(None, {"tian_xuan": tian, "you_xuan_bi_gen": bi_gen})
    hands = GAME.deal(rng, s, first)
    state = GAME.new_state(hands, [], s)
    full = Counter(c for h in hands for c in h)
    for _ in range(800):
        if state.is_terminal():
            break
        other = rng.randrange(4)  # declarations come from any seat
        random_step(state, rng, [a for a in state.legal_actions(other) if a["action"] in ("xuan", "fan_xuan")])
        assert held_and_played(state) == full, "cards are conserved"
        _no_hidden_card_in_view(state, rng.randrange(4))
    assert state.is_terminal() and sum(state.returns()) == 0


def test_two_thousand_self_played_hands_referee_clean_with_every_outcome():
    rng = random.Random(2026)
    seen = Counter()
    first = 0
    for i in range(2000):
        record = GAME.bot_hand(rng, bot="random" if i % 3 == 0 else "greedy", first_seat=first)
        verdict = referee(record)
        assert verdict["violations"] == [] and verdict["finished"]
        assert sum(verdict["scores"]) == 0 and verdict == record["verdict"]
        seen[verdict["outcome"], verdict["multiplier"]] += 1
        first = record["next_first_seat"]
    for outcome in ("shi_ling", "wu_ling", "draw", "lost_alone"):
        assert {m for o, m in seen if o == outcome} >= ({1, 2, 4} if outcome != "draw" else {1, 2}), seen


# ---------------------------------------------------------------------------- commands
def test_selfplay_and_referee_commands(tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["selfplay", "--game", "zhuohonga", "-n", "5", "--seed", "9", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 5
    result = runner.invoke(app, ["referee", str(files[0])])
    assert result.exit_code == 0, result.output
    verdict = json.loads(result.stdout)
    assert verdict["game"] == "zhuohonga" and verdict["violations"] == [] and sum(verdict["scores"]) == 0
    assert verdict == json.loads(files[0].read_text())["verdict"]


def test_face_up_aces_and_base_settings():
    state = GAME.new_state(TWO_TWO, [], GAME.settings(None, {"aces_face_down": False}))
    assert state.judge(OPEN[0]) == [] and state.public_view(3)["trick"]["standing"]["cards"] == ["HA"]
    v = judge(TWO_TWO, [*OPEN, play(0, "H4"), play(1, "S5"), play(2, "DA")], rules={"base": 2})
    assert v["scores"] == [10, -10, 10, -10]
