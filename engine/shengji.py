"""升级 / 拖拉机 (``shengji``): two decks with jokers, fixed teams (0, 2) and (1, 3), trump declared during the deal.

The rules digest is ``docs/rules/shengji.md`` (actions, rule ids, settings, every choice made).
Actions: ``declare`` (``cards``, ``dealt`` = how many cards had been dealt from the deck when it was made),
``take_bottom`` (the dealer picks up the bottom, which ends the declaring; optional: the first bury does it
too), ``bury`` (the dealer, ``cards``: 1..8 cards at a time, 8 in all) and ``play`` (``cards``).

>>> import random
>>> record = ShengjiGame().bot_hand(random.Random(1))
>>> record["events"][-1]["action"]
'play'
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import itertools
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import compress
from typing import Any, Literal, NamedTuple

from engine.cards import DECKS, RANKS, Card
from engine.game import (
    Action,
    DealPlan,
    FirstPlay,
    Game,
    GameInfo,
    IllegalAction,
    LoggedState,
    News,
    Violation,
    mask_cards,
    violation,
)
from engine.tricks import (
    BJ,
    CODES,
    NAMES,
    RJ,
    Trick,
    codes_of,
    event_cards,
    has_cards,
    names,
    shuffled_deck,
)

SEATS = 4
HAND = 25
BOTTOM = 8
DECK_SIZE = 108
TRUMP = 4  # the effective suit of every trump
SUIT_LETTERS = "SHDC"
OPTION_CAP = 64  # legal_actions lists at most this many follows when the choices explode (see the digest)
POINTS = [0] * 54
for _s in range(4):
    POINTS[_s * 13 + 3] = 5  # 5
    POINTS[_s * 13 + 8] = 10  # 10
    POINTS[_s * 13 + 11] = 10  # K


@dataclass(frozen=True)
class ShengjiSettings:
    """Every rule the text leaves open. Defaults are the preset ``sijen`` (see the digest)."""

    level: str = "2"
    dealer: int = 0
    reinforce: Literal["anyone", "declarer"] = "anyone"
    reinforce_protects: bool = True
    joker_pair: Literal["same", "any"] = "same"
    throw: bool = False
    bottom_single: int = 2
    bottom_pair: int = 4
    keep_dealer: Literal["same", "partner"] = "same"
    daguang_partner_deals: bool = True

    def __post_init__(self) -> None:
        if self.level not in RANKS:
            raise ValueError(f"level = {self.level!r} is not a rank 2..A")
        if not (isinstance(self.dealer, int) and 0 <= self.dealer < SEATS):
            raise ValueError(f"dealer = {self.dealer!r} is not a seat 0..3")


PRESETS = {"sijen": ShengjiSettings()}


class Trumps:
    """The effective suit, order and pair-run neighbours of every card once the trump is known."""

    def __init__(self, level: int, suit: int | None):
        self.level, self.suit = level, suit
        eff = [0] * 54
        order = [0] * 54
        for c in range(52):
            s, r = divmod(c, 13)
            plain = r if r < level else r - 1
            if r == level:
                eff[c], order[c] = TRUMP, (13 if s == suit else 12)
            else:
                eff[c], order[c] = (TRUMP if s == suit else s), plain
        top = 13 if suit is not None else 12
        eff[BJ], order[BJ] = TRUMP, top + 1
        eff[RJ], order[RJ] = TRUMP, top + 2
        self.eff, self.order = eff, order
        self.suit_codes = [
            sorted((c for c in range(54) if eff[c] == s), key=lambda c: order[c]) for s in range(5)
        ]
        self.others = [
            tuple(c for c in range(54) if eff[c] != s) for s in range(5)
        ]  # the other suits, by code


@functools.cache
def trumps_for(level: int, suit: int | None) -> Trumps:
    """The :class:`Trumps` of a level and trump suit, made once (they are only read)."""
    return Trumps(level, suit)


_LEVEL_CARDS = tuple(frozenset(s * 13 + level for s in range(4)) for level in range(13))  # by level
_JOKERS = frozenset((BJ, RJ))
_COPIES = tuple(range(n) for n in range(9))  # a count's copies (two decks: 0..2), no range made each time


def _counts(cards: list[int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for c in cards:
        out[c] = out.get(c, 0) + 1
    return out


def _runs(pair_codes: list[int], order: list[int]) -> list[list[list[int]]]:
    """Pair codes grouped into runs of consecutive orders: a list of runs, each a list of order slots,
    each slot the codes of that order (two off-suit level pairs share an order)."""
    slots: dict[int, list[int]] = {}
    for c in pair_codes:
        slots.setdefault(order[c], []).append(c)
    runs: list[list[list[int]]] = []
    prev = None
    for o in sorted(slots):
        if prev is not None and o == prev + 1:
            runs[-1].append(slots[o])
        else:
            runs.append([slots[o]])
        prev = o
    return runs


def _longest_run(pair_codes: list[int], order: list[int]) -> int:
    return max((len(r) for r in _runs(pair_codes, order)), default=0)


def _tractors(pair_codes: list[int], order: list[int], length: int | None = None) -> list[tuple[int, ...]]:
    """Every tractor (``length`` pairs, or every length >= 2) among the pair codes, as code tuples."""
    out = []
    for run in _runs(pair_codes, order):
        lengths = range(2, len(run) + 1) if length is None else [length]
        for n in lengths:
            for start in range(len(run) - n + 1):
                for pick in itertools.product(*run[start : start + n]):
                    out.append(tuple(pick))
    return out


class Shape(NamedTuple):
    """What a play is: its effective suit (-1 mixed), pairs, tractor length (0 if not a tractor), top order.
    (A named tuple: one is made for every play judged.)"""

    suit: int
    size: int
    pairs: int
    tractor: int
    top: int

    @property
    def kind(self) -> str:
        if self.suit < 0:
            return "mixed"
        if self.size == 1:
            return "single"
        if self.size == 2 and self.pairs == 1:
            return "pair"
        if self.tractor and self.tractor * 2 == self.size:
            return "tractor"
        return "other"


_make_shape = functools.partial(tuple.__new__, Shape)  # a Shape from a tuple, made in C (Shape(...) runs Python)


def shape(cards: tuple[int, ...] | list[int], trumps: Trumps) -> Shape:
    eff, order = trumps.eff, trumps.order
    if len(cards) == 1:
        c = cards[0]
        return _make_shape((eff[c], 1, 0, 0, order[c]))
    if len(cards) == 2:
        a, b = cards
        if a == b:
            return _make_shape((eff[a], 2, 1, 0, order[a]))
        return _make_shape((eff[a] if eff[a] == eff[b] else -1, 2, 0, 0, max(order[a], order[b])))
    return _shape_general(cards, trumps)


def _shape_general(cards: tuple[int, ...] | list[int], trumps: Trumps) -> Shape:
    """:func:`shape` of any play, by counting (the short cases above are tested against it)."""
    eff, order = trumps.eff, trumps.order
    suit = eff[cards[0]]
    if any(eff[c] != suit for c in cards):
        suit = -1
    counts = _counts(list(cards))
    pair_codes = [c for c, k in counts.items() if k == 2]
    tractor = _longest_run(pair_codes, order) if len(pair_codes) >= 2 else 0
    return Shape(
        suit, len(cards), len(pair_codes), tractor if tractor >= 2 else 0, max(order[c] for c in cards)
    )


class ShengjiState(LoggedState):
    """One hand of 升级. Hands are per-seat count vectors over the 54 card codes."""

    def __init__(self, hands: list[list[Card]], bottom: list[Card], settings: ShengjiSettings):
        self.settings = settings
        self.level = RANKS.index(settings.level)
        self.dealer = settings.dealer
        self.dealt = [codes_of(h) for h in hands]  # (names or Cards)
        self.bottom = codes_of(bottom)
        self.log: list[Action] = []  # applied events (for the bots' information sets)
        self.counts = [[0] * 54 for _ in range(SEATS)]
        self._held: list[dict[int, list[int]]] = [
            {} for _ in range(SEATS)
        ]  # holding() by suit, until counts change
        self._leads: list[dict[int, list[tuple[int, ...]]]] = [
            {} for _ in range(SEATS)
        ]  # lead_options() by suit, until a card of the suit leaves the hand
        for seat, cards in enumerate(self.dealt):
            counts = self.counts[seat]
            for c in cards:
                counts[c] += 1
        self.phase = "deal"  # deal -> bury -> play -> over
        self.declarations: list[dict[str, Any]] = []
        self.decl_suit: int | None = None  # 4 = no trump (jokers)
        self.decl_strength = 0
        self.declarer: int | None = None
        self.last_dealt = 0
        self.trumps: Trumps | None = None
        self.trump_from: str | None = None
        self.flipped: list[int] = []
        self.buried: list[int] = []
        self.trick = Trick(self.dealer, SEATS)
        self.lead_shape = self.best_shape = Shape(-1, 0, 0, 0, 0)  # of the trick in progress
        self.tricks: list[Trick] = []
        self.attacker_points = 0
        self.trick_points = 0
        self.bottom_multiplier = 0
        self.attackers = ((self.dealer + 1) % SEATS, (self.dealer + 3) % SEATS)

    # ------------------------------------------------------------------ deal and declarations
    def received(self, seat: int, dealt: int) -> int:
        """How many cards ``seat`` had when ``dealt`` cards had left the deck (dealing from the dealer)."""
        offset = (seat - self.dealer) % SEATS
        return max(0, (dealt - offset + 3) // 4)

    def _declaration(
        self, seat: int, cards: list[int], dealt: int, got: dict[int, int] | None = None
    ) -> tuple[str, int | None, int] | Violation:
        """Check a declaration without applying it: (kind, suit, strength) or the violation. ``got``: the
        counts of the cards the seat had after ``dealt`` cards, when the caller has them."""
        if self.phase != "deal":
            return violation("phase", "trump is declared only during the deal", "只能在抓牌过程中亮主")
        if dealt < self.last_dealt:
            return violation(
                "dealt",
                f"dealt = {dealt} is before an earlier declaration ({self.last_dealt})",
                f"dealt = {dealt} 早于之前的亮主（{self.last_dealt}）",
            )
        if not has_cards(self.counts[seat], cards):
            return violation(
                "not_in_hand",
                f"seat {seat} does not hold {' '.join(names(cards))}",
                f"{seat} 号座位没有 {' '.join(names(cards))}",
                code="not_in_hand",
                seat=seat,
                cards=names(cards),
            )
        if got is None:
            got = _counts(self.dealt[seat][: self.received(seat, dealt)])
        if not all(got.get(c, 0) >= k for c, k in _counts(cards).items()):
            return violation(
                "not_dealt",
                f"seat {seat} had not been dealt {' '.join(names(cards))} after {dealt} cards",
                f"发出 {dealt} 张牌时 {seat} 号座位还没有抓到这些牌",
                code="not_dealt",
                seat=seat,
                cards=names(cards),
                dealt=dealt,
            )
        level_cards = all(map(_LEVEL_CARDS[self.level].__contains__, cards))  # (codes: 0..53)
        jokers = all(map(_JOKERS.__contains__, cards))
        if len(cards) == 1 and level_cards:
            kind, suit, strength = "single", cards[0] // 13, 1
        elif len(cards) == 2 and level_cards and cards[0] == cards[1]:
            kind, suit, strength = "pair", cards[0] // 13, 2
        elif len(cards) == 2 and jokers and (cards[0] == cards[1] or self.settings.joker_pair == "any"):
            kind, suit, strength = "jokers", TRUMP, 3
        else:
            return violation(
                "declare",
                "a declaration is one level card, a pair of them, or a pair of jokers",
                "亮主只能亮一张级牌、一对级牌或一对王",
            )
        if kind == "single" and self.decl_strength:
            if suit != self.decl_suit or self.decl_strength > 1:
                return violation(
                    "declare", "a single level card cannot overturn a declaration", "单张级牌不能反主"
                )
            if self.settings.reinforce == "declarer" and seat != self.declarer:
                return violation("declare", "only the declarer may reinforce (加固)", "只有亮主者可以加固")
            return "reinforce", suit, 2 if self.settings.reinforce_protects else 1
        if strength <= self.decl_strength:
            return violation(
                "declare",
                "a declaration must outrank the one before: pair > single, jokers > pair",
                "反主必须大于之前的亮主：对子大于单张，对王大于对子",
            )
        return kind, suit, strength

    def _judge_declare(self, seat: int, action: Action) -> list[Violation]:
        cards = event_cards(action)
        if isinstance(cards, Violation):
            return [cards]
        dealt = action.get("dealt", SEATS * HAND)
        if not isinstance(dealt, int) or isinstance(dealt, bool) or not 1 <= dealt <= SEATS * HAND:
            return [
                violation(
                    "dealt",
                    f"dealt = {dealt!r} is not a count of dealt cards 1..100",
                    f"dealt = {dealt!r} 不是已发牌数 1..100",
                )
            ]
        found = self._declaration(seat, cards, dealt)
        if isinstance(found, Violation):
            return [found]
        kind, suit, strength = found
        self.last_dealt = dealt
        if kind != "reinforce":
            self.declarer = seat
        self.decl_suit, self.decl_strength = suit, strength
        self.declarations.append({"seat": seat, "cards": names(cards), "dealt": dealt, "kind": kind})
        return []

    def declaration_options(self, seat: int, dealt: int = SEATS * HAND) -> list[list[int]]:
        """Every declaration ``seat`` could make now with the cards it had after ``dealt`` cards."""
        if self.phase != "deal":
            return []
        got = _counts(self.dealt[seat][: self.received(seat, dealt)])  # (the caller checks with them too)
        options: list[list[int]] = []
        for s in range(4):
            c = s * 13 + self.level
            if got.get(c):
                options.append([c])
            if got.get(c, 0) >= 2:
                options.append([c, c])
        for j in (BJ, RJ):
            if got.get(j, 0) >= 2:
                options.append([j, j])
        if self.settings.joker_pair == "any" and got.get(BJ) and got.get(RJ):
            options.append([BJ, RJ])
        return [o for o in options if not isinstance(self._declaration(seat, o, dealt, got), Violation)]

    def trump_choice(self) -> tuple[int | None, str, list[int]]:
        """The trump suit (None: no trump) as things stand, where it came from, and the cards flipped:
        the declared suit, or 翻底 (the first non-joker card of the bottom)."""
        if self.decl_strength:
            return (None if self.decl_suit == TRUMP else self.decl_suit), "declared", []
        i = next(i for i, c in enumerate(self.bottom) if c < 52)
        return self.bottom[i] // 13, "bottom", self.bottom[: i + 1]

    def _fix_trump(self) -> None:
        """At the dealer's first bury the trump is fixed and the dealer picks up the bottom."""
        suit, self.trump_from, self.flipped = self.trump_choice()
        self.trumps = trumps_for(self.level, suit)
        for c in self.bottom:
            self.counts[self.dealer][c] += 1
        self._held[self.dealer], self._leads[self.dealer] = {}, {}
        self.phase = "bury"

    def _judge_take_bottom(self, seat: int) -> list[Violation]:
        if self.phase != "deal":
            return [violation("phase", "the dealer has already picked up the bottom", "庄家已经拿过底牌")]
        if seat != self.dealer:
            return [
                violation(
                    "turn",
                    f"only the dealer (seat {self.dealer}) takes the bottom",
                    f"只有庄家（{self.dealer} 号）拿底",
                    code="dealer_only",
                    seat=self.dealer,
                )
            ]
        self._fix_trump()
        return []

    def _judge_bury(self, seat: int, action: Action) -> list[Violation]:
        if self.phase not in ("deal", "bury"):
            return [violation("phase", "the bottom is buried before play", "埋底只能在出牌之前")]
        if seat != self.dealer:
            return [
                violation(
                    "turn",
                    f"only the dealer (seat {self.dealer}) buries",
                    f"只有庄家（{self.dealer} 号）埋底",
                    code="dealer_only",
                    seat=self.dealer,
                )
            ]
        cards = event_cards(action)
        if isinstance(cards, Violation):
            return [cards]
        hand = list(self.counts[seat])
        if self.phase == "deal":
            for c in self.bottom:
                hand[c] += 1
        if not has_cards(hand, cards):
            return [
                violation(
                    "not_in_hand",
                    f"the dealer does not hold {' '.join(names(cards))}",
                    f"庄家没有 {' '.join(names(cards))}",
                )
            ]
        if len(self.buried) + len(cards) > BOTTOM:
            return [violation("bury", f"exactly {BOTTOM} cards are buried", f"只能埋 {BOTTOM} 张底牌")]
        if self.phase == "deal":
            self._fix_trump()
        for c in cards:
            self.counts[seat][c] -= 1
        self._held[seat], self._leads[seat] = {}, {}
        self.buried.extend(cards)
        if len(self.buried) == BOTTOM:
            self.phase = "play"
        return []

    # ------------------------------------------------------------------ play
    def holding(self, seat: int, suit: int) -> list[int]:
        """The seat's cards of one effective suit, low to high, with copies."""
        return list(self._holding(seat, suit))

    def _holding(self, seat: int, suit: int) -> list[int]:
        """:meth:`holding`, kept as the seat plays (``_play`` removes the cards played; a bury or the
        bottom taken lists it again). Callers do not change it."""
        held = self._held[seat]
        out = held.get(suit)
        if out is None:
            counts = self.counts[seat]
            assert self.trumps is not None
            out = held[suit] = [c for c in self.trumps.suit_codes[suit] for _ in _COPIES[counts[c]]]
        return out

    def lead_options(self, seat: int) -> list[tuple[int, ...]]:
        """Every lead: per suit (S H D C, then trumps) its singles, pairs and tractors, low to high."""
        leads = self._leads[seat]
        if len(leads) == 5:  # (every suit kept: the common case of a hand that has not changed)
            return [*leads[0], *leads[1], *leads[2], *leads[3], *leads[4]]
        out: list[tuple[int, ...]] = []
        for suit in range(5):
            kept = leads.get(suit)
            out += self._suit_leads(seat, suit) if kept is None else kept
        return out

    def _suit_leads(self, seat: int, suit: int) -> list[tuple[int, ...]]:
        """The leads of one suit, kept until a card of the suit leaves the hand (``_play`` drops them;
        a bury or the bottom taken drops them all). Callers do not change the list."""
        assert self.trumps is not None
        held = self._holding(seat, suit)
        codes = list(dict.fromkeys(held))  # the distinct cards, low to high (zip makes the tuples in C)
        out: list[tuple[int, ...]] = list(zip(codes))
        if len(codes) < len(held):  # a card held twice: pairs, maybe tractors
            counts = self.counts[seat]
            pairs = [c for c in codes if counts[c] >= 2]
            out.extend(zip(pairs, pairs, strict=True))
            if len(pairs) >= 2:
                out.extend(tuple(c for c in t for _ in (0, 1)) for t in _tractors(pairs, self.trumps.order))
        self._leads[seat][suit] = out
        return out

    def follow_options(self, seat: int, cap: int = OPTION_CAP) -> list[tuple[int, ...]]:
        """Legal follows of the current trick (at most ``cap`` when the choices explode)."""
        assert self.trumps is not None
        lead = self.lead_shape
        n = lead.size
        suited = self._holding(seat, lead.suit)
        if len(suited) <= n:
            if len(suited) == n:
                return [tuple(suited)]
            counts = self.counts[seat]
            others = self.trumps.others[lead.suit]
            spare = list(compress(others, map(counts.__getitem__, others)))  # the other suits' cards, by code
            base = tuple(suited)
            if n - len(suited) == 1:  # one card to fill: each distinct card of the other suits once
                return [base + (c,) for c in spare[:cap]]
            rest = [c for c in spare for _ in _COPIES[counts[c]]]
            return _unique(base + f for f in itertools.combinations(rest, n - len(suited)))[:cap]
        if lead.pairs == 0:  # each distinct card once, in the order held
            return list(zip(dict.fromkeys(suited)))
        if n == 2:  # a pair led: each pair held (copies lie side by side), else every two cards, low code first
            pairs = [a for a, b in zip(suited, suited[1:], strict=False) if a == b]
            if pairs:
                return [(c, c) for c in pairs[: max(cap, 1)]]
            two = itertools.islice(itertools.combinations(suited, 2), max(cap, 1))
            return [(a, b) if a < b else (b, a) for a, b in two]
        return self._structured_follows(seat, suited, cap)

    def _structured_follows(self, seat: int, suited: list[int], cap: int = OPTION_CAP) -> list[tuple[int, ...]]:
        """Follows of a lead with pairs from ``suited`` (more cards than led), in full: the tractors and pairs
        held first, then every fill (:meth:`follow_options`' short case for a pair is tested against it)."""
        assert self.trumps is not None
        order = self.trumps.order
        lead = self.lead_shape
        n = lead.size
        held = _counts(suited)
        held_pairs = [c for c in held if held[c] == 2]
        tractor = lead.tractor if lead.tractor and _longest_run(held_pairs, order) >= lead.tractor else 0
        out: list[tuple[int, ...]] = []
        seen: set[tuple[int, ...]] = set()
        for t in _tractors(held_pairs, order, tractor) if tractor else [()]:
            left_pairs = [c for c in held_pairs if c not in t]
            need = min(lead.pairs - len(t), len(left_pairs))
            for chosen in itertools.combinations(left_pairs, need):
                left = list(suited)
                for c in t + chosen:
                    left.remove(c)
                    left.remove(c)
                for fill in itertools.combinations(left, n - 2 * (len(t) + need)):
                    option = tuple(sorted((t + chosen) * 2 + fill))
                    if option not in seen:
                        seen.add(option)
                        out.append(option)
                        if len(out) >= cap:
                            return out
        return out

    def beats(self, new: tuple[int, ...]) -> bool:
        """Whether ``new`` would beat the best play of the trick in progress (see :meth:`_beats`)."""
        assert self.trumps is not None
        return self._beats(shape(new, self.trumps))

    def _beats(self, ns: Shape) -> bool:
        """A follow beats the best play so far: same structure as the lead, all of the led suit or all
        trump, and higher (a trump over a plain suit always)."""
        lead, bs = self.lead_shape, self.best_shape
        if ns.suit < 0 or ns.pairs != lead.pairs or ns.tractor != lead.tractor:
            return False
        if lead.size > 1 and lead.kind == "other":  # a throw (甩牌): only a trump of the same shape beats it
            if ns.suit != TRUMP or lead.suit == TRUMP:
                return False
        if ns.suit != lead.suit and ns.suit != TRUMP:
            return False
        if ns.suit == TRUMP and bs.suit != TRUMP:
            return True
        return ns.suit == bs.suit and ns.top > bs.top

    def _judge_play(self, seat: int, action: Action) -> list[Violation]:
        if self.phase in ("deal", "bury"):
            return [
                violation(
                    "phase",
                    f"play starts after the dealer buried {BOTTOM} cards",
                    f"庄家埋完 {BOTTOM} 张底牌后才能出牌",
                )
            ]
        trick = self.trick
        if seat != (trick.leader + len(trick.plays)) % SEATS:  # trick.to_play, without the property
            return [
                violation(
                    "turn",
                    f"it is seat {self.trick.to_play}'s turn, not seat {seat}'s",
                    f"现在轮到 {self.trick.to_play} 号座位出牌，不是 {seat} 号",
                    code="not_your_turn",
                    seat=seat,
                    due=self.trick.to_play,
                )
            ]
        cards = event_cards(action)
        if isinstance(cards, Violation):
            return [cards]
        if not has_cards(self.counts[seat], cards):
            return [
                violation(
                    "not_in_hand",
                    f"seat {seat} does not hold {' '.join(names(cards))}",
                    f"{seat} 号座位没有 {' '.join(names(cards))}",
                    code="not_in_hand",
                    seat=seat,
                    cards=names(cards),
                )
            ]
        assert self.trumps is not None
        play = tuple(cards)
        if not trick.plays:
            found = self._check_lead(seat, play)
        else:
            found = self._check_follow(seat, play)
        if found is not None:
            return [found]
        self._play(seat, play)
        return []

    def _check_lead(self, seat: int, play: tuple[int, ...]) -> Violation | None:
        if len(play) == 1 or (len(play) == 2 and play[0] == play[1]):  # a single or a pair: always a lead
            return None
        assert self.trumps is not None
        sh = shape(play, self.trumps)
        if sh.kind in ("single", "pair", "tractor"):
            return None
        if sh.kind == "other" and self.settings.throw:
            return self._check_throw(seat, play, sh)
        return violation(
            "lead_combo",
            "lead a single, a pair or a tractor, all of one suit"
            + (" (甩牌 is off)" if not self.settings.throw else ""),
            "首家只能出单张、对子或拖拉机（同一门）" + ("（未开启甩牌）" if not self.settings.throw else ""),
        )

    def _check_throw(self, seat: int, play: tuple[int, ...], sh: Shape) -> Violation | None:
        """甩牌: several units of one suit; legal only if no other seat could beat any unit of it."""
        assert self.trumps is not None
        order = self.trumps.order
        counts = _counts(list(play))
        pair_codes = [c for c in counts if counts[c] == 2]
        singles = [c for c in counts if counts[c] == 1]
        low_single = min((order[c] for c in singles), default=None)
        low_pair = min((order[c] for c in pair_codes), default=None)
        for other in range(SEATS):
            if other == seat:
                continue
            theirs = self._holding(other, sh.suit)
            tc = _counts(theirs)
            if low_single is not None and any(order[c] > low_single for c in theirs):
                break
            if low_pair is not None and any(k == 2 and order[c] > low_pair for c, k in tc.items()):
                break
        else:
            return None
        return violation(
            "throw",
            "甩牌 fails: another seat can beat a part of it; lead that part alone",
            "甩牌失败：别家能管住其中一部分",
        )

    def _check_follow(self, seat: int, play: tuple[int, ...]) -> Violation | None:
        assert self.trumps is not None
        lead = self.lead_shape
        if len(play) != lead.size:
            return violation("follow_count", f"follow with {lead.size} cards", f"跟牌必须出 {lead.size} 张")
        eff = self.trumps.eff
        suited = self._holding(seat, lead.suit)
        if lead.size == 1 and (eff[play[0]] == lead.suit or not suited):  # a single that follows (or may not)
            return None
        if lead.size == 2 and lead.pairs == 1:  # a pair led: two cards decided without counting
            a, b = play
            if a == b:  # a pair: of the led suit, or the seat holds none of it
                if eff[a] == lead.suit or not suited:
                    return None
            elif (eff[a] == lead.suit) + (eff[b] == lead.suit) >= min(2, len(suited)) and len(
                set(suited)
            ) == len(suited):  # as many of the suit as held, and no pair of it held (two decks: copies <= 2)
                return None
            # (otherwise the general checks say why)
        return self._follow_rules(seat, play, suited)

    def _follow_rules(self, seat: int, play: tuple[int, ...], suited: list[int]) -> Violation | None:
        """The follow rules, checked in full (:meth:`_check_follow`'s short cases are tested against them):
        as many of the led suit as held, then pairs and tractors as held. ``suited``: the seat's holding."""
        assert self.trumps is not None
        lead = self.lead_shape
        eff, order = self.trumps.eff, self.trumps.order
        in_suit = [c for c in play if eff[c] == lead.suit]
        if len(in_suit) < min(lead.size, len(suited)):
            name = "trump" if lead.suit == TRUMP else SUIT_LETTERS[lead.suit]
            return violation(
                "follow_suit", f"follow suit: play your {name} cards first", "有该门牌必须先跟该门牌"
            )
        if lead.pairs:
            held = _counts(suited)
            held_pairs = [c for c in held if held[c] == 2]
            got = _counts(in_suit)
            got_pairs = [c for c in got if got[c] == 2]
            if (
                lead.tractor >= 2
                and _longest_run(held_pairs, order) >= lead.tractor
                and _longest_run(got_pairs, order) < lead.tractor
            ):
                return violation(
                    "follow_structure",
                    "a tractor must be followed with a tractor you hold",
                    "有拖拉机必须跟拖拉机",
                )
            if len(got_pairs) < min(lead.pairs, len(held_pairs)):
                return violation(
                    "follow_structure", "follow pairs with the pairs you hold in the suit", "有对子必须跟对子"
                )
        return None

    def _play(self, seat: int, play: tuple[int, ...]) -> None:
        counts = self.counts[seat]
        trumps = self.trumps
        assert trumps is not None
        held, leads, eff = self._held[seat], self._leads[seat], trumps.eff
        for c in play:
            counts[c] -= 1
            s = eff[c]
            suited = held.get(s)
            if suited is not None:  # the kept holding loses the card (cheaper than listing it again)
                suited.remove(c)
            if s in leads:  # the suit's leads are listed again when next asked
                del leads[s]
        trick = self.trick
        plays = trick.plays
        plays.append((seat, play))  # Trick.add, the verdict known here
        n = len(plays)
        if len(play) == 1:
            c = play[0]
            s, top = eff[c], trumps.order[c]
            if n == 1:
                self.lead_shape = self.best_shape = _make_shape((s, 1, 0, 0, top))
            else:  # a single follows a single lead: it beats as a trump over a plain best, or higher in suit
                bs = self.best_shape  # (of the led suit or trump: _beats for singles, inline)
                if (s == bs.suit and top > bs.top) or (s == TRUMP and bs.suit != TRUMP):
                    trick.best = n - 1
                    self.best_shape = _make_shape((s, 1, 0, 0, top))
        else:
            ns = shape(play, trumps)
            if n == 1:
                self.lead_shape = self.best_shape = ns
            elif self._beats(ns):
                trick.best = n - 1
                self.best_shape = ns
        if n == SEATS:  # trick.done
            self._close(trick)

    def _close(self, trick: Trick) -> None:
        plays = trick.plays
        points = 0
        for _, cards in plays:
            points += POINTS[cards[0]] if len(cards) == 1 else sum(map(POINTS.__getitem__, cards))
        winner = plays[trick.best][0]  # trick.winner
        self.tricks.append(trick)
        if winner in self.attackers:
            self.trick_points += points
        if not any(self.counts[self.dealer]):
            self.phase = "over"
            self.attacker_points = self.trick_points
            if winner in self.attackers:
                assert self.trumps is not None
                lead = self.lead_shape
                s = self.settings
                self.bottom_multiplier = (
                    s.bottom_single
                    if lead.pairs == 0
                    else s.bottom_pair
                    if lead.tractor < 2
                    else 2**lead.tractor
                )
                self.attacker_points += self.bottom_points() * self.bottom_multiplier
        else:
            self.trick = Trick(winner, SEATS)

    def bottom_points(self) -> int:
        return sum(POINTS[c] for c in self.buried)

    # ------------------------------------------------------------------ State interface
    def current_player(self) -> int | None:
        if self.phase == "over":
            return None
        if self.phase in ("deal", "bury"):
            return self.dealer
        return self.trick.to_play

    def clone(self) -> ShengjiState:
        """An independent copy for a search's rollout, cheaper than a deep copy: what a play changes in place
        is copied (counts, kept holdings, the logs and the trick), the rest is shared and never changed."""
        new = copy.copy(self)
        new.counts = [list(c) for c in self.counts]
        new._held = [{k: list(v) for k, v in h.items()} for h in self._held]  # a play removes from them in place
        new._leads = [dict(h) for h in self._leads]  # (a play drops a suit's list, never changes one)
        new.log, new.declarations = list(self.log), list(self.declarations)
        new.flipped, new.buried, new.tricks = list(self.flipped), list(self.buried), list(self.tricks)
        trick = Trick(self.trick.leader, self.trick.seats)
        trick.plays, trick.best = list(self.trick.plays), self.trick.best
        new.trick = trick
        return new

    def play_out_greedy(self) -> bool:
        """Play the rest of the hand greedily in place without judging each play (the greedy player picks among
        the options the engine lists, which the referee accepts); False when not in the play phase."""
        if self.phase != "play":
            return False
        while self.phase == "play":
            seat = self.trick.to_play
            options = self.follow_options(seat) if self.trick.plays else self.lead_options(seat)
            self._play(seat, _greedy_play(self, seat, options))
        return True

    def is_terminal(self) -> bool:
        return self.phase == "over"

    def legal_actions(self, seat: int) -> list[Action]:
        out: list[Action] = []
        if self.phase == "deal":
            out += [
                {"seat": seat, "action": "declare", "cards": names(o), "dealt": SEATS * HAND}
                for o in self.declaration_options(seat)
            ]
        if self.phase in ("deal", "bury") and seat == self.dealer:
            # only the dealer's own cards: the bottom is face down until taken (a bury before
            # take_bottom takes it, and the referee allows one, but offering it would show the bottom)
            hand = set(c for c in range(54) if self.counts[seat][c])
            out += [{"seat": seat, "action": "bury", "cards": [NAMES[c]]} for c in sorted(hand)]
            if self.phase == "deal":
                out.append({"seat": seat, "action": "take_bottom"})
        if self.phase == "play" and seat == self.trick.to_play:
            options = self.follow_options(seat) if self.trick.plays else self.lead_options(seat)
            out += [{"seat": seat, "action": "play", "cards": names(o)} for o in options]
        return out

    def seat_dealt(self, seat: int) -> list[str]:
        return names(self.dealt[seat])

    def seen_bottom(self, seat: int) -> list[str] | None:
        return names(self.bottom) if seat == self.dealer and (self.phase != "deal" or self.buried) else None

    def deal_args(self) -> dict[str, Any]:
        return {"dealer": self.dealer}

    def judge(self, action: Action) -> list[Violation]:
        """A legal play by the seat to play, its cards written as records write them, is judged and logged
        here; anything else (other actions, faults, odd spellings) goes the general way, which says why
        (the same verdicts and state, tested)."""
        raw = action.get("cards")
        seat = action.get("seat")
        if self.phase == "play" and raw.__class__ is list and seat.__class__ is int and action.get("action") == "play":
            trick = self.trick
            plays = trick.plays
            if seat == (trick.leader + len(plays)) % SEATS and len(raw) == 1:  # one card: the common case
                try:
                    c = CODES[raw[0]]
                except (KeyError, TypeError):
                    return LoggedState.judge(self, action)
                counts = self.counts[seat]
                if counts[c]:
                    trumps = self.trumps
                    s = trumps.eff[c]  # type: ignore[union-attr]
                    if plays:  # it follows a single in the led suit, or the seat holds none of it
                        lead = self.lead_shape
                        ok = lead.size == 1 and (s == lead.suit or not self._holding(seat, lead.suit))
                    else:  # a single is always a lead
                        ok = True
                    if ok:  # _play of one card, inline (the same steps; tested against it)
                        counts[c] -= 1
                        suited = self._held[seat].get(s)
                        if suited is not None:
                            suited.remove(c)
                        leads = self._leads[seat]
                        if s in leads:
                            del leads[s]
                        plays.append((seat, (c,)))
                        n = len(plays)
                        top = trumps.order[c]  # type: ignore[union-attr]
                        if n == 1:
                            self.lead_shape = self.best_shape = _make_shape((s, 1, 0, 0, top))
                        else:
                            bs = self.best_shape
                            if (s == bs.suit and top > bs.top) or (s == TRUMP and bs.suit != TRUMP):
                                trick.best = n - 1
                                self.best_shape = _make_shape((s, 1, 0, 0, top))
                        if n == SEATS:
                            self._close(trick)
                        self.log.append(dict(action))
                        return []
            elif seat == (trick.leader + len(plays)) % SEATS and raw:
                try:
                    play = tuple(map(CODES.__getitem__, raw))
                except (KeyError, TypeError):
                    return LoggedState.judge(self, action)
                if has_cards(self.counts[seat], play):
                    found = self._check_follow(seat, play) if plays else self._check_lead(seat, play)
                    if found is None:
                        self._play(seat, play)
                        self.log.append(dict(action))
                        return []
        return LoggedState.judge(self, action)

    def _judge(self, action: Action) -> list[Violation]:
        if self.phase == "over":
            return [violation("finished", "the hand is over", "这一副牌已经打完")]
        seat = action.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < SEATS:
            return [violation("malformed", f"seat {seat!r} is not a seat 0..3", f"座位 {seat!r} 不存在")]
        kind = action.get("action")
        if kind == "play":  # the common case first
            return self._judge_play(seat, action)
        if kind == "declare":
            return self._judge_declare(seat, action)
        if kind == "take_bottom":
            return self._judge_take_bottom(seat)
        if kind == "bury":
            return self._judge_bury(seat, action)
        return [
            violation(
                "phase",
                f"unknown action {kind!r} (升级: declare, take_bottom, bury, play)",
                f"未知动作 {kind!r}（升级：declare 亮主、take_bottom 拿底、bury 埋底、play 出牌）",
            )
        ]

    # ------------------------------------------------------------------ results
    def level_change(self) -> tuple[list[int], int] | None:
        """(the two sides' level changes, the winning side's index: 0 dealer's team, 1 attackers)."""
        if self.phase != "over":
            return None
        p = self.attacker_points
        if p == 0:
            return [3, 0], 0
        if p < 40:
            return [2, 0], 0
        if p < 80:
            return [1, 0], 0
        if p < 120:
            return [0, 1], 1
        return [0, 2], 1

    def greedy_move(self, seat: int, rng: Any) -> Action | None:
        """The greedy player's play; as the dealer, the bottom taken, then the greedy bury."""
        if self.phase == "play" and self.trick.to_play == seat:
            options = self.follow_options(seat) if self.trick.plays else self.lead_options(seat)
            return {"seat": seat, "action": "play", "cards": names(_greedy_play(self, seat, options))}
        if self.phase in ("deal", "bury") and seat == self.dealer and self.current_player() == seat:
            if self.phase == "deal":  # take the bottom first: it is not seen before
                return {"seat": seat, "action": "take_bottom"}
            hand = [c for c in range(54) for _ in range(self.counts[seat][c])]
            bury = _greedy_bury(hand, Trumps(self.level, self.trump_choice()[0]))
            return {"seat": seat, "action": "bury", "cards": names(bury[: BOTTOM - len(self.buried)])}
        return None

    def search_value(self, seat: int) -> float | None:
        """Levels are flat between the 40-point steps and not zero-sum: the side's levels less the other
        side's, and a little for each card point, so that a play that gains points but no level yet counts."""
        returns = self.returns()
        if returns is None:
            return None
        points = self.attacker_points * (1 if seat in self.attackers else -1)
        return float(returns[seat] - returns[(seat + 1) % len(returns)]) + points / 160

    def returns(self) -> list[int] | None:
        """Each seat's level change (not zero-sum: only the winning side goes up)."""
        found = self.level_change()
        if found is None:
            return None
        change, _ = found
        return [change[0] if (seat - self.dealer) % 2 == 0 else change[1] for seat in range(SEATS)]

    def next_dealer(self) -> int | None:
        found = self.level_change()
        if found is None:
            return None
        if found[1] == 1:
            return (self.dealer + 1) % SEATS
        if self.attacker_points == 0 and self.settings.daguang_partner_deals:
            return (self.dealer + 2) % SEATS
        return self.dealer if self.settings.keep_dealer == "same" else (self.dealer + 2) % SEATS

    def _trump_json(self) -> dict[str, Any]:
        t = self.trumps
        return {
            "trump_suit": None if t is None or t.suit is None else SUIT_LETTERS[t.suit],
            "no_trump": t is not None and t.suit is None,
            "trump_from": self.trump_from,
        }

    def public_action(self, event: Action) -> Action:
        """The dealer buries face down."""
        return mask_cards(event) if event.get("action") == "bury" else dict(event)

    def public_view(self, seat: int | None = None) -> dict[str, Any]:
        view: dict[str, Any] = {
            "game": "shengji",
            "phase": self.phase,
            "level": self.settings.level,
            "dealer": self.dealer,
            "teams": [[0, 2], [1, 3]],
            "to_play": self.current_player(),
            "declarations": list(self.declarations),
            "declarer": self.declarer,
            **self._trump_json(),
            "flipped": names(self.flipped),
            "hand_sizes": [sum(c) for c in self.counts],
            "trick": self.trick.to_json() if self.trick.plays else None,
            "tricks_done": len(self.tricks),
            "attacker_points": self.trick_points,
        }
        if seat is not None:
            view["seat"] = seat
            view["hand"] = [NAMES[c] for c in range(54) for _ in range(self.counts[seat][c])]
            if seat == self.dealer and self.buried:
                view["buried"] = names(self.buried)
        return view

    def verdict(self) -> dict[str, Any]:
        done = self.phase == "over"
        found = self.level_change()
        return {
            "game": "shengji",
            "level": self.settings.level,
            "dealer": self.dealer,
            "teams": [[0, 2], [1, 3]],
            "attackers": sorted(self.attackers),
            "declarations": list(self.declarations),
            "declarer": self.declarer,
            **self._trump_json(),
            "flipped": names(self.flipped),
            "buried": names(self.buried) if done else None,
            "leader": self.dealer if self.tricks or self.trick.plays else None,
            "tricks": [t.to_json() for t in self.tricks],
            "finished": done,
            "trick_points": self.trick_points if done else None,
            "bottom_points": self.bottom_points() if done else None,
            "bottom_multiplier": self.bottom_multiplier if done else None,
            "attacker_points": self.attacker_points if done else None,
            "winners": ([[0, 2], [1, 3]][(self.dealer + found[1]) % 2] if found else None),
            "level_up": max(found[0]) if found else None,
            "scores": self.returns(),
            "zero_sum": False,
            "next_dealer": self.next_dealer(),
            "next_first_seat": self.next_dealer(),
        }


