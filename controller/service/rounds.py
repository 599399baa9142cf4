"""One round (one hand) as the table service keeps it: deal progress, the engine's state, the actions.

A :class:`Round` holds secrets (every seat's hand) and knows how to show itself to each audience:

- :meth:`Round.public` — what anyone may see: phase, deal progress, the first player, card counts, the
  applied actions, the current trick, the called card (记牌器), refused actions *without their cards*;
- :meth:`Round.seat_view` — one seat's own hand and its legal actions;
- :meth:`Round.record` — the whole game record (``game-record.md``), for the operator, or anyone once
  the hand is over.

The round is game-generic: everything game-specific comes through ``engine.game.State``.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Any

from controller.announce import first_player_words
from controller.text import game_help, panel_rows
from engine.cards import JOKERS, RANK_ORDERS, Card, parse_card
from engine.game import HIDDEN, Game, State, Violation

PHASES = ("dealing", "interrupted", "playing", "finished", "void")
KEEP_REFUSED = 50  # refused actions the public state lists (the last ones; the journal keeps every one)
__all__ = ["HIDDEN", "PHASES", "Round", "by_suit", "public_violation"]
# What everyone is told about a refused action, by rule. The engine's own message goes to the seat that
# acted (and the operator): it may name the cards tried ("C2 SJ is not a combination"), which are secret.
RULE_TEXT = {
    "turn": ("Not this seat's turn.", "还没轮到该座位。"),
    "phase": ("Not allowed at this point of the hand.", "此时不能这样做。"),
    "not_in_hand": ("Those cards are not in this seat's hand.", "手里没有这些牌。"),
    "combo": ("Not a valid combination.", "不是合法牌型。"),
    "follow": ("Does not beat the cards on the table.", "压不过桌上的牌。"),
    "lead_pass": ("The seat that leads may not pass.", "首家必须出牌，不能不要。"),
    "call": ("Not a valid call.", "叫牌不合规则。"),
    "tiao": ("挑 is not allowed now.", "此时不能挑。"),
    "baomen": ("Only the ♥4 holder may declare 爆闷, before the call.", "只有红桃四在叫牌前可以爆闷。"),
    "pa": ("趴 is not allowed here.", "此时不能趴。"),
    "count": ("Wrong or missing card count.", "报牌数有误。"),
    "finished": ("The hand is over.", "本局已结束。"),
}
RULE_DEFAULT = ("Refused by the referee.", "裁判不允许。")
# Rules whose refusal alone tells something of a hand: the seat holds the suit led (拱猪's follow_suit,
# 升级's pairs), holds no red ace (捉红A's 宣) or one (反宣), holds the cards it must bid with, which cards
# it has exposed. The table hears only that the referee refused; the seat itself gets the reason.
HAND_REVEALING_RULES = frozenset({"follow_suit", "follow_pair", "follow_structure", "forced_bid", "xuan",
                                  "fan_xuan", "expose", "expose_forbidden", "exposed_first_round"})


def public_violation(v: dict[str, Any]) -> dict[str, Any]:
    """A violation as the table may hear it: the rule, and the rule's own words (never the cards, nor a
    reason that tells what a hand holds)."""
    rule = str(v.get("rule"))
    if rule in HAND_REVEALING_RULES:
        return {"rule": "refused", "severity": v.get("severity"), "message": RULE_DEFAULT[0],
                "message_zh": RULE_DEFAULT[1]}
    text, text_zh = RULE_TEXT.get(rule, RULE_DEFAULT)
    return {"rule": v.get("rule"), "severity": v.get("severity"), "message": text, "message_zh": text_zh}



class Round:
    """A hand in progress. Not thread-safe by itself: the service holds ``lock`` around every use."""

    def __init__(self, rid: int, game: Game, settings: Any, *, first_seat: int, fair_deal: bool,
                 bots: set[int], preset: str | None = None, rules: dict[str, Any] | None = None):
        self.id = rid
        self.game = game
        self.settings = settings
        self.plan = game.deal_plan(settings)
        self.first_seat = first_seat
        self.fair_deal = fair_deal
        self.bots = set(bots)
        self.preset = preset
        self.rules = dict(rules or {})
        self.lock = threading.RLock()
        self.phase = "dealing"
        self.paused = False
        self.message: str | None = None  # why the round waits (English), for everyone
        self.message_zh: str | None = None
        self.created = time.time()
        self.total = sum(self.plan.cards_per_seat) + self.plan.bottom
        self.dealt = 0
        self.dealt_per_seat = [0] * self.plan.seats
        self.hands: list[list[Card]] | None = None
        self.bottom: list[Card] = []
        self.state: State | None = None
        self.first_player: int | None = None
        self.first_text: tuple[str, str] | None = None  # what the voice says about the first player
        self.deal_extra: dict[str, Any] = {}
        self.events: list[dict[str, Any]] = []  # every submitted event, applied or not (the record's)
        self.violations: list[dict[str, Any]] = []  # per event index, as JSON
        self.applied: list[bool] = []
        self.trick: list[dict[str, Any]] = []
        self.verdict: dict[str, Any] | None = None
        self.announced_low: dict[int, int] = {}
        self.ready: set[int] = set()  # people who said they will not declare (more) this hand
        self.asked: set[int] = set()  # seats that made their one ask of the hand (红桃四's 趴), right or wrong
        self.refusals: dict[int, dict[str, Any]] = {}  # event index -> what the table learns of that refusal
        self.play_since: float | None = None  # time.monotonic() when play began
        self.talk_since: float | None = None  # when the last declaration before the first play was applied
        self.declare_window: float | None = None  # seconds the bots wait for people to declare (the service's)

    # ------------------------------------------------------------------ the deal
    def card_dealt(self, seat: int | None) -> None:
        self.dealt += 1
        if seat is not None and 0 <= seat < self.plan.seats:
            self.dealt_per_seat[seat] += 1

    def start_play(self, hands: list[list[Card]], bottom: list[Card], first: int | None,
                   extra: dict[str, Any]) -> None:
        self.hands = [list(h) for h in hands]
        self.bottom = list(bottom)
        self.dealt = self.total
        self.dealt_per_seat = [len(h) for h in hands]
        self.deal_extra = dict(extra)
        self.state = self.game.new_state(self.hands, self.bottom, self.settings)
        by_rule = self._first_player()
        if first is not None and first != by_rule:  # the dealer's word (e.g. 升级's dealer seat) wins
            self.first_text = None
        self.first_player = first if first is not None else by_rule
        if self.first_text is None and self.first_player is not None:
            self.first_text = first_player_words(None, self.first_player)
        self.phase = "playing"
        self.play_since = time.monotonic()

    def undecided(self, view: dict[str, Any] | None = None) -> list[int]:
        """The people (not bots) who may still declare before the first play and have not said they are
        ready. It depends on nobody's cards: who holds a card one could declare is no one's business.
        ``view``: the engine's public view, if the caller has built it already."""
        if (not self.game.info.declares_before_play or self.phase != "playing"
                or any(ok and ev.get("action") == "play" for ev, ok in zip(self.events, self.applied, strict=True))):
            return []
        view = self._view(None) if view is None else view
        if view.get("talk_open") is False:  # 红桃四 after 爆闷 or a 对挑: nothing more to declare
            return []
        asked = {r.get("target") for r in view.get("pa_requests") or []}  # public requests
        lying = set(view.get("lying_down") or [])
        return [s for s in range(self.plan.seats)
                if s not in self.bots and s not in lying and (s not in self.ready or s in asked)]

    def declare_left(self, window: float | None = None, undecided: list[int] | None = None) -> float | None:
        """Seconds the bots still wait for :meth:`undecided` people (None: nobody is waited for). Each
        declaration opens the window again, so a call or a 趴 request leaves time to answer it."""
        window = self.declare_window if window is None else window
        if window is None or self.play_since is None or not (self.undecided() if undecided is None else undecided):
            return None
        since = max(self.play_since, self.talk_since or 0.0)
        return max(0.0, since + window - time.monotonic())

    def _first_player(self) -> int | None:
        """The first player by the game's rule (``Game.first_play``: ♥4's holder in 红桃四), with what
        to announce; else whoever the engine says acts first."""
        try:
            first = self.game.first_play(self.hands or [], self.bottom, dealer=self.first_seat)
        except ValueError:
            return self.state.current_player() if self.state is not None else None
        self.first_text = first_player_words(first.card, first.seat, first.rule)
        return first.seat

    # ------------------------------------------------------------------ actions
    def judge(self, action: dict[str, Any]) -> tuple[int, list[Violation], bool]:
        """Referee ``action`` through the engine; keep it in the record. Return (index, violations, applied)."""
        assert self.state is not None
        index = len(self.events)
        violations = [v.at(index) for v in self.state.judge(action)]
        applied = not any(v.severity == "error" for v in violations)
        self.events.append(dict(action))
        self.violations.append({"index": index, "list": [v.to_json() for v in violations]})
        self.applied.append(applied)
        if applied and action.get("action") in ("play", "pass"):
            self._track_trick(action)
        elif applied and action.get("action") != "announce":
            self.talk_since = time.monotonic()  # a call or a 趴 request: people get time to answer it
        if self.state.is_terminal():
            self.phase = "finished"
        return index, violations, applied

    def count_ask(self, index: int, action: dict[str, Any], violations: list[Violation]) -> None:
        """Whether event ``index`` was its seat's one ask of the hand (``State.counts_as_ask``), and what
        the table learns of it if refused (``State.public_refusal``). Call before the next judge."""
        assert self.state is not None
        if self.state.counts_as_ask(action, violations):
            self.asked.add(action["seat"])
        if not self.applied[index]:
            extra = self.state.public_refusal(action, violations)
            if extra:
                self.refusals[index] = extra

    def asked_already(self, action: dict[str, Any]) -> bool:
        """Whether ``action`` is a seat's second ask of the hand (refused before the referee sees it)."""
        return self.state is not None and self.state.one_ask(action) and action.get("seat") in self.asked

    def _track_trick(self, action: dict[str, Any]) -> None:
        entry = {"seat": action["seat"], "action": action["action"]}
        if action["action"] == "play":
            entry["cards"] = list(action.get("cards") or [])
            plays = [e for e in self.trick if e["action"] == "play"]
            if self.game.info.trick_taking:
                if len(plays) >= self.plan.seats:
                    self.trick = []  # the last trick is complete: this play leads the next one
            elif not plays or plays[-1]["seat"] == action["seat"]:
                self.trick = []  # everyone else passed: the same player leads a new trick
        self.trick.append(entry)

    def public_action(self, index: int) -> dict[str, Any]:
        """Event ``index`` as anyone may see it. A refused action shows only its seat, its name, the rule
        and what the engine says its refusal tells the table; an applied one its fields as the engine
        shows that event now (``State.public_action``: 捉红A's face-down aces, 拱猪's hidden exposes,
        升级's bury): by the event, never by a card's name."""
        ev = self.events[index]
        out: dict[str, Any] = {"index": index, "seat": ev.get("seat"), "action": ev.get("action"),
                               "applied": self.applied[index]}
        if self.applied[index] and self.state is not None:
            shown = self.state.public_action(ev)
            out.update({k: v for k, v in shown.items() if k not in ("seat", "action")})
        elif index in self.refusals:
            out.update(self.refusals[index])
        out["violations"] = [public_violation(v) for v in self.violations[index]["list"]]
        return out

    def shown_actions(self) -> list[int]:
        """The indexes the public state lists: every applied action, and the last :data:`KEEP_REFUSED`
        refused ones (a seat hammering the referee must not grow every answer; the journal keeps all)."""
        refused = [i for i, ok in enumerate(self.applied) if not ok][-KEEP_REFUSED:]
        kept = set(refused)
        return [i for i, ok in enumerate(self.applied) if ok or i in kept]

    def public_trick(self) -> list[dict[str, Any]]:
        if self.state is None:
            return [dict(t) for t in self.trick]
        return [self.state.public_action(t) for t in self.trick]

    # ------------------------------------------------------------------ views
    def counts(self, view: dict[str, Any] | None = None) -> list[int] | None:
        """Cards left in each seat's hand."""
        if self.state is None:
            return None if self.phase == "dealing" else list(self.dealt_per_seat)
        view = self._view() if view is None else view
        for key in ("counts", "hand_counts", "card_counts", "hand_sizes"):
            value = view.get(key)
            if isinstance(value, list) and len(value) == self.plan.seats:
                return [int(v) for v in value]
        played: Counter[int] = Counter()
        for ev, ok in zip(self.events, self.applied, strict=True):
            if ok and ev.get("action") == "play":
                played[ev["seat"]] += len(ev.get("cards") or [])
        return [len(h) - played[s] for s, h in enumerate(self.hands or [])]

    def facts(self) -> dict[str, Any]:
        """The hand's public facts now: the engine's public view (no seat's hand)."""
        return self._view(None)

    def _view(self, seat: int | None = None) -> dict[str, Any]:
        try:
            view = self.state.public_view(seat) if self.state is not None else {}
        except Exception:  # an engine that cannot show this phase; the service shows its own facts
            view = {}
        return view if isinstance(view, dict) else {}

    def announce_at(self) -> int:
        """A seat left with 1..this many cards is announced (``Game.announce_at``)."""
        return self.game.announce_at(self.settings)

    def called(self) -> dict[str, Any] | None:
        """The 记牌器: which seat called which card (the call is public once applied)."""
        for ev, ok in zip(self.events, self.applied, strict=True):
            if ok and ev.get("action") == "call":
                return {"seat": ev["seat"], "card": ev.get("card")}
        return None

    def turn(self) -> int | None:
        if self.state is None or self.phase != "playing":
            return None
        try:
            return self.state.current_player()
        except Exception:
            return None

    def public(self) -> dict[str, Any]:
        view = self._view(None)  # the engine's public view, built once for this answer
        counts = self.counts(view)
        low_at = self.announce_at()
        out: dict[str, Any] = {
            "id": self.id, "game": self.game.name, "info": self.game.info.to_json(), "phase": self.phase,
            "paused": self.paused,
            "message": self.message, "message_zh": self.message_zh, "seats": self.plan.seats,
            "first_seat": self.first_seat, "fair_deal": self.fair_deal, "bots": sorted(self.bots),
            "total": self.total, "dealt": self.dealt, "dealt_per_seat": list(self.dealt_per_seat),
            "first_player": self.first_player, "counts": counts,
            # few cards left is news only in play: a hand being dealt (or stopped mid-deal) is not low
            "low": [s for s, n in enumerate(counts or []) if 0 < n <= low_at] if self.phase == "playing" else [],
            "turn": self.turn(), "called": self.called(), "trick": self.public_trick(),
            "undecided": (waiting := self.undecided(view)),
            "declare_left": None if (left := self.declare_left(undecided=waiting)) is None else round(left, 1),
            "actions": [self.public_action(i) for i in self.shown_actions()],
            "refused_hidden": max(0, self.applied.count(False) - KEEP_REFUSED),
            "result": None,
        }
        if self.state is not None and self.phase in ("playing", "finished"):
            out["table"] = view
        if self.phase == "finished":
            out["result"] = self.result()
        # the display's game panel, from the view's fields (``controller.text``): the page names no game
        out["panel"] = panel_rows(view, out["result"]) if "table" in out else []
        # who plays first, in words (红桃四: "♥4 is at Seat N"), once the deal is done
        out["first_words"] = self._first_words(view) if self.phase in ("playing", "finished") else None
        return out

    def _first_words(self, view: dict[str, Any]) -> list[str] | None:
        """The first player's words, or the seat a declaration moved the first lead to (对挑, 趴)."""
        leader = view.get("first_leader") if self.game.info.lead_moves else None
        if isinstance(leader, int) and leader != self.first_player:
            return list(first_player_words(None, leader))
        return list(self.first_text) if self.first_text else None

    def result(self) -> dict[str, Any] | None:
        """The settled verdict (public once the hand is over)."""
        if self.phase != "finished" or self.state is None:
            return None
        if self.verdict is None:
            from engine.record import parse_record
            from engine.referee import judge_record

            self.verdict = judge_record(parse_record(self.record()))
        return self.verdict

    def seat_view(self, seat: int) -> dict[str, Any]:
        """``seat``'s own hand (as dealt so far: the engine's view once play starts) and legal actions."""
        out: dict[str, Any] = {"id": self.id, "game": self.game.name, "info": self.game.info.to_json(),
                               "seat": seat, "phase": self.phase,
                               "paused": self.paused, "hand": [], "legal": [], "turn": self.turn(),
                               "undecided": seat in (waiting := self.undecided()),
                               "help": game_help(self.game.name)}  # the seat page's rules panel
        if out["undecided"]:
            out["declare_left"] = round(self.declare_left(undecided=waiting) or 0.0, 1)  # how long the bots wait
        if self.hands is None:
            return out
        order = RANK_ORDERS.get(self.game.name)
        view = self._view(seat)
        hand = view.get("hand")
        if not isinstance(hand, list):
            played = Counter(c for ev, ok in zip(self.events, self.applied, strict=True)
                             if ok and ev.get("seat") == seat and ev.get("action") == "play"
                             for c in ev.get("cards") or [])
            hand = []
            for c in self.hands[seat]:
                if played[str(c)]:
                    played[str(c)] -= 1
                else:
                    hand.append(str(c))
        cards = [parse_card(c) for c in hand]
        if self.game.info.trick_taking:
            out["hand"] = by_suit(cards, order, view)
        else:
            out["hand"] = order.sort(cards) if order else [str(c) for c in cards]
        if self.phase == "playing" and not self.paused and self.state is not None:
            try:
                out["legal"] = [a for a in self.state.offered_actions(seat) if not self.asked_already(a)]
            except Exception:
                out["legal"] = []
        out["view"] = view
        return out

    def record(self) -> dict[str, Any]:
        """The game record of ``game-record.md`` (hands as dealt, every event), with deal facts."""
        rec: dict[str, Any] = {"game": self.game.name}
        if self.preset:
            rec["preset"] = self.preset
        if self.rules:
            rec["rules"] = dict(self.rules)
        rec["hands"] = [[str(c) for c in h] for h in (self.hands or [])]
        rec["bottom"] = [str(c) for c in self.bottom]
        rec["events"] = [dict(e) for e in self.events]
        rec["round"] = self.id
        rec["first_seat"] = self.first_seat
        rec["fair_deal"] = self.fair_deal
        rec.update({k: v for k, v in self.deal_extra.items() if k not in rec})
        return rec


