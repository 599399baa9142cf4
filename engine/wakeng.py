"""陕西挖坑 (``wakeng``): one digger (挖坑者) against the others; rules digest in ``docs/rules/wakeng.md``.

>>> import random
>>> game = WakengGame()
>>> record = game.bot_hand(random.Random(1))
>>> record["game"], len(record["hands"]), len(record["bottom"])
('wakeng', 3, 4)
>>> sum(record["verdict"]["scores"])
0

Phases: ``black_dig`` (黑挖 offers, before looking) → ``bid`` (叫分) → ``take_bottom`` (抓底, the bottom
is shown to all) → ``play`` → ``over``. Seats are numbered in play order (counter-clockwise).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from engine.cards import CLIMBING, DECKS, Card
from engine.climbing import (
    BotTable,
    ClimbingRules,
    Hand,
    TrickPlay,
    card_names,
    cards_text,
    choose,
    parse_play_cards,
    random_play,
    shuffle,
)
from engine.game import Action, DealPlan, FirstPlay, Game, GameInfo, News, State, Violation, holder, violation

H4 = "H4"
HEARTS_LOW_TO_HIGH = ["H" + r for r in CLIMBING.ranks]  # ♥4 ♥5 … ♥A ♥2 ♥3


@dataclass(frozen=True)
class WakengSettings:
    """Every rule tables disagree on, with the source's reading as default (see ``docs/rules/wakeng.md``)."""

    players: Literal[3, 4] = 3  # 4: 四人挖坑, 12 cards each, 4 bottom, the digger against three
    base: int = 1  # 基础分
    black_dig: bool = True  # 黑挖 offered before the deal
    black_dig_bid: int = 4  # a 黑挖 digs at this bid
    is_can_bomb: bool = True  # four of a kind is a bomb (炸弹玩法)
    bomb_top: int = 4  # the largest bomb multiplier (最高炸弹翻4倍); each bomb doubles up to it
    forced_bid: Literal["off", "three_threes", "three_threes_or_two_and_h4"] = "off"
    min_straight: int = 3  # fewest cards in a 单连
    min_pair_run: int = 3  # fewest pairs in a 双连
    min_triple_run: int = 3  # fewest triples in a 三连
    h4_in_bottom_lead: Literal["lowest_heart", "digger"] = "lowest_heart"
    escape_penalty: int = 10  # 逃跑扣分 = base × this, shared by the others

    def __post_init__(self) -> None:
        for name in ("base", "black_dig_bid", "bomb_top", "min_straight", "min_pair_run", "min_triple_run"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise ValueError(f"setting {name} must be a whole number ≥ 1")
        for name in ("min_straight", "min_pair_run", "min_triple_run"):
            if getattr(self, name) > 10:
                raise ValueError(f"setting {name} must be ≤ 10 (runs use 4..K)")
        if not isinstance(self.escape_penalty, int) or self.escape_penalty < 0:
            raise ValueError("setting escape_penalty must be a whole number ≥ 0")


PRESETS = {"xian": WakengSettings(), "xian-4p": WakengSettings(players=4)}


def rules_of(s: WakengSettings) -> ClimbingRules:
    return _rules_cache(s.is_can_bomb, s.min_straight, s.min_pair_run, s.min_triple_run)


_RULES: dict[tuple, ClimbingRules] = {}


def _rules_cache(bombs: bool, *runs: int) -> ClimbingRules:
    key = (bombs, *runs)
    if key not in _RULES:
        _RULES[key] = ClimbingRules(CLIMBING, run_top=10, min_runs=tuple(runs), bombs=bombs)  # type: ignore[arg-type]
    return _RULES[key]


def lowest_heart_holder(hands: list[list[str]]) -> int:
    """The seat holding the lowest heart dealt (♥4, else ♥5, …): bids first."""
    for heart in HEARTS_LOW_TO_HIGH:
        for seat, hand in enumerate(hands):
            if heart in hand:
                return seat
    return 0


def forced_to_dig(cards: list[str], rule: str) -> bool:
    if rule == "off":  # (the presets' rule: nothing to count)
        return False
    threes = sum(c[1:] == "3" for c in cards)
    if rule == "three_threes":
        return threes >= 3
    if rule == "three_threes_or_two_and_h4":
        return threes >= 3 or (threes >= 2 and H4 in cards)
    return False


class WakengState(State):
    def __init__(
        self,
        hands: list[list[Card]] | list[list[str]],
        bottom: list[Card] | list[str],
        settings: WakengSettings,
        first_seat: int | None = None,
    ):
        self.s = settings
        self.rules = rules_of(settings)
        self.n = len(hands)
        self.dealt = [card_names(h) for h in hands]
        self.bottom = card_names(bottom)
        self.hands = [Hand(self.rules, h) for h in self.dealt]
        self.first_bidder = lowest_heart_holder(self.dealt)
        self.phase = "black_dig" if settings.black_dig else "bid"
        self.bd_next = self.first_seat = first_seat  # whose 黑挖 offer is due; None: not known yet
        self.bd_declined = 0
        self.black_digger: int | None = None
        self.bids: list[tuple[int, int]] = []
        self.bid: int | None = None
        self.digger: int | None = None
        self.leader: int | None = None
        self.trick: TrickPlay | None = None
        self.escaped: int | None = None
        self.history: list[Action] = []
        self.over = False  # phase == "over", kept as a flag for the bots' loop

    # ------------------------------------------------------------------ who acts
    def _bid_turn(self) -> int:
        return (self.first_bidder + len(self.bids)) % self.n

    def current_player(self) -> int | None:
        if self.phase == "black_dig":
            return self.first_bidder if self.bd_next is None else self.bd_next
        if self.phase == "bid":
            return self._bid_turn()
        if self.phase == "take_bottom":
            return self.digger
        if self.phase == "play":
            assert self.trick is not None
            return self.trick.turn
        return None

    def legal_actions(self, seat: int) -> list[Action]:
        out: list[Action] = []
        if self.phase == "black_dig":
            if self.bd_next is None or self.bd_next == seat:
                out += [{"seat": seat, "action": "black_dig", "dig": d} for d in (False, True)]
            if seat == self.first_bidder:
                out += self._bid_actions(seat, [])
        elif self.phase == "bid" and seat == self._bid_turn():
            out += self._bid_actions(seat, self.bids)
        elif self.phase == "take_bottom" and seat == self.digger:
            out.append({"seat": seat, "action": "take_bottom"})
        elif self.phase == "play" and self.trick is not None and seat == self.trick.turn:
            hand = self.hands[seat]
            out += [{"seat": seat, "action": "play", "cards": hand.pick(c)} for c in self.trick.options(seat)]
            if self.trick.beat is not None:
                out.append({"seat": seat, "action": "pass"})
        return out

    def _bid_actions(self, seat: int, bids: list[tuple[int, int]]) -> list[Action]:
        high = max((v for _, v in bids), default=0)
        values = [0] + [v for v in (1, 2, 3) if v > high]
        if forced_to_dig(self.dealt[seat], self.s.forced_bid):
            values = [3]
        return [{"seat": seat, "action": "bid", "value": v} for v in values]

    # ------------------------------------------------------------------ the referee
    def judge(self, action: Action, own: bool = False) -> list[Violation]:
        """Referee one action: a plainly legal play or pass by the seat to act here, anything else by
        :meth:`_judge` (the same verdicts and state, tested). ``own``: the caller gives the action up (the
        random bot's events): a plain play or pass is logged as it is, not copied."""
        seat = action.get("seat")
        trick = self.trick
        if self.phase == "play" and seat.__class__ is int and seat == trick.turn:  # type: ignore[union-attr]
            # the common cases first: a plainly legal play or pass (else the general way says why)
            assert trick is not None
            if action.get("action") == "pass" and trick.fast_pass(seat):
                self.history.append(action if own else {**action})
                return []
            event = trick.fast_move(seat, action, None, own)
            if event is not None:
                if trick.out:  # a seat went out: the hand is over
                    self._end()
                self.history.append(event)
                return []
        return self._judge(action)

    def _judge(self, action: Action) -> list[Violation]:
        """The general way: every action, and every fault said."""
        seat, kind = action.get("seat"), action.get("action")
        if self.phase == "over":
            return [violation("finished", "the hand is over", "本局已结束")]
        if not isinstance(seat, int) or not 0 <= seat < self.n:
            return [violation("turn", f"no seat {seat!r}", f"没有座位 {seat!r}")]
        if kind == "escape":
            self.escaped = seat
            self._end()
            return self._log(action)
        if self.phase == "black_dig" and kind == "bid":
            # the first bid closes the 黑挖 round: the seats not heard declined
            self.phase = "bid"
            violations = self._bid(seat, action)
            if violations:
                self.phase = "black_dig"
            return violations
        handler = _HANDLERS.get(kind)  # type: ignore[arg-type]
        if handler is None:
            return [violation("phase", f"unknown action {kind!r}", f"未知动作 {kind!r}")]
        return handler(self, seat, action)

    def _log(self, action: Action) -> list[Violation]:
        self.history.append(dict(action))
        return []

    def _turn(self, seat: int, due: int | None) -> list[Violation]:
        if seat != due:
            return [
                violation(
                    "turn",
                    f"not seat {seat}'s turn (seat {due} is to act)",
                    f"还没轮到{seat}号位 (应{due}号位)",
                    code="not_your_turn",
                    seat=seat,
                    due=due,
                )
            ]
        return []

    def _black_dig(self, seat: int, action: Action) -> list[Violation]:
        if self.phase != "black_dig":
            return [violation("phase", "黑挖 is offered only before the bidding", "黑挖只能在叫分之前")]
        if self.bd_next is not None and (v := self._turn(seat, self.bd_next)):
            return v
        dig = action.get("dig", True)
        if not isinstance(dig, bool):
            return [violation("black_dig", "'dig' must be true or false", "dig 须为 true 或 false")]
        if dig:
            self.black_digger = self.digger = seat
            self.bid = self.s.black_dig_bid
            self.phase = "take_bottom"
        else:
            self.bd_declined += 1
            self.bd_next = (seat + 1) % self.n
            if self.bd_declined >= self.n:
                self.phase = "bid"
        return self._log(action)

    def _bid(self, seat: int, action: Action) -> list[Violation]:
        if self.phase != "bid":
            return [violation("phase", "the bidding is over", "叫分已结束")]
        if v := self._turn(seat, self._bid_turn()):
            return v
        value = action.get("value")
        if value not in (0, 1, 2, 3) or isinstance(value, bool):
            return [
                violation(
                    "bid",
                    f"a bid is 0 (pass), 1, 2 or 3, not {value!r}",
                    f"叫分只能是0(不叫)、1、2、3, 不是{value!r}",
                )
            ]
        high = max((b for _, b in self.bids), default=0)
        if forced_to_dig(self.dealt[seat], self.s.forced_bid) and value != 3:
            return [
                violation(
                    "forced_bid",
                    f"seat {seat} holds the cards that must dig: bid 3",
                    f"{seat}号位持必挖之牌, 须叫3分",
                    code="forced_bid",
                    seat=seat,
                )
            ]
        if value and value <= high:
            return [violation("bid", f"a bid must be higher than {high}", f"叫分须高于{high}分")]
        self.bids.append((seat, value))
        if value == 3 or len(self.bids) == self.n:
            best = max(self.bids, key=lambda b: b[1])
            self.digger, self.bid = (best[0], best[1]) if best[1] else (self.first_bidder, 1)
            self.phase = "take_bottom"
        return self._log(action)

    def _take_bottom(self, seat: int, action: Action) -> list[Violation]:
        if self.phase != "take_bottom":
            return [
                violation(
                    "phase", "the bottom is taken once, after the bidding", "底牌只在叫分后由挖坑者抓一次"
                )
            ]
        if seat != self.digger:
            return [
                violation(
                    "take_bottom",
                    f"only the digger (seat {self.digger}) takes the bottom",
                    f"只有挖坑者({self.digger}号位)抓底",
                    code="digger_only",
                    seat=self.digger,
                )
            ]
        assert self.digger is not None
        self.hands[self.digger].add(self.bottom)
        if any(H4 in h for h in self.dealt):
            self.leader = next(i for i, h in enumerate(self.dealt) if H4 in h)
        else:
            self.leader = self.digger if self.s.h4_in_bottom_lead == "digger" else self.first_bidder
        self.trick = TrickPlay(self.rules, self.hands, self.leader)
        self.phase = "play"
        return self._log(action)

    def _play(self, seat: int, action: Action) -> list[Violation]:
        if self.phase != "play":
            return [violation("phase", f"no playing during {self.phase}", f"{self.phase}阶段不能出牌")]
        trick = self.trick
        assert trick is not None
        if v := self._turn(seat, trick.turn):
            return v
        cards = parse_play_cards(action)
        if cards and isinstance(cards[0], Violation):
            return cards  # type: ignore[return-value]
        combo, v = trick.check_play(seat, cards)  # type: ignore[arg-type]
        if combo is None:
            return v
        trick.play(seat, cards, combo)  # type: ignore[arg-type]
        if trick.out:
            self._end()
        self.history.append({**action, "cards": cards})  # a new dict already: no second copy
        return []

    def _pass(self, seat: int, action: Action) -> list[Violation]:
        if self.phase != "play":
            return [violation("phase", f"no passing during {self.phase}", f"{self.phase}阶段不能不出")]
        trick = self.trick
        assert trick is not None
        if v := self._turn(seat, trick.turn) or trick.check_pass():
            return v
        trick.pass_(seat)
        return self._log(action)

    def _end(self) -> None:
        self.phase = "over"
        self.over = True

    # ------------------------------------------------------------------ results
    def is_terminal(self) -> bool:
        return self.phase == "over"

    def multiplier(self) -> int:
        bombs = self.trick.bombs if self.trick else 0
        return min(2**bombs, max(self.s.bomb_top, 1)) if self.s.is_can_bomb else 1

    def greedy_move(self, seat: int, rng: Any) -> Action | None:
        """The greedy climbing play (or pass) when ``seat`` is to play; None in the bidding."""
        trick = self.trick
        if self.phase != "play" or trick is None or trick.turn != seat:
            return None
        combo = choose(self.rules, trick.options(seat), trick.beat, rng, "greedy")
        if combo is None:
            return {"seat": seat, "action": "pass"}
        return {"seat": seat, "action": "play", "cards": self.hands[seat].pick(combo)}

    def returns(self) -> list[int] | None:
        if self.phase != "over":
            return None
        if self.escaped is not None:
            each = self.s.escape_penalty * self.s.base // (self.n - 1)
            return [-each * (self.n - 1) if i == self.escaped else each for i in range(self.n)]
        assert self.trick is not None and self.digger is not None and self.bid is not None
        stake = self.bid * self.multiplier() * self.s.base
        sign = 1 if self.trick.out[0] == self.digger else -1
        return [sign * stake * (self.n - 1) if i == self.digger else -sign * stake for i in range(self.n)]

    def outcome(self) -> str | None:
        if self.phase != "over":
            return None
        if self.escaped is not None:
            return "escape"
        assert self.trick is not None
        return "digger_won" if self.trick.out[0] == self.digger else "digger_lost"

    def verdict(self) -> dict[str, Any]:
        over = self.phase == "over"
        scores = self.returns()
        first_out = self.trick.out[0] if self.trick and self.trick.out else None
        winners = None
        if over and scores is not None:
            winners = [i for i in range(self.n) if scores[i] > 0]
        return {
            "game": "wakeng",
            "phase": self.phase,
            "black_dig": self.black_digger is not None,
            "bids": [[s, v] for s, v in self.bids],
            "bid": self.bid,
            "digger": self.digger,
            "first_bidder": self.first_bidder,
            "leader": self.leader,
            "bombs": self.trick.bombs if self.trick else 0,
            "multiplier": self.multiplier(),
            "outcome": self.outcome(),
            "escaped": self.escaped,
            "finished": over,
            "first_out": first_out,
            "winners": winners,
            "scores": scores,
            "next_first_seat": (self.leader if self.leader is not None else self.first_bidder)
            if over
            else None,
        }

    def applied_events(self) -> list[Action]:
        return list(self.history)

    def seat_dealt(self, seat: int) -> list[str]:
        return list(self.dealt[seat])

    def seen_bottom(self, seat: int) -> list[str] | None:
        return list(self.bottom) if self.phase in ("play", "over") else None

    def deal_args(self) -> dict[str, Any]:
        return {"first_seat": self.first_seat}

    def public_view(self, seat: int | None = None) -> dict[str, Any]:
        view: dict[str, Any] = {
            "game": "wakeng",
            "phase": self.phase,
            "to_act": self.current_player(),
            "counts": [len(h) for h in self.hands],
            "bids": [[s, v] for s, v in self.bids],
            "black_digger": self.black_digger,
            "bid": self.bid,
            "digger": self.digger,
            "bottom": cards_text(self.bottom) if self.phase in ("play", "over") else None,
            "history": [dict(a) for a in self.history],
            "trick": self.trick.public() if self.trick else None,
            "multiplier": self.multiplier(),
        }
        if seat is not None:
            view["seat"] = seat
            view["hand"] = self.hands[seat].cards()
        if self.phase == "over":
            view["verdict"] = self.verdict()
        return view


_HANDLERS = {
    "black_dig": WakengState._black_dig,
    "bid": WakengState._bid,
    "take_bottom": WakengState._take_bottom,
    "play": WakengState._play,
    "pass": WakengState._pass,
}


_PLANS: dict[int, DealPlan] = {}  # players -> the deal (frozen: made once, not for every hand and record)


class WakengGame(Game):
    name = "wakeng"
    info = GameInfo("挖坑", "Wakeng", passes=True, bottom_public=True,
                    actions=(("black_dig", ()), ("bid", ("value",)), ("take_bottom", ()), ("play", ("cards",)),
                             ("pass", ()), ("escape", ())))
    settings_type = WakengSettings
    presets = PRESETS
    default_preset = "xian"

    def deal_plan(self, settings: WakengSettings) -> DealPlan:
        plan = _PLANS.get(settings.players)
        if plan is None:
            per = 16 if settings.players == 3 else 12
            plan = _PLANS[settings.players] = DealPlan(
                seats=settings.players, cards_per_seat=(per,) * settings.players, bottom=4, deck=DECKS["wakeng"]
            )
        return plan

    def new_state(
        self,
        hands: list[list[Card]] | list[list[str]],
        bottom: list[Card] | list[str],
        settings: WakengSettings,
        *,
        first_seat: int | None = None,
        dealer: int | None = None,
    ) -> WakengState:
        return WakengState(hands, bottom, settings, first_seat)

    def first_play(
        self, hands: Sequence[Sequence[Any]], bottom: Sequence[Any], *, dealer: int = 0
    ) -> FirstPlay:
        """The holder of ♥4; if it is in the bottom, the holder of the lowest heart (4 5 … A 2 3)."""
        for rank in CLIMBING.ranks:
            seat = holder(hands, "H" + rank)
            if seat is not None:
                return FirstPlay(seat, "H" + rank, "lowest_heart")
        raise ValueError("no seat holds a heart")

    def may_make_news(self, action: str | None) -> bool:
        return True

    def news(self, before: dict[str, Any], after: dict[str, Any]) -> News | None:
        """The digger and the bid, once known."""
        if before.get("digger") is None and isinstance(after.get("digger"), int):
            return News("digger", {"seat": after["digger"], "bid": after.get("bid")})
        return None

    def bot_hand(
        self,
        rng: random.Random,
        *,
        bot: str = "greedy",
        settings: WakengSettings | None = None,
        first_seat: int = 0,
    ) -> dict[str, Any]:
        s = settings or self.settings()
        plan = self.deal_plan(s)
        deck = plan.deck.names()
        shuffle(deck, rng)  # rng.shuffle's order, faster
        per = plan.cards_per_seat[0]
        hands = [deck[i * per : (i + 1) * per] for i in range(plan.seats)]
        bottom = deck[plan.seats * per :]
        first_seat %= plan.seats
        state = self.new_state(hands, bottom, s, first_seat=first_seat)
        act = BotTable(state)

        if s.black_dig:
            for i in range(plan.seats):  # blind: a bot digs now and then, without looking
                dig = rng.random() < 0.03
                act({"seat": (first_seat + i) % plan.seats, "action": "black_dig", "dig": dig})
                if dig:
                    break
        while state.phase == "bid":
            seat = state.current_player()
            assert seat is not None
            values = [a["value"] for a in state._bid_actions(seat, state.bids)]
            if bot == "random":
                rng.random()  # (the draw of the greedy bid's strength, kept: the same hands from a seed)
                value = rng.choice(values)
            else:
                strength = sum(c[1:] in ("3", "2", "A") for c in hands[seat]) + 3 * rng.random()
                wish = 3 if strength >= 8 else 2 if strength >= 6.5 else 1 if strength >= 5 else 0
                value = wish if wish in values else (3 if values == [3] else 0)
            act({"seat": seat, "action": "bid", "value": value})
        act({"seat": state.digger, "action": "take_bottom"})
        escape_at = len(act.events) + rng.randrange(30) if rng.random() < 0.005 else -1
        trick = state.trick
        assert trick is not None
        if bot == "random" and type(rng) is random.Random:
            random_play(state, rng, act.events, escape_at)
            return act.record(self, s, hands, bottom, first_seat)
        while state.phase == "play":
            seat = trick.turn
            if len(act.events) == escape_at:
                act({"seat": seat, "action": "escape"})
                break
            combo = choose(state.rules, trick.options(seat), trick.beat, rng, bot)
            if combo is None:
                act({"seat": seat, "action": "pass"})
            else:
                act({"seat": seat, "action": "play", "cards": state.hands[seat].pick(combo)})
        return act.record(self, s, hands, bottom, first_seat)
