"""Shared machinery of the climbing games 陕西挖坑 (``wakeng``) and 捉红A (``zhuohonga``).

A climbing game ranks cards by rank only (never by suit), plays *combinations* and follows a lead
with the same kind, the same number of cards and a higher top rank. What differs between games is
a :class:`ClimbingRules`: the rank order, which runs exist and how long they must be, whether four
of a kind is a bomb, whether the two jokers are a pair.

Hands are kept as **rank counts** (a list indexed by rank strength), so legal plays are generated
straight from the counts — one option per rank pattern, no subset enumeration:

>>> from engine.cards import CLIMBING, parse_cards
>>> rules = ClimbingRules(CLIMBING, run_top=10, min_runs=(3, 3, 3), bombs=True)
>>> hand = Hand(rules, parse_cards(["H4", "S5", "D6", "C6", "S7"]))
>>> [rules.describe(c)[0] for c in rules.options(hand.counts, None)][:3]
['single 4', 'single 5', 'single 6']
>>> rules.classify(parse_cards(["D5", "D6", "D7"]))
Combo(kind=11, length=3, top=3)
>>> rules.beats(rules.classify(parse_cards(["S9", "H9", "D9", "C9"])), Combo(11, 3, 3))
True

This module also holds the trick-taking turn logic both games share (:class:`TrickPlay`: who is to
act, passes, who leads the next trick, 搭车 after a player goes out) and the two bots.
Pure Python, no I/O.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from engine.cards import Card, CardError, RankOrder, parse_card
from engine.game import Action, Violation

SINGLE, PAIR, TRIPLE, FOUR = 1, 2, 3, 4
STRAIGHT, PAIR_RUN, TRIPLE_RUN = 11, 12, 13
KIND_NAMES = {SINGLE: "single", PAIR: "pair", TRIPLE: "triple", FOUR: "four of a kind",
              STRAIGHT: "straight", PAIR_RUN: "pair run", TRIPLE_RUN: "triple run"}
KIND_NAMES_ZH = {SINGLE: "单张", PAIR: "对子", TRIPLE: "三张", FOUR: "四张",
                 STRAIGHT: "单连", PAIR_RUN: "双连", TRIPLE_RUN: "三连"}


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
    rank_of: dict[Card, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        from engine.cards import ALL_CARDS

        index = {r: i for i, r in enumerate(self.order.ranks)}
        object.__setattr__(self, "rank_of", {c: index[c.rank] for c in ALL_CARDS if c.rank in index})

    @property
    def n_ranks(self) -> int:
        return len(self.order.ranks)

    def _jokers(self) -> tuple[int, int]:
        return self.n_ranks - 2, self.n_ranks - 1

    # ------------------------------------------------------------------ classify and compare
    def classify(self, cards: list[Card]) -> Combo | None:
        """The combination these cards make, or ``None`` if they make none (or hold a foreign card)."""
        if not cards:
            return None
        try:
            ranks = Counter(self.rank_of[c] for c in cards)
        except KeyError:
            return None
        if len(ranks) == 1:
            ((rank, width),) = ranks.items()
            return Combo(width, 1, rank) if width <= 4 else None
        if self.joker_pair and len(cards) == 2 and set(ranks) == set(self._jokers()):
            return Combo(PAIR, 1, self.n_ranks - 1)
        widths = set(ranks.values())
        if len(widths) != 1:
            return None
        width = widths.pop()
        if width > 3 or not self.min_runs[width - 1]:
            return None
        low, top, length = min(ranks), max(ranks), len(ranks)
        if top - low + 1 != length or top >= self.run_top or length < self.min_runs[width - 1]:
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
    def options(self, counts: list[int], beat: Combo | None) -> list[Combo]:
        """Every combination ``counts`` can play: any lead when ``beat`` is None, else those beating it.

        One option per rank pattern (suits never matter). Passing is not listed."""
        out: list[Combo] = []
        n = len(counts)
        if beat is None:
            for r in range(n):
                for w in range(1, min(counts[r], 4) + 1):
                    out.append(Combo(w, 1, r))
            if self.joker_pair and counts[n - 2] and counts[n - 1]:
                out.append(Combo(PAIR, 1, n - 1))
            for w in (1, 2, 3):
                least = self.min_runs[w - 1]
                if not least:
                    continue
                for low in range(self.run_top - least + 1):
                    top = low
                    while top < self.run_top and counts[top] >= w:
                        if top - low + 1 >= least:
                            out.append(Combo(10 + w, top - low + 1, top))
                        top += 1
            return out
        kind, length, top = beat
        if kind < 10:
            for r in range(top + 1, n):
                if counts[r] >= kind:
                    out.append(Combo(kind, 1, r))
            if kind == PAIR and self.joker_pair and counts[n - 2] and counts[n - 1] and top < n - 1:
                out.append(Combo(PAIR, 1, n - 1))
        else:
            w = kind - 10
            run = 0
            for r in range(self.run_top):
                run = run + 1 if counts[r] >= w else 0
                if run >= length and r > top:
                    out.append(Combo(kind, length, r))
        if self.bombs and kind != FOUR:
            out += [Combo(FOUR, 1, r) for r in range(n) if counts[r] == 4]
        return out


class Hand:
    """One seat's cards: rank counts for the rules, the cards themselves by rank for the suits."""

    __slots__ = ("counts", "by_rank", "rules")

    def __init__(self, rules: ClimbingRules, cards: Iterable[Card]):
        self.rules = rules
        self.counts = [0] * rules.n_ranks
        self.by_rank: list[list[Card]] = [[] for _ in range(rules.n_ranks)]
        self.add(cards)

    def __len__(self) -> int:
        return sum(self.counts)

    def __contains__(self, card: Card) -> bool:
        r = self.rules.rank_of.get(card)
        return r is not None and card in self.by_rank[r]

    def cards(self) -> list[Card]:
        """Low to high, ties in the order received."""
        return [c for cs in self.by_rank for c in cs]

    def holds(self, cards: list[Card]) -> bool:
        """Whether every card (with multiplicity) is in the hand."""
        need = Counter(cards)
        for card, n in need.items():
            r = self.rules.rank_of.get(card)
            if r is None or self.by_rank[r].count(card) < n:
                return False
        return True

    def add(self, cards: Iterable[Card]) -> None:
        for c in cards:
            r = self.rules.rank_of[c]
            self.counts[r] += 1
            self.by_rank[r].append(c)

    def remove(self, cards: Iterable[Card]) -> None:
        for c in cards:
            r = self.rules.rank_of[c]
            self.counts[r] -= 1
            self.by_rank[r].remove(c)

    def pick(self, combo: Combo) -> list[Card]:
        """Concrete cards of the hand that play ``combo`` (the first held of each rank)."""
        n = self.rules.n_ranks
        if self.rules.joker_pair and combo.kind == PAIR and combo.top == n - 1:
            return [self.by_rank[n - 2][0], self.by_rank[n - 1][0]]
        w = combo.width
        return [c for r in range(combo.low, combo.top + 1) for c in self.by_rank[r][:w]]