HAND_SUITS = "SHCD"  # a hand held by suit alternates colours: ♠ ♥ ♣ ♦


def by_suit(cards: list[Card], order: Any, view: dict[str, Any]) -> list[str]:
    """A trick-taking hand as players hold it: by suit, low to high within each, and in 升级 the trumps
    last, weakest to strongest (trump-suit cards, the level cards, the level card of the trump suit,
    the jokers) — ``view`` is the engine's view, with ``level`` and ``trump_suit`` once they are known.

    >>> from engine.cards import NATURAL, parse_cards
    >>> by_suit(parse_cards(["DA", "S2", "H5", "SK"]), NATURAL, {})
    ['S2', 'SK', 'H5', 'DA']
    >>> by_suit(parse_cards(["RJ", "H2", "S2", "HA", "SK", "H9"]), NATURAL, {"level": "2", "trump_suit": "H"})
    ['SK', 'H9', 'HA', 'S2', 'H2', 'RJ']
    """
    level, trump = view.get("level"), view.get("trump_suit")

    def key(c: Card) -> tuple[int, int, int]:
        if c.suit is None:  # a joker: the strongest trumps
            return (3, 0, JOKERS.index(c.rank))
        if c.rank == level:
            return (2, int(c.suit == trump), HAND_SUITS.index(c.suit))
        strength = order.key(c) if order else 0
        if c.suit == trump:
            return (1, 0, strength)
        return (0, HAND_SUITS.index(c.suit), strength)

    return [str(c) for c in sorted(cards, key=key)]
