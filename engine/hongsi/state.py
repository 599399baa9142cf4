"""One hand of 红桃四 in progress: the phases, the referee of every action, the verdict.

The reading is ``docs/rules/hongsi.md`` (rule ids in brackets below). Actions are record events
(``game-record.md``). :meth:`HongsiState.judge` checks one event, applies it unless it finds an error
and returns the violations: one error per event, chosen in the digest's precedence ``finished``,
``phase``, ``turn``, ``not_in_hand``, ``combo``, ``follow`` / ``lead_pass`` (declarations: their own ids).

>>> from engine.cards import parse_cards
>>> from engine.hongsi.settings import HongsiSettings
>>> hands = [parse_cards(h) for h in (["H4", "S5"], ["S6"], ["S7"], ["S8"])]
>>> state = HongsiState(hands, HongsiSettings())
>>> state.judge({"seat": 0, "action": "play", "cards": ["H4"]})[0].rule   # the call is due
'phase'

Hands are 52-bit masks (see :mod:`engine.hongsi.combos`), so judging a play is a handful of integer
operations and one dictionary look-up.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from engine.cards import Card
from engine.game import Action, State, Violation, violation
from engine.hongsi import combos
from engine.hongsi.scoring import multiplier, settle
from engine.hongsi.settings import HongsiSettings

SEATS = 4
_CODE, ONE_RANK_PLAYS, _BOMB, _after_play = combos.CODE, combos.ONE_RANK_PLAYS, combos.BOMB, combos.after_play
_BIT = combos.BIT  # a card name's bit in a hand mask
CALLABLE = tuple(code for code in range(combos.N_RANKS * 4) if code >> 2 <= 6 and code != combos.H4)  # 4..10, not ♥4
DECLARED = ("baomen", "dantiao", "duitiao")
MODE_ZH = {"normal": "普通二打二", "pa": "趴", "dui_pa": "对趴", "anjiao": "暗叫", "dantiao": "单挑",
           "duitiao": "对挑", "baomen": "爆闷"}


def _after(active: tuple[int, ...]) -> tuple[int, ...]:
    """For each seat, the next seat of ``active`` after it in play order (itself if none)."""
    return tuple(next((nxt for i in range(1, SEATS + 1) if (nxt := (seat + i) % SEATS) in active), seat)
                 for seat in range(SEATS))


_AFTER = {active: _after(active) for n in range(SEATS + 1) for active in combinations(range(SEATS), n)}


# sides() by look-up: the seats but one, and the two sides of two seats (each side in seat order)
_OTHERS = {lone: tuple(s for s in range(SEATS) if s != lone) for lone in range(SEATS)}
_TWO_SIDES = {(a, b): (tuple(sorted({a, b})), tuple(s for s in range(SEATS) if s not in (a, b)))
              for a in range(SEATS) for b in range(SEATS) if a != b}


def _seat_ok(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x < SEATS


class HongsiState(State):
    """A hand of 红桃四 from the deal to the settlement."""

    def __init__(self, hands: list[list[Card]], settings: HongsiSettings, *, masks: list[int] | None = None):
        """``masks``: the hands' card masks when the caller already has them (the deal does)."""
        self.settings = settings
        self._announce_at = settings.count_announce_at  # (settings are frozen)
        code = combos.CODE
        self.dealt = list(masks) if masks is not None else [
            combos.mask_of([code[c if c.__class__ is str else str(c)] for c in h]) for h in hands]
        self.hands = list(self.dealt)
        self._ranks: list[list[int] | None] = [None] * SEATS  # each hand's rank masks, once asked for
        self.h4 = next((s for s, m in enumerate(self.dealt) if m >> combos.H4 & 1), None)
        self.n_events = 0
        self.log: list[Action] = []  # applied events: every one of them is public
        self.tiaos: list[int] = []
        self.baomen = False
        self.called: int | None = None
        self._called_bit = 0  # the called card's bit in a hand mask, once called
        self.partner: int | None = None  # the holder of the called card (the caller himself in 暗叫)
        self.anjiao = False
        self.exposed = False
        self.revealed = False  # the called card was played or a 趴 was accepted: the sides are public
        self.requests: dict[int, int] = {}  # pending 趴 requests, asker -> target
        self.asked: set[int] = set()
        self.lying: set[int] = set()
        self.started = False
        self.leader: int | None = None
        self.turn: int | None = None
        self.trick: combos.Combo | None = None
        self.trick_seat: int | None = None
        self.trick_mask = 0
        self.passes = 0
        self.bombs = 0
        self.pending: tuple[int, int, int] | None = None  # (seat, count, event index) of a due announcement
        self.finished = False
        self._playing = False  # started and not finished: judge's fast paths apply
        self.first_out: int | None = None
        self.interceptor: int | None = None
        self.winners: list[int] | None = None
        self.scores: list[int] | None = None
        self._active: tuple[int, ...] = tuple(range(SEATS))
        self._after: tuple[int, ...] = _AFTER[self._active]  # the next active seat after each seat
        self._last_pass = len(self._active) - 1  # the passes that end a trick

    def clone(self) -> HongsiState:
        """An independent copy (to try an action without touching this state)."""
        new = object.__new__(HongsiState)
        new.__dict__.update(self.__dict__)
        new.hands, new.log, new.tiaos = list(self.hands), list(self.log), list(self.tiaos)
        new._ranks = [None if m is None else list(m) for m in self._ranks]  # (updated in place by plays)
        new.requests, new.asked, new.lying = dict(self.requests), set(self.asked), set(self.lying)
        return new

    # ------------------------------------------------------------------ facts derived from the phase
    @property
    def declared(self) -> bool:
        return self.baomen or bool(self.tiaos)

    @property
    def mode(self) -> str | None:
        if self.baomen:
            return "baomen"
        if self.tiaos:
            return "duitiao" if len(self.tiaos) == 2 else "dantiao"
        if self.called is None:
            return None
        if self.anjiao:
            return "anjiao"
        if not self.lying:  # (the common case, without the set)
            return "normal"
        sides = {self._side_index(s) for s in self.lying}
        return ("normal", "pa", "dui_pa")[len(sides)]

    def _side_index(self, seat: int) -> int:
        return 0 if seat in (self.h4, self.partner) else 1

    def lone(self) -> int | None:
        """The lone player of a 1-vs-3 mode."""
        if self.baomen or self.anjiao:
            return self.h4
        if len(self.tiaos) == 1:
            return self.tiaos[0]
        return None

    def sides(self) -> list[list[int]] | None:
        """The two sides, each in seat order, the ♥4 holder's side first (对挑: the duelists alone)."""
        mode = self.mode
        if mode is None:
            return None
        if mode == "duitiao":
            a, b = sorted(self.tiaos)
            return [[b], [a]] if b == self.h4 else [[a], [b]]
        lone = self.lone()
        if lone is not None:
            rest = list(_OTHERS[lone]) if lone in _OTHERS else [s for s in range(SEATS) if s != lone]
            return [[lone], rest] if lone == self.h4 or self.h4 is None else [rest, [lone]]
        two = _TWO_SIDES.get((self.h4, self.partner))  # (two seats: the sides by look-up, as new lists)
        if two is not None:
            return [list(two[0]), list(two[1])]
        mine = sorted({self.h4, self.partner})  # type: ignore[type-var]
        return [mine, [s for s in range(SEATS) if s not in mine]]

    def side_of(self, seat: int) -> list[int] | None:
        sides = self.sides()
        return None if sides is None else next((t for t in sides if seat in t), None)

    def teammates(self, a: int, b: int) -> bool:
        side = self.side_of(a)
        return a != b and side is not None and b in side

    @property
    def spectators(self) -> list[int]:
        return [s for s in range(SEATS) if s not in self.tiaos] if len(self.tiaos) == 2 and not self.baomen else []

    def active(self) -> tuple[int, ...]:
        return self._active

    def _refresh_active(self) -> None:
        out = set(self.spectators) | self.lying
        self._active = tuple(s for s in range(SEATS) if s not in out)
        self._after = _AFTER[self._active]
        self._last_pass = len(self._active) - 1

    @property
    def rank_masks(self) -> list[combos.RankMasks]:
        """Each hand's :func:`combos.rank_masks`."""
        return [tuple(self._rank_masks(s)) for s in range(SEATS)]  # type: ignore[misc]

    def _rank_masks(self, seat: int) -> list[int]:
        """The seat's rank masks as a list, kept up to date in place by its plays (do not change it)."""
        masks = self._ranks[seat]
        if masks is None:  # worked out when first asked for after a play: the referee never asks
            masks = self._ranks[seat] = list(combos.rank_masks(self.hands[seat]))
        return masks

    def first_leader(self) -> int:
        """Who leads the first trick (digest, phase 4)."""
        h4 = self.h4 if self.h4 is not None else 0
        if len(self.tiaos) == 2 and not self.baomen:
            duel = self.tiaos
            for code in combos.HEART_ORDER:
                holder = next((s for s in duel if self.dealt[s] >> code & 1), None)
                if holder is not None:
                    return holder
            return next((h4 + i) % SEATS for i in range(1, SEATS) if (h4 + i) % SEATS in duel)
        if h4 in self.lying:
            return next(s for s in (self.side_of(h4) or []) if s != h4)
        return h4

    def call_due(self) -> bool:
        return not self.started and self.called is None and not self.declared and self.h4 is not None

    def to_play(self) -> int:
        return self.turn if self.started else self.first_leader()  # type: ignore[return-value]

    def _next_active(self, seat: int) -> int:
        return self._after[seat]

    # ------------------------------------------------------------------ the State interface
    def current_player(self) -> int | None:
        """The seat to act: the announcer of a due count, the ♥4 holder when the call is due, else the
        seat to play. (挑, 爆闷 and 趴 are not turn-bound: other seats may declare them meanwhile.)"""
        if self.finished:
            return None
        if self.pending is not None:
            return self.pending[0]
        if self.call_due():
            return self.h4
        return self.to_play()

    def is_terminal(self) -> bool:
        return self.finished

    def greedy_move(self, seat: int, rng: Any) -> Action | None:
        """A play by the greedy player (``engine.hongsi.bots``), or the count due; None when a call or a
        趴 answer is due from ``seat``."""
        if self.call_due() or seat in self.requests.values() or self.pending is None and self.requests:
            return None
        if self.pending is not None:
            return {"seat": seat, "action": "announce", "count": self.pending[1]}
        from engine.hongsi.bots import choose_play  # the bots import this module

        return choose_play(self, seat, rng, "greedy")

    def returns(self) -> list[int] | None:
        return list(self.scores) if self.scores is not None else None

    def play_options(self, seat: int) -> list[combos.Combo]:
        """The combinations ``seat`` may play now (empty when it is not that seat's play)."""
        if self.finished or self.pending is not None or self.call_due() or seat != self.to_play():
            return []
        s = self.settings
        masks = self._rank_masks(seat)
        if self.trick is None:
            return combos.lead_combos(self.hands[seat], bombs=s.bombs, min_pair_run=s.min_pair_run, masks=masks)
        return combos.follow_combos(self.hands[seat], self.trick, bombs=s.bombs, min_pair_run=s.min_pair_run,
                               masks=masks)

    def moves(self, seat: int) -> tuple[list[combos.Combo], bool]:
        """:meth:`play_options` and :meth:`may_pass` at once (the bots' inner loop)."""
        if not (self.started and seat == self.turn and self.pending is None and not self.finished):
            return self.play_options(seat), self.may_pass(seat)
        s = self.settings
        masks = self._ranks[seat] or self._rank_masks(seat)
        trick = self.trick
        if trick is None:
            return combos.lead_combos(0, bombs=s.bombs, min_pair_run=s.min_pair_run, masks=masks), False
        return combos.follow_combos(0, trick, bombs=s.bombs, min_pair_run=s.min_pair_run, masks=masks), True

    def may_pass(self, seat: int) -> bool:
        return (not self.finished and self.pending is None and not self.call_due()
                and self.trick is not None and seat == self.to_play())

    def play_event(self, seat: int, combo: combos.Combo) -> Action:
        """The play event of ``combo`` from ``seat``'s hand (the called card is kept back when it can be)."""
        avoid = 1 << self.called if self.called is not None else 0
        return {"seat": seat, "action": "play", "cards": combos.cards_of(combos.take(self.hands[seat], combo, avoid))}

    def declaration_options(self, seat: int) -> list[Action]:
        """The declarations, the call and the 趴 talk ``seat`` may make now."""
        out: list[Action] = []
        if self.finished or self.pending is not None or self.started:
            return out
        if self.called is None:
            if not self.baomen and seat not in self.tiaos and len(self.tiaos) < 2:
                out.append({"seat": seat, "action": "tiao"})
            if seat == self.h4 and not self.baomen:
                out.append({"seat": seat, "action": "baomen"})
            if self.call_due() and seat == self.h4:
                out += [{"seat": seat, "action": "call", "card": combos.CARD_NAMES[c]} for c in CALLABLE]
            return out
        if self.declared or self.exposed or seat in self.lying:
            return out
        if seat not in self.asked:
            side = self.side_of(seat) or ()  # teammates(seat, target), the sides worked out once
            for target in range(SEATS):
                if target not in self.lying and target != seat and target in side:
                    out.append({"seat": seat, "action": "pa", "target": target})
        if any(t == seat for t in self.requests.values()):
            out += [{"seat": seat, "action": "pa_accept"}, {"seat": seat, "action": "pa_refuse"}]
        return out

    def pa_candidates(self, seat: int) -> list[int]:
        """The seats ``seat`` may believe its teammates, knowing only its own hand and what is public.

        The caller does not know who holds the called card (in 暗叫 it knows it plays alone); the holder
        of the called card knows the caller; each other seat knows it is against the caller. Once a 趴 is
        accepted the sides are public.

        >>> from engine.cards import parse_cards
        >>> from engine.hongsi.examples import SUITED, call
        >>> from engine.hongsi.settings import HongsiSettings
        >>> state = HongsiState([parse_cards(h) for h in SUITED], HongsiSettings())
        >>> _ = state.judge(call(0, "S10"))  # seat 0 holds ♥4; seat 1 holds ♠10: the secret partner
        >>> [state.pa_candidates(s) for s in range(4)]
        [[1, 2, 3], [0], [1, 3], [1, 2]]
        """
        if self.revealed or self.h4 is None or self.called is None:
            return [t for t in range(SEATS) if self.teammates(seat, t)]
        if seat == self.h4:
            believed = [] if self.anjiao else [t for t in range(SEATS) if t != seat]
        elif seat == self.partner:
            believed = [self.h4]
        else:
            believed = [t for t in range(SEATS) if t not in (seat, self.h4)]
        return [t for t in believed if t not in self.lying]

    def offered_actions(self, seat: int) -> list[Action]:
        """``legal_actions``, with 趴 offered to every seat ``seat`` may believe its teammate
        (:meth:`pa_candidates`), so that what a seat is offered never tells it who holds the called card."""
        legal = self.legal_actions(seat)
        if not self._may_ask(seat):
            return legal
        talk = [{"seat": seat, "action": "pa", "target": t} for t in self.pa_candidates(seat)]
        return talk + [a for a in legal if a["action"] != "pa"]

    def _may_ask(self, seat: int) -> bool:
        """Whether ``seat`` may still ask for a 趴 (the conditions of :meth:`declaration_options`)."""
        return (not self.finished and self.pending is None and not self.started and self.called is not None
                and not self.declared and not self.exposed and seat not in self.lying and seat not in self.asked)

    def due_announcements(self) -> list[Action]:
        """Rule 8: the count a play left due, announced by the table service for the player."""
        if self.pending is None:
            return []
        seat, count, _ = self.pending
        return [{"seat": seat, "action": "announce", "count": count}]

    def one_ask(self, action: Action) -> bool:
        """A seat asks for a 趴 once a hand, right or wrong: else a refused ask would let it try every
        seat in turn and learn who holds the called card."""
        return action.get("action") == "pa"

    def counts_as_ask(self, action: Action, violations: list[Violation]) -> bool:
        """A 趴 applied, or refused because its target is on the other side (which tells who holds the
        called card), is the seat's ask; one refused for another reason (before the call, say) is not."""
        if not self.one_ask(action):
            return False
        errors = [v.rule for v in violations if v.severity == "error"]
        return not errors or self._misasked(action, errors)

    def public_refusal(self, action: Action, violations: list[Violation]) -> Action:
        """A 趴 refused as asked of the other side says the two are not a side: the whole table learns
        it, as the asker did."""
        errors = [v.rule for v in violations if v.severity == "error"]
        if self.one_ask(action) and errors and self._misasked(action, errors):
            return {"target": action["target"]}
        return {}

    def _misasked(self, action: Action, errors: list[str]) -> bool:
        seat, target = action.get("seat"), action.get("target")
        return (errors == ["pa"] and _seat_ok(seat) and _seat_ok(target) and target != seat
                and not self.teammates(seat, target))

    def legal_actions(self, seat: int) -> list[Action]:
        if self.pending is not None:
            p, count, _ = self.pending
            return [{"seat": seat, "action": "announce", "count": count}] if seat == p else []
        out = self.declaration_options(seat)
        out += [self.play_event(seat, c) for c in self.play_options(seat)]
        if self.may_pass(seat):
            out.append({"seat": seat, "action": "pass"})
        return out

    # ------------------------------------------------------------------ the referee
    def judge(self, action: Action) -> list[Violation]:
        # The fast paths: a play or pass by the seat to play, in play, no count due; the count announced
        # right when it is due. They do exactly what the general path below does for such an event
        # (tests/engine/test_fast_paths.py, tests/engine/test_fast_paths_climbing.py).
        if self._playing and action.__class__ is dict:
            try:
                seat, name = action["seat"], action["action"]
            except KeyError:  # (the general path says what is missing)
                return self._judge(action)
            pending = self.pending
            if pending is None:
                if seat == self.turn and seat.__class__ is int:
                    if name == "pass":
                        if self.trick is not None:
                            self.n_events += 1
                            passes = self.passes = self.passes + 1
                            self.turn = self._after[seat]
                            if passes >= self._last_pass:
                                self.trick, self.trick_mask = None, 0
                            self.log.append(action)
                            return []
                    elif name == "play":
                        index = self.n_events
                        self.n_events = index + 1
                        cards = action.get("cards")
                        # a one-rank play of held cards named as records name them, no bomb: by look-up
                        if cards.__class__ is list and (n := len(cards)) < 4:  # (none: no mask, no look-up)
                            try:
                                if n == 1:
                                    mask = _BIT[cards[0]]
                                else:
                                    mask = 0
                                    for c in cards:
                                        mask |= _BIT[c]
                            except (KeyError, TypeError):
                                mask = 0
                            combo = ONE_RANK_PLAYS.get(mask)
                            hand = self.hands[seat]
                            if combo is not None and mask & hand == mask and mask.bit_count() == n:
                                trick = self.trick
                                if trick is None or (combo[0] == trick[0] and combo[2] > trick[2]):
                                    # _apply_play once started, for a one-rank play that is no bomb
                                    hand ^= mask
                                    self.hands[seat] = hand
                                    levels = self._ranks[seat]
                                    if levels is not None:  # after_play, in place: the rank's bit leaves
                                        r = combo[2]  # the levels from its count left (c) to c + kind
                                        b = 1 << r
                                        c = (hand >> (r << 2) & 15).bit_count()
                                        levels[c] ^= b
                                        if combo[0]:
                                            levels[c + 1] ^= b
                                            if combo[0] == 2:
                                                levels[c + 2] ^= b
                                    if mask & self._called_bit:
                                        self.revealed = True
                                    self.trick = combo
                                    self.trick_seat = seat
                                    self.trick_mask = mask
                                    self.passes = 0
                                    self._next_after_play(seat, hand.bit_count(), index)
                                    self.log.append(action)
                                    return []
                        v = self._play(seat, action, index)
                        if v is None:
                            self.log.append(action)
                            return []
                        return [v]
            elif seat == pending[0] and seat.__class__ is int and name == "announce":
                count = action.get("count")
                if count.__class__ is int and count == self.hands[seat].bit_count():
                    self.n_events += 1
                    self.log.append(action)
                    self.pending = None
                    return []
        return self._judge(action)

    def _judge(self, action: Action) -> list[Violation]:
        index = self.n_events
        self.n_events = index + 1
        if not isinstance(action, dict):
            return [violation("phase", "an event is an object with 'seat' and 'action'", "事件须含座位和动作")]
        seat, name = action.get("seat"), action.get("action")
        if not (seat.__class__ is int and 0 <= seat < SEATS) and not _seat_ok(seat):  # the common case first
            return [violation("turn", f"no such seat {seat!r} (0..3)", f"没有座位 {seat!r}（0..3）")]
        if self.finished:
            return [violation("finished", "the hand is over", "本局已结束")]
        due = self.pending
        if due is not None and name == "announce":
            self.log.append(action)
            v = self._announce(seat, action)  # type: ignore[arg-type]
            return [] if v is None else [v]
        handler = _HANDLERS.get(name)  # type: ignore[arg-type]
        if handler is None:
            return [violation("phase", f"unknown action {name!r}", f"未知动作 {name!r}")]
        self.pending = None
        v = handler(self, seat, action, index)
        if v is None and due is None:  # the common case: applied, nothing to report
            self.log.append(action)
            return []
        if v is not None and v.severity == "error":
            self.pending = due  # not applied: the count is still due before the next player acts
            return [v]
        out: list[Violation] = []
        if due is not None:  # an applied action came before the announcement
            p, count, at = due
            out.append(violation("count", f"seat {p} did not announce {count} card(s) left",
                          f"座位{p}未报剩余牌数（{count}张）", "warning", at, code="count_missed", seat=p, count=count))
        if v is not None:
            out.append(v)
        self.log.append(action)
        return out

    def _announce(self, seat: int, ev: Action) -> Violation | None:
        count = ev.get("count")
        left = self.hands[seat].bit_count()
        if self.pending is not None and self.pending[0] == seat:
            self.pending = None
            if count == left and not isinstance(count, bool):
                return None
            return violation("count", f"seat {seat} announced {count!r} but holds {left}",
                      f"座位{seat}报{count!r}张，实有{left}张", "warning", code="count_wrong", seat=seat, count=count, left=left)
        return violation("count", f"seat {seat} announced a count that was not due ({left} card(s) left)",
                  f"座位{seat}无需报牌数（剩{left}张）", "warning", code="count_not_due", seat=seat, left=left)

    def _phase_for_play(self, seat: int) -> Violation | None:
        if self.started and seat == self.turn:  # the common case, in play
            return None
        if self.call_due():
            return violation("phase", "the ♥4 holder must call a card before play starts",
                      "红桃四须先叫牌，才能出牌")
        if seat != self.to_play():
            whose = self.to_play()
            if seat not in self._active:
                return violation("turn", f"seat {seat} does not play this hand", f"座位{seat}本局不出牌", code="sits_out", seat=seat)
            return violation("turn", f"it is seat {whose}'s turn, not seat {seat}'s", f"轮到座位{whose}，不是座位{seat}", code="not_your_turn", seat=seat, due=whose)
        return None

    def _play(self, seat: int, ev: Action, index: int) -> Violation | None:
        v = self._phase_for_play(seat)
        if v is not None:
            return v
        cards = ev.get("cards")
        if not isinstance(cards, list) or not cards:
            return violation("combo", "a play needs a non-empty list of cards", "出牌须列出牌")
        try:  # cards named as records name them
            codes = [_CODE[x] for x in cards]
        except (KeyError, TypeError):
            codes = [combos.code_of(x) for x in cards]
            bad = next((x for x, c in zip(cards, codes, strict=True) if c is None), None)
            if bad is not None or None in codes:
                return violation("not_in_hand", f"{bad!r} is not a card", f"{bad!r} 不是一张牌")
        mask = 0
        for c in codes:
            mask |= 1 << c  # type: ignore[operator]
        hand = self.hands[seat]
        if mask.bit_count() != len(codes):
            return violation("not_in_hand", "a card is listed twice", "同一张牌列了两次")
        if mask & ~hand:
            missing = " ".join(combos.cards_of(mask & ~hand))
            return violation("not_in_hand", f"seat {seat} does not hold {missing}", f"座位{seat}手中没有 {missing}", code="not_in_hand", seat=seat, cards=missing.split())
        combo = ONE_RANK_PLAYS.get(mask)  # classify_mask, its look-up inlined
        if combo is None or combo.kind == combos.BOMB:
            s = self.settings
            combo = combos.classify_mask(mask, codes, bombs=s.bombs, min_pair_run=s.min_pair_run)  # type: ignore[arg-type]
        if combo is None:
            shown = " ".join(str(x) for x in cards)
            return violation("combo", f"{shown} is not a combination", f"{shown} 不是合法牌型")
        trick = self.trick
        if trick is not None and not combo.beats(trick):
            return violation("follow", f"{combo} does not beat {trick}", f"{combo.zh} 压不过 {trick.zh}")
        self._apply_play(seat, mask, combo, index)
        return None

    def _apply_play(self, seat: int, mask: int, combo: combos.Combo, index: int) -> None:
        if not self.started:
            self.started = True
            self._playing = True
            self.leader = seat
            self.requests.clear()  # unanswered 趴 requests count as refused
            self.turn = seat
        self.hands[seat] &= ~mask
        ranks = self._ranks[seat]
        if ranks is not None:
            self._ranks[seat] = list(_after_play(ranks, combo))  # type: ignore[arg-type]
        if combo.kind == _BOMB:
            self.bombs += 1
        if self.called is not None and mask >> self.called & 1:
            self.revealed = True
        self.trick, self.trick_seat, self.trick_mask, self.passes = combo, seat, mask, 0
        self._next_after_play(seat, self.hands[seat].bit_count(), index)

    def _next_after_play(self, seat: int, left: int, index: int) -> None:
        """What a play leads to: the hand's end, or the next seat's turn (and a count due)."""
        if self.baomen and seat != self.h4:
            self.interceptor = seat  # 爆闷 intercepted: the declarer lost
            self._finish(None)
        elif left == 0:
            self._finish(seat)
        else:
            self.turn = self._after[seat]
            if left <= self._announce_at:
                self.pending = (seat, left, index)

    def _pass(self, seat: int, ev: Action, index: int) -> Violation | None:
        v = self._phase_for_play(seat)
        if v is not None:
            return v
        if self.trick is None:
            return violation("lead_pass", f"seat {seat} leads and may not pass", f"座位{seat}首出，不能不出", code="lead_pass", seat=seat)
        self.passes += 1
        self.turn = self._next_active(seat)
        if self.passes >= len(self._active) - 1:
            self.trick, self.trick_mask = None, 0  # everyone else passed: the last player leads again
        return None

    def _closed(self, what: str, what_zh: str) -> Violation | None:
        if self.started:
            return violation("phase", f"{what} is not allowed once play has started", f"出牌开始后不能{what_zh}")
        if self.called is not None:
            return violation("phase", f"{what} is not allowed after the call", f"叫牌后不能{what_zh}")
        return None

    def _tiao(self, seat: int, ev: Action, index: int) -> Violation | None:
        v = self._closed("挑 (tiao)", "挑")
        if v is not None:
            return v
        if self.baomen:
            return violation("tiao", "no 挑 after a 爆闷", "爆闷之后不能挑")
        if seat in self.tiaos:
            return violation("tiao", f"seat {seat} has already declared 挑", f"座位{seat}已经挑过", code="tiao_again", seat=seat)
        if len(self.tiaos) >= 2:
            return violation("tiao", "two seats already duel (对挑): no third 挑", "已经对挑，不能再挑")
        self.tiaos.append(seat)
        self._refresh_active()
        return None

    def _baomen(self, seat: int, ev: Action, index: int) -> Violation | None:
        v = self._closed("爆闷 (baomen)", "爆闷")
        if v is not None:
            return v
        if seat != self.h4:
            return violation("baomen", "only the ♥4 holder may declare 爆闷", "只有红桃四可以爆闷")
        if self.baomen:
            return violation("baomen", "爆闷 is already declared", "已经宣布爆闷")
        self.baomen = True
        self.tiaos = []  # 爆闷 outranks everything: earlier 挑s are void
        self._refresh_active()
        return None

    def _call(self, seat: int, ev: Action, index: int) -> Violation | None:
        if self.started or self.called is not None or self.declared:
            why = "a card is already called" if self.called is not None else (
                "play has started" if self.started else f"this hand is {self.mode}: no call")
            why_zh = "已经叫过牌" if self.called is not None else (
                "已经开始出牌" if self.started else f"本局为{MODE_ZH[self.mode or 'normal']}，无需叫牌")
            return violation("phase", f"no call now: {why}", f"现在不能叫牌：{why_zh}")
        if seat != self.h4:
            return violation("call", f"only the ♥4 holder (seat {self.h4}) calls", f"只有红桃四（座位{self.h4}）叫牌", code="h4_only", seat=self.h4)
        card = ev.get("card")
        code = combos.code_of(card) if isinstance(card, str) else None
        if code is None or code not in CALLABLE:
            return violation("call", f"cannot call {card!r}: call one card of rank 4..10, not ♥4",
                      f"不能叫 {card!r}：只能叫4到10中的一张，且不能叫红桃四", code="call_card", card=card)
        self.called = code
        self._called_bit = 1 << code
        holder = next((s for s, m in enumerate(self.dealt) if m >> code & 1), None)
        self.partner = holder
        self.anjiao = holder is None or holder == self.h4
        return None

    def _talk_closed(self, what: str, what_zh: str) -> Violation | None:
        if self.started:
            return violation("phase", f"{what} is not allowed once play has started", f"出牌开始后不能{what_zh}")
        if self.declared:
            return violation("pa", f"no 趴 in {self.mode}", f"{MODE_ZH[self.mode or 'normal']}中不能喊趴")
        if self.called is None:
            return violation("phase", f"{what} comes after the call", f"叫牌之后才能{what_zh}")
        return None

    def _pa(self, seat: int, ev: Action, index: int) -> Violation | None:
        v = self._talk_closed("趴 (pa)", "喊趴")
        if v is not None:
            return v
        target = ev.get("target")
        if seat in self.lying:
            return violation("pa", f"seat {seat} lies down and cannot ask", f"座位{seat}已趴下，不能喊趴", code="pa_lying", seat=seat)
        if not _seat_ok(target):
            return violation("pa", f"趴 needs a target seat 0..3, got {target!r}", f"喊趴须指定座位0..3，而非 {target!r}")
        if target == seat:
            return violation("pa", "a player cannot ask themself to lie down", "不能喊自己趴")
        if self.exposed:
            return violation("pa", "暗叫 is exposed: nobody lies down", "暗叫已被戳穿，不能趴")
        if not self.teammates(seat, target):
            return violation("pa", f"seat {target} is not seat {seat}'s teammate", f"座位{target}不是座位{seat}的队友", code="pa_not_teammate", seat=seat, target=target)
        if target in self.lying:
            return violation("pa", f"seat {target} already lies down", f"座位{target}已经趴下", code="pa_target_lying", target=target)
        if seat in self.asked:
            return violation("pa", f"seat {seat} has already asked", f"座位{seat}已经喊过趴", code="pa_asked", seat=seat)
        self.asked.add(seat)
        self.requests[seat] = target
        return None

    def _answer(self, seat: int, accept: bool) -> Violation | None:
        v = self._talk_closed("answering 趴", "回应趴")
        if v is not None:
            return v
        asker = next((a for a, t in self.requests.items() if t == seat), None)
        if asker is None or seat in self.lying:
            return violation("pa", f"nobody asked seat {seat} to lie down", f"没有人喊座位{seat}趴", code="pa_nobody_asked", seat=seat)
        del self.requests[asker]
        if not accept:
            return None
        self.revealed = True
        if self.anjiao:  # 暗叫被戳穿: 暗叫明打, and since 暗叫 outranks 趴 nobody lies down
            self.exposed = True
            self.requests.clear()
            return None
        self.lying.add(seat)
        self.requests.pop(seat, None)
        self._refresh_active()
        return None

    def _pa_accept(self, seat: int, ev: Action, index: int) -> Violation | None:
        return self._answer(seat, True)

    def _pa_refuse(self, seat: int, ev: Action, index: int) -> Violation | None:
        return self._answer(seat, False)

    # ------------------------------------------------------------------ the end
    def _finish(self, out_seat: int | None) -> None:
        self.finished = True
        self._playing = False
        self.first_out = out_seat
        self.trick = None
        mode = self.mode
        sides = self.sides()
        if mode is None or sides is None:  # no ♥4 in an incomplete record: nothing to settle
            self.winners = [out_seat] if out_seat is not None else []
            self.scores = [0] * SEATS
            return
        if out_seat is None:  # 爆闷 intercepted
            self.winners = [s for s in range(SEATS) if s != self.h4]
        else:
            self.winners = list(next(t for t in sides if out_seat in t))
        self.scores = settle(mode, teams=sides, winners=self.winners,
                             multiplier=multiplier(self.bombs, self.settings),
                             lone_has_h4=self.lone() == self.h4)

    @property
    def next_first_seat(self) -> int | None:
        if not self.finished:
            return None
        return self.first_out if self.first_out is not None else self.interceptor

    def verdict(self) -> dict[str, Any]:
        mode = self.mode
        return {
            "game": "hongsi",
            "mode": mode,
            "exposed": self.exposed,
            "h4_holder": self.h4,
            "called": combos.CARD_NAMES[self.called] if self.called is not None else None,
            "partner": self.partner if mode in ("normal", "pa", "dui_pa") else None,
            "teams": self.sides(),
            "lying_down": sorted(self.lying),
            "spectators": self.spectators,
            "leader": self.leader,
            "finished": self.finished,
            "first_out": self.first_out if self.finished else None,
            "winners": self.winners if self.finished else None,
            "bombs": self.bombs,
            "multiplier": multiplier(self.bombs, self.settings),
            "scores": self.returns(),
            "next_first_seat": self.next_first_seat,
        }

    def seat_dealt(self, seat: int) -> list[str]:
        return combos.cards_of(self.dealt[seat])

    def public_view(self, seat: int | None = None) -> dict[str, Any]:
        """What ``seat`` (``None``: a spectator) may see. Never another seat's cards.

        The called card is public (it is announced); who holds it is not, until it is played or a 趴 is
        accepted — so ``mode`` and ``partner`` stay null for others while 普通/暗叫 are undecided."""
        mode = self.mode
        # the caller knows whether it called its own card (暗叫), not who holds the card it called
        knows = self.revealed or self.exposed or (seat is not None and seat == self.partner and not self.anjiao)
        caller = seat is not None and seat == self.h4 and not knows
        secret = mode in ("normal", "anjiao") and not knows and not caller
        phase = ("finished" if self.finished else "play" if self.started
                 else "declare" if self.called is None and not self.declared else "talk")
        view: dict[str, Any] = {
            "game": "hongsi",
            "phase": phase,
            "to_act": self.current_player(),
            "turn": None if self.finished else (self.h4 if self.call_due() else self.to_play()),
            "h4_holder": self.h4,
            "tiao": list(self.tiaos),
            "baomen": self.baomen,
            "mode": None if secret else mode,
            "called": combos.CARD_NAMES[self.called] if self.called is not None else None,
            "partner": None if secret or caller or mode not in ("normal", "pa", "dui_pa") else self.partner,
            "exposed": self.exposed,
            "lying_down": sorted(self.lying),
            "spectators": self.spectators,
            "pa_requests": [{"seat": a, "target": t} for a, t in sorted(self.requests.items())],
            "counts": [m.bit_count() for m in self.hands],
            "leader": self.leader,
            # whether anyone may still declare or talk (挑, 爆闷, the call, 趴) before the first play
            "talk_open": not (self.finished or self.started or self.baomen or len(self.tiaos) == 2 or self.exposed),
            # who leads the first trick, as the declarations and 趴 have it so far (public facts only)
            "first_leader": self.leader if self.started else None if self.h4 is None else self.first_leader(),
            "trick": None if self.trick is None else {
                "seat": self.trick_seat, "cards": combos.cards_of(self.trick_mask), "combo": str(self.trick),
                "passes": self.passes},
            "announce_due": None if self.pending is None else {"seat": self.pending[0], "count": self.pending[1]},
            "bombs": self.bombs,
            "events": [dict(e) for e in self.log],
            "finished": self.finished,
        }
        if self.finished:
            view.update(first_out=self.first_out, winners=self.winners, scores=self.returns(),
                        next_first_seat=self.next_first_seat, mode=mode,
                        partner=self.partner if mode in ("normal", "pa", "dui_pa") else None)
        if seat is not None and _seat_ok(seat):
            view["seat"] = seat
            view["hand"] = combos.cards_of(self.hands[seat])
        return view


_HANDLERS = {
    "play": HongsiState._play,
    "pass": HongsiState._pass,
    "tiao": HongsiState._tiao,
    "baomen": HongsiState._baomen,
    "call": HongsiState._call,
    "pa": HongsiState._pa,
    "pa_accept": HongsiState._pa_accept,
    "pa_refuse": HongsiState._pa_refuse,
    "announce": lambda self, seat, ev, index: self._announce(seat, ev),
}
