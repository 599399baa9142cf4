"""Card notation shared by every game (see ``docs/game-record.md``).

A card is written ``<suit><rank>``: suit ``S`` ♠, ``H`` ♥, ``D`` ♦, ``C`` ♣; rank ``2``..``10``,
``J``, ``Q``, ``K``, ``A``. Jokers are ``BJ`` (black, small) and ``RJ`` (red, big).

>>> c = parse_card("H4")
>>> c.suit, c.rank, str(c)
('H', '4', 'H4')
>>> CLIMBING.sort(parse_cards(["S3", "H4", "DA", "C2"]))
['H4', 'DA', 'C2', 'S3']

Rank orders are given per game, never hard-wired: :data:`RANK_ORDERS` maps a game to its order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

SUITS: tuple[str, ...] = ("S", "H", "D", "C")
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAMES_ZH = {"S": "黑桃", "H": "红桃", "D": "方块", "C": "梅花"}
RANKS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
JOKERS: tuple[str, ...] = ("BJ", "RJ")
RANK_NAMES_ZH = {"J": "J", "Q": "Q", "K": "K", "A": "A", "BJ": "小王", "RJ": "大王"}


class CardError(ValueError):
    """A string that is not a card, with the offending text in the message."""


@dataclass(frozen=True, slots=True)
class Card:
    """One playing card. ``suit`` is ``None`` for a joker, whose ``rank`` is ``BJ`` or ``RJ``."""

    suit: str | None
    rank: str

    def __str__(self) -> str:
        return self.rank if self.suit is None else self.suit + self.rank

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"

    @property
    def is_joker(self) -> bool:
        return self.suit is None

    @property
    def is_red(self) -> bool:
        return self.suit in ("H", "D") or self.rank == "RJ"

    @property
    def zh(self) -> str:
        """Chinese name, e.g. 红桃4, 大王."""
        if self.suit is None:
            return RANK_NAMES_ZH[self.rank]
        return SUIT_NAMES_ZH[self.suit] + self.rank

    @property
    def pretty(self) -> str:
        """Symbol form, e.g. ♥4."""
        return self.rank if self.suit is None else SUIT_SYMBOLS[self.suit] + self.rank


_BY_NAME: dict[str, Card] = {}
for _s in SUITS:
    for _r in RANKS:
        _BY_NAME[_s + _r] = Card(_s, _r)
for _j in JOKERS:
    _BY_NAME[_j] = Card(None, _j)

ALL_CARDS: tuple[Card, ...] = tuple(_BY_NAME.values())
BY_NAME: dict[str, Card] = _BY_NAME  # a card by its name exactly as written (``H4``, ``S10``, ``RJ``)


def parse_card(text: object) -> Card:
    """Parse one card; raise :class:`CardError` naming the text if it is not a card."""
    if isinstance(text, Card):
        return text
    if not isinstance(text, str):
        raise CardError(f"not a card: {text!r} (expected a string such as 'H4', 'S10', 'RJ')")
    card = _BY_NAME.get(text.strip().upper())
    if card is None:
        raise CardError(f"not a card: {text!r} (suit S/H/D/C then rank 2-10/J/Q/K/A, or BJ/RJ)")
    return card


def parse_cards(texts: Iterable[object]) -> list[Card]:
    return [parse_card(t) for t in texts]


def format_card(card: Card) -> str:
    return str(card)


def format_cards(cards: Iterable[Card]) -> list[str]:
    return [str(c) for c in cards]


def deck(*, jokers: bool = False, decks: int = 1) -> list[Card]:
    """The cards of ``decks`` full decks, in a fixed order (suit-major), jokers last."""
    one = [Card(s, r) for s in SUITS for r in RANKS]
    if jokers:
        one += [Card(None, j) for j in JOKERS]
    return one * decks


@dataclass(frozen=True)
class DeckSpec:
    """Which cards a game plays with."""

    jokers: bool
    decks: int

    @property
    def size(self) -> int:
        return (54 if self.jokers else 52) * self.decks

    def cards(self) -> list[Card]:
        return deck(jokers=self.jokers, decks=self.decks)

    def composition(self) -> Counter[Card]:
        return Counter(self.cards())

    def names(self) -> list[str]:
        """The card names of :meth:`cards`, in the same order (a new list each time; made once)."""
        return list(_deck_names(self))


@cache
def _deck_names(spec: DeckSpec) -> tuple[str, ...]:
    return tuple(str(c) for c in spec.cards())


DECKS: dict[str, DeckSpec] = {
    "hongsi": DeckSpec(jokers=False, decks=1),
    "wakeng": DeckSpec(jokers=False, decks=1),
    "zhuohonga": DeckSpec(jokers=True, decks=1),
    "gongzhu": DeckSpec(jokers=False, decks=1),
    "shengji": DeckSpec(jokers=True, decks=2),
}


@dataclass(frozen=True)
class RankOrder:
    """A game's ranking of ranks, low to high. Suits never enter it."""

    name: str
    ranks: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {r: i for i, r in enumerate(self.ranks)})

    def strength(self, rank: str) -> int:
        """0 for the lowest rank; raise :class:`CardError` for a rank outside this order."""
        try:
            return self._index[rank]  # type: ignore[attr-defined]
        except KeyError:
            raise CardError(f"rank {rank!r} is not in the {self.name} order") from None

    def key(self, card: Card) -> int:
        return self.strength(card.rank)

    def sort(self, cards: Iterable[Card]) -> list[str]:
        """Cards low to high (ties by suit order S H D C), as notation strings."""
        return [str(c) for c in sorted(cards, key=lambda c: (self.key(c), str(c)))]

    def beats(self, a: str, b: str) -> bool:
        return self.strength(a) > self.strength(b)


CLIMBING = RankOrder("climbing", ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "3"))
CLIMBING_JOKERS = RankOrder("climbing+jokers", CLIMBING.ranks + JOKERS)
NATURAL = RankOrder("natural", RANKS)
NATURAL_JOKERS = RankOrder("natural+jokers", RANKS + JOKERS)

RANK_ORDERS: dict[str, RankOrder] = {
    "hongsi": CLIMBING,
    "wakeng": CLIMBING,
    "zhuohonga": CLIMBING_JOKERS,
    "gongzhu": NATURAL,
    "shengji": NATURAL_JOKERS,
}

GAMES: tuple[str, ...] = tuple(DECKS)
