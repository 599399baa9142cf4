from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.cards import (
    ALL_CARDS,
    CLIMBING,
    CLIMBING_JOKERS,
    DECKS,
    NATURAL,
    RANK_ORDERS,
    CardError,
    deck,
    format_card,
    parse_card,
    parse_cards,
)


@pytest.mark.parametrize("game", sorted(DECKS))
def test_every_card_of_every_deck_round_trips(game):
    cards = DECKS[game].cards()
    assert len(cards) == DECKS[game].size
    for card in cards:
        assert parse_card(format_card(card)) == card


@given(st.sampled_from(ALL_CARDS))
def test_round_trip_property(card):
    text = format_card(card)
    assert parse_card(text) is card
    assert parse_card(text.lower()) is card


def test_deck_sizes_and_composition():
    assert len(deck()) == 52 and len(set(deck())) == 52
    assert len(deck(jokers=True)) == 54
    shengji = DECKS["shengji"].composition()
    assert sum(shengji.values()) == 108 and set(shengji.values()) == {2}
    assert Counter(str(c) for c in deck(jokers=True))["RJ"] == 1


@pytest.mark.parametrize("bad", ["H1", "H11", "X4", "", "4H", "JOKER", "S 10x", None, 4, ["H4"]])
def test_bad_cards_name_the_text(bad):
    with pytest.raises(CardError) as exc:
        parse_card(bad)
    assert repr(bad) in str(exc.value)


def test_rank_orders_per_game():
    assert RANK_ORDERS["hongsi"] is CLIMBING and RANK_ORDERS["wakeng"] is CLIMBING
    assert CLIMBING.ranks[0] == "4" and CLIMBING.ranks[-3:] == ("A", "2", "3")
    assert CLIMBING.beats("3", "2") and CLIMBING.beats("2", "A") and not CLIMBING.beats("4", "K")
    assert NATURAL.beats("A", "K") and NATURAL.beats("3", "2") and RANK_ORDERS["gongzhu"] is NATURAL
    assert RANK_ORDERS["zhuohonga"] is CLIMBING_JOKERS
    assert CLIMBING_JOKERS.ranks[-3:] == ("3", "BJ", "RJ")
    assert CLIMBING.sort(parse_cards(["S3", "H4", "DA", "C2", "D10"])) == ["H4", "D10", "DA", "C2", "S3"]
    with pytest.raises(CardError):
        CLIMBING.strength("RJ")


@given(st.lists(st.sampled_from(deck()), min_size=2, max_size=13, unique=True))
def test_climbing_sort_is_monotone(cards):
    ranked = [CLIMBING.key(parse_card(t)) for t in CLIMBING.sort(cards)]
    assert ranked == sorted(ranked)
