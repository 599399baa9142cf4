"""The bots see only what their seat may see (issue 34, item 1).

For every game and preset: a bot hand is cut at some event; a second deal is made that differs from the
real one only in cards the seat to act cannot know (two of the other seats', or the unseen bottom, swap
cards they still hold), and the same events are replayed on it. The seat's information set must be the
same, and so must the search bot's and the greedy fallback's choices with the same random seed.
"""

from __future__ import annotations

import json
import random
import re
import zlib
from typing import Any

import pytest

from engine.bots.infoset import info_set
from engine.bots.search import choose, fallback
from engine.cards import parse_cards
from engine.game import Game, State
from engine.registry import game_names, get_game

CASES = [(name, preset) for name in game_names() for preset in get_game(name).presets]


def replay(
    game: Game,
    rules: Any,
    hands: list[list[str]],
    bottom: list[str],
    events: list[dict[str, Any]],
    deal_args: dict[str, Any],
) -> State | None:
    state = game.new_state([parse_cards(h) for h in hands], parse_cards(bottom), rules, **deal_args)
    for ev in events:
        if any(v.severity == "error" for v in state.judge(dict(ev))):
            return None
    return state


def twin(
    game: Game, rules: Any, record: dict[str, Any], cut: int, rng: random.Random
) -> tuple[State, State, int] | None:
    """The real state after ``cut`` events and a twin the seat to act cannot tell from it."""
    hands, bottom, events = record["hands"], record["bottom"], record["events"][:cut]
    real = replay(game, rules, hands, bottom, events, {})
    if real is None or real.is_terminal() or real.current_player() is None:
        return None
    args = real.deal_args()
    real = replay(game, rules, hands, bottom, events, args)
    assert real is not None
    seat = real.current_player()
    assert seat is not None
    seen = set(real.seen_bottom(seat) or [])
    seen |= set(re.findall(r'"((?:[SHDC](?:10|[2-9JQKA]))|BJ|RJ)"', json.dumps(real.public_view(None))))
    piles = {
        s: [c for c in real.public_view(s).get("hand") or [] if c not in seen and c in real.seat_dealt(s)]
        for s in range(len(hands))
        if s != seat
    }
    if not seen:
        piles[-1] = list(bottom)
    for _ in range(60):
        a, b = rng.sample(sorted(piles), 2)
        if not piles[a] or not piles[b]:
            continue
        x, y = rng.choice(piles[a]), rng.choice(piles[b])
        if x == y:
            continue
        new_hands = [list(h) for h in hands]
        new_bottom = list(bottom)
        pa = new_bottom if a == -1 else new_hands[a]
        pb = new_bottom if b == -1 else new_hands[b]
        pa[pa.index(x)], pb[pb.index(y)] = y, x
        other = replay(game, rules, new_hands, new_bottom, events, args)
        # a swap that changes what everyone sees (天宣 declared by the deal itself) is not a hidden difference
        if (
            other is not None
            and other.current_player() == seat
            and other.public_view(None) == real.public_view(None)
        ):
            return real, other, seat
    return None


@pytest.mark.parametrize("name,preset", CASES)
def test_bot_acts_the_same_on_deals_it_cannot_tell_apart(name: str, preset: str) -> None:
    game = get_game(name)
    rules = game.settings(preset)
    rng = random.Random(zlib.crc32(f"{name}:{preset}".encode()))  # hash() of a str changes per process
    tested = searched = 0
    for hand in range(6):
        record = game.bot_hand(random.Random(100 + hand), bot="greedy", settings=rules)
        n = len(record["events"])
        for cut in sorted({0, 1, n // 3, n // 2, (2 * n) // 3}):
            pair = twin(game, rules, record, cut, rng)
            if pair is None:
                continue
            real, other, seat = pair
            others = [s for s in range(len(record["hands"])) if s != seat]
            assert (
                any(real.public_view(s).get("hand") != other.public_view(s).get("hand") for s in others)
                or real.seen_bottom(seat) is None
            ), "the twin differs in hidden cards"
            a, b = info_set(game, real, seat), info_set(game, other, seat)
            assert a.key() == b.key()
            assert fallback(game, a, random.Random(5)) == fallback(game, b, random.Random(5))
            if searched < 2 and len(a.legal) > 1:
                ca = choose(game, a, random.Random(9), samples=2)
                cb = choose(game, b, random.Random(9), samples=2)
                assert ca.action == cb.action and ca.why == cb.why
                searched += 1
            tested += 1
        if tested >= 6 and searched >= 1:
            break
    assert tested >= 3, "too few twins were found to test"


def test_the_info_set_hides_other_hands() -> None:
    """A control that can fail: another seat's cards appear nowhere in a seat's information set."""
    game = get_game("hongsi")
    record = game.bot_hand(random.Random(3), bot="greedy")
    state = replay(game, game.settings(), record["hands"], [], [], {})
    assert state is not None
    info = info_set(game, state, 0)
    text = info.key()
    for card in record["hands"][1]:
        assert f'"{card}"' not in text.replace('"call"', "")
