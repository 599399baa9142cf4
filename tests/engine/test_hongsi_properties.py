"""红桃四 invariants over random play (hypothesis): cards are conserved, scores are zero-sum, the seat to
act always has a legal action, every action the generator lists is accepted by the referee, rejected
actions change nothing, replays give the same verdict, and no view shows a hidden card."""

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import parse_cards
from engine.hongsi import combos as C
from engine.hongsi.game import HongsiGame
from engine.hongsi.state import HongsiState
from engine.referee import referee

GAME = HongsiGame()
seeds = st.integers(0, 2**32 - 1)
house = st.fixed_dictionaries({"bombs": st.booleans(), "min_pair_run": st.integers(2, 4),
                               "bomb_doubling": st.sampled_from(["each", "once"])})


def new_state(rng, rules):
    hands = GAME.deal(rng, rng.randrange(4))
    return hands, HongsiState([parse_cards(h) for h in hands], GAME.settings(None, rules))


def played_mask(state):
    mask = 0
    for e in state.log:
        if e["action"] == "play":
            mask |= C.mask_of(C.codes_of(e["cards"]))
    return mask


def check_conservation(state):
    held = 0
    for m in state.hands:
        assert held & m == 0  # no card in two hands
        held |= m
    played = played_mask(state)
    assert held & played == 0
    assert held | played == (1 << 52) - 1  # every card is in a hand or on the table, once


def random_action(state, rng):
    """Any legal action: mostly the seat to act's, sometimes another seat's declaration or talk."""
    if rng.random() < 0.2:
        seat = rng.randrange(4)
        options = state.declaration_options(seat) if state.pending is None else []
        if options:
            return rng.choice(options)
    seat = state.current_player()
    options = state.legal_actions(seat)
    assert options, f"seat {seat} to act has no legal action"
    return rng.choice(options)


@settings(max_examples=150, deadline=None)
@given(seeds, house)
def test_random_playout_invariants(seed, rules):
    rng = random.Random(seed)
    hands, state = new_state(rng, rules)
    events = []
    for _ in range(400):
        if state.is_terminal():
            break
        action = random_action(state, rng)
        assert state.judge(action) == []
        events.append(action)
        check_conservation(state)
    assert state.is_terminal() and state.current_player() is None
    scores = state.returns()
    assert sum(scores) == 0 and any(scores)
    rec = {"game": "hongsi", "rules": rules, "hands": hands, "events": events}
    first, second = referee(json.loads(json.dumps(rec))), referee(rec)
    assert first == second and first["violations"] == []
    assert {k: v for k, v in first.items() if k != "violations"} == state.verdict()


@settings(max_examples=60, deadline=None)
@given(seeds, house)
def test_every_listed_action_is_accepted(seed, rules):
    rng = random.Random(seed)
    _, state = new_state(rng, rules)
    while not state.is_terminal():
        for seat in range(4):
            for action in state.legal_actions(seat):
                trial = state.clone()
                assert trial.judge(action) == [], action
        state.judge(random_action(state, rng))


@settings(max_examples=80, deadline=None)
@given(seeds, st.lists(st.tuples(st.integers(-1, 4), st.sampled_from(
    ["play", "pass", "call", "tiao", "baomen", "pa", "pa_accept", "pa_refuse", "announce", "jump"]),
    st.integers(0, 51), st.integers(1, 4), st.integers(-1, 4)), max_size=60))
def test_rejected_actions_change_nothing(seed, noise):
    rng = random.Random(seed)
    _, state = new_state(rng, {})
    for seat, action, card, n, target in noise:
        if state.is_terminal():
            break
        cards = [C.CARD_NAMES[(card + 7 * i) % 52] for i in range(n)]
        event = {"seat": seat, "action": action, "cards": cards, "card": cards[0], "target": target,
                 "count": n}
        before = state.public_view(None), [state.public_view(s) for s in range(4)], state.verdict()
        violations = state.judge(event)
        after = state.public_view(None), [state.public_view(s) for s in range(4)], state.verdict()
        errors = [v for v in violations if v.severity == "error"]
        assert len(errors) <= 1
        for v in violations:
            assert v.rule in ("turn", "phase", "not_in_hand", "combo", "follow", "lead_pass", "call", "tiao",
                              "baomen", "pa", "count", "finished")
            assert v.message and v.message_zh
        if errors and not [v for v in violations if v.severity == "warning"]:
            assert before == after
        if not state.is_terminal():
            state.judge(random_action(state, rng))  # keep the hand moving


@settings(max_examples=25, deadline=None)
@given(seeds)
def test_views_never_show_a_hidden_card(seed):
    rng = random.Random(seed)
    _, state = new_state(rng, {"bombs": True})
    while not state.is_terminal():
        played = set(C.cards_of(played_mask(state)))
        called = C.CARD_NAMES[state.called] if state.called is not None else None
        for seat in (None, 0, 1, 2, 3):
            view = state.public_view(seat)
            own = set(view.pop("hand", []))
            assert seat is None or own == set(C.cards_of(state.hands[seat]))
            view.pop("called")
            text = json.dumps(view)
            shown = {c for c in C.CARD_NAMES if f'"{c}"' in text} - {called}  # the call is announced
            assert shown <= played, (seat, shown - played)
            secret = state.mode in ("normal", "anjiao") and not state.revealed and not state.exposed
            if secret and seat not in (state.h4, state.partner):
                assert view["partner"] is None and view["mode"] is None
            assert view["counts"] == [m.bit_count() for m in state.hands]
            assert called is None or called == state.public_view(seat)["called"]
        state.judge(random_action(state, rng))


def test_bot_hands_replay_identically():
    for bot in ("greedy", "random"):
        a = GAME.bot_hand(random.Random(99), bot=bot, first_seat=2)
        b = GAME.bot_hand(random.Random(99), bot=bot, first_seat=2)
        assert a == b
        assert referee(a) == referee(b) == referee(json.loads(json.dumps(a)))


actions = st.sampled_from(["play", "pass", "call", "tiao", "baomen", "pa", "pa_accept", "pa_refuse", "announce"])


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=52, max_size=52), st.integers(0, 52),
       st.lists(st.tuples(st.integers(0, 3), actions, st.lists(st.integers(0, 51), max_size=4),
                          st.integers(-1, 4)), max_size=40))
def test_partial_or_odd_deals_are_judged_without_errors_escaping(owners, n_dealt, noise):
    """Records with any number of cards per seat (♥4 maybe missing) are judged, never crash."""
    hands = [[], [], [], []]
    for code in range(n_dealt):
        hands[owners[code]].append(C.CARD_NAMES[code])
    events = [{"seat": s, "action": a, "cards": [C.CARD_NAMES[c] for c in cs],
               "card": C.CARD_NAMES[cs[0]] if cs else "S10", "target": t, "count": t} for s, a, cs, t in noise]
    verdict = referee({"game": "hongsi", "hands": hands, "events": events})
    assert verdict["game"] == "hongsi" and len(verdict["violations"]) <= len(events)
    assert verdict["scores"] is None or sum(verdict["scores"]) == 0
