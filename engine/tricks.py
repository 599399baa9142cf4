"""The trick-taking core shared by 拱猪 (``gongzhu``) and 升级 (``shengji``).

Built once, parameterised by each game's *effective suit* and *order* of a card, so that 升级's trump
(jokers, level cards and the trump suit form one suit of their own) works with the same code as 拱猪's
plain suits:

- :class:`Trick`: who led, the plays so far, whose turn it is, and the winning play so far
  (a game-supplied ``beats(new, best)`` decides; the first of equal plays keeps the trick);
- :func:`follow_suit_ok`: a follower plays as many cards of the led effective suit as the lead has,
  or all they hold of it;
- the lead of the next trick passes to the trick's winner (the games do this with :attr:`Trick.winner`).

Cards are small integer *codes* here for speed (``suit * 13 + rank``, rank 0 = ``2`` … 12 = ``A``;
52 = ``BJ``, 53 = ``RJ``); :func:`code` and :func:`name` convert to and from the record notation.

>>> t = Trick(leader=3, seats=4)
>>> t.add(3, (code("D5"),), lambda new, best: False)
>>> t.to_play, t.winner, t.done
(0, 3, False)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from engine.cards import ALL_CARDS, JOKERS, RANKS, SUITS
from engine.draws import shuffle
from engine.game import Violation, violation

BJ, RJ = 52, 53
NAMES: tuple[str, ...] = tuple(s + r for s in SUITS for r in RANKS) + JOKERS
CODES: dict[str, int] = {n: i for i, n in enumerate(NAMES)}


_CODE_OF_CARD = {id(c): CODES[str(c)] for c in ALL_CARDS}  # the parser's cards (they live on), by identity


def codes_of(cards: Sequence[Any]) -> list[int]:
    """The codes of a hand given as names or as ``Card`` objects (``KeyError`` if one is not a card). Names
    and the parser's own cards are looked up in C; anything else goes by ``str`` of each."""
    if cards.__class__ is not list and cards.__class__ is not tuple:
        cards = list(cards)
    if cards and cards[0].__class__ is str:
        try:
            return list(map(CODES.__getitem__, cards))
        except (KeyError, TypeError):
            pass
    else:
        out = list(map(_CODE_OF_CARD.get, map(id, cards)))
        if None not in out:
            return out
    return [CODES[c if c.__class__ is str else str(c)] for c in cards]


def code(text: str) -> int:
    """The code of a card written in record notation (``KeyError`` if it is not one)."""
    return CODES[text.strip().upper()]


def name(card: int) -> str:
    return NAMES[card]


def names(cards: Iterable[int]) -> list[str]:
    return list(map(NAMES.__getitem__, cards))


def suit_index(card: int) -> int:
    """0..3 for S H D C; 4 for a joker."""
    return card // 13 if card < 52 else 4


def rank_index(card: int) -> int:
    """0 for ``2`` … 12 for ``A``; 13 for ``BJ``, 14 for ``RJ``."""
    return card % 13 if card < 52 else card - 39


def event_cards(event: dict[str, Any]) -> list[int] | Violation:
    """The cards of an event (``cards`` list, or a single ``card``) as codes, or a ``malformed`` error."""
    raw = event.get("cards")
    if raw is None and "card" in event:
        raw = [event["card"]]
    if not isinstance(raw, list) or not raw:
        return violation(
            "malformed",
            "the action needs 'cards': a non-empty list of cards",
            "该动作需要 cards：非空的牌列表",
        )
    try:  # the common case: every card written exactly as a record writes it
        return [CODES[text] for text in raw]
    except (KeyError, TypeError):
        pass
    out = []
    for text in raw:
        c = CODES.get(text.strip().upper()) if isinstance(text, str) else None
        if c is None:
            return violation("malformed", f"not a card: {text!r}", f"不是一张牌：{text!r}")
        out.append(c)
    return out


def has_cards(counts: Sequence[int], cards: Sequence[int]) -> bool:
    """Whether a hand kept as per-code counts holds every card of ``cards`` (as a multiset)."""
    if len(cards) == 1:
        return counts[cards[0]] >= 1
    if len(cards) == 2:  # (a pair, or two cards: no dict)
        a, b = cards
        return counts[a] >= 2 if a == b else counts[a] >= 1 and counts[b] >= 1
    need: dict[int, int] = {}
    for c in cards:
        need[c] = need.get(c, 0) + 1
    return all(counts[c] >= k for c, k in need.items())


def follow_suit_ok(
    played: Sequence[int], holding: int, led_count: int, led_suit: int, effective_suit: Sequence[int]
) -> bool:
    """Follow suit: the play holds ``min(led_count, holding)`` cards of the led effective suit.

    ``holding`` is how many cards of that suit the follower held before playing."""
    in_suit = sum(1 for c in played if effective_suit[c] == led_suit)
    return in_suit >= min(led_count, holding)


class Trick:
    """One trick: ``seats`` plays in seat order from ``leader``; the best play so far wins it."""

    __slots__ = ("leader", "seats", "plays", "best")

    def __init__(self, leader: int, seats: int = 4):
        self.leader = leader
        self.seats = seats
        self.plays: list[tuple[int, tuple[int, ...]]] = []
        self.best = 0  # index into plays of the winning play so far

    @property
    def to_play(self) -> int:
        return (self.leader + len(self.plays)) % self.seats

    @property
    def done(self) -> bool:
        return len(self.plays) == self.seats

    @property
    def lead(self) -> tuple[int, ...]:
        return self.plays[0][1]

    @property
    def winner(self) -> int:
        return self.plays[self.best][0]

    def add(
        self, seat: int, cards: tuple[int, ...], beats: Callable[[tuple[int, ...], tuple[int, ...]], bool]
    ) -> None:
        """Add a play; it becomes the best if ``beats(cards, best cards)`` (strictly better)."""
        self.plays.append((seat, cards))
        if len(self.plays) > 1 and beats(cards, self.plays[self.best][1]):
            self.best = len(self.plays) - 1

    def cards(self) -> list[int]:
        return [c for _, cs in self.plays for c in cs]

    def to_json(self) -> dict[str, Any]:
        name = NAMES.__getitem__
        plays = self.plays
        return {
            "leader": self.leader,
            "plays": [  # (one card, the common play, named without a map)
                {"seat": s, "cards": [NAMES[cs[0]]] if len(cs) == 1 else list(map(name, cs))} for s, cs in plays
            ],
            "winner": plays[self.best][0] if plays else None,
        }


def shuffled_deck(deck_cards: list[Any], rng: random.Random) -> list[str]:
    """A shuffled copy of a deck as notation strings."""
    cards = list(map(str, deck_cards))  # (a name is its own str: the loop runs in C)
    shuffle(cards, rng)  # rng.shuffle's order, faster
    return cards