def _unique(options: Any) -> list[tuple[int, ...]]:
    out, seen = [], set()
    for o in options:
        key = tuple(sorted(o))
        if key not in seen:
            seen.add(key)
            out.append(o)
            if len(out) >= OPTION_CAP:
                break
    return out


# ---------------------------------------------------------------------- bots
def _value(state: ShengjiState, option: tuple[int, ...]) -> tuple[int, int]:
    t = state.trumps
    assert t is not None
    order, eff = t.order, t.eff
    if len(option) == 1:  # the common case, without the generators (the rollouts' inner loop)
        c = option[0]
        return POINTS[c], order[c] + 20 * (eff[c] == TRUMP)
    return sum(POINTS[c] for c in option), sum(order[c] + 20 * (eff[c] == TRUMP) for c in option)


def _greedy_play(state: ShengjiState, seat: int, options: list[tuple[int, ...]]) -> tuple[int, ...]:
    trick = state.trick
    if not trick.plays:  # lead the longest, then the strongest plain-suit combination
        assert state.trumps is not None
        eff = state.trumps.eff
        return max(options, key=lambda o: (len(o), eff[o[0]] != TRUMP, state.trumps.order[o[0]]))  # type: ignore
    partner_wins = (trick.winner - seat) % 2 == 0
    if partner_wins:  # (each option's value worked out once: the search's rollouts spend their time here)
        return max(options, key=lambda o: (lambda v: (v[0], -v[1]))(_value(state, o)))
    winning = [o for o in options if state.beats(o)]
    if winning:
        return min(winning, key=lambda o: _value(state, o)[1])
    return min(options, key=lambda o: _value(state, o))


