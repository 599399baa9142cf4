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
    state, events = run_hand(
        game,
        settings,
        hands,
        bottom,
        [search_policy("bold", 5.0)] + [greedy_policy] * (seats - 1),
        random.Random(4),
    )
    assert state.is_terminal()
    ret = state.returns()
    assert ret is not None and len(ret) == seats
    # every event the bots made judged clean when replayed from the deal
    from engine.cards import parse_cards

    again = game.new_state(
        [parse_cards(h) for h in hands], parse_cards(bottom), settings, **state.deal_args()
    )
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
    declares = [
        {"action": a} for a in ("tiao", "baomen", "pa", "xuan", "fan_xuan", "expose", "declare", "pa_accept")
    ]
    declares += [{"action": "bid", "value": 2}, {"action": "black_dig", "dig": True}]
    quiet = [{"action": a} for a in ("play", "pass", "pa_refuse", "xuan_refuse", "take_bottom")]
    quiet += [{"action": "bid", "value": 0}, {"action": "black_dig", "dig": False}]
    assert all(search.is_declaration(a) for a in declares)
    assert not any(search.is_declaration(a) for a in quiet)


def _shengji_positions(n: int):
    from engine.cards import parse_cards

    game = get_game("shengji")
    settings = game.settings()
    rng = random.Random(11)
    for _ in range(n):
        hands, bottom = deal(game, settings, rng)
        state = game.new_state([parse_cards(h) for h in hands], parse_cards(bottom), settings)
        for step in range(200):
            if state.is_terminal():
                break
            seat = state.current_player()
            if step % 9 == 4:
                yield state, seat
            state.judge(greedy_policy(game, state, seat, rng))


def test_the_fast_shengji_play_out_ends_as_the_judged_one_and_leaves_the_state_alone() -> None:
    """The rollouts' private copy and unjudged greedy loop (engine.bots.fast) against a deep copy played
    out through the referee, every play judged."""
    import copy

    from engine.bots import fast
    from engine.bots.greedy import greedy_action

    checked = 0
    for state, _seat in _shengji_positions(3):
        before = copy.deepcopy(state)
        quick = fast.clone(state)
        judged = copy.deepcopy(state)
        played = fast.play_out(quick)
        while not judged.is_terminal():
            who = judged.current_player()
            assert not [
                v for v in judged.judge(greedy_action(judged, who, random.Random(0))) if v.severity == "error"
            ]
        if played:
            assert quick.is_terminal()
            assert quick.returns() == judged.returns() and quick.attacker_points == judged.attacker_points
            checked += 1
        assert state.public_view(None) == before.public_view(None) and state.counts == before.counts
        assert state.log == before.log
    assert checked >= 5


def test_another_play_replaces_the_greedy_move_only_on_a_clear_edge() -> None:
    play = [{"action": "play", "cards": [c]} for c in ("S3", "S4", "S5")]
    noisy = [
        [0.0, 1.0, 0.1],
        [0.0, -1.0, 0.1],
        [0.0, 1.2, 0.1],
        [0.0, -0.9, 0.1],
    ] * 2  # S4: +0.08 on average, spread 1
    best, edge = search.pick(play, noisy, search.STYLES["careful"])
    assert best == 2 and abs(edge - 0.1) < 1e-9  # S5's steady +0.1, not S4's lucky mean
    assert search.pick(play, [[0.0, 1.0, -0.1], [0.0, -1.0, -0.1]] * 3, 0.0)[0] == 0  # nothing clear: greedy
    assert search.pick(play, [[0.0, 0.0, 1.0]] * 2, 0.0)[0] == 0  # two samples are too few for a play
    refused = [[0.0, float("nan"), 0.0]] + [[0.0, 5.0, 0.0]] * 6
    assert search.pick(play, refused, 0.0)[0] == 0  # refused in one sample: never chosen


