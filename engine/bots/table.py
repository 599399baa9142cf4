"""A hand played by bots seat by seat through the referee, each bot given only its information set.

Used by ``hongsi selfplay --bot careful|bold`` and ``benchmarks/bots.py``. A policy is
``policy(game, state, seat, rng) -> action``; :func:`search_policy` builds the search bot's, which reads
the state only to make the seat's information set.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine.bots.greedy import greedy_action, plain_policy
from engine.bots.infoset import info_set
from engine.bots.search import WAIT, choose, fallback, is_declaration
from engine.cards import parse_cards
from engine.game import Action, Game, IllegalAction, State

Policy = Callable[[Game, State, int, random.Random], Action]
ANSWERS = frozenset({"pa_accept", "pa_refuse", "xuan_consent", "xuan_refuse"})
MAX_EVENTS = 3000


def greedy_policy(game: Game, state: State, seat: int, rng: random.Random) -> Action:
    """Today's greedy bot (it reads the real state: a baseline, never a table's bot)."""
    return greedy_action(state, seat, rng)


def search_policy(style: str = "careful", budget_ms: float = 200.0) -> Policy:
    def policy(game: Game, state: State, seat: int, rng: random.Random) -> Action:
        return choose(game, info_set(game, state, seat), rng, style=style, budget_ms=budget_ms).action

    def talk(game: Game, state: State, seat: int, rng: random.Random) -> Action | None:
        info = info_set(game, state, seat)
        action = choose(game, info, rng, style=style, budget_ms=budget_ms, out_of_turn=True).action
        return None if action.get("action") == WAIT else action

    policy.talk = talk  # type: ignore[attr-defined]
    return policy


def info_greedy_policy(game: Game, state: State, seat: int, rng: random.Random) -> Action:
    """The greedy move from the seat's information set alone."""
    return fallback(game, info_set(game, state, seat), rng)


def deal(game: Game, settings: Any, rng: random.Random) -> tuple[list[list[str]], list[str]]:
    plan = game.deal_plan(settings)
    deck = [str(c) for c in plan.deck.cards()]
    rng.shuffle(deck)
    hands, at = [], 0
    for n in plan.cards_per_seat:
        hands.append(deck[at : at + n])
        at += n
    return hands, deck[at:]


def next_seat(state: State, seats: int) -> int | None:
    """An answer due first (a 趴 or 宣 asked of a seat), else the seat to act."""
    for seat in range(seats):
        if any(a.get("action") in ANSWERS for a in state.legal_actions(seat)):
            return seat
    return state.current_player()


def out_of_turn(
    game: Game,
    state: State,
    due: int,
    policies: list[Policy],
    asked: dict[int, frozenset[str]],
    rng: random.Random,
) -> Action | None:
    """A declaration made out of turn (挑 before the call, 趴, 亮主 during the deal, ...) by a seat other than
    ``due`` whose policy talks (the greedy bots never do), applied; ``None`` if nobody spoke. A seat is asked
    again only when what it is offered changes (``asked``)."""
    seats = len(policies)
    for k in range(1, seats):
        seat = (due + k) % seats
        talk = getattr(policies[seat], "talk", None)
        if talk is None:
            continue
        offered = frozenset(str(a.get("action")) for a in state.offered_actions(seat) if is_declaration(a))
        if not offered or asked.get(seat) == offered:
            continue
        asked[seat] = offered
        action = talk(game, state, seat, rng)
        if action is not None and not any(v.severity == "error" for v in state.judge(action)):
            return action
    return None


def play_hand(
    game: Game,
    settings: Any,
    hands: list[list[str]],
    bottom: list[str],
    policies: list[Policy],
    rng: random.Random,
    *,
    first_seat: int = 0,
) -> dict[str, Any]:
    """Play the deal with ``policies[seat]`` for each seat; return the game record."""
    state, events = run_hand(game, settings, hands, bottom, policies, rng, first_seat=first_seat)
    return game.bot_record(state, settings, hands, bottom, events, first_seat=first_seat)


def run_hand(
    game: Game,
    settings: Any,
    hands: list[list[str]],
    bottom: list[str],
    policies: list[Policy],
    rng: random.Random,
    *,
    first_seat: int = 0,
) -> tuple[State, list[Action]]:
    """The final state and the events of the deal played by ``policies``."""
    state = game.new_state(
        [parse_cards(h) for h in hands], parse_cards(bottom), settings, first_seat=first_seat
    )
    events: list[Action] = []
    asked: dict[int, frozenset[str]] = {}
    for _ in range(MAX_EVENTS):
        if state.is_terminal():
            break
        seat = next_seat(state, len(hands))
        if seat is None:
            break
        said = out_of_turn(game, state, seat, policies, asked, rng)
        if said is not None:
            events.append(said)
            continue
        action = policies[seat](game, state, seat, rng)
        if any(v.severity == "error" for v in state.judge(action)):
            legal = state.legal_actions(seat)  # a bot's illegal move: the plain policy instead
            action = plain_policy(seat, legal, rng)
            for v in state.judge(action):
                if v.severity == "error":
                    raise IllegalAction(v)
        events.append(action)
    return state, events
