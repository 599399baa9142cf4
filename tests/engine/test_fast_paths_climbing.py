"""The third round's fast paths (issue 34) agree with the slow ways beside them, on random positions:

- the random bots' play loops (红桃四 ``random_play``, the climbing games' ``climbing.random_play``) make the
  same events from the same draws as the loops they replace (``choose_play`` / ``choose`` with
  ``rng.randrange``), and leave the generator in the same state;
- 红桃四's talk draws as ``rng.sample`` / ``rng.choice`` over ``declaration_options`` did;
- ``climbing.shuffle`` is ``rng.shuffle``; ``card_names`` is ``str`` of each card; a :class:`Hand` made at
  once equals one made card by card;
- ``judge`` (one-rank plays by look-up, a count announced when due, passes inline) and ``_judge`` give the
  same violations and leave the same state, also for near misses of those paths.
"""

from __future__ import annotations

import copy
import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import ALL_CARDS, deck, parse_cards
from engine.climbing import CODE, BotTable, Hand, card_names, choose, random_play, shuffle
from engine.game import IllegalAction
from engine.hongsi import combos as C
from engine.hongsi.bots import (
    P_ACCEPT,
    P_ANJIAO,
    P_BAOMEN,
    P_LEAVE_UNANSWERED,
    P_PA,
    P_TIAO,
    choose_play,
    talk,
)
from engine.hongsi.bots import random_play as hongsi_random_play
from engine.hongsi.state import CALLABLE, HongsiState
from engine.registry import get_game

seeds = st.integers(0, 2**32 - 1)


# ---------------------------------------------------------------------- 红桃四
def _talk_slow(state: HongsiState, rng: random.Random, do) -> None:
    """The talk as it was written before (rng.sample, rng.choice, declaration_options)."""
    h4 = state.h4
    if h4 is None:
        return
    if rng.random() < P_BAOMEN:
        do({"seat": h4, "action": "baomen"})
    else:
        for seat in rng.sample(range(4), 4):
            if rng.random() < P_TIAO and len(state.tiaos) < 2:
                do({"seat": seat, "action": "tiao"})
    if not state.call_due():
        return
    own = [c for c in CALLABLE if state.dealt[h4] >> c & 1]
    if own and rng.random() < P_ANJIAO:
        card = rng.choice(own)
    else:
        card = rng.choice([c for c in CALLABLE if not state.dealt[h4] >> c & 1])
    do({"seat": h4, "action": "call", "card": C.CARD_NAMES[card]})
    for seat in rng.sample(range(4), 4):
        asks = [a for a in state.declaration_options(seat) if a["action"] == "pa"]
        if asks and rng.random() < P_PA:
            do(rng.choice(asks))
    while state.requests and rng.random() >= P_LEAVE_UNANSWERED:
        asker, target = next(iter(state.requests.items()))
        do({"seat": target, "action": "pa_accept" if rng.random() < P_ACCEPT else "pa_refuse"})


def _hongsi_play_slow(state: HongsiState, rng: random.Random, events: list) -> None:
    while not state.finished:
        if state.pending is not None:
            event = {"seat": state.pending[0], "action": "announce", "count": state.pending[1]}
        else:
            event = choose_play(state, state.current_player(), rng, "random")  # type: ignore[arg-type]
        for v in state._judge(event):  # the general path, with the slow bot
            if v.severity == "error":
                raise IllegalAction(v)
        events.append(event)


