"""红桃四 settlement: every mode with and without bombs, the bomb settings, next_first_seat."""

import pytest

from engine.cards import parse_cards
from engine.hongsi.examples import SUITED, accept, baomen, call, hands_with, pa, play, record, tiao
from engine.hongsi.game import HongsiGame
from engine.hongsi.scoring import multiplier, settle
from engine.hongsi.settings import HongsiSettings
from engine.hongsi.state import HongsiState
from engine.referee import referee

QUICK = {  # a hand that goes out in two plays when everyone passes: 10-card straight, then three 3s
    0: [f"H{r}" for r in ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")] + ["H3", "S3", "D3"],
    1: [f"S{r}" for r in ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")] + ["H3", "S3", "D3"],
}
ONE_BOMB = [f"H{r}" for r in ("4", "5", "6", "7", "8", "9", "10", "J", "Q")] + ["H3", "S3", "D3", "C3"]
TWO_BOMBS = ["H4", "H5", "H6", "H7", "H8", "H2", "S2", "D2", "C2", "H3", "S3", "D3", "C3"]


def play_out(hands, pre, winner, plays, **rules):
    """The record of ``pre`` then ``winner`` making ``plays`` while everyone else passes; its verdict."""
    game = HongsiGame()
    state = HongsiState(parse_cards_all(hands), game.settings(None, rules))
    events = list(pre)
    for e in pre:
        assert [v for v in state.judge(e) if v.severity == "error"] == []
    for cards in plays:
        while state.current_player() != winner or state.pending is not None:
            seat = state.current_player()
            action = state.legal_actions(seat)[-1]  # the announcement, or a pass
            assert action["action"] in ("pass", "announce")
            state.judge(action)
            events.append(action)
        events.append(play(winner, *cards))
        assert state.judge(events[-1]) == []
    verdict = referee(record(hands, events, **rules))
    assert verdict["violations"] == [] and verdict["finished"]
    assert verdict["scores"] == state.returns()
    return verdict


def parse_cards_all(hands):
    return [parse_cards(h) for h in hands]


def quick(seat):
    cards = QUICK[seat]
    return [cards[:10], cards[10:]]


@pytest.mark.parametrize("name,pre,winner,scores", [
    ("normal", [call(0, "S10")], 0, [1, 1, -1, -1]),
    ("pa: the caller's side lies", [call(0, "S10"), pa(0, 1), accept(1)], 0, [2, 2, -2, -2]),
    ("pa: the other side lies", [call(0, "S10"), pa(2, 3), accept(3)], 0, [2, 2, -2, -2]),
    ("pa: ♥4 lies, the partner leads", [call(0, "S10"), pa(1, 0), accept(0)], 1, [2, 2, -2, -2]),
    ("dui_pa", [call(0, "S10"), pa(1, 0), pa(2, 3), accept(0), accept(3)], 1, [4, 4, -4, -4]),
    ("anjiao", [call(0, "H10")], 0, [6, -2, -2, -2]),
    ("anjiao exposed", [call(0, "H10"), pa(2, 3), accept(3)], 0, [6, -2, -2, -2]),
    ("dantiao with ♥4", [tiao(0)], 0, [9, -3, -3, -3]),
    ("dantiao without ♥4, the three win", [tiao(2)], 0, [4, 4, -12, 4]),
    ("duitiao", [tiao(2), tiao(0)], 0, [24, 0, -24, 0]),
    ("baomen", [baomen(0)], 0, [24, -8, -8, -8]),
])
def test_every_mode_without_bombs(name, pre, winner, scores):
    hands = hands_with({winner: QUICK[winner]})
    v = play_out(hands, pre, winner, quick(winner))
    assert v["scores"] == scores and sum(v["scores"]) == 0
    assert (v["first_out"], v["next_first_seat"], v["bombs"], v["multiplier"]) == (winner, winner, 0, 1)
    assert winner in v["winners"]


def test_dantiao_lone_loses():
    hands = hands_with({0: QUICK[0]})
    v = play_out(hands, [tiao(3)], 0, quick(0))
    assert v["scores"] == [4, 4, 4, -12] and v["winners"] == [0, 1, 2]


@pytest.mark.parametrize("pre,one,two_each,two_once,two_cap2", [
    ([call(0, "S10")], [2, 2, -2, -2], [4, 4, -4, -4], [2, 2, -2, -2], [2, 2, -2, -2]),
    ([call(0, "S10"), pa(0, 1), accept(1)], [4, 4, -4, -4], [8, 8, -8, -8], [4, 4, -4, -4], [4, 4, -4, -4]),
    ([call(0, "S10"), pa(0, 1), pa(2, 3), accept(1), accept(3)],
     [8, 8, -8, -8], [16, 16, -16, -16], [8, 8, -8, -8], [8, 8, -8, -8]),
    ([call(0, "H8")], [12, -4, -4, -4], [24, -8, -8, -8], [12, -4, -4, -4], [12, -4, -4, -4]),
    ([tiao(0)], [18, -6, -6, -6], [36, -12, -12, -12], [18, -6, -6, -6], [18, -6, -6, -6]),
    ([tiao(2)], [8, 8, -24, 8], [16, 16, -48, 16], [8, 8, -24, 8], [8, 8, -24, 8]),
    ([tiao(2), tiao(0)], [48, 0, -48, 0], [96, 0, -96, 0], [48, 0, -48, 0], [48, 0, -48, 0]),
    ([baomen(0)], [48, -16, -16, -16], [96, -32, -32, -32], [48, -16, -16, -16], [48, -16, -16, -16]),
])
def test_every_mode_with_bombs(pre, one, two_each, two_once, two_cap2):
    v = play_out(hands_with({0: ONE_BOMB}), pre, 0, [ONE_BOMB[:9], ONE_BOMB[9:]], bombs=True)
    assert (v["bombs"], v["multiplier"], v["scores"]) == (1, 2, one)
    two = [TWO_BOMBS[:5], TWO_BOMBS[5:9], TWO_BOMBS[9:]]
    v = play_out(hands_with({0: TWO_BOMBS}), pre, 0, two, bombs=True)
    assert (v["bombs"], v["multiplier"], v["scores"]) == (2, 4, two_each)
    v = play_out(hands_with({0: TWO_BOMBS}), pre, 0, two, bombs=True, bomb_doubling="once")
    assert (v["multiplier"], v["scores"]) == (2, two_once)
    v = play_out(hands_with({0: TWO_BOMBS}), pre, 0, two, bombs=True, bomb_cap=2)
    assert (v["multiplier"], v["scores"]) == (2, two_cap2)


def test_multiplier_settings():
    each = HongsiSettings(bombs=True)
    assert [multiplier(n, each) for n in range(5)] == [1, 2, 4, 8, 16]
    once = HongsiSettings(bombs=True, bomb_doubling="once")
    assert [multiplier(n, once) for n in range(4)] == [1, 2, 2, 2]
    capped = HongsiSettings(bombs=True, bomb_cap=8)
    assert [multiplier(n, capped) for n in range(6)] == [1, 2, 4, 8, 8, 8]
    assert multiplier(3, HongsiSettings(bombs=False)) == 1


def test_settle_is_zero_sum_for_every_mode_and_side():
    two = [[0, 2], [1, 3]]
    lone = [[1], [0, 2, 3]]
    for mode in ("normal", "pa", "dui_pa"):
        for w in two:
            assert sum(settle(mode, teams=two, winners=w, multiplier=4)) == 0
    for mode in ("anjiao", "dantiao", "baomen"):
        for w in lone:
            s = settle(mode, teams=lone, winners=w, multiplier=2, lone_has_h4=False)
            assert sum(s) == 0 and abs(s[1]) == 3 * abs(s[0])
    assert settle("duitiao", teams=[[3], [1]], winners=[1], multiplier=1) == [0, 24, 0, -24]


def test_bad_settings_are_named():
    game = HongsiGame()
    for bad in ({"bomb_doubling": "twice"}, {"bomb_cap": 0}, {"min_pair_run": 1}, {"bombs": "yes"},
                {"count_announce_at": -1}, {"jokers": True}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            game.settings(None, bad)
    assert game.settings(None, {"bomb_cap": None, "bombs": True}).bombs is True
    assert game.settings() == HongsiSettings()


def test_unfinished_hand_has_no_scores():
    v = referee(record(SUITED, [call(0, "S10"), play(0, "H4")]))
    assert (v["finished"], v["first_out"], v["winners"], v["scores"], v["next_first_seat"]) == (
        False, None, None, None, None)
