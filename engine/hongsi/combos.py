"""红桃四 combinations on rank counts: classify a play, compare plays, list every legal play fast.

Cards are small ints ``code = rank * 4 + suit`` with ranks in 红桃四 order (0 = 4 … 9 = K, 10 = A,
11 = 2, 12 = 3) and suits S H D C. A hand is a 52-bit mask; what matters for the rules is its rank
counts. A combination is a :class:`Combo` ``(kind, length, top)``: ``length`` is the number of
distinct ranks (1 except for straights and pair runs), ``top`` its highest rank. Every combination
that can exist is built once at import, and the straights / pair runs a hand holds are looked up by
the 10-bit mask of its ranks 4..K — legal-move generation never enumerates subsets of a hand.

>>> hand = mask_of(codes_of(["H4", "S5", "D6", "C6", "S7"]))
>>> [str(c) for c in lead_combos(hand, bombs=False, min_pair_run=3)][:3]
['single 4', 'single 5', 'single 6']
>>> classify(codes_of(["D5", "D6", "D7"]), bombs=False, min_pair_run=3)
Combo(kind=3, length=3, top=3)
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from engine.cards import CLIMBING, SUITS, parse_card

RANK_NAMES: tuple[str, ...] = CLIMBING.ranks  # 4 5 6 7 8 9 10 J Q K A 2 3
N_RANKS = 13
RUN_RANKS = 10  # 4..K may be in a straight or a pair run
CARD_NAMES: tuple[str, ...] = tuple(s + r for r in RANK_NAMES for s in SUITS)
CODE: dict[str, int] = {name: i for i, name in enumerate(CARD_NAMES)}
# a card's bit in a hand mask, by code, by name, and back (look-ups for the hot paths)
CODE_BIT: tuple[int, ...] = tuple(1 << code for code in range(len(CARD_NAMES)))
BIT: dict[str, int] = {name: 1 << code for name, code in CODE.items()}
NAME_OF_BIT: dict[int, str] = {bit: name for name, bit in BIT.items()}
H4 = CODE["H4"]
HEART_ORDER: tuple[int, ...] = tuple(CODE["H" + r] for r in RANK_NAMES)  # ♥4, ♥5, … ♥3
RANK_MASK: tuple[int, ...] = tuple(0xF << (4 * r) for r in range(N_RANKS))

SINGLE, PAIR, TRIPLE, STRAIGHT, PAIR_RUN, BOMB = range(6)
KIND_NAMES = ("single", "pair", "triple", "straight", "pair_run", "bomb")
KIND_NAMES_ZH = ("单牌", "对牌", "三张", "连牌", "连对", "炸弹")
MULTIPLICITY = (1, 2, 3, 1, 2, 4)


class Combo(NamedTuple):
    kind: int
    length: int
    top: int

    @property
    def low(self) -> int:
        return self.top - self.length + 1

    @property
    def size(self) -> int:
        return MULTIPLICITY[self.kind] * self.length

    def ranks(self) -> range:
        return range(self.low, self.top + 1)

    def beats(self, other: Combo) -> bool:
        """Following: same kind and size with a higher top; a bomb beats any non-bomb."""
        if self.kind == other.kind:
            return self.length == other.length and self.top > other.top
        return self.kind == BOMB

    def __str__(self) -> str:
        if self.length == 1:
            return f"{KIND_NAMES[self.kind]} {RANK_NAMES[self.top]}"
        return f"{KIND_NAMES[self.kind]} {RANK_NAMES[self.low]}-{RANK_NAMES[self.top]}"

    @property
    def zh(self) -> str:
        if self.length == 1:
            return f"{KIND_NAMES_ZH[self.kind]}{RANK_NAMES[self.top]}"
        return f"{KIND_NAMES_ZH[self.kind]}{RANK_NAMES[self.low]}-{RANK_NAMES[self.top]}"


def code_of(text: object) -> int | None:
    """The code of a card string (``None`` if it is not a card)."""
    code = CODE.get(text)  # type: ignore[arg-type]
    if code is not None:
        return code
    try:
        return CODE.get(str(parse_card(text)))
    except ValueError:
        return None


def codes_of(texts) -> list[int]:
    return [CODE[str(parse_card(t))] for t in texts]


def mask_of(codes) -> int:
    m = 0
    for c in codes:
        m |= 1 << c
    return m


def counts_of(mask: int) -> list[int]:
    return [((mask >> (4 * r)) & 0xF).bit_count() for r in range(N_RANKS)]


def cards_of(mask: int) -> list[str]:
    """The card names in a mask, low to high."""
    small = _SMALL.get(mask)
    if small is not None:
        return list(small)
    out = []
    while mask:
        low = mask & -mask
        out.append(CARD_NAMES[low.bit_length() - 1])
        mask ^= low
    return out


_SMALL: dict[int, tuple[str, ...]] = {}  # the names of a one-rank play's cards, by mask (195 of them)
for _r in range(N_RANKS):
    for _m in range(1, 16):
        _SMALL[_m << (4 * _r)] = tuple(CARD_NAMES[4 * _r + i] for i in range(4) if _m >> i & 1)

# ------------------------------------------------------------------ every combination, built once
_BY_RANKS: dict[tuple[int, ...], Combo] = {}
for _r in range(N_RANKS):
    for _k in (SINGLE, PAIR, TRIPLE, BOMB):
        _BY_RANKS[(_r,) * MULTIPLICITY[_k]] = Combo(_k, 1, _r)
for _length in range(2, RUN_RANKS + 1):
    for _low in range(RUN_RANKS - _length + 1):
        _run = tuple(range(_low, _low + _length))
        if _length >= 3:
            _BY_RANKS[_run] = Combo(STRAIGHT, _length, _low + _length - 1)
        _BY_RANKS[tuple(r for r in _run for _ in (0, 1))] = Combo(PAIR_RUN, _length, _low + _length - 1)


def classify(codes: list[int], *, bombs: bool, min_pair_run: int) -> Combo | None:
    """The combination these distinct cards make, or ``None`` if they make none."""
    combo = _BY_RANKS.get(tuple(sorted([c >> 2 for c in codes])))
    if combo is None:
        return None
    if combo.kind == BOMB and not bombs:
        return None
    if combo.kind == PAIR_RUN and combo.length < min_pair_run:
        return None
    return combo


ONE_RANK_PLAYS: dict[int, Combo] = {m: _BY_RANKS[(m.bit_length() - 1 >> 2,) * len(names)]
                                    for m, names in _SMALL.items()}


def classify_mask(mask: int, codes: list[int], *, bombs: bool, min_pair_run: int) -> Combo | None:
    """:func:`classify` of ``codes`` (whose mask is ``mask``), a one-rank play by one look-up."""
    combo = ONE_RANK_PLAYS.get(mask)
    if combo is None:
        return classify(codes, bombs=bombs, min_pair_run=min_pair_run)
    return None if combo.kind == BOMB and not bombs else combo


def _runs_in(mask10: int, min_length: int, kind: int) -> tuple[Combo, ...]:
    out = []
    for low in range(RUN_RANKS):
        top = low
        while top < RUN_RANKS and mask10 >> top & 1:
            if top - low + 1 >= min_length:
                out.append(Combo(kind, top - low + 1, top))
            top += 1
    return tuple(out)


_STRAIGHTS_IN: tuple[tuple[Combo, ...], ...] = tuple(_runs_in(m, 3, STRAIGHT) for m in range(1 << RUN_RANKS))


@lru_cache(maxsize=16)
def _pair_runs_table(min_pair_run: int) -> tuple[tuple[Combo, ...], ...]:
    return tuple(_runs_in(m, min_pair_run, PAIR_RUN) for m in range(1 << RUN_RANKS))


_SINGLES = tuple(Combo(SINGLE, 1, r) for r in range(N_RANKS))
_PAIRS = tuple(Combo(PAIR, 1, r) for r in range(N_RANKS))
_TRIPLES = tuple(Combo(TRIPLE, 1, r) for r in range(N_RANKS))
_BOMBS = tuple(Combo(BOMB, 1, r) for r in range(N_RANKS))


RankMasks = tuple[int, int, int, int]


# the rank levels of the two ranks of a byte of a hand: level L (L = 0..3) in bits 16L.., rank j at bit j
_LEVELS8 = tuple(sum(1 << (16 * level + j) for j in (0, 1) for level in range((b >> 4 * j & 15).bit_count()))
                 for b in range(256))


def rank_masks(mask: int) -> RankMasks:
    """Bit r of the i-th mask is set when the hand holds at least i+1 cards of rank r."""
    t = _LEVELS8  # a byte (two ranks) at a time, the four levels side by side in one int
    p = (t[mask & 255] | t[mask >> 8 & 255] << 2 | t[mask >> 16 & 255] << 4 | t[mask >> 24 & 255] << 6
         | t[mask >> 32 & 255] << 8 | t[mask >> 40 & 255] << 10 | t[mask >> 48 & 15] << 12)
    return p & 0x1FFF, p >> 16 & 0x1FFF, p >> 32 & 0x1FFF, p >> 48 & 0x1FFF


def after_play(masks: RankMasks, combo: Combo) -> RankMasks:
    """The :func:`rank_masks` of a hand once ``combo`` is played from it (exactly its cards): each of the
    combo's ranks loses ``MULTIPLICITY`` cards, so its bit moves down that many levels."""
    m1, m2, m3, m4 = masks
    ranks = ((1 << combo.length) - 1) << (combo.top - combo.length + 1)
    keep = ~ranks
    need = MULTIPLICITY[combo.kind]
    if need == 1:
        return m1 & keep | m2 & ranks, m2 & keep | m3 & ranks, m3 & keep | m4 & ranks, m4 & keep
    if need == 2:
        return m1 & keep | m3 & ranks, m2 & keep | m4 & ranks, m3 & keep, m4 & keep
    if need == 3:
        return m1 & keep | m4 & ranks, m2 & keep, m3 & keep, m4 & keep
    return m1 & keep, m2 & keep, m3 & keep, m4 & keep