@settings(max_examples=60, deadline=None)
@given(seeds, st.booleans(), st.integers(0, 3))
def test_hongsi_random_bot_and_talk_match_the_slow_way(seed, bombs, first_seat):
    game = get_game("hongsi")
    s = game.settings(None, {"bombs": bombs})
    rng = random.Random(seed)
    hands = game.deal(rng, first_seat)
    twin = random.Random()
    twin.setstate(rng.getstate())
    fast, slow = HongsiState(hands, s), HongsiState(hands, s)
    fast_events: list = []
    slow_events: list = []

    talk(fast, rng, lambda e: (fast_events.append(e), fast.judge(e)))
    _talk_slow(slow, twin, lambda e: (slow_events.append(e), slow._judge(e)))
    assert fast_events == slow_events and rng.getstate() == twin.getstate()
    hongsi_random_play(fast, rng, fast_events)
    _hongsi_play_slow(slow, twin, slow_events)
    assert fast_events == slow_events and rng.getstate() == twin.getstate()
    assert fast.verdict() == slow.verdict() and fast.log == slow.log


@settings(max_examples=40, deadline=None)
@given(seeds, st.booleans())
def test_hongsi_judge_near_misses_match_the_general_path(seed, bombs):
    """Near misses of the look-up and announce fast paths: a pair or triple of one rank, cards of two
    ranks, a card twice, four of a kind, a count wrong, a count as a float or a bool, a count by another."""
    rng = random.Random(seed)
    game = get_game("hongsi")
    state = HongsiState(game.deal(rng), game.settings(None, {"bombs": bombs}))
    talk(state, rng, state.judge)
    while not state.is_terminal():
        seat = state.current_player()
        hand = C.cards_of(state.hands[seat])  # type: ignore[index]
        if state.pending is not None:
            count = state.pending[1]
            good = {"seat": seat, "action": "announce", "count": count}
            tries = [{**good, "count": count + 1}, {**good, "count": float(count)}, {**good, "count": True},
                     {**good, "seat": (seat + 1) % 4}, {"seat": seat, "action": "pass"}]  # type: ignore[operator]
        else:
            good = choose_play(state, seat, rng, "random")  # type: ignore[arg-type]
            by_rank: dict[int, list[str]] = {}
            for name in hand:
                by_rank.setdefault(C.CODE[name] >> 2, []).append(name)
            tries = [{"seat": seat, "action": "play", "cards": cards} for cards in by_rank.values()]
            tries += [{"seat": seat, "action": "play", "cards": cards[:2]} for cards in by_rank.values()]
            tries += [{"seat": seat, "action": "play", "cards": hand[:2]},
                      {"seat": seat, "action": "play", "cards": hand[:1] * 2},
                      {"seat": seat, "action": "play", "cards": tuple(hand[:1])}]
        for action in [*tries, good]:
            fast, slow = state.clone(), state.clone()
            assert fast.judge(action) == slow._judge(action)
            assert json.dumps(fast.public_view(), sort_keys=True) == json.dumps(slow.public_view(), sort_keys=True)
            assert (fast.hands, fast.n_events, fast.trick, fast.turn, fast.pending, fast.log, fast._ranks) == (
                slow.hands, slow.n_events, slow.trick, slow.turn, slow.pending, slow.log, slow._ranks)
        assert state.judge(good) == []


# ---------------------------------------------------------------------- the climbing games
def _climbing_play_slow(state, rng: random.Random, events: list, escape_at: int) -> None:
    """The bots' play loop as written before: ``choose`` over ``trick.options`` and a :class:`BotTable`."""
    act = BotTable(state)
    act.events = events
    trick = state.trick
    while not state.is_terminal():
        seat = trick.turn
        if len(act.events) == escape_at:
            act({"seat": seat, "action": "escape"})
            break
        combo = choose(state.rules if hasattr(state, "rules") else trick.rules, trick.options(seat), trick.beat,
                       rng, "random")
        act({"seat": seat, "action": "pass"} if combo is None else
            {"seat": seat, "action": "play", "cards": state.hands[seat].pick(combo)})


def _pre_play(game, record) -> tuple:
    """A fresh state of ``record``'s deal with its events before the first play judged."""
    state = game.new_state([parse_cards(h) for h in record["hands"]], parse_cards(record["bottom"]),
                           game.settings(None, record.get("rules")), first_seat=record["first_seat"])
    n = 0
    for event in record["events"]:
        if event["action"] in ("play", "pass", "escape"):
            break
        assert state.judge(event) == []
        n += 1
    return state, n


