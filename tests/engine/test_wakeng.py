"""陕西挖坑: each rule of the rules text legal and illegal, every scoring outcome, properties,
2,000 self-played hands refereed with zero violations, and the two commands."""

import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_climbing import broken, ev, held_and_played, judge_events, play, random_step
from typer.testing import CliRunner

from controller.cli import app
from engine.cards import parse_cards
from engine.referee import referee
from engine.wakeng import WakengGame

GAME = WakengGame()


def judge(hands, events, bottom=(), rules=None, preset=None):
    return judge_events("wakeng", hands, events, bottom, rules, preset)


# ---------------------------------------------------------------------------- bidding and 黑挖
def test_lowest_heart_bids_first_then_counter_clockwise():
    hands = [["S5"], ["H4"], ["S6"]]
    v = judge(hands, [ev(0, "bid", value=1), ev(1, "bid", value=1), ev(2, "bid", value=2),
                      ev(0, "bid", value=0)])
    assert broken(v) == [(0, "turn")]
    assert v["first_bidder"] == 1 and v["digger"] == 2 and v["bid"] == 2


def test_h4_in_the_bottom_the_lowest_heart_bids_and_leads():
    hands = [["S5", "H6"], ["H5", "S7"], ["S6", "HK"]]
    v = judge(hands, [ev(1, "bid", value=0), ev(2, "bid", value=2), ev(0, "bid", value=0),
                      ev(2, "take_bottom"), play(2, "H4"), play(1, "H5")], bottom=["H4"])
    assert broken(v) == [(4, "turn")]
    assert v["first_bidder"] == 1 and v["leader"] == 1
    v = judge(hands, [ev(1, "bid", value=0), ev(2, "bid", value=2), ev(0, "bid", value=0),
                      ev(2, "take_bottom"), play(2, "H4")], bottom=["H4"], rules={"h4_in_bottom_lead": "digger"})
    assert broken(v) == [] and v["leader"] == 2


def test_each_bid_must_be_higher_and_three_ends_the_bidding():
    hands = [["H4"], ["S5"], ["S6"]]
    v = judge(hands, [ev(0, "bid", value=2), ev(1, "bid", value=2), ev(1, "bid", value=1),
                      ev(1, "bid", value=4), ev(1, "bid", value=3), ev(2, "bid", value=0)])
    assert broken(v) == [(1, "bid"), (2, "bid"), (3, "bid"), (5, "phase")]
    assert v["digger"] == 1 and v["bid"] == 3 and v["bids"] == [[0, 2], [1, 3]]


def test_all_pass_the_first_bidder_digs_at_one():
    v = judge([["S5"], ["S6"], ["H4"]], [ev(2, "bid", value=0), ev(0, "bid", value=0), ev(1, "bid", value=0)])
    assert broken(v) == [] and v["digger"] == 2 and v["bid"] == 1


def test_black_dig_skips_the_bidding_at_four():
    hands = [["H4"], ["S5"], ["S6"]]
    v = judge(hands, [ev(1, "black_dig", dig=False), ev(0, "black_dig", dig=False), ev(2, "black_dig", dig=True),
                      ev(0, "bid", value=1), ev(2, "black_dig", dig="yes")])
    assert broken(v) == [(1, "turn"), (3, "phase"), (4, "phase")]
    assert v["black_dig"] and v["digger"] == 2 and v["bid"] == 4 and v["bids"] == []
    v = judge(hands, [ev(1, "black_dig", dig=False), ev(2, "black_dig", dig=0)])
    assert broken(v) == [(1, "black_dig")]
    v = judge(hands, [ev(0, "black_dig")], rules={"black_dig": False})
    assert broken(v) == [(0, "phase")]


