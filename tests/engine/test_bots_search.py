"""The search bot (issue 34, item 2): legal moves from every game, a failing search falls back to the
greedy move and says why, the styles differ only on declarations, the budget is kept."""

from __future__ import annotations

import random
import time

import pytest

from engine.bots import search
from engine.bots.infoset import info_set
from engine.bots.table import deal, greedy_policy, run_hand, search_policy
from engine.registry import game_names, get_game


@pytest.mark.parametrize("name", game_names())
def test_search_bot_plays_a_whole_hand_legally(name: str) -> None:
    game = get_game(name)
    settings = game.settings()
    hands, bottom = deal(game, settings, random.Random(4))
    seats = len(hands)
    state, events = run_hand(game, settings, hands, bottom, [search_policy("bold", 5.0)] + [greedy_policy] * (seats - 1),
                             random.Random(4))
    assert state.is_terminal()
    ret = state.returns()
    assert ret is not None and len(ret) == seats
    # every event the bots made judged clean when replayed from the deal
    from engine.cards import parse_cards
    again = game.new_state([parse_cards(h) for h in hands], parse_cards(bottom), settings, **state.deal_args())
    for ev in events:
        assert not [v for v in again.judge(dict(ev)) if v.severity == "error"], ev


def test_a_failing_search_plays_greedy_and_says_why(monkeypatch: pytest.MonkeyPatch, caplog) -> None:
    game = get_game("hongsi")
    record = game.bot_hand(random.Random(2), bot="greedy")
    from engine.cards import parse_cards
    state = game.new_state([parse_cards(h) for h in record["hands"]], [], game.settings())
    for ev in record["events"][:6]:
        state.apply(ev)
    seat = state.current_player()
    info = info_set(game, state, seat)

    def broken(*a, **k):
        raise RuntimeError("engine bug")
    monkeypatch.setattr(search, "_rollout", broken)
    choice = search.choose(game, info, random.Random(1), budget_ms=50)
    assert "search failed" in choice.why and "engine bug" in caplog.text
    assert not [v for v in state.clone().judge(choice.action) if v.severity == "error"]


def test_the_budget_is_kept() -> None:
    game = get_game("gongzhu")
    settings = game.settings()
    hands, bottom = deal(game, settings, random.Random(8))
    from engine.cards import parse_cards
    state = game.new_state([parse_cards(h) for h in hands], parse_cards(bottom), settings)
    seat = state.current_player()
    info = info_set(game, state, seat)
    t = time.perf_counter()
    choice = search.choose(game, info, random.Random(3), budget_ms=60)
    assert time.perf_counter() - t < 0.06 + 0.1
    assert choice.samples >= 1


def test_styles_weigh_only_declarations() -> None:
    assert search.STYLES["careful"] < 0 < search.STYLES["bold"]
    declares = [{"action": a} for a in ("tiao", "baomen", "pa", "xuan", "fan_xuan", "expose", "declare", "pa_accept")]
    declares += [{"action": "bid", "value": 2}, {"action": "black_dig", "dig": True}]
    quiet = [{"action": a} for a in ("play", "pass", "pa_refuse", "xuan_refuse", "take_bottom")]
    quiet += [{"action": "bid", "value": 0}, {"action": "black_dig", "dig": False}]
    assert all(search.is_declaration(a) for a in declares)
    assert not any(search.is_declaration(a) for a in quiet)