@settings(max_examples=40, deadline=None)
@given(seeds, st.sampled_from([("wakeng", "xian"), ("wakeng", "xian-4p"), ("zhuohonga", "hebei"),
                               ("zhuohonga", "hebei-tianxuan")]), st.integers(-1, 40), st.booleans())
def test_climbing_random_bot_matches_the_slow_way(seed, game_preset, escape_at, bombs):
    name, preset = game_preset
    game = get_game(name)
    s = game.settings(preset, {"is_can_bomb": bombs} if name == "wakeng" else {})
    rng = random.Random(seed)
    record = game.bot_hand(rng, bot="random", settings=s)
    state, n = _pre_play(game, record)
    if name == "zhuohonga":
        escape_at = -1  # (no escape in 捉红A)
    fast, slow = copy.deepcopy(state), copy.deepcopy(state)
    twin = random.Random()
    twin.setstate(rng.getstate())
    fast_events: list = []
    slow_events: list = []
    random_play(fast, rng, fast_events, escape_at + n if escape_at >= 0 else -1)
    _climbing_play_slow(slow, twin, slow_events, escape_at + n if escape_at >= 0 else -1)
    assert fast_events == slow_events and rng.getstate() == twin.getstate()
    assert fast.verdict() == slow.verdict()
    assert json.dumps(fast.public_view(), sort_keys=True) == json.dumps(slow.public_view(), sort_keys=True)


@settings(max_examples=60, deadline=None)
@given(seeds, st.integers(0, 60))
def test_shuffle_is_rng_shuffle(seed, size):
    a, b = random.Random(seed), random.Random(seed)
    x, y = list(range(size)), list(range(size))
    shuffle(x, a)
    b.shuffle(y)
    assert x == y and a.getstate() == b.getstate()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([*ALL_CARDS, *deck(jokers=True), *map(str, ALL_CARDS), "h4", " S5"]), max_size=20))
def test_card_names_are_str_of_each_card(cards):
    assert card_names(cards) == [str(c) for c in cards]


@settings(max_examples=60, deadline=None)
@given(seeds, st.sampled_from(["wakeng", "zhuohonga"]), st.booleans())
def test_a_hand_made_at_once_equals_one_made_card_by_card(seed, name, as_tuple):
    game = get_game(name)
    rules = game.new_state(*_deal(game, random.Random(seed))).hands[0].rules
    cards = random.Random(seed).sample([c for c in CODE if c in rules.rank_of], random.Random(seed).randint(0, 20))
    at_once = Hand(rules, tuple(cards) if as_tuple else cards)
    by_card = Hand(rules, [])
    by_card.add(cards)
    assert (at_once.counts, at_once.levels, at_once.by_rank, at_once.mask) == (
        by_card.counts, by_card.levels, by_card.by_rank, by_card.mask)


def _deal(game, rng):
    record = game.bot_hand(rng, bot="random")
    return ([parse_cards(h) for h in record["hands"]], parse_cards(record["bottom"]), game.settings())


def _climbing_snapshot(state) -> tuple:
    t = state.trick
    return (json.dumps(state.public_view(), sort_keys=True), state.history, [h.cards() for h in state.hands],
            [(h.mask, h.counts, h.levels) for h in state.hands], t.turn, t.beat, t.beat_seat, t.beat_cards,
            t.passes, t.out, t.bombs, t._after, state.is_terminal())