def test_a_bid_closes_the_black_dig_round_but_only_in_turn():
    hands = [["H4"], ["S5"], ["S6"]]
    v = judge(hands, [ev(1, "black_dig", dig=False), ev(1, "bid", value=2), ev(0, "bid", value=2),
                      ev(1, "black_dig", dig=True)])
    assert broken(v) == [(1, "turn"), (3, "phase")]
    assert not v["black_dig"] and v["bids"] == [[0, 2]]


@pytest.mark.parametrize(("rule", "hand", "forced"), [
    ("three_threes", ["S3", "H3", "D3", "S5"], True),
    ("three_threes", ["S3", "H3", "H4", "S5"], False),
    ("three_threes_or_two_and_h4", ["S3", "H3", "H4", "S5"], True),
    ("off", ["S3", "H3", "D3", "C3"], False),
])
def test_forced_bids(rule, hand, forced):
    others = [["H5", "S6"], ["S7", "S8"]] if "H4" not in hand else [["S6", "S7"], ["S8", "S9"]]
    hands = [hand, *others]
    first = GAME.new_state(parse_cards_list(hands), [], GAME.settings(None, {"forced_bid": rule})).first_bidder
    events = [ev((first + i) % 3, "bid", value=0) for i in range(3)]
    rules = broken(judge(hands, events, rules={"forced_bid": rule}))
    assert any(r == "forced_bid" for _, r in rules) == forced


def parse_cards_list(hands):
    return [parse_cards(h) for h in hands]


def test_only_the_digger_takes_the_bottom_once_and_it_is_shown_after():
    hands = [["H4", "S5"], ["S6"], ["S7"]]
    state = GAME.new_state(parse_cards_list(hands), parse_cards(["CK", "DK"]), GAME.settings(None, {"black_dig": False}))
    for s in (0, 1, 2):
        assert state.judge(ev(s, "bid", value=0 if s else 1)) == []
    assert state.public_view(1)["bottom"] is None
    assert [v.rule for v in state.judge(ev(1, "take_bottom"))] == ["take_bottom"]
    assert [v.rule for v in state.judge(play(0, "H4"))] == ["phase"]
    assert state.judge(ev(0, "take_bottom")) == []
    assert [v.rule for v in state.judge(ev(0, "take_bottom"))] == ["phase"]
    assert state.public_view(1)["bottom"] == ["CK", "DK"] and state.public_view(1)["counts"] == [4, 1, 1]
    assert "DK" in state.public_view(0)["hand"] and "hand" not in state.public_view(None)


# ---------------------------------------------------------------------------- combinations and following
def _playing(hands):
    """Events that make seat 0 (holding ♥4) the digger at 1 and start play."""
    return [ev(0, "bid", value=1), ev(1, "bid", value=0), ev(2, "bid", value=0), ev(0, "take_bottom")]


@pytest.mark.parametrize(("cards", "ok"), [
    (["H4", "S5", "S6"], True), (["H4", "S5", "S6", "S7", "S8", "S9", "S10", "SJ", "SQ", "SK"], True),
    (["SQ", "SK", "SA"], False), (["SK", "SA", "S2"], False), (["H4", "S5"], False),
    (["H4", "C4", "S5", "C5", "S6", "C6"], True), (["H4", "C4", "S5", "C5"], False),
    (["H4", "C4", "D4", "S5", "C5", "D5", "S6", "C6", "D6"], True), (["S2", "C2", "D2", "S3", "C3", "D3", "SA", "CA", "DA"], False),
    (["H4", "C4", "D4", "S4"], True), (["H4", "C4", "S5"], False), (["S3", "C3", "D3"], True),
])
def test_lead_combinations(cards, ok):
    hand0 = sorted(set(cards) | {"H4"})
    rest = [c for c in ["S7", "D7", "S8", "D8", "S9", "D9", "SJ", "DJ"] if c not in hand0]
    hands = [hand0, rest[:3], rest[3:6]]
    v = judge(hands, [*_playing(hands), play(0, *cards)])
    assert broken(v) == ([] if ok else [(4, "combo")])


