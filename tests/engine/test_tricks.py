"""The shared trick-taking core: card codes, follow suit, the trick's winner and whose turn it is."""

import pytest

from engine.cards import DECKS
from engine.tricks import (
    BJ,
    RJ,
    Trick,
    code,
    event_cards,
    follow_suit_ok,
    has_cards,
    name,
    rank_index,
    suit_index,
)


def test_codes_round_trip_every_card_of_every_deck():
    for card in DECKS["shengji"].composition():
        assert name(code(str(card))) == str(card)
    assert code("bj") == BJ and code("RJ") == RJ
    assert suit_index(code("C2")) == 3 and rank_index(code("C2")) == 0
    assert suit_index(BJ) == 4 and rank_index(RJ) == 14
    with pytest.raises(KeyError):
        code("H11")


def test_event_cards_accepts_cards_or_card_and_rejects_junk():
    assert event_cards({"cards": ["H4", "s10"]}) == [code("H4"), code("S10")]
    assert event_cards({"card": "DA"}) == [code("DA")]
    for bad in ({}, {"cards": []}, {"cards": "H4"}, {"cards": ["H11"]}, {"cards": [4]}):
        v = event_cards(bad)
        assert not isinstance(v, list) and v.rule == "malformed" and v.message_zh


def test_trick_turns_and_winner_pass_the_lead():
    higher_same_suit = lambda new, best: suit_index(new[0]) == suit_index(best[0]) and new[0] > best[0]  # noqa: E731
    t = Trick(leader=2)
    assert t.to_play == 2 and not t.done
    t.add(2, (code("D5"),), higher_same_suit)
    t.add(3, (code("DK"),), higher_same_suit)
    t.add(0, (code("SA"),), higher_same_suit)   # a discard never wins
    assert t.to_play == 1 and t.winner == 3
    t.add(1, (code("D9"),), higher_same_suit)
    assert t.done and t.winner == 3 and sorted(t.cards()) == sorted(code(c) for c in ["D5", "DK", "SA", "D9"])
    assert t.to_json()["winner"] == 3


def test_equal_plays_keep_the_first():
    t = Trick(leader=0)
    for seat in range(4):
        t.add(seat, (code("H2"),), lambda new, best: new[0] > best[0])
    assert t.winner == 0


def test_follow_suit_needs_as_many_of_the_led_suit_as_held():
    eff = [suit_index(c) for c in range(54)]
    spades = [code("S3"), code("S4")]
    assert follow_suit_ok(spades, holding=5, led_count=2, led_suit=0, effective_suit=eff)
    assert not follow_suit_ok([code("S3"), code("H4")], holding=5, led_count=2, led_suit=0, effective_suit=eff)
    assert follow_suit_ok([code("S3"), code("H4")], holding=1, led_count=2, led_suit=0, effective_suit=eff)
    assert follow_suit_ok([code("H4")], holding=0, led_count=1, led_suit=0, effective_suit=eff)


def test_has_cards_counts_copies():
    counts = [0] * 54
    counts[code("H5")] = 1
    assert has_cards(counts, [code("H5")])
    assert not has_cards(counts, [code("H5"), code("H5")])