_BITS: tuple[tuple[int, ...], ...] = tuple(tuple(r for r in range(N_RANKS) if m >> r & 1)
                                           for m in range(1 << N_RANKS))


class _ByMask(dict):
    """Tuple of the one-rank combos of ``kind`` for each 13-bit rank mask, filled as masks are met."""

    def __init__(self, kind: int):
        super().__init__()
        self.of_rank = tuple(Combo(kind, 1, r) for r in range(N_RANKS)).__getitem__

    def __missing__(self, mask: int) -> tuple[Combo, ...]:
        out = self[mask] = tuple(map(self.of_rank, _BITS[mask]))  # the combos exist: a miss is cheap
        return out


_ONE_RANK = {kind: _ByMask(kind) for kind in (SINGLE, PAIR, TRIPLE, BOMB)}
_S, _P, _T, _B = (_ONE_RANK[k] for k in (SINGLE, PAIR, TRIPLE, BOMB))


def lead_combos(mask: int, *, bombs: bool, min_pair_run: int, masks: RankMasks | None = None) -> list[Combo]:
    """Every combination a hand can lead (one per rank pattern; suits never matter).

    ``masks``: the hand's :func:`rank_masks` if already known."""
    m1, m2, m3, m4 = masks or rank_masks(mask)
    out = _S[m1] + _P[m2] + _T[m3]
    if bombs:
        out += _B[m4]
    return [*out, *_STRAIGHTS_IN[m1 & 0x3FF], *_pair_runs_table(min_pair_run)[m2 & 0x3FF]]