@pytest.mark.parametrize(("lead", "follow", "rule", "rules"), [
    (["H4"], ["S5"], None, None),
    (["H5"], ["S4"], "follow", None),
    (["H5"], ["S5"], "follow", None),
    (["H4", "S4"], ["S5"], "follow", None),
    (["H4", "S5", "S6"], ["D5", "D6", "D7"], None, None),
    (["H4", "S5", "S6"], ["D5", "D6", "D7", "D8"], "follow", None),
    (["H4", "S5", "S6"], ["SJ", "HJ", "DJ", "CJ"], None, None),
    (["H4", "S5", "S6"], ["SJ", "HJ", "DJ", "CJ"], "follow", {"is_can_bomb": False}),
    (["SQ", "HQ", "DQ", "CQ"], ["SJ", "HJ", "DJ", "CJ"], "follow", None),
    (["SQ", "HQ", "DQ", "CQ"], ["SK", "HK", "DK", "CK"], None, {"is_can_bomb": False}),
    (["H4"], ["S3", "H3"], "follow", None),
    (["H4"], ["S9", "H10"], "combo", None),
    (["SA"], ["H2"], None, None), (["S2"], ["H3"], None, None), (["S3"], ["HA"], "follow", None),
    (["SK", "HK"], ["SA", "HA"], None, None), (["SA", "HA", "DA"], ["S5", "H5", "D5"], "follow", None),
    (["S6", "S7", "S8"], ["D5", "D6", "D7"], "follow", None),
    (["H4", "C4", "D4", "S5", "C5", "D5", "S6", "C6", "D6"], ["H7", "C7", "D7", "S8", "C8", "D8", "S9", "C9", "D9"],
     None, None),
])
def test_following(lead, follow, rule, rules):
    hands = [sorted({"H4", *lead}) + ["D2"], sorted(follow) + ["C2"], ["C3"]]
    v = judge(hands, [*_playing(hands), play(0, *lead), play(1, *follow)], rules=rules)
    assert broken(v) == ([] if rule is None else [(5, rule)])


def test_pass_turns_lead_pass_and_not_in_hand():
    hands = [["H4", "S8"], ["S5", "S9"], ["S6", "S7"]]
    events = [*_playing(hands), ev(0, "pass"), play(0, "H4"), play(2, "S6"), play(1, "S10"), ev(1, "pass"),
              play(2, "S6"), ev(0, "pass"), play(1, "S5"), ev(1, "pass")]
    v = judge(hands, events)
    assert broken(v) == [(4, "lead_pass"), (6, "turn"), (7, "not_in_hand"), (11, "follow")]
    assert v["phase"] == "play" and not v["finished"] and v["scores"] is None
    # after both others passed, seat 2 (the last to play) leads anything, and goes out: the digger lost
    v = judge(hands, [*events, play(2, "S7"), ev(0, "pass")])
    assert broken(v)[-1] == (len(events) + 1, "finished")
    assert v["outcome"] == "digger_lost" and v["first_out"] == 2 and v["scores"] == [-2, 1, 1]


def test_unknown_actions_and_actions_after_the_end():
    hands = [["H4"], ["S5"], ["S6"]]
    v = judge(hands, [ev(0, "dance"), *_playing(hands), play(0, "H4"), ev(1, "pass")])
    assert broken(v) == [(0, "phase"), (6, "finished")]
    assert v["finished"]


# ---------------------------------------------------------------------------- scoring
def test_digger_wins_with_bid_three():
    hands = [["H4", "S4"], ["S5"], ["S6"]]
    v = judge(hands, [ev(0, "bid", value=3), ev(0, "take_bottom"), play(0, "H4", "S4")])
    assert v["outcome"] == "digger_won" and v["scores"] == [6, -3, -3] and v["winners"] == [0]
    assert v["first_out"] == 0 and v["next_first_seat"] == 0 and v["multiplier"] == 1


