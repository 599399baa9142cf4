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
