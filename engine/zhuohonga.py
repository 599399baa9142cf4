"""捉红A (``zhuohonga``): the red-ace holders against the rest; rules digest in ``docs/rules/zhuohonga.md``.

>>> import random
>>> game = ZhuohongaGame()
>>> record = game.bot_hand(random.Random(1))
>>> record["game"], sorted(len(h) for h in record["hands"])
('zhuohonga', [13, 13, 14, 14])
>>> sum(record["verdict"]["scores"])
0

Aces are played face down: until the hand is over (or a 宣红A succeeded) the public view shows a
played ace as ``?A`` — rank known, suit hidden. The referee sees the real cards of the record.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from engine.cards import CLIMBING_JOKERS, DECKS, Card
from engine.climbing import (
    CODE,
    BotTable,
    ClimbingRules,
    Hand,
    TrickPlay,
    card_names,
    choose,
    parse_play_cards,
    random_play,
    shuffle,
)
from engine.game import (
    HIDDEN,
    Action,
    DealPlan,
    DealtRule,
    FirstPlay,
    Game,
    GameInfo,
    News,
    State,
    Violation,
    holder,
    violation,
)

H4 = "H4"
RED_ACES = ("HA", "DA")
ACES = ("SA", "HA", "CA", "DA")
RULES = ClimbingRules(CLIMBING_JOKERS, run_top=0, min_runs=(0, 0, 0), bombs=False, joker_pair=True)
TITLES = ("da_gong", "er_gong", "san_gong", "mo_gong")  # 大贡 二贡 三贡 末贡


@dataclass(frozen=True)
class ZhuohongaSettings:
    """Every rule tables disagree on, with the source's reading as default (see ``docs/rules/zhuohonga.md``)."""

    extra_cards: Literal["first_two", "last_two"] = "first_two"  # who of the deal order gets 14 cards
    tian_xuan: bool = False  # 天宣 room: a red ace among a seat's first three cards declares itself
    you_xuan_bi_gen: bool = False  # 有宣必跟 room: a 宣红A needs no consent
    fan_xuan: bool = True  # 反宣 allowed
    aces_face_down: bool = True  # aces are played face down until the end (or a successful 宣)
    first_lead_h4: bool = False  # the first play must contain ♥4 (not only be made by its holder)
    base: int = 1  # points are multiplied by this

    def __post_init__(self) -> None:
        if not isinstance(self.base, int) or self.base < 1:
            raise ValueError("setting base must be a whole number ≥ 1")


PRESETS = {
    "hebei": ZhuohongaSettings(),
    "hebei-tianxuan": ZhuohongaSettings(tian_xuan=True),
    "hebei-youxuanbigen": ZhuohongaSettings(you_xuan_bi_gen=True),
}


def hidden(card: str) -> str:
    """A card as the table sees it while aces are face down."""
    return "?A" if card.endswith("A") else card