def test_the_sources_example_bid_two_one_bomb_digger_loses_eight():
    hands = [["H4", "S5"], ["S9", "H9", "D9", "C9", "S6"], ["S7", "S8"]]
    events = [ev(0, "bid", value=2), ev(1, "bid", value=0), ev(2, "bid", value=0), ev(0, "take_bottom"),
              play(0, "H4"), play(1, "S9", "H9", "D9", "C9"), ev(2, "pass"), ev(0, "pass"), play(1, "S6")]
    v = judge(hands, events)
    assert broken(v) == []
    assert v["outcome"] == "digger_lost" and v["bombs"] == 1 and v["scores"] == [-8, 4, 4] and v["winners"] == [1, 2]


def _three_bombs(rules=None):
    bombs = [[s + r for s in "SHDC"] for r in ("9", "10", "J")]
    hands = [["H4", "S5"], [c for b in bombs for c in b] + ["S6"], ["S7"]]
    events = [ev(0, "bid", value=0), ev(1, "bid", value=0), ev(2, "bid", value=0), ev(0, "take_bottom"),
              play(0, "H4")]
    for b in bombs:
        events += [play(1, *b), ev(2, "pass"), ev(0, "pass")]
    return judge(hands, [*events, play(1, "S6")], rules=rules)


def test_each_bomb_doubles_up_to_bomb_top():
    v = _three_bombs()
    assert broken(v) == [] and v["bombs"] == 3 and v["multiplier"] == 4 and v["scores"] == [-8, 4, 4]
    v = _three_bombs({"bomb_top": 8})
    assert v["multiplier"] == 8 and v["scores"] == [-16, 8, 8]
    v = _three_bombs({"base": 3})
    assert v["scores"] == [-24, 12, 12]


def test_escape_penalty_is_shared_by_the_others():
    hands = [["H4"], ["S5"], ["S6"]]
    v = judge(hands, [ev(0, "bid", value=3), ev(2, "escape"), ev(1, "pass")])
    assert v["outcome"] == "escape" and v["escaped"] == 2 and v["scores"] == [5, 5, -10]
    assert broken(v) == [(2, "finished")] and v["next_first_seat"] == 0
    v = judge([["H4"], ["S5"], ["S6"], ["S7"]], [ev(1, "escape")], preset="xian-4p")
    assert v["scores"] == [3, -9, 3, 3]


def test_four_player_digger_against_three():
    hands = [["H4", "S4"], ["S5"], ["S6"], ["S7"]]
    v = judge(hands, [ev(0, "bid", value=3), ev(0, "take_bottom"), play(0, "H4", "S4")], preset="xian-4p")
    assert broken(v) == [] and v["scores"] == [9, -3, -3, -3]
    v = judge(hands, [ev(0, "bid", value=1), ev(1, "bid", value=2), ev(2, "bid", value=0), ev(3, "bid", value=0),
                      ev(1, "take_bottom"), play(0, "H4"), play(1, "S5")], preset="xian-4p")
    assert broken(v) == [] and v["digger"] == 1 and v["scores"] == [-2, 6, -2, -2]
    assert GAME.deal_plan(GAME.settings("xian-4p")).cards_per_seat == (12, 12, 12, 12)


def test_settings_are_typed_and_checked():
    assert GAME.settings().players == 3 and GAME.settings().is_can_bomb and GAME.settings().bomb_top == 4
    for bad in ({"players": 5}, {"bomb_top": 0}, {"forced_bid": "two"}, {"nonsense": 1}, {"is_can_bomb": 1}):
        with pytest.raises(ValueError):
            GAME.settings(None, bad)