def follow_combos(mask: int, trick: Combo, *, bombs: bool, min_pair_run: int,
                  masks: RankMasks | None = None) -> list[Combo]:
    """Every combination of the hand that beats ``trick`` (passing is always possible besides)."""
    m1, m2, m3, m4 = masks or rank_masks(mask)
    kind, length, top = trick
    above = ~((2 << top) - 1)  # the ranks above the trick's top
    if kind == SINGLE:
        out = list(_S[m1 & above])
    elif kind == PAIR:
        out = list(_P[m2 & above])
    elif kind == TRIPLE:
        out = list(_T[m3 & above])
    elif kind == STRAIGHT:
        out = [c for c in _STRAIGHTS_IN[m1 & 0x3FF] if c.length == length and c.top > top]
    elif kind == PAIR_RUN:
        out = [c for c in _pair_runs_table(min_pair_run)[m2 & 0x3FF] if c.length == length and c.top > top]
    else:
        out = []
    if bombs:
        out += _B[m4 & above if kind == BOMB else m4]
    return out


def take(mask: int, combo: Combo, avoid: int = 0) -> int:
    """The mask of concrete cards of ``mask`` that play ``combo`` (lowest suits first, ``avoid`` last)."""
    need = MULTIPLICITY[combo.kind]
    if need == 1 and combo.length == 1:  # a single: the lowest suit held, ``avoid`` only if nothing else
        have = mask & RANK_MASK[combo.top]
        pick = have & ~avoid or have
        return pick & -pick
    out = 0
    for r in range(combo.low, combo.top + 1):
        have = mask & RANK_MASK[r]
        pick = have & ~avoid
        for _ in range(need):
            if not pick:
                pick = have & avoid & ~out
            low = pick & -pick
            out |= low
            pick ^= low
    return out
