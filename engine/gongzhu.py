"""拱猪 (``gongzhu``): 4 players, one deck, 13 tricks of one card; take as few bad cards as you can.

With ``decks = 2`` (拱双猪): two decks without jokers, 104 cards, 26 a seat; a play is one card or a pair
(:class:`ShuangzhuState`).

The rules digest is ``docs/rules/gongzhu.md`` (rule ids, settings and every choice made).
Actions: ``expose`` (亮牌, before the first trick; ``cards``, optional ``hidden`` for 暗卖) and
``play`` (``cards``: one card, or ``card``; 拱双猪: one card or two).

>>> import random
>>> game = GongzhuGame()
>>> record = game.bot_hand(random.Random(1))
>>> len(record["events"]) >= 52
True
>>> two = game.settings(None, {"decks": 2})
>>> game.deal_plan(two).cards_per_seat, game.deal_plan(two).deck.size
((26, 26, 26, 26), 104)
>>> record = game.bot_hand(random.Random(1), settings=two)
>>> sorted(len(h) for h in record["hands"])
[26, 26, 26, 26]
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Literal

from engine.cards import DECKS, Card, DeckSpec, parse_cards
from engine.game import (
    Action,
    DealPlan,
    FirstPlay,
    Game,
    GameInfo,
    IllegalAction,
    LoggedState,
    Violation,
    holder,
    mask_cards,
    violation,
)
from engine.tricks import (
    CODES,
    NAMES,
    Trick,
    codes_of,
    event_cards,
    names,
    shuffled_deck,
)

SEATS = 4
S, H, D, C = 0, 1, 2, 3
PIG, SHEEP, TRANSFORMER, HEART_A = CODES["SQ"], CODES["DJ"], CODES["C10"], CODES["HA"]
EXPOSABLE = (PIG, HEART_A, SHEEP, TRANSFORMER)
HEARTS = tuple(range(13, 26))
TWO_DECKS = DeckSpec(jokers=False, decks=2)  # 拱双猪: 104 cards (not a DECKS entry: that would be a new game)
# Heart values by rank index 0 ('2') .. 12 ('A').
HEART_VALUES = {
    "standard": (0, 0, 0, -10, -10, -10, -10, -10, -10, -20, -30, -40, -50),
    "book": (-2, -3, -10, -5, -6, -7, -8, -9, -10, -20, -30, -40, -50),
}
TEAMS = Literal["none", "partners", "zhuyang"]


@dataclass(frozen=True)
class GongzhuSettings:
    """Every rule the texts disagree on. Defaults are the preset ``gonglue`` (see the digest)."""

    first_lead_card: str = "C2"
    first_lead_must_play: bool = True
    leader: int | None = None
    next_leader: Literal["biggest_loser", "pig_taker"] = "biggest_loser"
    exposure: Literal["optional", "none", "all_but_sheep", "all"] = "optional"
    force_last: bool = False
    shouming: bool = False
    anmai: bool = False
    exposed_may_lead: bool = True
    exposed_factor: int = 2
    shouming_factor: int = 4
    heart_values: Literal["standard", "book"] = "standard"
    pig_value: int = -100
    sheep_value: int = 100
    transformer_factor: int = 2
    transformer_alone: int = 50
    all_hearts: Literal["fixed", "negate"] = "fixed"
    all_hearts_value: int = 100
    grand_slam_unexposed: int | None = 1000
    discard_colour: bool = False
    zide: bool = False
    swap_pig_sheep: bool = False
    teams: TEAMS = "none"
    match_limit: int = -1000
    double_pig: bool = False
    decks: Literal[1, 2] = 1

    def __post_init__(self) -> None:
        if self.decks not in (1, 2) or isinstance(self.decks, bool):
            raise ValueError(f"decks = {self.decks!r} is not 1 or 2")
        if self.decks == 2 and self.zide:
            raise ValueError("zide (自得) is one-deck only: with decks = 2 the copies cannot be told apart")
        if self.decks == 2 and self.teams == "zhuyang":
            raise ValueError(
                "teams = 'zhuyang' (猪羊一家) is one-deck only: with decks = 2 there are two "
                "pigs and two sheep"
            )
        if not (
            isinstance(self.first_lead_card, str)
            and self.first_lead_card.upper() in CODES
            and self.first_lead_card.upper() not in ("BJ", "RJ")
        ):
            raise ValueError(f"first_lead_card = {self.first_lead_card!r} is not a card of the deck")
        if self.leader is not None and not (isinstance(self.leader, int) and 0 <= self.leader < SEATS):
            raise ValueError(f"leader = {self.leader!r} is not a seat 0..3")


PRESETS = {
    "gonglue": GongzhuSettings(),
    "partners": GongzhuSettings(teams="partners"),
    "zhuyang": GongzhuSettings(teams="zhuyang", exposure="none"),
    "quanliang": GongzhuSettings(exposure="all_but_sheep"),
    "computer": GongzhuSettings(
        next_leader="pig_taker", all_hearts="negate", grand_slam_unexposed=None, force_last=True
    ),
    # 拱双猪: two decks without jokers, 26 cards each; singles or pairs (docs/rules/gongzhu.md).
    "shuangzhu": GongzhuSettings(decks=2),
    "shuangzhu-quanliang": GongzhuSettings(decks=2, exposure="all_but_sheep"),  # 两副牌除羊全亮
}

_COLOUR = (0, 1, 1, 0)  # S H D C: black red red black


def _suit(card: int) -> int:
    return card // 13


_SUIT_SETS = tuple(frozenset(range(13 * s, 13 * s + 13)) for s in range(4))  # one deck's codes by suit


class GongzhuState(LoggedState):
    """One hand of 拱猪. Hands are per-seat sets of card codes."""

    def __init__(self, hands: list[list[Card]], settings: GongzhuSettings):
        self.settings = settings
        self.dealt = [codes_of(h) for h in hands]  # names or Cards
        self.hands = [self._hand(h) for h in self.dealt]
        self.log: list[Action] = []  # applied events (for the bots' information sets)
        self.values = self._card_values()
        self.exposed: dict[int, str] = {}  # card -> "open" | "first" (首明) | "hidden" (暗卖)
        self.exposed_by: dict[int, int] = {}
        self.taken: list[list[int]] = [[] for _ in range(SEATS)]
        self.takers: list[int] = []  # who took each trick
        self.tricks: list[Trick] = []
        self.led_suits: set[int] = set()
        self.first_round = False
        self.penalties: list[dict[str, Any]] = []
        self.started = False
        lead_card = CODES[settings.first_lead_card.upper()]
        if settings.leader is not None:
            self.leader = settings.leader
            self.must_lead: int | None = None
        else:
            self.leader = next(s for s in range(SEATS) if lead_card in self.hands[s])
            self.must_lead = lead_card if settings.first_lead_must_play else None
        self.trick = Trick(self.leader, SEATS)
        forced = {"all": EXPOSABLE, "all_but_sheep": (PIG, HEART_A, TRANSFORMER)}.get(settings.exposure, ())
        self._force_exposures(forced)

    @staticmethod
    def _hand(codes: list[int]) -> Any:
        return set(codes)

    def _force_exposures(self, cards: tuple[int, ...]) -> None:
        """亮牌 the rules force (全亮 / 除羊全亮): every copy dealt of ``cards``."""
        for card in cards:
            self._expose(self._holder(card), card, "open")

    # ------------------------------------------------------------------ helpers
    def _card_values(self) -> list[int]:
        values = [0] * 52
        for i, v in enumerate(HEART_VALUES[self.settings.heart_values]):
            values[13 + i] = v
        values[PIG] = self.settings.pig_value
        values[SHEEP] = self.settings.sheep_value
        return values

    def _holder(self, card: int) -> int:
        return next(s for s in range(SEATS) if card in self.dealt[s])

    def _expose(self, seat: int, card: int, kind: str) -> None:
        self.exposed[card] = kind
        self.exposed_by[card] = seat

    def _held_back(self, card: int) -> bool:
        """An openly exposed card (not 首明, not 暗卖) is held back on the first round of its suit."""
        return self.exposed.get(card) == "open"

    def factor(self, card: int) -> int:
        kind = self.exposed.get(card)
        if kind is None:
            return 1
        return self.settings.shouming_factor if kind == "first" else self.settings.exposed_factor

    def finished(self) -> bool:
        return not any(self.hands)  # the last trick closes as its last card leaves a hand

    # ------------------------------------------------------------------ State interface
    def current_player(self) -> int | None:
        return None if self.finished() else self.trick.to_play

    def is_terminal(self) -> bool:
        return self.finished()

    def legal_plays(self, seat: int) -> list[int]:
        """The cards ``seat`` may play now (empty when it is not their turn)."""
        trick = self.trick
        plays = trick.plays
        # (the seat to play holds a card until the hand is over: an empty hand there means finished)
        if seat != (trick.leader + len(plays)) % SEATS or not (hand := self.hands[seat]):
            return []
        if not plays:
            if self.must_lead is not None:
                return [self.must_lead]
            if self.settings.exposed_may_lead:
                return sorted(hand)
            free = [c for c in hand if not (self._held_back(c) and _suit(c) not in self.led_suits)]
            return sorted(free or hand)
        suited = _SUIT_SETS[plays[0][1][0] // 13].intersection(hand)  # the led suit's cards (found in C)
        if not suited:
            return sorted(hand)
        suited = sorted(suited)
        if len(suited) > 1 and self.first_round and self.exposed:
            suited = [c for c in suited if not self._held_back(c)] or suited
        return suited

    def may_play(self, seat: int, card: int) -> bool:
        """``card in legal_plays(seat)`` for a card in the hand of the seat to play, without the list
        (the referee's check of every play)."""
        trick = self.trick
        hand = self.hands[seat]
        held_back = self._held_back
        if not trick.plays:
            if self.must_lead is not None:
                return card == self.must_lead
            if self.settings.exposed_may_lead or not self.exposed:
                return True
            led = self.led_suits
            if not (held_back(card) and _suit(card) not in led):
                return True  # a free card
            return not any(not (held_back(c) and _suit(c) not in led) for c in hand)  # no free card at all
        led_suit = trick.plays[0][1][0] // 13  # (the suit, inline: every play asks)
        if card // 13 != led_suit:
            return _SUIT_SETS[led_suit].isdisjoint(hand)  # void in the led suit
        if self.first_round and held_back(card):
            suited = _SUIT_SETS[led_suit].intersection(hand)
            return len(suited) == 1 or all(held_back(c) for c in suited)
        return True

    def expose_options(self, seat: int) -> list[int]:
        if self.started or self.settings.exposure in ("none", "all") or self.settings.teams == "zhuyang":
            return []
        return [
            c
            for c in EXPOSABLE
            if c in self.hands[seat]
            and c not in self.exposed
            and not (c == SHEEP and self.settings.exposure == "all_but_sheep")
        ]

    def legal_actions(self, seat: int) -> list[Action]:
        out: list[Action] = [
            {"seat": seat, "action": "play", "cards": [NAMES[c]]} for c in self.legal_plays(seat)
        ]
        for c in self.expose_options(seat):
            out.append({"seat": seat, "action": "expose", "cards": [NAMES[c]]})
            if self.settings.anmai:
                out.append({"seat": seat, "action": "expose", "cards": [NAMES[c]], "hidden": True})
        return out

    def seat_dealt(self, seat: int) -> list[str]:
        return names(self.dealt[seat])

    def judge(self, action: Action) -> list[Violation]:
        """A legal play of one card by the seat to play, written as records write it, is judged and logged
        here; anything else goes the general way, which says why (the same verdicts and state, tested)."""
        raw = action.get("cards")
        seat = action.get("seat")
        if (
            action.get("action") == "play"
            and raw.__class__ is list
            and len(raw) == 1
            and seat.__class__ is int
        ):
            trick = self.trick
            plays = trick.plays
            try:
                card = CODES[raw[0]]
            except (KeyError, TypeError):
                return LoggedState.judge(self, action)
            # (the seat to play holds the card, so the hand is not over)
            if seat == (trick.leader + len(plays)) % SEATS and card in (hand := self.hands[seat]):
                if plays:  # a follow: follow suit if you can (may_play's steps, the common ones inline)
                    led = plays[0][1][0] // 13
                    if card // 13 != led:
                        ok = _SUIT_SETS[led].isdisjoint(hand)  # void in the led suit
                    elif self.first_round and self.exposed.get(card) == "open":  # maybe held back
                        ok = self.may_play(seat, card)
                    else:
                        ok = True
                else:
                    ok = self.may_play(seat, card)
                if ok:  # _play, inline (the same steps; tested against it)
                    self.started = True
                    hand.discard(card)
                    if not plays:
                        self.must_lead = None
                        led = card // 13
                        self.first_round = led not in self.led_suits
                        self.led_suits.add(led)
                    plays.append((seat, (card,)))
                    n = len(plays)
                    if n > 1 and card // 13 == plays[0][1][0] // 13 and card > plays[trick.best][1][0]:
                        trick.best = n - 1
                    if n == SEATS:
                        self._close(trick)
                    self.log.append(dict(action))
                    return []
        return LoggedState.judge(self, action)

    def _judge(self, action: Action) -> list[Violation]:
        kind = action.get("action")
        seat = action.get("seat")
        if self.finished():
            return [violation("finished", "the hand is over", "这一副牌已经打完")]
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < SEATS:
            return [violation("malformed", f"seat {seat!r} is not a seat 0..3", f"座位 {seat!r} 不存在")]
        if kind == "play":
            return self._judge_play(seat, action)
        if kind == "expose":
            return self._judge_expose(seat, action)
        return [
            violation(
                "phase",
                f"unknown action {kind!r} (拱猪: expose, play)",
                f"未知动作 {kind!r}（拱猪：expose 亮牌、play 出牌）",
            )
        ]

    def _expose_request(self, action: Action) -> tuple[list[int], bool] | Violation:
        """The cards of an ``expose`` action and whether it is 暗卖, or why no exposing is allowed now."""
        cards = event_cards(action)
        if isinstance(cards, Violation):
            return cards
        if self.started:
            return violation(
                "phase", "cards are exposed only before the first trick", "亮牌只能在出第一轮牌之前"
            )
        if self.settings.teams == "zhuyang" or self.settings.exposure in ("none", "all"):
            return violation("expose_forbidden", "no exposing under these rules", "此玩法不许亮牌")
        hidden = bool(action.get("hidden", False))
        if hidden and not self.settings.anmai:
            return violation("expose", "暗卖 (hidden exposing) is off", "未开启暗卖")
        return cards, hidden

    def _judge_expose(self, seat: int, action: Action) -> list[Violation]:
        request = self._expose_request(action)
        if isinstance(request, Violation):
            return [request]
        cards, hidden = request
        for c in cards:
            if c not in self.hands[seat]:
                return [
                    violation(
                        "not_in_hand",
                        f"{NAMES[c]} is not in seat {seat}'s hand",
                        f"{NAMES[c]} 不在该玩家手中",
                        code="not_in_hand",
                        seat=seat,
                        cards=[NAMES[c]],
                    )
                ]
            if c not in EXPOSABLE:
                return [
                    violation(
                        "expose",
                        f"{NAMES[c]} cannot be exposed (only SQ, HA, DJ, C10)",
                        f"{NAMES[c]} 不能亮（只能亮黑桃Q、红桃A、方块J、梅花10）",
                    )
                ]
            if c in self.exposed or cards.count(c) > 1:
                return [
                    violation(
                        "expose",
                        f"{NAMES[c]} is already exposed",
                        f"{NAMES[c]} 已经亮过",
                        code="already_exposed",
                        seat=seat,
                        card=NAMES[c],
                    )
                ]
            if c == SHEEP and self.settings.exposure == "all_but_sheep":
                return [
                    violation(
                        "expose_forbidden", "除羊全亮: the sheep DJ must not be exposed", "除羊全亮：羊不得亮"
                    )
                ]
        for c in cards:
            first = self.settings.shouming and not hidden and self.dealt[seat][0] == c
            self._expose(seat, c, "hidden" if hidden else "first" if first else "open")
        if self.settings.force_last and self.settings.exposure == "optional":
            rest = [c for c in EXPOSABLE if c not in self.exposed]
            if len(rest) == 1:
                self._expose(self._holder(rest[0]), rest[0], "open")
        return []

    def _turn_cards(self, seat: int, action: Action) -> list[int] | Violation:
        """The cards ``seat`` plays, or why the play is malformed or out of turn."""
        cards = event_cards(action)
        if isinstance(cards, Violation):
            return cards
        if seat != self.trick.to_play:
            return violation(
                "turn",
                f"it is seat {self.trick.to_play}'s turn, not seat {seat}'s",
                f"现在轮到 {self.trick.to_play} 号座位出牌，不是 {seat} 号",
                code="not_your_turn",
                seat=seat,
                due=self.trick.to_play,
            )
        return cards

    def _judge_play(self, seat: int, action: Action) -> list[Violation]:
        cards = self._turn_cards(seat, action)
        if isinstance(cards, Violation):
            return [cards]
        if len(cards) != 1:
            return [violation("malformed", "拱猪 plays one card at a time", "拱猪每次只出一张牌")]
        card = cards[0]
        hand = self.hands[seat]
        if card not in hand:
            return [
                violation(
                    "not_in_hand",
                    f"{NAMES[card]} is not in seat {seat}'s hand",
                    f"{NAMES[card]} 不在该玩家手中",
                    code="not_in_hand",
                    seat=seat,
                    cards=[NAMES[card]],
                )
            ]
        if not self.may_play(seat, card):
            return [self._why_illegal(seat, card)]
        self._play(seat, card)
        return []

    def _why_illegal(self, seat: int, card: int) -> Violation:
        if self.must_lead is not None and not self.trick.plays:
            m = NAMES[self.must_lead]
            return violation("first_lead", f"the first trick is led with {m}", f"第一轮必须先出 {m}")
        if self.trick.plays:
            led = _suit(self.trick.lead[0])
            if _suit(card) != led:
                return violation(
                    "follow_suit",
                    f"follow suit: seat {seat} holds {'SHDC'[led]}",
                    f"有{'黑桃红桃方块梅花'[2 * led : 2 * led + 2]}必须跟出",
                    code="follow_suit",
                    seat=seat,
                    suit="SHDC"[led],
                )
        return violation(
            "exposed_first_round",
            f"the exposed {NAMES[card]} may not be played on the first round of its suit",
            f"亮过的 {NAMES[card]} 不得在该花色首轮打出",
        )

    def _play(self, seat: int, card: int) -> None:
        self.started = True
        self.hands[seat].discard(card)
        trick = self.trick
        if not trick.plays:
            self.must_lead = None
            led = _suit(card)
            self.first_round = led not in self.led_suits
            self.led_suits.add(led)
        plays = trick.plays
        plays.append((seat, (card,)))  # Trick.add: a card of the led suit above the best so far wins
        if len(plays) > 1 and card // 13 == plays[0][1][0] // 13 and card > plays[trick.best][1][0]:
            trick.best = len(plays) - 1
        if len(plays) == SEATS:  # trick.done
            self._close(trick)

    def _close(self, trick: Trick) -> None:
        taker = winner = trick.plays[trick.best][0]  # trick.winner
        if self.settings.discard_colour:
            taker = self._colour_penalty(trick) or taker
        self.taken[taker].extend(trick.cards())
        self.takers.append(taker)
        self.tricks.append(trick)
        if not self.finished():
            self.trick = Trick(winner, SEATS)

    def _colour_penalty(self, trick: Trick) -> int | None:
        """垫牌规则: a discard of the wrong colour (holding the led colour) takes the trick's scoring cards."""
        led = _suit(trick.lead[0])
        for seat, cards in trick.plays[1:]:
            for card in cards:
                if _suit(card) != led and _COLOUR[_suit(card)] != _COLOUR[led]:
                    if any(_COLOUR[_suit(c)] == _COLOUR[led] for c in self.hands[seat]):
                        self.penalties.append({"seat": seat, "card": NAMES[card], "trick": len(self.tricks)})
                        return seat
        return None

    # ------------------------------------------------------------------ scoring
    def seat_points(self, seat: int) -> int:
        """One seat's score for the hand from the cards it took (the digest's scoring section)."""
        s = self.settings
        taken = set(self.taken[seat])
        values = self.values
        if s.swap_pig_sheep and any(sum(1 for c in t if 13 <= c < 26) == 13 for t in self.taken):
            values = list(values)
            values[PIG], values[SHEEP] = values[SHEEP], values[PIG]

        def f(card: int) -> int:  # exposure factor, doubled again for 自得 (taking back one's own card)
            return self.factor(card) * (2 if s.zide and card in self.dealt[seat] else 1)

        hf = self.factor(HEART_A)
        heart_cards = taken.intersection(HEARTS)  # (a set of distinct codes: found in C)
        own_heart_a = values[HEART_A] * hf * (f(HEART_A) // hf - 1) if HEART_A in taken else 0
        all_hearts = len(heart_cards) == 13
        if all_hearts and PIG in taken and SHEEP in taken and TRANSFORMER in taken:
            if (
                not self.exposed
                and not (s.zide and any(f(c) > 1 for c in EXPOSABLE))
                and s.grand_slam_unexposed is not None
            ):
                return s.grand_slam_unexposed
            total = (
                sum(abs(values[c]) for c in HEARTS) * hf
                + abs(own_heart_a)
                + abs(values[PIG]) * f(PIG)
                + abs(values[SHEEP]) * f(SHEEP)
            )
            return total * s.transformer_factor * f(TRANSFORMER)
        hearts = sum(map(values.__getitem__, heart_cards)) * hf + own_heart_a
        if all_hearts:
            hearts = s.all_hearts_value * hf if s.all_hearts == "fixed" else -hearts
        base = hearts
        base += values[PIG] * f(PIG) if PIG in taken else 0
        base += values[SHEEP] * f(SHEEP) if SHEEP in taken else 0
        if TRANSFORMER in taken:
            if not any(values[c] for c in taken):
                return s.transformer_alone * f(TRANSFORMER)
            return base * s.transformer_factor * f(TRANSFORMER)
        return base

    def teams(self) -> list[list[int]]:
        mode = self.settings.teams
        if mode == "partners":
            return [[0, 2], [1, 3]]
        if mode == "zhuyang" and self.finished():
            holders = {self._taker(PIG), self._taker(SHEEP)}
            return [sorted(holders), sorted(set(range(SEATS)) - holders)]
        return [[s] for s in range(SEATS)]

    def _taker(self, card: int) -> int:
        """The seat that took the first copy of ``card`` (the text: 上一局第一个得到猪牌的一方): with one deck,
        the seat whose taken cards hold it (a trick's cards go to its taker)."""
        return next(s for s in range(SEATS) if card in self.taken[s])

    def greedy_move(self, seat: int, rng: Any) -> Action | None:
        """The greedy player's card when ``seat`` is to play (None otherwise: exposures are talk)."""
        if self.trick.to_play != seat or self.finished():
            return None
        return {"seat": seat, "action": "play", "cards": [NAMES[_greedy_play(self, seat, self.legal_plays(seat))]]}

    def returns(self) -> list[int] | None:
        """Each seat's points (its team's total in team play). Not zero-sum: 拱猪 scores by the cards taken."""
        if not self.finished():
            return None
        return self._returns([self.seat_points(s) for s in range(SEATS)])

    def _returns(self, points: list[int]) -> list[int]:
        out = list(points)
        for team in self.teams():
            total = sum(points[s] for s in team)
            for s in team:
                out[s] = total
        return out

    def next_leader(self, points: list[int] | None = None) -> int:
        """The next hand's leader (``points``: the seats' points, when the caller has them)."""
        if self.settings.next_leader == "pig_taker":
            return self._taker(PIG)
        if points is None:
            points = [self.seat_points(s) for s in range(SEATS)]
        order = [(self.leader + i) % SEATS for i in range(SEATS)]
        return min(order, key=lambda s: points[s])

    # ------------------------------------------------------------------ views
    def _exposure_entries(self) -> list[tuple[int, int, str]]:
        """Every exposure as (seat, card, kind), in the order made."""
        return [(self.exposed_by[card], card, kind) for card, kind in self.exposed.items()]

    def _exposures_public(self) -> list[dict[str, Any]]:
        out = []
        for seat, card, kind in self._exposure_entries():
            if kind == "hidden" and not self.finished():
                out.append({"seat": seat, "kind": "hidden"})
            else:
                out.append({"seat": seat, "card": NAMES[card], "kind": kind})
        return out

    def public_action(self, event: Action) -> Action:
        """A hidden expose (暗卖) keeps its cards face down until the hand is over."""
        if event.get("action") == "expose" and event.get("hidden") and not self.finished():
            return mask_cards(event)
        return dict(event)

    def public_view(self, seat: int | None = None) -> dict[str, Any]:
        view: dict[str, Any] = {
            "game": "gongzhu",
            "to_play": self.current_player(),
            "leader": self.leader,
            "started": self.started,
            "exposed": self._exposures_public(),
            "hand_sizes": [len(h) for h in self.hands],
            "trick": self.trick.to_json() if not self.finished() else None,
            "tricks_done": len(self.tricks),
            "taken": [names(sorted(t)) for t in self.taken],
        }
        if seat is not None:
            view["seat"] = seat
            view["hand"] = names(sorted(self.hands[seat]))
            view["legal"] = self.legal_actions(seat)
        return view

    def verdict(self) -> dict[str, Any]:
        done = self.finished()
        points = [self.seat_points(s) for s in range(SEATS)] if done else None
        return {
            "game": "gongzhu",
            "leader": self.leader,
            "exposed": self._exposures_public(),
            "teams": self.teams(),
            "tricks": [t.to_json() for t in self.tricks],
            "taken": [names(sorted(t)) for t in self.taken],
            "penalties": self.penalties,
            "finished": done,
            "seat_points": points,
            "scores": self._returns(points) if points is not None else None,
            "zero_sum": False,
            "pig_taker": self._taker(PIG) if done else None,
            "next_first_seat": self.next_leader(points) if points is not None else None,
        }


# ---------------------------------------------------------------------- 拱双猪 (decks = 2)
Combo = tuple[int, ...]


def _is_pair(play: Combo) -> bool:
    return len(play) == 2 and play[0] == play[1]


def play_strength(lead: Combo, play: Combo) -> tuple[int, int]:
    """How strong ``play`` is in a trick led by ``lead`` (拱双猪; higher wins, the first of equals keeps it).

    Any card off the led suit makes the play a discard (垫牌, weakest). On a pair lead, in ♥ ♠ ♣ a pair is
    weaker than two other cards of the suit, in ♦ stronger; pairs by rank, two other cards by the higher.

    >>> from engine.tricks import code
    >>> s = lambda lead, play: play_strength(tuple(map(code, lead)), tuple(map(code, play)))
    >>> s(["SA", "SA"], ["S2", "S3"]) > s(["SA", "SA"], ["SA", "SA"])
    True
    >>> s(["D2", "D2"], ["D2", "D2"]) > s(["D2", "D2"], ["DA", "DK"])
    True
    >>> s(["HK", "HK"], ["HA", "H2"]) > s(["HK", "HK"], ["HK", "HQ"])
    True
    """
    led = _suit(lead[0])
    if any(_suit(c) != led for c in play):
        return (0, 0)
    top = max(c % 13 for c in play)
    if len(lead) == 1:
        return (1, top)
    if _is_pair(play):
        return (2 if led == D else 1, top)
    return (1 if led == D else 2, top)


class ShuangzhuState(GongzhuState):
    """One hand of 拱双猪 (``decks = 2``). Hands are per-seat lists of card codes (two copies of each card
    in the game). A play is a tuple of one or two codes, sorted."""

    judge = LoggedState.judge  # plays of one or two cards: the general way

    def __init__(self, hands: list[list[Card]], settings: GongzhuSettings):
        self.exposures: list[tuple[int, int, str]] = []  # (seat, card, "open" | "first" | "hidden")
        self.held: list[dict[int, int]] = [{} for _ in range(SEATS)]  # openly exposed copies still held back
        super().__init__(
            hands, settings
        )  # the lead: the lowest seat holding a copy (no deal order in the record)

    @staticmethod
    def _hand(codes: list[int]) -> Any:
        return list(codes)

    def greedy_move(self, seat: int, rng: Any) -> Action | None:
        """The greedy player's play of one or two cards when ``seat`` is to play."""
        if self.trick.to_play != seat or self.finished():
            return None
        return {"seat": seat, "action": "play", "cards": names(_greedy_combo(self, seat, self.legal_combos(seat)))}

    def _force_exposures(self, cards: tuple[int, ...]) -> None:
        for card in cards:
            for seat in range(SEATS):
                for _ in range(self.hands[seat].count(card)):
                    self._expose(seat, card, "open")

    # ------------------------------------------------------------------ helpers
    def _expose(self, seat: int, card: int, kind: str) -> None:
        self.exposures.append((seat, card, kind))
        if kind == "open":
            self.held[seat][card] = self.held[seat].get(card, 0) + 1

    def _exposed_by_seat(self, seat: int, card: int) -> int:
        return sum(1 for s, c, _ in self.exposures if s == seat and c == card)

    def factor(self, card: int) -> int:
        """Every exposure of either copy counts for both: ×2 per exposure (×4 per 首明)."""
        out = 1
        for _, c, kind in self.exposures:
            if c == card:
                out *= self.settings.shouming_factor if kind == "first" else self.settings.exposed_factor
        return out

    def _taker(self, card: int) -> int:
        """The seat that took the first copy of ``card``: the taker of the first trick that holds one."""
        return next(self.takers[i] for i, t in enumerate(self.tricks) if card in t.cards())

    def _held_back_in(self, seat: int, play: Combo) -> bool:
        """Whether ``play`` needs a copy that ``seat`` openly exposed (the other copy is free)."""
        hand = self.hands[seat]
        return any(play.count(c) > hand.count(c) - self.held[seat].get(c, 0) for c in set(play))

    # ------------------------------------------------------------------ legal plays
    def legal_combos(self, seat: int) -> list[Combo]:
        """The plays ``seat`` may make now, each a sorted tuple of one or two codes."""
        if self.finished() or seat != self.trick.to_play:
            return []
        hand = self.hands[seat]
        counts = Counter(hand)
        distinct = sorted(counts)
        pairs = [(c, c) for c in distinct if counts[c] >= 2]
        if not self.trick.plays:
            if self.must_lead is not None:
                m = self.must_lead
                return [(m,)] + ([(m, m)] if counts[m] >= 2 else [])
            leads = [(c,) for c in distinct] + pairs
            if self.settings.exposed_may_lead:
                return sorted(leads)
            free = [p for p in leads if _suit(p[0]) in self.led_suits or not self._held_back_in(seat, p)]
            return sorted(free or leads)
        lead = self.trick.lead
        led = _suit(lead[0])
        suited = [c for c in distinct if _suit(c) == led]
        n_suited = sum(counts[c] for c in suited)
        if len(lead) == 1:
            options: list[Combo] = [(c,) for c in suited] or [(c,) for c in distinct]
        elif any(counts[c] >= 2 for c in suited):
            options = [(c, c) for c in suited if counts[c] >= 2]
        elif n_suited >= 2:
            options = list(combinations(suited, 2))
        elif n_suited == 1:
            options = [tuple(sorted((suited[0], c))) for c in distinct if c != suited[0]]
        else:
            options = list(combinations(distinct, 2)) + pairs
        if self.first_round:
            options = [p for p in options if not self._held_back_in(seat, p)] or options
        return sorted(options)

    def legal_plays(self, seat: int) -> list[int]:  # type: ignore[override]
        """The single cards ``seat`` may play now (see :meth:`legal_combos` for pairs)."""
        return [p[0] for p in self.legal_combos(seat) if len(p) == 1]

    def expose_options(self, seat: int) -> list[int]:
        if self.started or self.settings.exposure in ("none", "all"):
            return []
        return [
            c
            for c in EXPOSABLE
            if self.hands[seat].count(c) > self._exposed_by_seat(seat, c)
            and not (c == SHEEP and self.settings.exposure == "all_but_sheep")
        ]

    def legal_actions(self, seat: int) -> list[Action]:
        out: list[Action] = [
            {"seat": seat, "action": "play", "cards": names(p)} for p in self.legal_combos(seat)
        ]
        for c in self.expose_options(seat):
            copies = [[NAMES[c]]]
            if self.hands[seat].count(c) - self._exposed_by_seat(seat, c) == 2:
                copies.append([NAMES[c], NAMES[c]])
            for cards in copies:
                out.append({"seat": seat, "action": "expose", "cards": cards})
                if self.settings.anmai:
                    out.append({"seat": seat, "action": "expose", "cards": cards, "hidden": True})
        return out

    # ------------------------------------------------------------------ judging
    def _judge_expose(self, seat: int, action: Action) -> list[Violation]:
        request = self._expose_request(action)
        if isinstance(request, Violation):
            return [request]
        cards, hidden = request
        hand = self.hands[seat]
        for c in cards:
            if c not in hand:
                return [
                    violation(
                        "not_in_hand",
                        f"{NAMES[c]} is not in seat {seat}'s hand",
                        f"{NAMES[c]} 不在该玩家手中",
                        code="not_in_hand",
                        seat=seat,
                        cards=[NAMES[c]],
                    )
                ]
            if c not in EXPOSABLE:
                return [
                    violation(
                        "expose",
                        f"{NAMES[c]} cannot be exposed (only SQ, HA, DJ, C10)",
                        f"{NAMES[c]} 不能亮（只能亮黑桃Q、红桃A、方块J、梅花10）",
                    )
                ]
            if cards.count(c) > hand.count(c):
                return [
                    violation(
                        "not_in_hand",
                        f"seat {seat} holds {hand.count(c)} {NAMES[c]}, not {cards.count(c)}",
                        f"该玩家只有 {hand.count(c)} 张 {NAMES[c]}",
                        code="holds_fewer",
                        seat=seat,
                        card=NAMES[c],
                        held=hand.count(c),
                    )
                ]
            if self._exposed_by_seat(seat, c) + cards.count(c) > hand.count(c):
                return [
                    violation(
                        "expose",
                        f"seat {seat}'s {NAMES[c]} is already exposed",
                        f"该玩家的 {NAMES[c]} 已经亮过",
                        code="already_exposed",
                        seat=seat,
                        card=NAMES[c],
                    )
                ]
            if c == SHEEP and self.settings.exposure == "all_but_sheep":
                return [
                    violation(
                        "expose_forbidden", "除羊全亮: the sheep DJ must not be exposed", "除羊全亮：羊不得亮"
                    )
                ]
        for c in cards:
            first = (
                self.settings.shouming
                and not hidden
                and self.dealt[seat][0] == c
                and not any(s == seat and x == c and k == "first" for s, x, k in self.exposures)
            )
            self._expose(seat, c, "hidden" if hidden else "first" if first else "open")
        # 逼明 (force_last) is a one-deck rule ("在1副牌游戏中"): it does nothing here.
        return []

    def _judge_play(self, seat: int, action: Action) -> list[Violation]:
        cards = self._turn_cards(seat, action)
        if isinstance(cards, Violation):
            return [cards]
        if len(cards) not in (1, 2):
            return [
                violation("malformed", "拱双猪 plays one card or two at a time", "拱双猪每次出一张或两张牌")
            ]
        hand = self.hands[seat]
        for c in set(cards):
            if cards.count(c) > hand.count(c):
                held = hand.count(c)
                return [
                    violation(
                        "not_in_hand",
                        f"{NAMES[c]} is not in seat {seat}'s hand"
                        if not held
                        else f"seat {seat} holds only one {NAMES[c]}",
                        f"{NAMES[c]} 不在该玩家手中" if not held else f"该玩家只有一张 {NAMES[c]}",
                        **(
                            {"code": "holds_fewer", "card": NAMES[c], "held": held}
                            if held
                            else {"code": "not_in_hand", "cards": [NAMES[c]]}
                        ),
                        seat=seat,
                    )
                ]
        play = tuple(sorted(cards))
        if play not in self.legal_combos(seat):
            return [self._why_illegal_combo(seat, play)]
        self._play_combo(seat, play)
        return []

    def _why_illegal_combo(self, seat: int, play: Combo) -> Violation:
        trick = self.trick
        if not trick.plays:
            if self.must_lead is not None:
                m = NAMES[self.must_lead]
                return violation(
                    "first_lead",
                    f"the first trick is led with {m} (or the pair {m} {m})",
                    f"第一轮必须先出 {m}（或一对 {m}）",
                )
            if len(play) == 2 and not _is_pair(play):
                return violation(
                    "lead_pair",
                    "lead one card or a pair (two identical cards)",
                    "首家只能出一张牌或一对（两张相同的牌）",
                )
        else:
            lead = trick.lead
            led = _suit(lead[0])
            suit_zh = "黑桃红桃方块梅花"[2 * led : 2 * led + 2]
            if len(play) != len(lead):
                return violation(
                    "follow_count",
                    f"the lead is {len(lead)} card(s): play {len(lead)}",
                    f"首家出了 {len(lead)} 张：必须跟 {len(lead)} 张",
                )
            holding = sum(1 for c in self.hands[seat] if _suit(c) == led)
            if sum(1 for c in play if _suit(c) == led) < min(len(lead), holding):
                return violation(
                    "follow_suit",
                    f"follow suit: seat {seat} holds {'SHDC'[led]}",
                    f"有{suit_zh}必须跟出",
                    code="follow_suit",
                    seat=seat,
                    suit="SHDC"[led],
                )
            counts = Counter(c for c in self.hands[seat] if _suit(c) == led)
            if len(lead) == 2 and any(k >= 2 for k in counts.values()) and not _is_pair(play):
                return violation(
                    "follow_pair",
                    f"a pair was led and seat {seat} holds a pair of {'SHDC'[led]}: give a pair",
                    f"首家出对，有{suit_zh}对牌必须给对牌",
                    code="follow_pair",
                    seat=seat,
                    suit="SHDC"[led],
                )
        names_ = " ".join(NAMES[c] for c in play)
        return violation(
            "exposed_first_round",
            f"the exposed {names_} may not be played on the first round of its suit",
            f"亮过的 {names_} 不得在该花色首轮打出",
        )

    def _play_combo(self, seat: int, play: Combo) -> None:
        self.started = True
        trick = self.trick
        if not trick.plays:
            self.must_lead = None
            led = _suit(play[0])
            self.first_round = led not in self.led_suits
            self.led_suits.add(led)
        led = _suit(trick.lead[0]) if trick.plays else _suit(play[0])
        hand = self.hands[seat]
        for c in set(play):  # which copies go: the unexposed first where the exposed one is held back
            k, held = play.count(c), self.held[seat].get(c, 0)
            if held:
                restricted = self.first_round and _suit(c) == led
                used = max(0, k - (hand.count(c) - held)) if restricted else min(k, held)
                self.held[seat][c] = held - used
        for c in play:
            hand.remove(c)
        lead = trick.lead if trick.plays else play
        trick.add(seat, play, lambda new, best: play_strength(lead, new) > play_strength(lead, best))
        if trick.done:
            self._close(trick)

    # ------------------------------------------------------------------ scoring
    def seat_points(self, seat: int) -> int:
        """One seat's score (the digest's 拱双猪 scoring): per copy, a card's value × its exposure factor
        (exposures of either copy count for both); each transformer taken multiplies by
        ``transformer_factor``, once more by its exposure factor."""
        s = self.settings
        taken = self.taken[seat]
        values = self.values
        if s.swap_pig_sheep and any(sum(1 for c in t if 13 <= c < 26) == 26 for t in self.taken):
            values = list(values)
            values[PIG], values[SHEEP] = values[SHEEP], values[PIG]
        hf = self.factor(HEART_A)
        heart_cards = [c for c in taken if 13 <= c < 26]
        pigs, sheep, transformers = taken.count(PIG), taken.count(SHEEP), taken.count(TRANSFORMER)
        all_hearts = len(heart_cards) == 26
        if all_hearts and pigs == 2 and sheep == 2 and transformers == 2:
            if not self.exposures and s.grand_slam_unexposed is not None:
                return s.grand_slam_unexposed * 2
            total = (
                sum(abs(values[c]) for c in heart_cards) * hf
                + 2 * abs(values[PIG]) * self.factor(PIG)
                + 2 * abs(values[SHEEP]) * self.factor(SHEEP)
            )
            return total * s.transformer_factor**2 * self.factor(TRANSFORMER)
        hearts = sum(values[c] for c in heart_cards) * hf
        if all_hearts:
            hearts = 2 * s.all_hearts_value * hf if s.all_hearts == "fixed" else -hearts
        base = hearts + pigs * values[PIG] * self.factor(PIG) + sheep * values[SHEEP] * self.factor(SHEEP)
        if transformers:
            if not any(values[c] for c in taken):
                return transformers * s.transformer_alone * self.factor(TRANSFORMER)
            return base * s.transformer_factor**transformers * self.factor(TRANSFORMER)
        return base

    def _exposure_entries(self) -> list[tuple[int, int, str]]:
        return self.exposures


# ---------------------------------------------------------------------- bots
def _greedy_play(state: GongzhuState, seat: int, options: list[int]) -> int:
    """Duck under the trick when possible; when void, discard the worst card (pig, then high hearts)."""
    trick = state.trick
    if not trick.plays:
        counts = [0, 0, 0, 0]
        for c in state.hands[seat]:
            counts[_suit(c)] += 1
        return min(options, key=lambda c: (-counts[_suit(c)], c % 13))
    led = _suit(trick.lead[0])
    if _suit(options[0]) != led:
        return min(options, key=lambda c: (state.values[c] if c != SHEEP else 99, -(c % 13)))
    best = trick.plays[trick.best][1][0]
    under = [c for c in options if c < best]
    return max(under) if under else max(options)


def _greedy_combo(state: ShuangzhuState, seat: int, options: list[Combo]) -> Combo:
    """拱双猪's greedy bot: lead a low pair or a low card of a long suit; follow under the best play when
    possible, discarding the worst cards (pigs, then high hearts)."""
    trick = state.trick
    if not trick.plays:
        counts = [0, 0, 0, 0]
        for c in state.hands[seat]:
            counts[_suit(c)] += 1
        low_pairs = [p for p in options if len(p) == 2 and p[0] % 13 < 6]
        return min(low_pairs or options, key=lambda p: (-counts[_suit(p[0])], p[0] % 13, -len(p)))
    lead = trick.lead
    led = _suit(lead[0])
    best = trick.plays[trick.best][1]

    def riddance(p: Combo) -> int:
        return sum(-state.values[c] if c != SHEEP else -99 for c in p if _suit(c) != led)

    top = play_strength(lead, best)
    under = [p for p in options if play_strength(lead, p) <= top]
    if under:  # the strongest play that still loses, shedding the worst cards
        return max(under, key=lambda p: (riddance(p), play_strength(lead, p)))
    return min(
        options, key=lambda p: (-riddance(p), play_strength(lead, p))
    )  # must win: as cheaply as can be


def play_bot_hand(
    game: GongzhuGame, rng: random.Random, bot: str, settings: GongzhuSettings
) -> dict[str, Any]:
    plan = game.deal_plan(settings)
    deck = shuffled_deck(plan.deck.names(), rng)
    ends = [sum(plan.cards_per_seat[:i]) for i in range(SEATS + 1)]
    hands_txt = [deck[ends[i] : ends[i + 1]] for i in range(SEATS)]
    # 拱双猪's checks read Cards; one deck's state takes the names as they are
    hands = [parse_cards(h) for h in hands_txt] if settings.decks == 2 else hands_txt
    state = game.new_state(hands, [], settings)  # type: ignore[arg-type]
    events: list[Action] = []
    for seat in range(SEATS):
        for c in state.expose_options(seat):
            # 强制亮 may expose a card by itself after another's expose: ask again, not from the list
            if rng.random() < 0.25 and c in state.expose_options(seat):
                hidden = settings.anmai and rng.random() < 0.5
                ev: Action = {"seat": seat, "action": "expose", "cards": [NAMES[c]]}
                if hidden:
                    ev["hidden"] = True
                state.apply(ev)
                events.append(ev)
    two_decks = isinstance(state, ShuangzhuState)
    # one deck: a play is one card, so the hand is over after as many plays as cards dealt (finished())
    # an exact random.Random: rng.choice's draws inline (``_randbelow_with_getrandbits`` of CPython 3.11)
    bits = rng.getrandbits if bot == "random" and type(rng) is random.Random else None
    for _ in range(sum(map(len, state.hands))) if not two_decks else iter(state.finished, True):
        trick = state.trick
        seat = (trick.leader + len(trick.plays)) % SEATS  # trick.to_play, without the property
        if two_decks:
            combos = state.legal_combos(seat)
            combo = rng.choice(combos) if bot == "random" else _greedy_combo(state, seat, combos)
            ev = {"seat": seat, "action": "play", "cards": names(combo)}
        else:
            options = state.legal_plays(seat)
            if bits is not None:
                n = len(options)  # (never 0: the seat to play holds a card)
                k = n.bit_length()
                i = bits(k)
                while i >= n:
                    i = bits(k)
                card = options[i]
            else:
                card = rng.choice(options) if bot == "random" else _greedy_play(state, seat, options)
            ev = {"seat": seat, "action": "play", "cards": [NAMES[card]]}
        found = state.judge(ev)  # every bot action goes through the referee (拱猪 has no warnings: all errors)
        if found:
            raise IllegalAction(found[0])
        events.append(ev)
    return game.bot_record(state, settings, hands_txt, [], events)


# (frozen: made once, not for every hand)
ONE_DECK_PLAN = DealPlan(seats=SEATS, cards_per_seat=(13,) * SEATS, bottom=0, deck=DECKS["gongzhu"])
TWO_DECK_PLAN = DealPlan(seats=SEATS, cards_per_seat=(26,) * SEATS, bottom=0, deck=TWO_DECKS)


class GongzhuGame(Game):
    """拱猪. Presets: ``gonglue`` (default: the text's first rule set), ``partners`` (对家配合),
    ``zhuyang`` (猪羊一家), ``quanliang`` (除羊全亮), ``computer`` (the text's computer-game rules).
    The setting ``decks = 2`` (any preset but ``zhuyang``) plays 拱双猪: see :class:`ShuangzhuState`."""

    name = "gongzhu"
    info = GameInfo("拱猪", "Gong zhu", trick_taking=True, declares_before_play=True, zero_sum=False,
                    actions=(("expose", ("cards",)), ("play", ("cards",))))
    settings_type = GongzhuSettings
    presets = PRESETS
    default_preset = "gonglue"

    def deal_plan(self, settings: Any) -> DealPlan:
        if settings is not None and getattr(settings, "decks", 1) == 2:  # 拱双猪: 104 cards, 26 a seat
            return TWO_DECK_PLAN
        return ONE_DECK_PLAN

    def new_state(
        self,
        hands: list[list[Card]],
        bottom: list[Card],
        settings: Any,
        *,
        first_seat: int | None = None,
        dealer: int | None = None,
    ) -> GongzhuState:
        from engine.record import RecordError

        settings = settings or self.settings()
        if settings.decks == 2:
            if len(hands) != SEATS or any(len(h) != 26 for h in hands) or bottom:
                raise RecordError(
                    "拱双猪 (decks = 2) deals 26 cards to each of 4 seats and no bottom: "
                    f"got {[len(h) for h in hands]} and {len(bottom)} bottom cards"
                )
            copies = Counter(str(c) for h in hands for c in h)
            if any(str(c) not in CODES or c.is_joker or copies[str(c)] > 2 for h in hands for c in h):
                raise RecordError(
                    "拱双猪 (decks = 2) plays two decks without jokers: each card at most twice"
                )
            return ShuangzhuState(hands, settings)
        if len(hands) != SEATS or any(len(h) != 13 for h in hands) or bottom:
            raise RecordError(
                "拱猪 deals 13 cards to each of 4 seats and no bottom: "
                f"got {[len(h) for h in hands]} and {len(bottom)} bottom cards"
            )
        return GongzhuState(hands, settings)

    def suit_of(self, card: str, view: dict[str, Any]) -> str | None:
        return card[0]

    def first_play(
        self, hands: Sequence[Sequence[Any]], bottom: Sequence[Any], *, dealer: int = 0
    ) -> FirstPlay:
        """The holder of ♣2 leads the first trick."""
        seat = holder(hands, "C2")
        if seat is None:
            raise ValueError("no seat holds C2: the deal is not a whole gongzhu deck")
        return FirstPlay(seat, "C2", "holder")

    def bot_hand(
        self, rng: random.Random, *, bot: str = "greedy", settings: Any = None, first_seat: int = 0
    ) -> dict[str, Any]:
        """A whole hand by bots (``random`` or ``greedy``), exposing now and then; the first hand of a
        match (♣2 leads) unless ``settings.leader`` names the leader. ``first_seat`` is not used: the
        deal order does not matter in 拱猪."""
        return play_bot_hand(self, rng, bot, settings or self.settings())


def match_standing(totals: list[int], limit: int | None = None, double_pig: bool = False) -> dict[str, Any]:
    """The match after cumulative ``totals``: over once a seat passes ``limit`` (below it: 当猪; default
    the preset's ``match_limit``, −1000); the highest total wins. With ``double_pig`` (双猪) the highest
    and the lowest are both 当猪 (``pigs``)."""
    limit = PRESETS["gonglue"].match_limit if limit is None else limit
    losers = [s for s, t in enumerate(totals) if t < limit]
    if not losers:
        return {"over": False, "pig": None, "pigs": [], "winner": None}
    pig = min(losers, key=lambda s: totals[s])
    top = max(range(len(totals)), key=lambda s: totals[s])
    return {"over": True, "pig": pig, "pigs": sorted({pig, top}) if double_pig else [pig], "winner": top}