# ---------------------------------------------------------------------------- properties
def _check_view_hides_hands(state, seat):
    view = state.public_view(seat)
    text = json.dumps(view)
    played = {c for a in state.history if a["action"] == "play" for c in a["cards"]}
    allowed = played | set(view.get("hand", [])) | set(view["bottom"] or [])
    for other in range(state.n):
        if other != seat:
            for card in state.hands[other].cards():
                if str(card) not in allowed:
                    assert f'"{card}"' not in text, (seat, card)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.sampled_from([3, 4]), bombs=st.booleans(),
       forced=st.sampled_from(["off", "three_threes_or_two_and_h4"]))
def test_random_playouts_keep_every_invariant(seed, players, bombs, forced):
    rng = random.Random(seed)
    s = GAME.settings(None, {"players": players, "is_can_bomb": bombs, "forced_bid": forced})
    deck = GAME.deal_plan(s).deck.cards()
    rng.shuffle(deck)
    per = GAME.deal_plan(s).cards_per_seat[0]
    hands, bottom = [deck[i * per:(i + 1) * per] for i in range(players)], deck[players * per:]
    state = GAME.new_state(hands, bottom, s)
    for _ in range(600):
        if state.is_terminal():
            break
        random_step(state, rng)
        kitty = Counter() if state.phase in ("play", "over") else Counter(str(c) for c in bottom)
        assert held_and_played(state) + kitty == Counter(str(c) for c in deck), "cards are conserved"
        _check_view_hides_hands(state, rng.randrange(players))
    assert state.is_terminal()
    assert sum(state.returns()) == 0 and state.verdict()["finished"]


def test_two_thousand_self_played_hands_referee_clean_with_every_outcome():
    rng = random.Random(2026)
    seen = Counter()
    first = 0
    for i in range(2000):
        record = GAME.bot_hand(rng, bot="random" if i % 3 == 0 else "greedy", first_seat=first,
                               settings=GAME.settings("xian-4p") if i % 10 == 9 else None)
        verdict = referee(record)
        assert verdict["violations"] == [] and verdict["finished"]
        assert sum(verdict["scores"]) == 0 and verdict == record["verdict"]
        seen[verdict["outcome"]] += 1
        seen["black_dig"] += verdict["black_dig"]
        seen["bombs"] += verdict["bombs"] > 0
        first = record["next_first_seat"]
    assert set(seen) == {"digger_won", "digger_lost", "escape", "black_dig", "bombs"}, seen


# ---------------------------------------------------------------------------- commands
def test_selfplay_and_referee_commands(tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["selfplay", "--game", "wakeng", "-n", "5", "--seed", "3", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    files = sorted(tmp_path.glob("*.json"))
    assert [f.name for f in files] == [f"{i:04d}.json" for i in range(5)]
    result = runner.invoke(app, ["referee", str(files[-1])])
    assert result.exit_code == 0, result.output
    verdict = json.loads(result.stdout)
    assert verdict["game"] == "wakeng" and verdict["violations"] == [] and sum(verdict["scores"]) == 0


@pytest.mark.parametrize(("rules", "cards", "ok"), [
    ({"min_straight": 5}, ["H4", "S5", "S6"], False), ({"min_straight": 5}, ["H4", "S5", "S6", "S7", "S8"], True),
    ({"min_pair_run": 2}, ["H4", "C4", "S5", "C5"], True),
    ({"min_triple_run": 2}, ["H4", "C4", "D4", "S5", "C5", "D5"], True),
])
def test_run_length_settings(rules, cards, ok):
    hands = [sorted(set(cards) | {"H4", "DK"}), ["S9"], ["S10"]]
    v = judge(hands, [*_playing(hands), play(0, *cards)], rules=rules)
    assert broken(v) == ([] if ok else [(4, "combo")])


def test_black_dig_bid_setting_sets_the_stake():
    hands = [["H4", "S4"], ["S5"], ["S6"]]
    v = judge(hands, [ev(0, "black_dig", dig=True), ev(0, "take_bottom"), play(0, "H4", "S4")],
              rules={"black_dig_bid": 6})
    assert broken(v) == [] and v["bid"] == 6 and v["scores"] == [12, -6, -6]