def test_shengji_value_counts_card_points_for_the_side() -> None:
    """Between two level steps (every 40 points) more card points are worth more to the attackers and
    less to the dealer's side; a level is worth more than any points within a step."""
    from engine.bots.fast import clone, play_out

    state, _ = next(_shengji_positions(1))
    s = clone(state)
    while not play_out(s):
        s.judge(search.greedy_action(s, s.current_player(), random.Random(0)))
    attacker, defender = s.attackers[0], s.dealer
    values = {}
    for p in (40, 45, 75, 80):
        s.attacker_points = p
        values[p] = (search.outcome(s, attacker), search.outcome(s, defender))
    assert values[40][0] < values[45][0] < values[75][0] < values[80][0]
    assert values[40][1] > values[45][1] > values[75][1] > values[80][1]
    assert values[80][0] - values[75][0] > values[75][0] - values[40][0]


@pytest.mark.parametrize("name", ["hongsi", "shengji"])
def test_a_seat_not_to_act_is_asked_to_declare_and_its_declaration_is_applied(name: str) -> None:
    """挑 before the call (红桃四) or 亮主 during the deal (升级) by a seat that is not the one to act: the
    hand asks a policy that talks; the greedy bots never talk, so their hands are as before."""
    game = get_game(name)
    settings = game.settings()
    hands, bottom = deal(game, settings, random.Random(6))
    asked: list[int] = []

    def talker(game_, state, seat, rng):
        return greedy_policy(game_, state, seat, rng)

    def talk(game_, state, seat, rng):
        asked.append(seat)
        offered = [a for a in state.offered_actions(seat) if search.is_declaration(a)]
        return offered[0] if offered else None

    talker.talk = talk
    quiet, quiet_events = run_hand(game, settings, hands, bottom, [greedy_policy] * 4, random.Random(6))
    loud_seat = next(s for s in range(4) if s != quiet_events[0]["seat"])
    policies = [greedy_policy] * 4
    policies[loud_seat] = talker
    state, events = run_hand(game, settings, hands, bottom, policies, random.Random(6))
    assert set(asked) == {loud_seat}
    said = [e for e in events if e["seat"] == loud_seat and search.is_declaration(e)]
    assert said and events.index(said[0]) < next(i for i, e in enumerate(events) if e["action"] == "play")
    assert not [e for e in quiet_events if search.is_declaration(e)]
    assert state.is_terminal()


def test_out_of_turn_the_search_waits_or_declares_what_it_is_offered() -> None:
    game = get_game("hongsi")
    settings = game.settings()
    for k in range(4):
        hands, bottom = deal(game, settings, random.Random(20 + k))
        from engine.cards import parse_cards

        state = game.new_state([parse_cards(h) for h in hands], parse_cards(bottom), settings)
        seat = (state.current_player() + 1) % 4
        info = info_set(game, state, seat)
        choice = search.choose(game, info, random.Random(k), style="bold", samples=search.MIN_SAMPLES, out_of_turn=True)
        assert choice.action["action"] == search.WAIT or choice.action in info.legal
        assert choice.action["action"] != "play"


def test_a_declaration_the_bot_calls_sure_is_legal_in_the_true_deal() -> None:
    """A 趴 must ask a teammate, and who that is can hang on hidden cards: whatever 趴 a seat is offered from
    its own view, ``surely_legal`` passes it only if the referee would accept it in the real deal. Over
    random deals played greedily up to the first play, every offered 趴 of every seat is checked."""
    from engine.bots.fast import clone
    from engine.cards import parse_cards

    game = get_game("hongsi")
    settings = game.settings()
    checked = passed = risky = 0
    for k in range(12):
        hands, bottom = deal(game, settings, random.Random(40 + k))
        state = game.new_state([parse_cards(h) for h in hands], parse_cards(bottom), settings)
        rng = random.Random(k)
        for _ in range(8):
            if state.is_terminal():
                break
            for seat in range(4):
                info = info_set(game, state, seat)
                for action in (a for a in info.legal if a.get("action") == "pa"):
                    checked += 1
                    illegal = any(v.severity == "error" for v in clone(state).judge(dict(action)))
                    risky += illegal
                    if search.surely_legal(game, info, action, rng, time.perf_counter(), 2000.0):
                        passed += 1
                        assert not illegal, (k, seat, action)
            who = state.current_player()
            if who is None or any(e.get("action") == "play" for e in state.applied_events()):
                break
            state.judge(greedy_policy(game, state, who, rng))
    assert checked and risky, f"the test saw no 趴 that could be refused ({checked} offered)"
    assert passed, "no 趴 was ever sure: the bot could never ask one"