class ZhuohongaState(State):
    def __init__(
        self,
        hands: list[list[Card]] | list[list[str]],
        bottom: list[Card] | list[str],
        settings: ZhuohongaSettings,
    ):
        self.s = settings
        self.n = len(hands)
        self.dealt = hands = [card_names(h) for h in hands]
        self.hands = [Hand(RULES, h) for h in hands]
        self.ace_holder = {ace: next((i for i, h in enumerate(self.hands) if h.mask >> CODE[ace] & 1), None)
                           for ace in RED_ACES}
        self.red = sorted({s for s in self.ace_holder.values() if s is not None})
        self.others = [i for i in range(self.n) if i not in self.red]
        self.h4 = next((i for i, h in enumerate(self.hands) if h.mask >> CODE[H4] & 1), 0)
        self.trick = TrickPlay(RULES, self.hands, self.h4)
        self.started = False
        self.xuan: str | None = None  # None, "pending", "xuan", "du_xuan", "refused"
        self.xuan_by: int | None = None
        self.tian = False
        self.fan: set[int] = set()
        self.history: list[Action] = []
        self.over = False
        if settings.tian_xuan:
            early = [i for i, h in enumerate(hands) if any(a in h[:3] for a in RED_ACES)]
            if early:
                self.tian = True
                self.xuan_by = early[0]
                self.xuan = "du_xuan" if len(self.red) == 1 else "xuan"
        self._settle()

    def _settle(self) -> None:
        """Keep ``quick`` (judge's quick path may apply: the hand not over, no 宣红A awaiting its answer) with
        ``over`` and ``xuan``: one flag to test for every action, not two."""
        self.quick = not self.over and self.xuan != "pending"

    # ------------------------------------------------------------------ sides and declarations
    @property
    def xuan_ok(self) -> bool:
        return self.xuan in ("xuan", "du_xuan")

    @property
    def fan_ok(self) -> bool:
        return self.xuan_ok and bool(self.others) and self.fan >= set(self.others)

    def _partner_of(self, seat: int) -> int | None:
        return next((s for s in self.red if s != seat), None)

    def current_player(self) -> int | None:
        if self.over:
            return None
        if self.xuan == "pending":
            return self._partner_of(self.xuan_by)  # type: ignore[arg-type]
        return self.trick.turn

    def legal_actions(self, seat: int) -> list[Action]:
        if self.over:
            return []
        out: list[Action] = []
        if self.xuan == "pending":
            if seat == self.current_player():
                out += [{"seat": seat, "action": "xuan_consent"}, {"seat": seat, "action": "xuan_refuse"}]
            return out
        if not self.started:
            if self.xuan is None and seat in self.red:
                out.append({"seat": seat, "action": "xuan"})
            if self.s.fan_xuan and self.xuan_ok and seat in self.others and seat not in self.fan:
                out.append({"seat": seat, "action": "fan_xuan"})
        if seat == self.trick.turn:
            hand = self.hands[seat]
            plays = [hand.pick(c) for c in self.trick.options(seat)]
            if self._must_show_h4():
                plays = [p if H4 in p else p[:-1] + [H4] for p in plays if RULES.rank_of[p[0]] == 0]  # plays of 4s
            out += [{"seat": seat, "action": "play", "cards": p} for p in plays]
            if self.trick.beat is not None:
                out.append({"seat": seat, "action": "pass"})
        return out

    def _shows_h4(self, cards: list[str]) -> bool:
        """Whether a play of ``cards`` by the seat to act may be the first play (♥4 shown if it must be)."""
        return H4 in cards or not self._must_show_h4()

    def _must_show_h4(self) -> bool:
        return not self.started and self.s.first_lead_h4 and H4 in self.hands[self.trick.turn]

    # ------------------------------------------------------------------ the referee
    def judge(self, action: Action, own: bool = False) -> list[Violation]:
        """Referee one action: a plainly legal play or pass by the seat to act here, anything else by
        :meth:`_judge` (the same verdicts and state, tested). ``own``: the caller gives the action up (the
        random bot's events): a plain play or pass is logged as it is, not copied."""
        trick = self.trick
        try:  # (subscripts: cheaper than two get() calls; an event without them goes the general way)
            seat, kind = action["seat"], action["action"]
        except (KeyError, TypeError):
            return self._judge(action)
        if self.quick and seat.__class__ is int and seat == trick.turn:
            # the common cases first: a plainly legal play or pass (else the general way says why)
            if kind == "pass" and trick.fast_pass(seat):
                self.history.append(action if own else {**action})
                return []
            event = trick.fast_move(seat, action, None if self.started else self._shows_h4, own)
            if event is not None:  # a play (passes are done above)
                self.started = True
                out = trick.out
                if out and out[-1] == seat:
                    self.over = self._decided()
                    self._settle()
                self.history.append(event)
                return []
        return self._judge(action)

    def _judge(self, action: Action) -> list[Violation]:
        """The general way: every action, and every fault said."""
        seat, kind = action.get("seat"), action.get("action")
        if self.over:
            return [violation("finished", "the hand is over", "本局已结束")]
        if not isinstance(seat, int) or not 0 <= seat < self.n:
            return [violation("turn", f"no seat {seat!r}", f"没有座位 {seat!r}")]
        handler = _HANDLERS.get(kind)  # type: ignore[arg-type]
        if handler is None:
            return [violation("phase", f"unknown action {kind!r}", f"未知动作 {kind!r}")]
        if self.xuan == "pending" and kind not in ("xuan_consent", "xuan_refuse"):
            due = self.current_player()
            return [
                violation(
                    "turn",
                    f"seat {due} must first answer the 宣红A",
                    f"须先由{due}号位回应宣红A",
                    code="xuan_answer_due",
                    seat=due,
                )
            ]
        return handler(self, seat, action)

    def _log(self, action: Action) -> list[Violation]:
        self.history.append(dict(action))
        return []

    def _xuan(self, seat: int, action: Action) -> list[Violation]:
        if self.started:
            return [violation("phase", "宣红A only before the first play", "宣红A只能在首次出牌之前")]
        if seat not in self.red:
            return [
                violation(
                    "xuan",
                    f"seat {seat} holds no red ace",
                    f"{seat}号位没有红A",
                    code="xuan_no_red_ace",
                    seat=seat,
                )
            ]
        if self.xuan is not None:
            return [violation("xuan", "宣红A was already declared this hand", "本局已宣过红A")]
        self.xuan_by = seat
        if len(self.red) == 1:
            self.xuan = "du_xuan"
        elif self.s.you_xuan_bi_gen:
            self.xuan = "xuan"
        else:
            self.xuan = "pending"
        self._settle()
        return self._log(action)

    def _answer(self, seat: int, action: Action) -> list[Violation]:
        if self.xuan != "pending":
            return [violation("xuan", "no 宣红A is waiting for an answer", "没有待回应的宣红A")]
        if seat != self.current_player():
            due = self.current_player()
            return [
                violation(
                    "xuan",
                    f"only seat {due}, the other red ace, answers the 宣红A",
                    f"只有持另一张红A的{due}号位可回应宣红A",
                    code="xuan_answer_only",
                    seat=due,
                )
            ]
        self.xuan = "xuan" if action["action"] == "xuan_consent" else "refused"
        self._settle()
        return self._log(action)

    def _fan_xuan(self, seat: int, action: Action) -> list[Violation]:
        if self.started:
            return [violation("phase", "反宣 only before the first play", "反宣只能在首次出牌之前")]
        if not self.s.fan_xuan:
            return [violation("fan_xuan", "反宣 is not played at this table", "本桌不玩反宣")]
        if not self.xuan_ok:
            return [violation("fan_xuan", "反宣 answers a successful 宣红A", "反宣须在宣红A成功之后")]
        if seat not in self.others:
            return [
                violation(
                    "fan_xuan",
                    f"seat {seat} is on the red-ace side",
                    f"{seat}号位是红A一方",
                    code="fan_xuan_red",
                    seat=seat,
                )
            ]
        if seat in self.fan:
            return [
                violation(
                    "fan_xuan",
                    f"seat {seat} already declared 反宣",
                    f"{seat}号位已反宣",
                    code="fan_xuan_again",
                    seat=seat,
                )
            ]
        self.fan.add(seat)
        return self._log(action)

    def _play(self, seat: int, action: Action) -> list[Violation]:
        if seat != self.trick.turn:
            return [
                violation(
                    "turn",
                    f"not seat {seat}'s turn (seat {self.trick.turn} is to act)",
                    f"还没轮到{seat}号位 (应{self.trick.turn}号位)",
                    code="not_your_turn",
                    seat=seat,
                    due=self.trick.turn,
                )
            ]
        cards = parse_play_cards(action)
        if cards and isinstance(cards[0], Violation):
            return cards  # type: ignore[return-value]
        combo, v = self.trick.check_play(seat, cards)  # type: ignore[arg-type]
        if combo is None:
            return v
        if self._must_show_h4() and H4 not in cards:
            return [violation("lead", "the first play must contain ♥4", "首次出牌必须包含红桃4")]
        self.trick.play(seat, cards, combo)  # type: ignore[arg-type]
        self.started = True
        self.over = bool(self.trick.out) and self.trick.out[-1] == seat and self._decided()
        self._settle()
        self.history.append({**action, "cards": cards})  # a new dict already: no second copy
        return []

    def _pass(self, seat: int, action: Action) -> list[Violation]:
        if seat != self.trick.turn:
            return [
                violation(
                    "turn",
                    f"not seat {seat}'s turn (seat {self.trick.turn} is to act)",
                    f"还没轮到{seat}号位 (应{self.trick.turn}号位)",
                    code="not_your_turn",
                    seat=seat,
                    due=self.trick.turn,
                )
            ]
        if v := self.trick.check_pass():
            return v
        self.trick.pass_(seat)
        return self._log(action)

    def _decided(self) -> bool:
        out = self.trick.out
        if not out:
            return False
        if self.xuan == "du_xuan":
            return True  # 独宣: decided by who takes 大贡
        return all(s in out for s in self.red) or all(s in out for s in self.others)

    # ------------------------------------------------------------------ results
    def is_terminal(self) -> bool:
        return self.over

    def multiplier(self) -> int:
        return (2 if self.xuan_ok else 1) * (2 if self.fan_ok else 1)

    def ranking(self) -> list[int]:
        """Every seat by finishing place: those out in order, then those still holding cards, fewer
        cards first, ties in play order from the last seat out."""
        out = list(self.trick.out)
        start = out[-1] if out else self.h4
        rest = [(start + k) % self.n for k in range(1, self.n + 1)]
        rest = [s for s in rest if s not in out]
        return out + sorted(rest, key=lambda s: len(self.hands[s]))

    def outcome(self, ranking: list[int] | None = None) -> tuple[str, list[int]] | None:
        """``(outcome, winners)`` once the hand is over (``ranking``: :meth:`ranking`, if known)."""
        if not self.over:
            return None
        place = {s: i for i, s in enumerate(ranking or self.ranking())}
        first = self.trick.out[0]
        if len(self.red) == 1:
            loner = self.red[0]
            if first == loner:
                return "shi_ling", [loner]
            if self.xuan == "du_xuan" or place[loner] == self.n - 1:
                return "lost_alone", list(self.others)
            return "draw", []
        if len(self.red) == 2 and len(self.others) == 2:
            side = self.red if first in self.red else self.others
            mate = next(s for s in side if s != first)
            if place[mate] <= 2 and mate in self.trick.out:
                return "wu_ling", list(side)
            return "draw", []
        return "draw", []  # no red ace dealt (not a full deal): nothing to play for

    def greedy_move(self, seat: int, rng: Any) -> Action | None:
        """The greedy climbing play (or pass) when ``seat`` is to play; None when ♥4 must be shown first."""
        trick = self.trick
        if trick is None or trick.turn != seat or self._must_show_h4():
            return None
        combo = choose(RULES, trick.options(seat), trick.beat, rng, "greedy")
        if combo is None:
            return {"seat": seat, "action": "pass"}
        return {"seat": seat, "action": "play", "cards": self.hands[seat].pick(combo)}

    def returns(self) -> list[int] | None:
        return self._scores(self.outcome())

    def _scores(self, result: tuple[str, list[int]] | None) -> list[int] | None:
        """:meth:`returns` of the hand whose :meth:`outcome` is ``result``."""
        if result is None:
            return None
        name, winners = result
        unit = 5 * self.multiplier() * self.s.base
        scores = [0] * self.n
        if name in ("shi_ling", "lost_alone"):
            loner = self.red[0]
            sign = 1 if name == "shi_ling" else -1
            for s in range(self.n):
                scores[s] = sign * unit * len(self.others) if s == loner else -sign * unit
        elif name == "wu_ling":
            scores = [unit if s in winners else -unit for s in range(self.n)]
        return scores

    def verdict(self) -> dict[str, Any]:
        ranking = self.ranking() if self.over else None
        result = self.outcome(ranking)
        scores = self._scores(result)
        return {
            "game": "zhuohonga",
            "red_aces": {str(a): s for a, s in self.ace_holder.items()},
            "teams": [list(self.red), list(self.others)],
            "h4_holder": self.h4,
            "xuan": self.xuan,
            "xuan_by": self.xuan_by,
            "tian_xuan": self.tian,
            "fan_xuan": self.fan_ok,
            "fan_xuan_by": sorted(self.fan),
            "multiplier": self.multiplier(),
            "leader": self.h4 if self.started else None,
            "finishing_order": list(self.trick.out),
            "titles": dict(zip(TITLES, ranking, strict=True)) if ranking and self.n == 4 else None,
            "outcome": result[0] if result else None,
            "finished": self.over,
            "first_out": self.trick.out[0] if self.over else None,
            "winners": result[1] if result else None,
            "scores": scores,
            "next_first_seat": ranking[-1] if ranking else None,  # 末贡 is dealt first next hand
        }

    def aces_shown(self) -> bool:
        return self.over or self.xuan_ok or not self.s.aces_face_down

    def public_action(self, event: Action) -> Action:
        """A played ace stays face down until the hand is over (or a 宣红A stood)."""
        out = dict(event)
        if event.get("action") == "play" and isinstance(event.get("cards"), list) and not self.aces_shown():
            out["cards"] = [c if hidden(c) == c else HIDDEN for c in event["cards"]]
        return out

    def applied_events(self) -> list[Action]:
        return list(self.history)

    def seat_dealt(self, seat: int) -> list[str]:
        return list(self.dealt[seat])

    def public_view(self, seat: int | None = None) -> dict[str, Any]:
        reveal = self.aces_shown()
        show = str if reveal else hidden
        history = []
        for a in self.history:
            a = dict(a)
            if "cards" in a:
                a["cards"] = [show(c) for c in a["cards"]]
            history.append(a)
        view: dict[str, Any] = {
            "game": "zhuohonga",
            "to_act": self.current_player(),
            "started": self.started,
            "counts": [len(h) for h in self.hands],
            "h4_holder": self.h4,
            "xuan": self.xuan,
            "xuan_by": self.xuan_by,
            "fan_xuan_by": sorted(self.fan),
            "multiplier": self.multiplier(),
            "history": history,
            "trick": self.trick.public(show),
            "red_side": list(self.red) if (self.over or self.xuan_ok) else None,
        }
        if seat is not None:
            view["seat"] = seat
            view["hand"] = self.hands[seat].cards()
        if self.over:
            view["verdict"] = self.verdict()
        return view


