"""The 54 card labels the reader knows, in one fixed order (the classifier's output order).

>>> LABELS[0], LABELS[12], LABELS[-2:], len(LABELS)
('S2', 'SA', ('BJ', 'RJ'), 54)
>>> index("H4"), split("S10"), split("RJ")
(15, ('S', '10'), (None, 'RJ'))
"""

from __future__ import annotations

SUITS: tuple[str, ...] = ("S", "H", "D", "C")
RANKS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
JOKERS: tuple[str, ...] = ("BJ", "RJ")
LABELS: tuple[str, ...] = tuple(s + r for s in SUITS for r in RANKS) + JOKERS
RED_SUITS = frozenset({"H", "D"})

_INDEX = {label: i for i, label in enumerate(LABELS)}

# The classifier's auxiliary heads: rank (13 ranks + joker) and suit (4 suits + black/red joker).
RANK_CLASSES: tuple[str, ...] = RANKS + ("JOKER",)
SUIT_CLASSES: tuple[str, ...] = SUITS + ("BJ", "RJ")


def index(label: str) -> int:
    """The position of ``label`` in :data:`LABELS`; ``KeyError`` for an unknown label."""
    try:
        return _INDEX[label]
    except KeyError:
        raise KeyError(f"not a card label: {label!r}") from None


# How people write suits on a phone: the letter or its symbol (filled or outline), before or after the rank.
_SUIT_WORDS = {"S": "S", "H": "H", "D": "D", "C": "C", "♠": "S", "♥": "H", "♦": "D", "♣": "C",
               "♤": "S", "♡": "H", "♢": "D", "♧": "C"}


def parse(text: str) -> str | None:
    """A card label as a person may write it: any case, suit first or last, suit letter or symbol;
    ``None`` if it is not a card.

    >>> parse("h4"), parse("10H"), parse("♥4"), parse("Q♠"), parse(" rj "), parse("H11")
    ('H4', 'H10', 'H4', 'SQ', 'RJ', None)
    """
    word = text.strip().upper().replace("\ufe0f", "")  # the emoji variation selector some phones add
    if word in _INDEX:
        return word
    for suit, rank in ((word[:1], word[1:]), (word[-1:], word[:-1])):
        label = _SUIT_WORDS.get(suit, "") + rank
        if suit in _SUIT_WORDS and label in _INDEX:
            return label
    return None


def split(label: str) -> tuple[str | None, str]:
    """``(suit, rank)``; a joker has suit ``None`` and rank ``BJ``/``RJ``."""
    if label in JOKERS:
        return None, label
    index(label)
    return label[0], label[1:]


def rank_index(label: str) -> int:
    """The label's class in :data:`RANK_CLASSES`."""
    suit, rank = split(label)
    return RANK_CLASSES.index("JOKER" if suit is None else rank)


def suit_index(label: str) -> int:
    """The label's class in :data:`SUIT_CLASSES`."""
    suit, rank = split(label)
    return SUIT_CLASSES.index(rank if suit is None else suit)


def is_red(label: str) -> bool:
    suit, rank = split(label)
    return rank == "RJ" if suit is None else suit in RED_SUITS