def _random_play(state: ShengjiState, seat: int, rng: random.Random) -> tuple[int, ...]:
    """``rng.choice`` of the plays ``follow_options`` / ``lead_options`` list, in the same order, from the
    same draw, without making every option: a single's follow picks among the distinct cards of the led
    suit held; a lead counts each suit's singles, pairs and tractors and makes only the one picked."""
    if state.trick.plays:
        lead = state.lead_shape
        if lead.size == 1:
            suited = state._held[seat].get(lead.suit)
            if suited is None:
                suited = state._holding(seat, lead.suit)
            if suited:
                return (rng.choice(list(dict.fromkeys(suited))),)
        return rng.choice(state.follow_options(seat))
    kept, held = state._leads[seat], state._held[seat]
    sizes = []
    for suit in range(5):
        leads = kept.get(suit)
        if leads is None:
            cards = held.get(suit)
            if cards is None:
                cards = state._holding(seat, suit)
            distinct = len(set(cards))
            pairs = len(cards) - distinct  # (two decks: a card is held at most twice)
            if pairs < 2:  # singles and a pair at most: no tractor
                sizes.append(distinct + pairs)
                continue
            leads = state._suit_leads(seat, suit)
        sizes.append(len(leads))
    pick = rng.choice(range(sum(sizes)))
    suit = 0
    while pick >= sizes[suit]:
        pick -= sizes[suit]
        suit += 1
    leads = kept.get(suit)
    if leads is not None:
        return leads[pick]
    codes = list(dict.fromkeys(held[suit]))  # the singles, then the pair if any
    if pick < len(codes):
        return (codes[pick],)
    counts = state.counts[seat]
    pair = next(c for c in codes if counts[c] >= 2)
    return (pair, pair)