_HANDLERS = {
    "xuan": ZhuohongaState._xuan,
    "xuan_consent": ZhuohongaState._answer,
    "xuan_refuse": ZhuohongaState._answer,
    "fan_xuan": ZhuohongaState._fan_xuan,
    "play": ZhuohongaState._play,
    "pass": ZhuohongaState._pass,
}


# the two deals (frozen: made once, not for every hand and every record)
_FIRST_TWO_PLAN = DealPlan(seats=4, cards_per_seat=(14, 14, 13, 13), bottom=0, deck=DECKS["zhuohonga"])
_LAST_TWO_PLAN = DealPlan(seats=4, cards_per_seat=(13, 13, 14, 14), bottom=0, deck=DECKS["zhuohonga"])


class ZhuohongaGame(Game):
    name = "zhuohonga"
    info = GameInfo("捉红A", "Catch the red aces", declares_before_play=True, passes=True,
                    actions=(("xuan", ()), ("xuan_consent", ()), ("xuan_refuse", ()), ("fan_xuan", ()),
                             ("play", ("cards",)), ("pass", ())))
    settings_type = ZhuohongaSettings
    presets = PRESETS
    default_preset = "hebei"

    def deal_plan(self, settings: ZhuohongaSettings) -> DealPlan:
        return _FIRST_TWO_PLAN if settings.extra_cards == "first_two" else _LAST_TWO_PLAN

    def new_state(
        self,
        hands: list[list[Card]] | list[list[str]],
        bottom: list[Card] | list[str],
        settings: ZhuohongaSettings,
        *,
        first_seat: int | None = None,
        dealer: int | None = None,
    ) -> ZhuohongaState:
        return ZhuohongaState(hands, bottom, settings)

    def first_play(
        self, hands: Sequence[Sequence[Any]], bottom: Sequence[Any], *, dealer: int = 0
    ) -> FirstPlay:
        """The holder of ♥4 plays first."""
        seat = holder(hands, "H4")
        if seat is None:
            raise ValueError("no seat holds H4: the deal is not a whole zhuohonga deck")
        return FirstPlay(seat, "H4", "holder")

    def may_make_news(self, action: str | None) -> bool:
        return True

    def news(self, before: dict[str, Any], after: dict[str, Any]) -> News | None:
        """A 宣红A (or 独宣) that stands doubles the hand."""
        if before.get("xuan") != after.get("xuan") and after.get("xuan") in ("xuan", "du_xuan"):
            by = after.get("xuan_by")
            return News(
                "xuan", {"seat": by if isinstance(by, int) else None, "alone": after["xuan"] == "du_xuan"}
            )
        return None

    def cards_dealt(self, settings: ZhuohongaSettings, view: dict[str, Any]) -> Sequence[int]:
        """Each seat's count and the cards it played: the seats dealt 14 are the deal order's first two, and
        the first seat dealt (this hand's 末贡 before) is not seat 0 after the first hand."""
        counts = view.get("counts")
        if not isinstance(counts, list) or len(counts) != 4:
            return self.deal_plan(settings).cards_per_seat
        dealt = list(counts)
        for ev in view.get("history") or ():
            if ev.get("action") == "play":
                dealt[ev["seat"]] += len(ev.get("cards") or ())
        return dealt

    def dealt_rule(
        self, settings: ZhuohongaSettings, view: dict[str, Any], seat: int, dealt: Sequence[str]
    ) -> DealtRule | None:
        """Where ♥4 and the aces were dealt, as the table knows it: ♥4 with ``h4_holder``; the red aces with
        the side the declarations showed (a 独宣: one seat; a 宣 asked or refused: the declarer and the seat
        that answers); a seat that played k aces face down (``?A``) was dealt at least k; and while the hand
        goes on, neither side is all out (in a 独宣, nobody). In a 天宣 room, the order: a red ace among the
        first three cards of the seat that declared so, none among those of the seats before it (of every
        seat, if nobody did)."""
        history = view.get("history") or []
        face_down: dict[int, int] = {}
        for ev in history:
            if ev.get("action") == "play" and ev.get("seat") != seat:
                k = sum(c == "?A" for c in ev.get("cards") or ())
                if k:
                    face_down[ev["seat"]] = face_down.get(ev["seat"], 0) + k
        xuan, by, side = view.get("xuan"), view.get("xuan_by"), view.get("red_side")
        red: set[int] | None = None
        if side is not None:
            red = set(side)
        elif xuan == "du_xuan":
            red = {by}
        elif xuan == "pending":
            red = {by, view.get("to_act")}
        elif xuan == "refused":
            red = {by, next((ev.get("seat") for ev in history if ev.get("action") == "xuan_refuse"), None)}
        trick = view.get("trick")
        out = set(trick.get("out") or ()) if isinstance(trick, dict) and "verdict" not in view else set()
        h4, alone = view.get("h4_holder"), xuan == "du_xuan"

        def admits(where: dict[str, int]) -> bool:
            if where[H4] != h4:
                return False
            holders = {where["HA"], where["DA"]}
            if red is not None and holders != red:
                return False
            if out and (alone or holders <= out or out.issuperset(s for s in range(4) if s not in holders)):
                return False  # the hand would be over
            for s, k in face_down.items():
                if (where["SA"] == s) + (where["HA"] == s) + (where["CA"] == s) + (where["DA"] == s) < k:
                    return False
            return True

        if not settings.tian_xuan:
            return DealtRule(frozenset((H4, *ACES)), admits)
        declared = any(ev.get("action") == "xuan" for ev in history)
        tian = by if xuan in ("xuan", "du_xuan") and not declared else None

        def order(s: int, cards: list[str]) -> list[str]:
            reds = [c for c in cards if c in RED_ACES]
            if not reds or (tian is not None and s > tian):
                return cards
            rest = [c for c in cards if c not in RED_ACES]
            return [reds[0], *rest, *reds[1:]] if s == tian else rest + reds

        return DealtRule(frozenset((H4, *ACES)), admits, order)

    def deal(self, rng: random.Random, settings: ZhuohongaSettings, first_seat: int = 0) -> list[list[str]]:
        """Shuffle and deal one card at a time from ``first_seat`` on; hands (card names) in the order dealt."""
        deck = DECKS["zhuohonga"].names()
        shuffle(deck, rng)  # rng.shuffle's order, faster
        per = self.deal_plan(settings).cards_per_seat
        low = min(per)  # rounds every seat is dealt in: a slice of the deck each
        hands: list[list[str]] = [[] for _ in range(4)]
        for k in range(4):
            hands[(first_seat + k) % 4] = deck[k : 4 * low : 4]
        it = iter(deck[4 * low :])
        for round_ in range(low, 14):
            for k in range(4):
                if round_ < per[k]:
                    hands[(first_seat + k) % 4].append(next(it))
        return hands

    def bot_hand(
        self,
        rng: random.Random,
        *,
        bot: str = "greedy",
        settings: ZhuohongaSettings | None = None,
        first_seat: int = 0,
    ) -> dict[str, Any]:
        s = settings or self.settings()
        first_seat %= 4
        hands = self.deal(rng, s, first_seat)
        state = self.new_state(hands, [], s)
        act = BotTable(state)

        if state.xuan is None and state.red and rng.random() < 0.3:
            act({"seat": rng.choice(state.red), "action": "xuan"})
            if state.xuan == "pending":
                answer = "xuan_consent" if rng.random() < 0.6 else "xuan_refuse"
                act({"seat": state.current_player(), "action": answer})
        if state.xuan_ok and s.fan_xuan:
            for seat in state.others:
                if rng.random() < 0.5:
                    act({"seat": seat, "action": "fan_xuan"})
        trick = state.trick
        if bot == "random" and type(rng) is random.Random and not (s.first_lead_h4 and state._must_show_h4()):
            random_play(state, rng, act.events)
        while not state.over:
            seat = trick.turn
            combo = choose(RULES, trick.options(seat), trick.beat, rng, bot)
            if combo is None:
                act({"seat": seat, "action": "pass"})
                continue
            cards = state.hands[seat].pick(combo)
            if state._must_show_h4():
                if combo.top != 0:
                    combo = choose(RULES, [c for c in trick.options(seat) if c.top == 0], None, rng, bot)
                    assert combo is not None
                    cards = state.hands[seat].pick(combo)
                if H4 not in cards:
                    cards = cards[:-1] + [H4]
            act({"seat": seat, "action": "play", "cards": cards})
        return act.record(self, s, hands, [], first_seat)