@settings(max_examples=25, deadline=None)
@given(seeds, st.sampled_from(["wakeng", "zhuohonga"]))
def test_climbing_judge_near_misses_match_the_general_path(seed, name):
    """Near misses of the one-rank look-up: every set of one rank held (and part of it), the joker pair,
    two cards of two ranks, a card twice, a card not held; every pass; an event without its seat or action."""
    rng = random.Random(seed)
    game = get_game(name)
    record = game.bot_hand(rng, bot="random")
    state, n = _pre_play(game, record)
    for event in record["events"][n:]:
        seat = event["seat"]
        if rng.random() < 0.3:
            hand = state.hands[seat]
            tries = [{"seat": seat, "action": "play", "cards": cs} for cs in hand.by_rank if cs]
            tries += [{"seat": seat, "action": "play", "cards": cs[1:]} for cs in hand.by_rank if len(cs) > 1]
            held = hand.cards()
            tries += [{"seat": seat, "action": "play", "cards": ["BJ", "RJ"]},
                      {"seat": seat, "action": "play", "cards": held[:1] + held[-1:]},
                      {"seat": seat, "action": "play", "cards": held[:1] * 2},
                      {"seat": seat, "action": "play", "cards": [next(c for c in CODE if c not in hand)]},
                      {"seat": seat, "action": "pass"}, {"action": "pass"}, {"seat": seat}]
            for action in [*tries, event]:
                fast, slow = copy.deepcopy(state), copy.deepcopy(state)
                assert fast.judge(action) == slow._judge(action)
                assert _climbing_snapshot(fast) == _climbing_snapshot(slow)
        assert state.judge(event) == []
    assert state.is_terminal()


@settings(max_examples=20, deadline=None)
@given(seeds)
def test_zhuohonga_first_play_showing_h4_lists_only_legal_plays(seed):
    """With ``first_lead_h4`` the first player is offered plays of 4s that show ♥4, each one legal (the
    listing once failed on card names); the random bot's hand under it ends."""
    game = get_game("zhuohonga")
    s = game.settings(None, {"first_lead_h4": True})
    state = game.new_state(game.deal(random.Random(seed), s), [], s)
    plays = [a for a in state.legal_actions(state.current_player()) if a["action"] == "play"]
    assert plays and all("H4" in a["cards"] and all(c[1:] == "4" for c in a["cards"]) for a in plays)
    for action in plays:
        assert copy.deepcopy(state).judge(action) == []
    assert game.bot_hand(random.Random(seed), bot="random", settings=s)["verdict"]["finished"]


@settings(max_examples=15, deadline=None)
@given(seeds, st.sampled_from(["wakeng", "zhuohonga"]))
def test_climbing_judge_keeps_a_copy_unless_given_the_action(seed, name):
    """``judge(action)`` logs a copy (the caller may change its dict and list after); ``judge(action, True)``,
    the random bot's way, logs a play or pass itself: the same verdicts and the same state either way."""
    game = get_game(name)
    record = game.bot_hand(random.Random(seed), bot="random")
    copied, owned = _pre_play(game, record)[0], _pre_play(game, record)[0]
    n = len(copied.history)
    for event in record["events"][n:]:
        mine, given = copy.deepcopy(event), copy.deepcopy(event)
        assert copied.judge(mine) == owned.judge(given, True) == []
        assert copied.history[-1] == mine and copied.history[-1] is not mine
        assert owned.history[-1] is given or event["action"] not in ("play", "pass")
        mine["seat"] = -1
        if "cards" in mine:
            mine["cards"].append("XX")
        assert _climbing_snapshot(copied) == _climbing_snapshot(owned)
    assert copied.is_terminal() and owned.is_terminal()


@settings(max_examples=25, deadline=None)
@given(seeds, st.sampled_from(["wakeng", "zhuohonga"]), st.booleans())
def test_passes_that_end_a_play_are_kept_with_it(seed, name, fast):
    """``TrickPlay._ends``, set with each play, is the count ``pass_`` works out: every seat still in but the
    player (a player who went out with it is no longer in), by the fast path and the general one."""
    game = get_game(name)
    record = game.bot_hand(random.Random(seed), bot="random")
    state, n = _pre_play(game, record)
    for event in record["events"][n:]:
        assert (state.judge(event) if fast else state._judge(event)) == []
        t = state.trick
        if t.beat is not None:
            assert t._ends == t.n - len(t.out) - (t.beat_seat not in t.out)
