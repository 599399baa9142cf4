"""Shared machinery of the climbing games 陕西挖坑 (``wakeng``) and 捉红A (``zhuohonga``).

A climbing game ranks cards by rank only (never by suit), plays *combinations* and follows a lead
with the same kind, the same number of cards and a higher top rank. What differs between games is
a :class:`ClimbingRules`: the rank order, which runs exist and how long they must be, whether four
of a kind is a bomb, whether the two jokers are a pair.

Hands are kept as **rank counts** (a list indexed by rank strength), so legal plays are generated
straight from the counts — one option per rank pattern, no subset enumeration:

>>> from engine.cards import CLIMBING
>>> rules = ClimbingRules(CLIMBING, run_top=10, min_runs=(3, 3, 3), bombs=True)
>>> hand = Hand(rules, ["H4", "S5", "D6", "C6", "S7"])
>>> [rules.describe(c)[0] for c in rules.options(hand.counts, None)][:3]
['single 4', 'single 5', 'single 6']
>>> rules.classify(["D5", "D6", "D7"])
Combo(kind=11, length=3, top=3)
>>> rules.beats(rules.classify(["S9", "H9", "D9", "C9"]), Combo(11, 3, 3))
True
>>> hand.pick(Combo(11, 4, 3))
['H4', 'S5', 'D6', 'S7']

Cards are handled by name (``"H4"``, ``"BJ"``): strings hash and compare fast, and they are what
the record's events hold.

This module also holds the trick-taking turn logic both games share (:class:`TrickPlay`: who is to
act, passes, who leads the next trick, 搭车 after a player goes out) and the two bots.
Pure Python, no I/O.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import reduce
from operator import or_
from typing import Any, NamedTuple

from engine.cards import ALL_CARDS, Card, CardError, RankOrder, parse_card
from engine.draws import shuffle  # noqa: F401  (the games import it from here)
from engine.game import Action, Violation, violation

SINGLE, PAIR, TRIPLE, FOUR = 1, 2, 3, 4
STRAIGHT, PAIR_RUN, TRIPLE_RUN = 11, 12, 13
KIND_NAMES = {
    SINGLE: "single",
    PAIR: "pair",
    TRIPLE: "triple",
    FOUR: "four of a kind",
    STRAIGHT: "straight",
    PAIR_RUN: "pair run",
    TRIPLE_RUN: "triple run",
}
KIND_NAMES_ZH = {
    SINGLE: "单张",
    PAIR: "对子",
    TRIPLE: "三张",
    FOUR: "四张",
    STRAIGHT: "单连",
    PAIR_RUN: "双连",
    TRIPLE_RUN: "三连",
}


CODE: dict[str, int] = {str(c): i for i, c in enumerate(ALL_CARDS)}  # card name -> bit of a hand's mask
_NAMES = frozenset(CODE)
_NAME_BY_ID = {id(c): str(c) for c in ALL_CARDS}  # the canonical cards (a record's), by identity: no __str__ call


def card_names(cards: list[Card] | list[str]) -> list[str]:
    """``[str(c) for c in cards]``: a copy for card names, by look-up for the canonical cards of a parsed
    record."""
    if cards and cards[0].__class__ is str and _NAMES.issuperset(cards):
        return list(cards)  # type: ignore[arg-type]
    names = list(map(_NAME_BY_ID.get, map(id, cards)))
    return names if None not in names else list(map(str, cards))  # type: ignore[return-value]

BIT: dict[str, int] = {name: 1 << code for name, code in CODE.items()}


class Combo(NamedTuple):
    """A combination: ``kind`` (1..4 a set of that many of one rank, 11..13 a run of singles, pairs
    or triples), ``length`` (distinct ranks), ``top`` (strength of its highest rank)."""

    kind: int
    length: int
    top: int

    @property
    def width(self) -> int:
        return self.kind % 10

    @property
    def size(self) -> int:
        return self.width * self.length

    @property
    def low(self) -> int:
        return self.top - self.length + 1


@dataclass(frozen=True)
class ClimbingRules:
    """The combination rules of one climbing game.

    - ``order``: the rank order, low to high;
    - ``run_top``: only ranks of strength below it may be in a run (10 = 4..K in the climbing order);
    - ``min_runs``: the fewest ranks in a straight, a pair run, a triple run; 0 = no such run;
    - ``bombs``: four of a kind beats any non-bomb (otherwise it only follows four of a kind);
    - ``joker_pair``: the two jokers (ranks ``BJ``, ``RJ``) may be played as a pair, the highest pair.
    """

    order: RankOrder
    run_top: int
    min_runs: tuple[int, int, int] = (3, 3, 3)
    bombs: bool = False
    joker_pair: bool = False
    rank_of: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        index = {r: i for i, r in enumerate(self.order.ranks)}
        names = {str(c): index[c.rank] for c in ALL_CARDS if c.rank in index}
        sets = tuple(tuple(Combo(w, 1, r) for w in range(1, 5)) for r in range(len(self.order.ranks)))
        runs = tuple(
            tuple(self._runs_in(m, w) for m in range(1 << self.run_top)) if self.min_runs[w - 1] else ()
            for w in (1, 2, 3)
        )
        n = len(self.order.ranks)
        one_rank: dict[int, Combo] = {}  # card mask -> combination, for every set of one rank
        by_rank: list[list[int]] = [[] for _ in range(n)]
        for name, r in names.items():
            by_rank[r].append(1 << CODE[name])
        for r, bits in enumerate(by_rank):
            for pick in range(1, 1 << len(bits)):
                chosen = [b for i, b in enumerate(bits) if pick >> i & 1]
                if len(chosen) <= 4:
                    one_rank[sum(chosen)] = sets[r][len(chosen) - 1]
        # card name -> (its bit in a hand's mask, its rank, the mask clearing the rank's bit, its single)
        single = {name: (1 << CODE[name], r, ~(1 << r), sets[r][0]) for name, r in names.items()}
        # the run tables the game has, each with its width's level and the ranks a run may hold
        run_tables = tuple((w, table, (1 << self.run_top) - 1) for w, table in enumerate(runs) if table)
        for name, value in (("rank_of", names), ("_sets", sets), ("_runs", runs), ("_classified", {}),
                            ("_n", n), ("_one_rank", one_rank), ("_single", single), ("_run_tables", run_tables)):
            object.__setattr__(self, name, value)

    def _runs_in(self, mask: int, width: int) -> tuple[Combo, ...]:
        """Every run of ``width`` within the ranks set in ``mask`` (bit r: rank r held ``width`` times)."""
        least, out = self.min_runs[width - 1], []
        for low in range(self.run_top):
            top = low
            while top < self.run_top and mask >> top & 1:
                if top - low + 1 >= least:
                    out.append(Combo(10 + width, top - low + 1, top))
                top += 1
        return tuple(out)

    def __deepcopy__(self, memo: dict) -> ClimbingRules:
        return self  # immutable apart from its classification cache: copies of a state share it

    @property
    def n_ranks(self) -> int:
        return self._n  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ classify and compare
    def classify(self, cards: list[str]) -> Combo | None:
        """The combination these cards (names such as ``"H4"``) make, or ``None`` (also for a card
        outside the game's order)."""
        rank_of = self.rank_of
        try:
            key = (rank_of[cards[0]],) if len(cards) == 1 else tuple(sorted([rank_of[c] for c in cards]))
        except KeyError:
            return None
        try:
            return self._classified[key]  # type: ignore[attr-defined]
        except KeyError:
            combo = self._classified[key] = self._classify(key)  # type: ignore[attr-defined]
            return combo

    def _classify(self, ranks: tuple[int, ...]) -> Combo | None:
        if not ranks:
            return None
        low, top, size = ranks[0], ranks[-1], len(ranks)
        if low == top:
            return Combo(size, 1, top) if size <= 4 else None
        n = self.n_ranks
        if self.joker_pair and ranks == (n - 2, n - 1):
            return Combo(PAIR, 1, n - 1)
        width = ranks.count(low)
        if width > 3 or not self.min_runs[width - 1] or size % width:
            return None
        length = size // width
        if any(r != low + i // width for i, r in enumerate(ranks)):
            return None
        if top >= self.run_top or length < self.min_runs[width - 1]:
            return None
        return Combo(10 + width, length, top)

    def is_bomb(self, combo: Combo) -> bool:
        return self.bombs and combo.kind == FOUR

    def beats(self, new: Combo, old: Combo) -> bool:
        """Following: same kind and length with a higher top; with bombs, four of a kind beats any non-bomb."""
        if new.kind == old.kind:
            return new.length == old.length and new.top > old.top
        return self.bombs and new.kind == FOUR

    def describe(self, combo: Combo) -> tuple[str, str]:
        """English and Chinese name, e.g. ``('straight 5-7', '单连5-7')``."""
        ranks = self.order.ranks
        what = ranks[combo.top] if combo.length == 1 else f"{ranks[combo.low]}-{ranks[combo.top]}"
        if self.joker_pair and combo.kind == PAIR and combo.top == self.n_ranks - 1:
            what = "BJ RJ"
        return f"{KIND_NAMES[combo.kind]} {what}", f"{KIND_NAMES_ZH[combo.kind]}{what}"

    # ------------------------------------------------------------------ legal plays from rank counts
    def options(self, counts: list[int], beat: Combo | None, levels: list[int] | None = None) -> list[Combo]:
        """Every combination ``counts`` can play: any lead when ``beat`` is None, else those beating it.

        One option per rank pattern (suits never matter). Passing is not listed. Runs come from
        tables indexed by the bit mask of ranks held (at least once, twice, three times): ``levels``,
        the hand's :attr:`Hand.levels` if known."""
        out: list[Combo] = []
        n = len(counts)
        sets = self._sets  # type: ignore[attr-defined]
        if beat is None:
            for r in range(n):
                c = counts[r]
                if c:
                    out += sets[r][:c]
            if self.joker_pair and counts[n - 2] and counts[n - 1]:
                out.append(sets[n - 1][1])
            runs_below = (1 << self.run_top) - 1
            for w, table in enumerate(self._runs, 1):  # type: ignore[attr-defined]
                if table:
                    out += table[levels[w - 1] & runs_below if levels else self._mask(counts, w)]
            return out
        kind, length, top = beat
        if kind < 10:
            w = kind - 1
            if levels:  # the ranks above ``top`` held more than w times, low to high, from the mask
                m = levels[w] >> (top + 1) << (top + 1)
                while m:
                    low = m & -m
                    out.append(sets[low.bit_length() - 1][w])
                    m ^= low
            else:
                for r in range(top + 1, n):
                    if counts[r] > w:
                        out.append(sets[r][w])
            if kind == PAIR and self.joker_pair and counts[n - 2] and counts[n - 1] and top < n - 1:
                out.append(sets[n - 1][1])
        else:
            w = kind - 10
            held = levels[w - 1] & ((1 << self.run_top) - 1) if levels else self._mask(counts, w)
            out += [
                c
                for c in self._runs[w - 1][held]  # type: ignore[attr-defined]
                if c.length == length and c.top > top
            ]
        if self.bombs and kind != FOUR:
            if not levels:
                out += [sets[r][3] for r in range(n) if counts[r] == 4]
            else:  # one deck: a rank held more than 3 times is held 4 times
                m = levels[3]
                while m:
                    low = m & -m
                    out.append(sets[low.bit_length() - 1][3])
                    m ^= low
        return out

    def _mask(self, counts: list[int], width: int) -> int:
        m = 0
        for r in range(self.run_top):
            if counts[r] >= width:
                m |= 1 << r
        return m


_RANK_BITS = tuple(1 << r for r in range(64))  # bit r for rank r


class Hand:
    """One seat's cards, as card names (``"H4"``): rank counts for the rules, the names by rank for the
    suits, a bit mask of card codes to check a play in one pass."""

    __slots__ = ("counts", "by_rank", "rules", "mask", "levels")

    def __init__(self, rules: ClimbingRules, cards: Iterable[str]):
        """:meth:`add` of ``cards`` to an empty hand, by rank first, then counts and masks from the ranks."""
        self.rules = rules
        n = rules._n  # type: ignore[attr-defined]
        rank_of = rules.rank_of
        if cards.__class__ is not list:
            cards = list(cards)
        self.by_rank = by_rank = [[] for _ in range(n)]
        for c in cards:
            by_rank[rank_of[c]].append(c)
        mask = sum(map(BIT.__getitem__, cards))  # type: ignore[arg-type]
        if mask.bit_count() != len(cards):  # a card twice (not one deck): the sum carried
            mask = reduce(or_, map(BIT.__getitem__, cards), 0)  # type: ignore[arg-type]
        self.mask = mask
        self.counts = counts = list(map(len, by_rank))
        # bit r of levels[i]: rank r held more than i times (kept with counts)
        l0 = l1 = l2 = l3 = 0
        for bit, k in zip(_RANK_BITS, counts, strict=False):  # (more bits than ranks)
            if k:
                l0 |= bit
                if k > 1:
                    l1 |= bit
                    if k > 2:
                        l2 |= bit
                        if k > 3:
                            l3 |= bit
        self.levels = [l0, l1, l2, l3]

    def __len__(self) -> int:
        return sum(self.counts)

    def __contains__(self, card: str) -> bool:
        code = CODE.get(card)
        return code is not None and bool(self.mask >> code & 1)

    def cards(self) -> list[str]:
        """Low to high, ties in the order received."""
        return [c for cs in self.by_rank for c in cs]

    def holds(self, cards: list[str]) -> bool:
        """Whether every card is in the hand (and none named twice: one deck)."""
        seen = 0
        for name in cards:
            bit = 1 << CODE[name]
            if seen & bit or not self.mask & bit:
                return False
            seen |= bit
        return True

    def add(self, cards: Iterable[str]) -> None:
        rank_of, counts, levels = self.rules.rank_of, self.counts, self.levels
        for c in cards:
            r = rank_of[c]
            n = counts[r] = counts[r] + 1
            if n <= 4:
                levels[n - 1] |= 1 << r
            self.by_rank[r].append(c)
            self.mask |= 1 << CODE[c]

    def remove(self, cards: Iterable[str]) -> None:
        rank_of, counts, levels = self.rules.rank_of, self.counts, self.levels
        for c in cards:
            r = rank_of[c]
            n = counts[r]
            counts[r] = n - 1
            if 0 < n <= 4:
                levels[n - 1] &= ~(1 << r)
            self.by_rank[r].remove(c)
            self.mask &= ~(1 << CODE[c])

    def pick(self, combo: Combo) -> list[str]:
        """Concrete cards of the hand that play ``combo`` (the first held of each rank)."""
        kind, length, top = combo
        by_rank = self.by_rank
        if length == 1:
            if kind == PAIR and self.rules.joker_pair and top == self.rules._n - 1:  # type: ignore[attr-defined]
                return [by_rank[top - 1][0], by_rank[top][0]]
            return by_rank[top][:kind]
        w = kind % 10
        return [c for r in range(top - length + 1, top + 1) for c in by_rank[r][:w]]


# ---------------------------------------------------------------------- events and violations
def card_name(text: object) -> str:
    """The canonical name of a card (``"h4 "`` → ``"H4"``); :class:`CardError` if it is none."""
    if type(text) is str and text in CODE:
        return text
    return str(parse_card(text))


def parse_play_cards(action: Action) -> list[str] | list[Violation]:
    """The ``cards`` of a play event as card names, or a ``combo`` violation saying what is wrong."""
    texts = action.get("cards")
    if not isinstance(texts, list) or not texts:
        return [violation("combo", "a play needs a non-empty list 'cards'", "出牌须列出所出的牌 (cards)")]
    try:  # the common case, every card already a name: one set test instead of a call per card
        if _NAMES.issuperset(texts):
            return list(texts)
    except TypeError:  # an unhashable item: the slow way says what is wrong
        pass
    try:
        return [card_name(t) for t in texts]
    except CardError as exc:
        return [violation("combo", str(exc), f"不是一张牌: {exc}")]


def cards_text(cards: Iterable[Card | str]) -> list[str]:
    return [str(c) for c in cards]


# ---------------------------------------------------------------------- turns and tricks
class TrickPlay:
    """The turn logic of the trick phase: counter-clockwise seats ``(i + 1) % n``; a play must beat
    the standing play; after every other seat still in has passed, the last player leads again — or,
    if that player has gone out, the next seat still in (搭车)."""

    def __init__(self, rules: ClimbingRules, hands: list[Hand], leader: int):
        self.rules = rules
        self.hands = hands
        self.n = len(hands)
        self.turn = leader
        self.beat: Combo | None = None  # the standing play, None: the seat to act leads
        self.beat_seat: int | None = None
        self.beat_cards: list[str] = []
        self.passes = 0
        self.out: list[int] = []  # seats gone out, in order
        self.bombs = 0
        self._after = [(s + 1) % self.n for s in range(self.n)]  # _next_in of each seat, while nobody is out
        self._in = self.n  # seats still in
        self._ends = 0  # the passes that end the standing play (set with it: fast_pass counts to it)

    def in_play(self, seat: int) -> bool:
        return seat not in self.out

    def _next_in(self, seat: int) -> int:
        for step in range(1, self.n + 1):
            s = (seat + step) % self.n
            if s not in self.out:
                return s
        return seat

    def _gone_out(self, seat: int) -> None:
        self.out.append(seat)
        self._in -= 1
        self._after = [self._next_in(s) for s in range(self.n)]

    def options(self, seat: int) -> list[Combo]:
        hand = self.hands[seat]
        return self.rules.options(hand.counts, self.beat, hand.levels)

    def fast_play(self, seat: int, texts: Any) -> Combo | None:
        """The combination of a play of ``texts`` by ``seat`` (the seat to act) when it is plainly legal:
        a list of card names as records write them, each held once, a combination that beats the
        standing play. ``None``: anything else, which :meth:`check_play` then explains (the same verdict)."""
        if texts.__class__ is not list or not texts:
            return None
        mask, seen = self.hands[seat].mask, 0
        try:
            for name in texts:
                bit = 1 << CODE[name]
                if seen & bit or not mask & bit:
                    return None
                seen |= bit
        except (KeyError, TypeError):
            return None
        combo = self.rules.classify(texts)
        if combo is None or (self.beat is not None and not self.rules.beats(combo, self.beat)):
            return None
        return combo

    def fast_pass(self, seat: int) -> bool:
        """:meth:`pass_` inlined for a game's fast ``judge``, by the seat to act while a play stands; False
        (nothing done) when no play stands."""
        if self.beat is None:
            return False
        self.passes = passes = self.passes + 1
        if passes >= self._ends:
            beat_seat = self.beat_seat
            self.turn = beat_seat if beat_seat not in self.out else self._next_in(beat_seat)  # type: ignore[arg-type]
            self.beat, self.beat_seat, self.beat_cards, self.passes = None, None, [], 0
        else:
            self.turn = self._after[seat]
        return True

    def fast_move(self, seat: int, action: Action, may: Any = None, own: bool = False) -> Action | None:
        """Apply a plainly legal play (that ``may(cards)`` allows too, if given) or pass by ``seat``, the
        seat to act, and return the event to log; ``None``: not plainly legal, nothing changed.
        ``own``: the caller gives ``action`` and its cards up (a bot's event, never changed after): it is the
        event, kept as it is; else a copy (the caller's dict and list stay its own).
        (:meth:`fast_play`, :meth:`play` and ``Hand.remove`` inlined; a single, most plays, by its card's entry.)"""
        kind = action.get("action")
        if kind != "play":
            if kind != "pass" or not self.fast_pass(seat):
                return None
            return action if own else dict(action)
        texts = action.get("cards")
        if texts.__class__ is not list or not texts:
            return None
        hand, beat = self.hands[seat], self.beat
        held = hand.mask
        if len(texts) == 1:
            try:
                bit, r, keep, combo = self.rules._single[texts[0]]  # type: ignore[attr-defined]
            except (KeyError, TypeError):
                return None
            # held, and beating the standing play (a single beats only a lower single)
            if not held & bit or beat is not None and (beat[0] != SINGLE or r <= beat[2]):
                return None
            if may is not None and not may(texts):
                return None
            counts = hand.counts
            counts[r] = left = counts[r] - 1
            if left < 4:  # (one deck: always)
                hand.levels[left] &= keep
            hand.by_rank[r].remove(texts[0])
            hand.mask = held ^ bit
            cards = texts if own else list(texts)
        else:
            played = self._fast_many(hand, texts, may, own)
            if played is None:
                return None
            combo, cards, bit = played
        self.beat = combo
        self.beat_seat = seat
        self.beat_cards = cards
        self.passes = 0
        self._ends = self._in - 1  # every other seat still in (this one too if it goes out now: one fewer in)
        if held == bit:  # no card left
            self._gone_out(seat)
        self.turn = self._after[seat]
        if own:
            return action
        return {**action, "cards": cards}  # (the engine never changes a list it keeps: one copy serves both)

    def _fast_many(self, hand: Hand, texts: list, may: Any, own: bool) -> tuple[Combo, list[str], int] | None:
        """:meth:`fast_move` of a play of two cards or more: (its combination, its cards, their mask) once taken
        from ``hand``; None (nothing changed) unless plainly legal."""
        held, mask = hand.mask, 0
        try:
            for name in texts:
                bit = 1 << CODE[name]
                if mask & bit or not held & bit:
                    return None
                mask |= bit
        except (KeyError, TypeError):
            return None
        rules = self.rules
        combo = rules._one_rank.get(mask)  # type: ignore[attr-defined]
        one_rank = combo is not None
        if combo is None:
            combo = rules.classify(texts)
            if combo is None:
                return None
        beat = self.beat
        if beat is not None and not (
            combo[1] == beat[1] and combo[2] > beat[2] if combo[0] == beat[0] else rules.bombs and combo[0] == FOUR
        ):
            return None
        if may is not None and not may(texts):
            return None
        cards = texts if own else list(texts)
        r = combo[2]
        if one_rank and hand.counts[r] <= 4:  # Hand.remove of cards of one rank
            counts, levels, keep = hand.counts, hand.levels, ~(1 << r)
            n = counts[r]
            counts[r] = left = n - len(cards)
            for i in range(left, n):
                levels[i] &= keep
            held_r = hand.by_rank[r]
            for c in cards:
                held_r.remove(c)
            hand.mask = held ^ mask  # (mask is within held)
        else:
            hand.remove(cards)
        if combo[0] == FOUR and rules.bombs:
            self.bombs += 1
        return combo, cards, mask

    def check_play(self, seat: int, cards: list[str]) -> tuple[Combo | None, list[Violation]]:
        """The combination of a play by the seat to act, or the violation (not_in_hand, combo, follow)."""
        if not self.hands[seat].holds(cards):
            missing = [c for c in cards if c not in self.hands[seat]] or cards
            return None, [
                violation(
                    "not_in_hand",
                    f"seat {seat} does not hold {' '.join(missing)}",
                    f"{seat}号位手中没有 {' '.join(missing)}",
                    code="not_in_hand",
                    seat=seat,
                    cards=missing,
                )
            ]
        combo = self.rules.classify(cards)
        if combo is None:
            text = " ".join(cards)
            return None, [violation("combo", f"{text} is not a combination", f"{text} 不是合法牌型")]
        if self.beat is not None and not self.rules.beats(combo, self.beat):
            en, zh = self.rules.describe(combo)
            en2, zh2 = self.rules.describe(self.beat)
            return None, [violation("follow", f"{en} does not beat {en2}", f"{zh} 压不过 {zh2}")]
        return combo, []

    def play(self, seat: int, cards: list[str], combo: Combo) -> None:
        self.hands[seat].remove(cards)
        if self.rules.is_bomb(combo):
            self.bombs += 1
        self.beat, self.beat_seat, self.beat_cards, self.passes = combo, seat, list(cards), 0
        self._ends = self._in - 1  # (as in fast_move)
        if not self.hands[seat].mask:  # (no card left: the mask has a bit per card held)
            self._gone_out(seat)
        self.turn = self._after[seat]

    def check_pass(self) -> list[Violation]:
        if self.beat is None:
            return [violation("lead_pass", "the leader may not pass", "首出者不能不出")]
        return []

    def pass_(self, seat: int) -> None:
        self.passes += 1
        assert self.beat_seat is not None
        waiting = self.n - len(self.out) - (0 if self.beat_seat in self.out else 1)
        if self.passes >= waiting:
            leader = self.beat_seat if self.beat_seat not in self.out else self._next_in(self.beat_seat)
            self.beat, self.beat_seat, self.beat_cards, self.passes = None, None, [], 0
            self.turn = leader
        else:
            self.turn = self._after[seat]

    def public(self, show: Any = str) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "standing": None
            if self.beat is None
            else {"seat": self.beat_seat, "cards": [show(c) for c in self.beat_cards]},
            "passes": self.passes,
            "out": list(self.out),
        }


# ---------------------------------------------------------------------- bots
def choose(
    rules: ClimbingRules, options: list[Combo], beat: Combo | None, rng: random.Random, bot: str
) -> Combo | None:
    """A bot's play (``None``: pass). ``random``: uniform over the plays and the pass; ``greedy``: the
    lowest play that gets rid of the most cards, bombs only when nothing else beats, never passing
    when it can beat."""
    if bot == "random":
        pick = rng.randrange(len(options) + (beat is not None))
        return options[pick] if pick < len(options) else None
    plain = [c for c in options if not rules.is_bomb(c)]
    pool = plain or options
    if not pool:
        return None
    return min(pool, key=lambda c: (c.low, -c.size, c.top))


def random_play(state: Any, rng: random.Random, events: list[Action], escape_at: int = -1) -> None:
    """The random bot's plays until ``state.over``, each judged by ``state.judge`` (given up to it: ``own``, so
    the state logs the event itself, not a copy) and kept in ``events`` (at the end, from the state's log:
    one list grows a hand, not two):
    what a loop of ``choose(rules, trick.options(seat), trick.beat, rng, "random")`` and a
    :class:`BotTable` makes, the same draws and the same events (``rng`` an exact ``random.Random``:
    ``randrange(n)``'s ``_randbelow_with_getrandbits`` inlined), in fewer calls. Leads and follows of a set
    are counted, not listed: only the pick is made. ``escape_at``: the number of events at which the seat to
    act escapes instead (挖坑)."""
    trick = state.trick
    rules, hands, judge, bits = trick.rules, trick.hands, state.judge, rng.getrandbits
    sets, last, jokers_pair, bombs_on = rules._sets, rules._n - 1, rules.joker_pair, rules.bombs
    above, bit_length = _ABOVE, _BIT_LENGTH
    history = state.history  # (one entry an action judged)
    start = len(history)
    escaping, escape_at = escape_at >= 0, escape_at - len(events) + start  # (then the log's length)
    while not state.over:
        seat = trick.turn
        if escaping and len(history) == escape_at:
            event: Action = {"seat": seat, "action": "escape"}
            if judge(event, True):
                raise RuntimeError(f"a bot broke a rule: {event}")
            break
        hand = hands[seat]
        beat = trick.beat
        if beat is not None and beat[0] < 10:  # (most actions) a set to follow: the sets above it, the joker
            kind, _, top = beat  # pair, the bombs, the pass (options' order), counted
            w = kind - 1
            m = hand.levels[w] & above[top]  # the ranks above ``top`` held more than w times
            n = m.bit_count()
            total = n + 1
            jokers = bombs = 0
            if kind == PAIR and jokers_pair and top < last and hand.counts[last - 1] and hand.counts[last]:
                jokers = 1
                total += 1
            if bombs_on and kind != FOUR and (bombs := hand.levels[3]):
                total += bombs.bit_count()
            k = bit_length[total]
            i = bits(k)
            while i >= total:
                i = bits(k)
            if i < n:
                for _ in range(i):
                    m &= m - 1
                r = (m & -m).bit_length() - 1
                cards = hand.by_rank[r][:kind] if r != last else hand.pick(sets[r][w])  # (Hand.pick of a set)
            elif i == total - 1:
                cards = None
            elif jokers and i == n:
                cards = hand.pick(sets[last][1])
            else:
                for _ in range(i - n - jokers):
                    bombs &= bombs - 1
                cards = hand.pick(sets[(bombs & -bombs).bit_length() - 1][3])
        else:
            cards = _random_lead(hand, bits) if beat is None else _random_run(hand, beat, bits)
        if cards is None:
            event = {"seat": seat, "action": "pass"}
        else:
            event = {"seat": seat, "action": "play", "cards": cards}
        violations = judge(event, True)
        if violations:
            raise RuntimeError(f"a bot broke a rule: {event} → {violations}")
    events += history[start:]


# the ranks above ``top`` (of fewer than 30), as a mask of one digit: ``&`` of a negative int copies both sides
_ABOVE = tuple((1 << 30) - (1 << (top + 1)) for top in range(30))
_BIT_LENGTH = tuple(n.bit_length() for n in range(256))  # a follow's draw of ``randrange(total)``: its bits


def _draw(bits: Any, total: int) -> int:
    """``randrange(total)`` as ``Random._randbelow_with_getrandbits`` draws it (``bits``: ``getrandbits``)."""
    k = total.bit_length()
    i = bits(k)
    while i >= total:
        i = bits(k)
    return i


def _random_lead(hand: Hand, bits: Any) -> list[str]:
    """The random bot's lead, uniform over ``options(hand.counts, None)`` by one draw, counted, not listed
    (options' order: each rank's sets, the joker pair, the runs by width); the cards :meth:`Hand.pick` gives."""
    rules, counts, levels = hand.rules, hand.counts, hand.levels
    sets, last = rules._sets, rules._n - 1  # type: ignore[attr-defined]
    n = levels[0].bit_count() + levels[1].bit_count() + levels[2].bit_count() + levels[3].bit_count()  # sets
    jokers = 1 if rules.joker_pair and counts[last - 1] and counts[last] else 0
    total, found = n + jokers, []
    for w, table, below in rules._run_tables:  # type: ignore[attr-defined]
        found.append(table[levels[w] & below])
        total += len(found[-1])
    i = _draw(bits, total)
    if i < n:  # the rank's set of i + 1 cards, counting up the ranks (a rank held c times has min(c, 4) sets)
        r = 0
        if sum(counts) == n:  # (no rank held more than 4 times, as in one deck: a set a card)
            while i >= counts[r]:
                i -= counts[r]
                r += 1
        else:
            while i >= (c := counts[r] if counts[r] < 4 else 4):
                i -= c
                r += 1
        return hand.by_rank[r][: i + 1] if r != last or i != 1 else hand.pick(sets[r][i])
    i -= n
    if jokers and not i:
        return hand.pick(sets[last][1])
    i -= jokers
    for listed in found:
        if i < len(listed):
            return hand.pick(listed[i])
        i -= len(listed)
    raise AssertionError("a draw beyond the options")  # (total counts every option)


def _random_run(hand: Hand, beat: Combo, bits: Any) -> list[str] | None:
    """The random bot's follow of a run: uniform over the listed options and the pass (None)."""
    listed = hand.rules.options(hand.counts, beat, hand.levels)
    i = _draw(bits, len(listed) + 1)
    return hand.pick(listed[i]) if i < len(listed) else None


class BotTable:
    """Plays bot actions through the referee (``State.judge``) and keeps them as the record's events.

    >>> table = BotTable(state)                    # doctest: +SKIP
    >>> table({"seat": 0, "action": "pass"})       # doctest: +SKIP
    """

    def __init__(self, state: Any):
        self.state = state
        self.events: list[Action] = []

    def __call__(self, action: Action) -> None:
        violations = self.state.judge(action)
        if violations:
            raise RuntimeError(f"a bot broke a rule: {action} → {violations}")
        self.events.append(action)

    def record(
        self, game: Any, settings: Any, hands: list[list[str]], bottom: list[str], first_seat: int
    ) -> dict[str, Any]:
        """The game record of the hand (:meth:`engine.game.Game.bot_record`)."""
        return game.bot_record(self.state, settings, hands, bottom, self.events, first_seat=first_seat)