# ---------------------------------------------------------------------- events and violations
def err(rule: str, message: str, message_zh: str) -> list[Violation]:
    return [Violation(rule, message, message_zh)]


def parse_play_cards(action: Action) -> list[Card] | list[Violation]:
    """The ``cards`` of a play event as cards, or a ``combo`` violation saying what is wrong."""
    texts = action.get("cards")
    if not isinstance(texts, list) or not texts:
        return err("combo", "a play needs a non-empty list 'cards'", "出牌须列出所出的牌 (cards)")
    try:
        return [parse_card(t) for t in texts]
    except CardError as exc:
        return err("combo", str(exc), f"不是一张牌: {exc}")


def cards_text(cards: Iterable[Card]) -> list[str]:
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
        self.beat_cards: list[Card] = []
        self.passes = 0
        self.out: list[int] = []  # seats gone out, in order
        self.bombs = 0

    def in_play(self, seat: int) -> bool:
        return seat not in self.out

    def _next_in(self, seat: int) -> int:
        for step in range(1, self.n + 1):
            s = (seat + step) % self.n
            if s not in self.out:
                return s
        return seat

    def options(self, seat: int) -> list[Combo]:
        return self.rules.options(self.hands[seat].counts, self.beat)

    def check_play(self, seat: int, cards: list[Card]) -> tuple[Combo | None, list[Violation]]:
        """The combination of a play by the seat to act, or the violation (not_in_hand, combo, follow)."""
        if not self.hands[seat].holds(cards):
            missing = [str(c) for c in cards if c not in self.hands[seat]] or cards_text(cards)
            return None, err("not_in_hand", f"seat {seat} does not hold {' '.join(missing)}",
                             f"{seat}号位手中没有 {' '.join(missing)}")
        combo = self.rules.classify(cards)
        if combo is None:
            text = " ".join(cards_text(cards))
            return None, err("combo", f"{text} is not a combination", f"{text} 不是合法牌型")
        if self.beat is not None and not self.rules.beats(combo, self.beat):
            en, zh = self.rules.describe(combo)
            en2, zh2 = self.rules.describe(self.beat)
            return None, err("follow", f"{en} does not beat {en2}", f"{zh} 压不过 {zh2}")
        return combo, []

    def play(self, seat: int, cards: list[Card], combo: Combo) -> None:
        self.hands[seat].remove(cards)
        if self.rules.is_bomb(combo):
            self.bombs += 1
        self.beat, self.beat_seat, self.beat_cards, self.passes = combo, seat, list(cards), 0
        if not len(self.hands[seat]):
            self.out.append(seat)
        self.turn = self._next_in(seat)

    def check_pass(self) -> list[Violation]:
        if self.beat is None:
            return err("lead_pass", "the leader may not pass", "首出者不能不出")
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
            self.turn = self._next_in(seat)

    def public(self, show: Any = str) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "standing": None if self.beat is None else {"seat": self.beat_seat,
                                                        "cards": [show(c) for c in self.beat_cards]},
            "passes": self.passes,
            "out": list(self.out),
        }


# ---------------------------------------------------------------------- bots
def choose(rules: ClimbingRules, options: list[Combo], beat: Combo | None, rng: random.Random,
           bot: str) -> Combo | None:
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


def overrides_of(settings: Any, preset: Any) -> dict[str, Any]:
    """The settings that differ from the preset (the record's ``rules``)."""
    return {f.name: getattr(settings, f.name) for f in dataclasses.fields(settings)
            if getattr(settings, f.name) != getattr(preset, f.name)}