def _greedy_bury(hand: list[int], t: Trumps) -> list[int]:
    """Bury the lowest plain cards, keeping trumps and points."""
    return sorted(hand, key=lambda c: (t.eff[c] == TRUMP, POINTS[c] > 0, t.order[c]))[:BOTTOM]


def play_bot_hand(
    game: ShengjiGame, rng: random.Random, bot: str, settings: ShengjiSettings
) -> dict[str, Any]:
    deck = shuffled_deck(DECKS["shengji"].names(), rng)
    dealer = settings.dealer
    # card k goes to seat (dealer + k) % SEATS: each seat's cards are every fourth from its first
    hands_txt = [deck[(seat - dealer) % SEATS : SEATS * HAND : SEATS] for seat in range(SEATS)]
    bottom_txt = deck[SEATS * HAND :]
    state = ShengjiState(hands_txt, bottom_txt, settings)  # type: ignore[arg-type]  # card names, as parsed
    events: list[Action] = []
    level = state.level
    eager = rng.random()
    may_declare = {"BJ", "RJ", *(NAMES[s * 13 + level] for s in range(4))}  # the level cards and jokers
    for k in compress(range(SEATS * HAND), map(may_declare.__contains__, deck)):  # (found in C)
        if rng.random() > eager * 0.6:
            continue
        seat = (dealer + k) % SEATS
        options = state.declaration_options(seat, k + 1)
        if options:
            ev: Action = {
                "seat": seat,
                "action": "declare",
                "cards": names(rng.choice(options)),
                "dealt": k + 1,
            }
            state.apply(ev)
            events.append(ev)
    hand = [c for c in range(54) for _ in _COPIES[state.counts[dealer][c]]] + state.bottom
    suit = state.trump_choice()[0]
    bury = rng.sample(hand, BOTTOM) if bot == "random" else _greedy_bury(hand, trumps_for(level, suit))
    ev = {"seat": dealer, "action": "bury", "cards": names(bury)}
    state.apply(ev)
    events.append(ev)
    while state.phase == "play":
        trick = state.trick
        seat = (trick.leader + len(trick.plays)) % SEATS  # trick.to_play, without the property
        if bot == "random":
            lead = state.lead_shape
            suited = state._held[seat].get(lead.suit) if trick.plays and lead.size == 1 else None
            if suited:  # a single's follow (_random_play's first case, inline: most plays are)
                option = (rng.choice(list(dict.fromkeys(suited))),)
            else:
                option = _random_play(state, seat, rng)
        else:
            options = state.follow_options(seat) if trick.plays else state.lead_options(seat)
            option = _greedy_play(state, seat, options)
        ev = {
            "seat": seat,
            "action": "play",
            "cards": [NAMES[option[0]]] if len(option) == 1 else list(map(NAMES.__getitem__, option)),
        }
        # every bot action goes through the referee (升级 has no warnings: all errors)
        found = state.judge(ev)
        if found:
            raise IllegalAction(found[0])
        events.append(ev)
    return game.bot_record(
        state,
        settings,
        hands_txt,
        bottom_txt,
        events,
        first_seat=settings.dealer,
        attacker_points=state.attacker_points if state.phase == "over" else None,
    )


