"""Sampling the hidden cards (engine.bots.determinize): what is public constrains every sample."""

from __future__ import annotations

import random
from collections import Counter

from engine.bots import determinize as D
from engine.bots.infoset import info_set
from engine.bots.table import deal, greedy_policy, next_seat
from engine.cards import parse_cards
from engine.registry import get_game


def _positions(name: str, hands_n: int, every: int):
    game = get_game(name)
    settings = game.settings()
    rng = random.Random(2)
    for _ in range(hands_n):
        hands, bottom = deal(game, settings, rng)
        state = game.new_state([parse_cards(h) for h in hands], parse_cards(bottom), settings, first_seat=0)
        for step in range(600):
            if state.is_terminal():
                break
            seat = next_seat(state, len(hands))
            if seat is None:
                break
            if step % every == 0:
                yield game, info_set(game, state, seat)
            state.judge(greedy_policy(game, state, seat, rng))


def test_a_card_another_seat_played_is_its_own_though_its_twin_is_in_the_bottom_i_took():
    """升级 plays two decks: the dealer took the bottom, and another seat's ♦6 played openly is the other ♦6.
    (It was taken away as a bottom card, and most samples of the dealer's view were refused.)"""
    checked = 0
    for game, info in _positions("shengji", 2, 7):
        known, _pool = D.constraints(game, info)
        for ev in info.events:
            s = ev.get("seat")
            if s != info.seat and ev.get("action") == "play":
                assert not Counter(D._cards(ev)) - known[s] or not _took(info), (ev, info.bottom)
        checked += _took(info)
    assert checked >= 3


def _took(info) -> bool:
    return any(ev.get("seat") == info.seat and ev.get("action") == "take_bottom" for ev in info.events)


def test_most_positions_of_2_decks_find_a_sample():
    found = tried = 0
    rng = random.Random(9)
    for game, info in _positions("shengji", 2, 5):
        if len(info.legal) > 1:
            tried += 1
            found += D.determinize(game, info, rng, tries=20) is not None
    assert tried >= 20 and found >= 0.7 * tried, f"{found}/{tried}"


def test_a_sample_of_2_decks_keeps_the_bottom_card_flipped_for_trump():
    """升级 without a declaration: the trump is the suit of the bottom's first card, flipped in the open. A
    seat that never saw the bottom must still sample that card there (before, the sample's trump was the
    suit of a random card: before any play showed it, the search played a hand with another trump)."""
    checked = 0
    rng = random.Random(4)
    for game, info in _positions("shengji", 3, 3):
        if info.bottom is not None or not info.view.get("flipped"):
            continue
        state = D.determinize(game, info, rng, tries=20)
        if state is None:
            continue
        assert Counter(state.seat_dealt(info.seat)) == Counter(info.dealt)
        assert state.public_view(info.seat)["trump_suit"] == info.view["trump_suit"]
        assert state.public_view(None)["flipped"] == info.view["flipped"]
        checked += 1
    assert checked >= 10


def test_a_dealer_who_buried_face_down_is_sampled_burying_low_plain_cards():
    """升级: what the dealer buried is unseen; a sample buries as dealers do (low plain cards, keeping
    trumps and points), not a uniform pick from its 33 cards (about 15 points in the bottom)."""
    points, n = 0, 0
    rng = random.Random(5)
    for game, info in _positions("shengji", 3, 6):
        if info.bottom is not None or info.view.get("phase") != "play":
            continue
        state = D.determinize(game, info, rng, tries=20)
        if state is None:
            continue
        points += state.bottom_points()
        n += 1
    assert n >= 10 and points / n < 6, (points, n)