@functools.lru_cache(maxsize=256)
def _with_dealer(settings: ShengjiSettings, dealer: int) -> ShengjiSettings:
    """``settings`` with ``dealer`` (frozen settings: made once per pair, not for every hand)."""
    return dataclasses.replace(settings, dealer=dealer)


@functools.lru_cache(maxsize=256)
def _rules_of(game: ShengjiGame, settings: ShengjiSettings) -> tuple[tuple[str, Any], ...]:
    return tuple(Game.rules_of(game, settings).items())


_PLAN = DealPlan(seats=SEATS, cards_per_seat=(HAND,) * SEATS, bottom=BOTTOM, deck=DECKS["shengji"])  # (frozen: made once)


class ShengjiGame(Game):
    """升级. Preset ``sijen`` (the text: 四人升级)."""

    name = "shengji"
    info = GameInfo("升级", "Tractor", trick_taking=True, declares_before_play=True, zero_sum=False,
                    actions=(("declare", ("cards",)), ("take_bottom", ()), ("bury", ("cards",)), ("play", ("cards",))))
    settings_type = ShengjiSettings
    presets = PRESETS
    default_preset = "sijen"

    def rules_of(self, settings: Any) -> dict[str, Any]:
        """:meth:`Game.rules_of`, worked out once per settings (they are frozen; a new dict each time)."""
        return dict(_rules_of(self, settings))

    def deal_plan(self, settings: Any) -> DealPlan:
        return _PLAN

    def new_state(
        self,
        hands: list[list[Card]],
        bottom: list[Card],
        settings: Any,
        *,
        first_seat: int | None = None,
        dealer: int | None = None,
    ) -> ShengjiState:
        """``dealer``: the dealer, unless the settings already name it."""
        from engine.record import RecordError

        settings = settings or self.settings()
        if dealer is not None and dealer != settings.dealer:
            settings = _with_dealer(settings, dealer)
        if len(hands) != SEATS or any(len(h) != HAND for h in hands) or len(bottom) != BOTTOM:
            raise RecordError(
                f"升级 deals {HAND} cards to each of 4 seats and {BOTTOM} to the bottom: "
                f"got {[len(h) for h in hands]} and {len(bottom)} bottom cards"
            )
        return ShengjiState(hands, bottom, settings)

    def suit_of(self, card: str, view: dict[str, Any]) -> str | None:
        """Trumps (jokers, the level's rank, the trump suit) follow as one suit, ``T``."""
        if card in ("BJ", "RJ") or card[1:] == view.get("level") or card[0] == view.get("trump_suit"):
            return "T"
        return card[0]

    def _trumps(self, view: dict[str, Any]) -> Trumps | None:
        if not (view.get("trump_suit") or view.get("no_trump")):
            return None
        letter = view.get("trump_suit")
        return trumps_for(RANKS.index(view["level"]), SUIT_LETTERS.index(letter) if letter else None)

    def pair_run_order(self, view: dict[str, Any]) -> Callable[[str], int] | None:
        """A card's place in the trump order: tractors are pairs of consecutive places."""
        trumps = self._trumps(view)
        if trumps is None:
            return None
        order = trumps.order
        return lambda c: order[CODES[c]]

    def bury_order(self, view: dict[str, Any]) -> Callable[[str], float] | None:
        """The dealer keeps trumps and points and buries low plain cards (as the greedy bots and most
        people do)."""
        rank = self.pair_run_order(view)
        if rank is None:
            return None
        trump, level = view.get("trump_suit"), view.get("level")

        def key(c: str) -> float:
            is_trump = c in ("BJ", "RJ") or c[0] == trump or c[1:] == level
            return 100 * is_trump + 50 * (POINTS[CODES[c]] > 0) + rank(c)

        return key

    def first_play(
        self, hands: Sequence[Sequence[Any]], bottom: Sequence[Any], *, dealer: int = 0
    ) -> FirstPlay:
        """The dealer (庄家), the seat the deal started from, plays first."""
        return FirstPlay(dealer, None, "dealer")

    def may_make_news(self, action: str | None) -> bool:
        return True

    def news(self, before: dict[str, Any], after: dict[str, Any]) -> News | None:
        """The trump, once declared (or no trump)."""
        if before.get("trump_suit") is not None or before.get("no_trump"):
            return None
        if after.get("no_trump"):
            return News("no_trump")
        if after.get("trump_suit") in ("S", "H", "D", "C"):
            return News("trump", {"suit": after["trump_suit"]})
        return None

    def bot_hand(
        self, rng: random.Random, *, bot: str = "greedy", settings: Any = None, first_seat: int = 0
    ) -> dict[str, Any]:
        """A whole hand by bots: the deal card by card from the dealer with declarations now and then (each
        with its ``dealt``), the bury, and the play. The dealer deals first, so a non-zero ``first_seat``
        is the dealer (self-play passes the last verdict's ``next_first_seat`` = ``next_dealer``);
        otherwise ``settings.dealer``. The record's ``rules`` carry the dealer."""
        settings = settings or self.settings()
        if first_seat and first_seat != settings.dealer:
            settings = _with_dealer(settings, first_seat)
        return play_bot_hand(self, rng, bot, settings)
