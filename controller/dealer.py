"""The deal, top to bottom: plan → shuffle → home → for each card: read, rotate, eject, confirm,
journal → decode the whole deal → announce the first player → the game record.

Using it (the table service and ``hongsi deal`` both do exactly this)::

    from controller.dealer import Dealer, EventOperator
    dealer = Dealer(rig, camera, reader, journal, config=cfg, voice=voice, panel=lights,
                    operator=EventOperator())
    result = dealer.run(game="hongsi", first_seat=None, fair=True, on_event=callback)
    result.status          # "done" | "stopped" (bad deck: result.problems, .message, .message_zh) | "void"
    result.record          # the game record of game-record.md, events [] (hands, bottom, preset, deal)
    result.first_player    # announce.FirstPlayer (seat, card, rule, text_en, text_zh) or None
    dealer.resume(round_id, on_event=callback)   # after a crash / kill -9: re-read, check, continue
    dealer.void(round_id)                        # end an interrupted hand (for a re-shuffle)
    dealer.reveal(round_id) -> proof dict        # after the hand: the fair-deal seed, for verify-deal
    dealer.estop()                               # from any thread: motors off, the deal pauses
    Dealer.open_round(journal) -> round id | None  # an interrupted (or still dealing) round

``run(..., round_=rid)`` deals into a round the caller already opened with ``journal.new_round``.

**Events** passed to ``on_event`` (plain dicts, public information only — never a card's identity,
hands are secret until the hand is over)::

    {"type": "deal_started", "round": r, "game": g, "total": n, "seats": k, "cards_per_seat": [...],
     "bottom": b, "first_seat": s, "fair": bool, "commitment": hex | None}
    {"type": "shuffling", "round": r, "passes": p}
    {"type": "homing", "round": r}
    {"type": "card_dealt", "round": r, "index": i, "seat": s | None (None = the bottom tray),
     "total": n, "counts": [cards per seat so far], "unsure": bool}
    {"type": "double_feed", "round": r, "index": i, "seat": s}       (two cards went to seat s)
    {"type": "fault", "round": r, "kind": "mcu" | "link", "message": en, "message_zh": zh}  (handled
     without a person: reconnect, re-home, resume from the journal)
    {"type": "paused", "round": r, "reason": "jam" | "camera" | "link" | "estop" | "fault" | "mismatch",
     "message": en, "message_zh": zh}      (waiting for the operator: ``operator.attend``)
    {"type": "resumed", "round": r}
    {"type": "deal_stopped", "round": r, "message": en, "message_zh": zh, "problems": [...]}
    {"type": "first_player", "round": r, "seat": s, "seat_label": s + 1, "card": "H4" | None,
     "rule": ..., "text": en, "text_zh": zh}
    {"type": "deal_done", "round": r, "status": "done" | "stopped" | "void", "flags": [...]}

The operator: a fault that needs a person (a latched jam, a camera that stays dark, an e-stop) calls
``operator.attend(problem) -> "resume" | "void"``. :class:`EventOperator` waits for
``.resolve("resume" | "void")`` from another thread (the service's buttons); :class:`AutoOperator`
clears after a delay (virtual rig, unattended runs); :class:`ConsoleOperator` asks on the terminal.

**Journal rows** (``kind``: data), written *before* each motion (intent) and *after* it (result):
``deal_plan``, ``shuffle_intent``/``shuffle_done``, ``home_intent``/``home_done``,
``card_read`` (index, label, confidence, unsure, probs; image = the evidence crop),
``rotate_intent``/``rotate_done``, ``eject_intent``/``eject_done`` (index, seat, pulse_ms),
``double_feed``, ``fault``, ``pause``/``resume_after_pause``, ``interrupted``, ``resumed``,
``resync``, ``decoded``, ``first_player``, ``reveal``; a good deal ends with ``deal_end`` (the record;
the round stays open for the play, whose end the service journals as ``round_end``), a stopped or
voided one with ``round_end`` (status ``stopped``/``void``).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

import cv2
import numpy as np

from controller import fair_deal
from controller.announce import FirstPlayer, Voice, and_list, first_player
from controller.camera import Camera, CameraError
from controller.journal import Journal, owner_fields
from controller.plan import BOTTOM, Plan, deck_text, make_plan, rebalance_after_double_feed
from vision.labels import LABELS

OnEvent = Callable[[dict[str, Any]], None]

FRAMES_PER_READ = 3          # frames voted over for one card
MORE_FRAMES = 3              # extra frames for a card the first vote could not read
DOUBTFUL = 0.60              # below this (or declined) the card is looked at again with more frames
SURE = 0.90                  # below this a read is marked "unsure" and left to deck decoding
CAMERA_RETRIES = 4           # fresh-frame attempts before the deal pauses for the operator
DOUBLE_FEED_FACTOR = 1.7     # a pulse this many times the median is two cards
WRONG_DECK_AT = 5            # this many cards more or fewer than the deal needs: the wrong deck, not a lost card


class DealVoided(Exception):
    """The operator voided the hand."""


# ---------------------------------------------------------------------------------------- operator
class Operator(Protocol):
    def attend(self, problem: dict[str, Any]) -> str:
        """A person fixes ``problem`` (message, message_zh, reason); answer ``resume`` or ``void``."""


class AutoOperator:
    """Clears every fault after ``delay`` seconds (the virtual rig; unattended runs). Gives up with
    ``void`` after ``limit`` problems in one deal.

    A problem that needs someone to look at dealt cards (``problem["place"]``: which cards each place
    must hold, after double feeds carried cards past the camera) cannot be cleared by waiting: without
    ``place`` it is declined (``void``) rather than guessed. ``place(problem)`` is the simulated
    person's hands (the virtual rig, which knows where every card is, puts them as asked)."""

    def __init__(self, delay: float = 0.0, limit: int = 50,
                 place: Callable[[dict[str, Any]], None] | None = None):
        self.delay, self.limit, self.seen, self.place = delay, limit, 0, place

    def attend(self, problem: dict[str, Any]) -> str:
        self.seen += 1
        time.sleep(self.delay)
        if self.seen > self.limit:
            return "void"
        if problem.get("place") is not None:
            if self.place is None:
                return "void"
            self.place(problem)
        return "resume"


class EventOperator:
    """Waits for :meth:`resolve` from another thread (the service's operator page)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._answer: str | None = None
        self.problem: dict[str, Any] | None = None

    def expect(self, problem: dict[str, Any]) -> None:
        """The deal is about to pause for ``problem``: from now on it is waiting, and an answer given
        before :meth:`attend` is called (the moment the ``paused`` event is seen) is kept."""
        with self._cond:
            self.problem, self._answer = problem, None

    def attend(self, problem: dict[str, Any]) -> str:
        with self._cond:
            if self.problem is not problem:  # not announced by expect(): a fresh wait
                self.problem, self._answer = problem, None
            while self._answer is None:
                self._cond.wait()
            answer, self.problem = self._answer, None
            return answer

    def resolve(self, answer: str = "resume") -> None:
        if answer not in ("resume", "void"):
            raise ValueError(f"answer {answer!r}: resume or void")
        with self._cond:
            self._answer = answer
            self._cond.notify_all()

    @property
    def waiting(self) -> bool:
        return self.problem is not None


class ConsoleOperator:
    """Asks on the terminal: Enter resumes, ``void`` ends the hand."""

    def attend(self, problem: dict[str, Any]) -> str:
        import sys

        sys.stderr.write(f"\n{problem['message']}\n{problem['message_zh']}\n"
                         "Fix it, then press Enter to resume (or type 'void' to end the hand): ")
        sys.stderr.flush()
        line = sys.stdin.readline()
        return "void" if line.strip().lower() == "void" else "resume"


# ---------------------------------------------------------------------------------------- results
@dataclass
class DealResult:
    round: int
    status: str                       # done | stopped | void
    record: dict[str, Any] | None = None
    first_player: FirstPlayer | None = None
    problems: list[str] = field(default_factory=list)
    message: str = ""
    message_zh: str = ""
    flags: list[str] = field(default_factory=list)


@dataclass
class DealState:
    """What the journal says about one round's deal (rebuilt from it after a crash)."""

    round: int
    plan: Plan
    reads: dict[int, dict[str, Any]] = field(default_factory=dict)     # index -> card_read data
    dealt: dict[int, int] = field(default_factory=dict)                # index -> seat (BOTTOM)
    pending: dict[str, Any] | None = None                              # an eject_intent without result
    shuffled: bool = False
    flags: list[str] = field(default_factory=list)
    pulses: list[float] = field(default_factory=list)
    baseline: dict[str, Any] | None = None    # the MCU's boot id and eject counter at a known point
    misplaced: dict[int, int] = field(default_factory=dict)  # double-fed card -> where it belonged
    doubles_open: dict[int, dict[str, Any]] = field(default_factory=dict)  # two cards left, not yet journaled
    placed: dict[int, str] = field(default_factory=dict)     # unseen card -> label the operator confirmed
    ghost_rows: dict[int, set[str]] = field(default_factory=dict)  # unseen card -> its rows still to write

    @property
    def next_index(self) -> int:
        return len(self.dealt)

    def counts(self) -> list[int]:
        c = Counter(s for s in self.dealt.values() if s != BOTTOM)
        return [c.get(s, 0) for s in range(self.plan.seats)]

    @classmethod
    def from_journal(cls, journal: Journal, round_: int) -> DealState:
        rows = journal.rows(round_)
        plan_row = next((r for r in rows if r.kind == "deal_plan"), None)
        if plan_row is None:
            raise ValueError(f"round {round_} has no deal plan in the journal: it cannot be resumed")
        st = cls(round_, Plan.from_json(plan_row.data["plan"]))
        done_doubles: set[int] = set()
        before: dict[int, list[int]] = {}     # an older journal's order row of an unfinished double feed
        for r in rows:
            d = r.data
            if r.kind == "shuffle_done":
                st.shuffled = True
            elif r.kind == "card_read":
                st.ghost_rows.get(d["index"], set()).discard("card_read")
                if not st.reads.get(d["index"], {}).get("ghost"):
                    st.reads[d["index"]] = {**d, "image": r.image}
            elif r.kind == "eject_intent":
                st.pending = d
            elif r.kind == "fault" and d.get("kind") == "DoubleFeed" and st.pending is not None:
                # the rig reports a double feed once both cards have passed the exit: the eject happened
                i = st.pending["index"]
                st.doubles_open[i] = {"index": i, "seat": st.pending["seat"], "pulse_ms": d.get("pulse_ms")}
                st.pending = None
            elif r.kind == "eject_done":
                i, pulse = d["index"], d.get("pulse_ms")
                st.ghost_rows.get(i, set()).discard("eject_done")
                # older journals have no "double": the long-pulse test the dealer made then, made again
                double = d["double"] if "double" in d else (
                    not d.get("inferred") and _long_pulse(float(pulse) if pulse else None, st.pulses))
                if (double or i in st.doubles_open) and i not in done_doubles:
                    st.doubles_open[i] = {"index": i, "seat": d["seat"], "pulse_ms": pulse}
                st.dealt[i] = d["seat"]
                if pulse:
                    st.pulses.append(float(pulse))
                if st.pending and st.pending["index"] == i:
                    st.pending = None
            elif r.kind == "order":
                reason = str(d.get("reason", ""))
                if reason.startswith("double feed at card "):
                    before.setdefault(int(reason.rsplit(" ", 1)[1]) - 1, list(st.plan.order))
                st.plan.order = list(d["order"])
            elif r.kind == "double_feed":
                # the whole double feed in one row: the order after it, the unseen card and its seat
                i, seat = d["index"], d["seat"]
                j = int(d.get("ghost", i + 1))
                st.doubles_open.pop(i, None)
                done_doubles.add(i)
                if d.get("order") is not None:
                    st.plan.order = list(d["order"])
                st.flags.append(d["flag"])
                st.misplaced = {int(k): v for k, v in (d.get("misplaced") or {}).items()}
                st.reads[j] = _ghost(j)
                st.dealt[j] = seat
                st.ghost_rows[j] = {"card_read", "eject_done"}
                if st.pending and st.pending["index"] == i:
                    st.pending = None
            elif r.kind == "placed":
                st.placed.update({int(k): v for k, v in d["cards"].items()})
                st.flags.append(d["flag"])
            elif r.kind == "mcu_baseline":
                st.baseline = d
        st.ghost_rows = {j: rows_ for j, rows_ in st.ghost_rows.items() if rows_}
        for i in st.doubles_open:
            if i in before:               # that order row was the double feed's first step: it is redone
                st.plan.order = before[i]
        return st


# ---------------------------------------------------------------------------------------- the dealer
class Dealer:
    """Deals one hand at a time on a rig, reading every card; see the module's docstring."""

    def __init__(self, rig: Any, camera: Camera, reader: Any, journal: Journal, *, config: Any = None,
                 voice: Voice | None = None, panel: Any = None, operator: Operator | None = None,
                 frames_per_read: int = FRAMES_PER_READ, camera_timeout: float = 2.0, skip: int = 1):
        self.rig, self.camera, self.reader, self.journal = rig, camera, reader, journal
        self.config, self.voice, self.panel = config, voice, panel
        self.operator: Operator = operator or AutoOperator()
        self.frames_per_read = frames_per_read
        self.camera_timeout = camera_timeout
        self.skip = skip                      # frames dropped after a motion (they may show the last card)
        self._estop = threading.Event()
        self._motion = ThreadPoolExecutor(1, thread_name_prefix="rig-motion")
        self._on_event: OnEvent = lambda ev: None
        self._round = 0
        self._at: int | str | None = None     # where the turntable points (None: unknown)
        self._tagged = False                  # the camera tags frames by scene change
        self._last_tag: int | None = None     # the tag of the frames of the last read
        self._eject_tag: int | None = None    # the tag of the card just ejected

    def close(self) -> None:
        self._motion.shutdown(wait=True)

    # ------------------------------------------------------------------ the flow
    def run(self, game: str = "hongsi", *, first_seat: int | None = None, fair: bool = True,
            preset: str | None = None, rules: dict[str, Any] | None = None, on_event: OnEvent | None = None,
            round_: int | None = None, previous_winner: int | None = None) -> DealResult:
        """Shuffle and deal one whole hand; return its result (``status`` done, stopped or void)."""
        plan = make_plan(game, first_seat=first_seat, previous_winner=previous_winner, fair=fair,
                         preset=preset, rules=rules)
        if round_ is None:
            round_ = self.journal.new_round({"game": game, "first_seat": plan.first_seat, "fair_deal": fair})
        self.journal.append(round_, "deal_plan", {"plan": plan.to_json(), "commitment": plan.commitment})
        state = DealState(round_, plan)
        self._begin(state, on_event)
        self._emit("deal_started", game=game, total=plan.total, seats=plan.seats,
                   cards_per_seat=list(plan.cards_per_seat), bottom=plan.bottom, first_seat=plan.first_seat,
                   fair=fair, commitment=plan.commitment)
        return self._guarded(state, fresh=True)

    def resume(self, round_: int, on_event: OnEvent | None = None) -> DealResult:
        """Continue an interrupted round from the journal: reconnect, home, re-read the card at the
        window, check it against the journal, and deal the rest."""
        state = DealState.from_journal(self.journal, round_)
        self.journal.append(round_, "resumed", {**owner_fields(), "dealt": state.next_index})
        self._begin(state, on_event)
        self._emit("resumed", dealt=state.next_index, total=state.plan.total)
        return self._guarded(state, fresh=False)

    def void(self, round_: int, reason: str = "voided by the operator") -> DealResult:
        """End a hand without a record (the cards go back for a re-shuffle)."""
        self.journal.append(round_, "round_end", {"status": "void", "reason": reason})
        return DealResult(round_, "void", message=f"Hand {round_} voided: collect every card and deal again.",
                          message_zh=f"第{round_}局作废：请收回所有牌，重新洗牌发牌。")

    def reveal(self, round_: int) -> dict[str, Any] | None:
        """After the hand: journal and return the fair-deal proof (seed, commitment, seats)."""
        state = DealState.from_journal(self.journal, round_)
        if state.plan.seed is None:
            return None
        seats = [state.dealt.get(i, BOTTOM) for i in range(state.plan.total)]
        proof = fair_deal.make_proof(state.plan.seed, state.plan.cards_per_seat, state.plan.bottom, seats)
        self.journal.append(round_, "reveal", {"proof": proof})
        return proof

    def estop(self) -> None:
        """Emergency stop from any thread: motors off now; the deal pauses for the operator."""
        self._estop.set()
        try:
            self.rig.estop()
        except Exception:  # noqa: BLE001 - the flag alone stops the deal loop
            pass

    @staticmethod
    def open_round(journal: Journal) -> int | None:
        """The latest round that was interrupted (or is still dealing), if any."""
        return journal.last_open_round()

    # ------------------------------------------------------------------ steps
    def _begin(self, state: DealState, on_event: OnEvent | None) -> None:
        self._round = state.round
        self._on_event = on_event or (lambda ev: None)
        self._estop.clear()
        self._at = None

    def _guarded(self, state: DealState, fresh: bool) -> DealResult:
        try:
            self._clear_host_silent(state)    # before anything moves, the shuffle too
            if not state.shuffled:
                self._shuffle(state)
            self._connect_and_home(state, check_window=not fresh)
            self._deal_cards(state)
            return self._finish(state)
        except DealVoided as exc:
            result = self.void(state.round, str(exc))
            result.message = f"{result.message} ({exc})"
            self._emit("deal_done", status="void", flags=state.flags)
            return result

    def _shuffle(self, state: DealState) -> None:
        passes = int(getattr(self.config, "shuffle_passes", 7))
        self._emit("shuffling", passes=passes)
        self._move(state, "shuffle", {"passes": passes}, lambda: self.rig.shuffle(passes))
        state.shuffled = True

    def _clear_host_silent(self, state: DealState) -> None:
        """The controller was gone (a crash, kill -9): the MCU stopped safely and latched "host
        silent". That is the expected failsafe, not a fault for a person: clear it and go on."""
        if self._status().get("fault") == "host silent":
            self.journal.append(state.round, "fault", {"kind": "host silent", "during": "restart"})
            self._clear_fault()

    def _connect_and_home(self, state: DealState, check_window: bool) -> None:
        self._emit("homing")
        self._move(state, "home", {}, self.rig.home)
        self._at = None
        self._finish_double_feeds(state)
        if check_window or state.pending is not None:
            self._resync(state)
        else:
            self._baseline(state)

    def _finish_double_feeds(self, state: DealState) -> None:
        """Interrupted in the middle of a double feed (its ``fault`` or ``eject_done`` row says two
        cards left; its ``double_feed`` row is missing): journal the rest of it before the window is
        checked (the window shows the card after the unseen one)."""
        for j, missing in sorted(state.ghost_rows.items()):   # its unseen card's own rows, for the record
            if "card_read" in missing:
                self.journal.append(state.round, "card_read", state.reads[j])
            if "eject_done" in missing:
                self._card_out(state, j, state.dealt[j], None, inferred=True)
        state.ghost_rows.clear()
        for d in sorted(state.doubles_open.values(), key=lambda d: d["index"]):
            i, seat, pulse = d["index"], d["seat"], d.get("pulse_ms")
            pulse = float(pulse) if pulse else None
            if i not in state.dealt:
                self._card_out(state, i, seat, pulse, double=True)
            self._double_feed(state, i, seat, pulse)

    def _baseline(self, state: DealState) -> None:
        """Journal the MCU's boot id and eject counter with the number of cards dealt: after a crash,
        the counter tells whether an eject in flight happened (even for two identical cards)."""
        st = self._status()
        if isinstance(st.get("ejects"), int) and st.get("boot_id") is not None:
            state.baseline = {"boot_id": st["boot_id"], "ejects": st["ejects"], "dealt": len(state.dealt)}
            self.journal.append(state.round, "mcu_baseline", state.baseline)

    def _deal_cards(self, state: DealState) -> None:
        """The card loop. The next card's read overlaps the rotation to its seat."""
        plan = state.plan
        while state.next_index < plan.total:
            i = state.next_index
            self._check_estop(state)
            seat = plan.order[i]
            rotation = self._rotate_async(state, i, seat)
            reading = state.reads.get(i) or self._read_card(state, i)
            self._wait_rotation(state, rotation, i, seat)
            if reading.get("empty"):
                state.reads.pop(i, None)
                return                      # the hopper ran out early: a short deck, decoding names it
            self._eject(state, i, seat)
        self._check_leftover(state)

    def _eject(self, state: DealState, i: int, seat: int) -> None:
        label = state.reads[i].get("label")
        self.journal.append(state.round, "eject_intent", {"index": i, "seat": seat, "label": label})
        state.pending = {"index": i, "seat": seat, "label": label}
        try:
            evidence = self.rig.eject()
        except Exception as exc:  # noqa: BLE001 - every rig fault is sorted out below
            self._rig_fault(state, exc, during=f"ejecting card {i + 1}")
            return
        pulse = _pulse_ms(evidence)
        double = _long_pulse(pulse, state.pulses)   # the rig raises DoubleFeed; this is a second opinion
        self._card_out(state, i, seat, pulse, double=double)
        if double:
            self._double_feed(state, i, seat, pulse)

    def _card_out(self, state: DealState, i: int, seat: int, pulse: float | None, inferred: bool = False,
                  double: bool = False) -> None:
        """Journal card ``i`` as gone to ``seat``. ``double``: a second card went with it (the row says
        so, so a crash before the double feed's own row still knows)."""
        self.journal.append(state.round, "eject_done", {"index": i, "seat": seat, "pulse_ms": pulse,
                                                        "inferred": inferred, "double": double})
        if double:
            state.doubles_open[i] = {"index": i, "seat": seat, "pulse_ms": pulse}
        self._eject_tag = self._last_tag      # the next read must show a later scene than this card's
        state.dealt[i] = seat
        state.pending = None
        if pulse:
            state.pulses.append(pulse)
        self._emit("card_dealt", index=i, seat=None if seat == BOTTOM else seat, total=state.plan.total,
                   counts=state.counts(), unsure=bool(state.reads.get(i, {}).get("unsure")))

    def _double_feed(self, state: DealState, i: int, seat: int, pulse: float | None) -> None:
        """Card ``i`` took the unread card behind it along to the same seat. Record that card (identity
        from deck decoding), keep every seat's count right, and flag the deal for the operator.

        One ``double_feed`` row holds all of it (the new order, the unseen card ``j`` and its seat), so
        a crash after any row of a double feed resumes knowing where both cards went. After the last
        planned card, the card taken along is one too many: journaled the same way, and the deal is
        stopped by :meth:`_finish` (the seat's count, and decoding, name it)."""
        j = i + 1
        extra = j >= state.plan.total
        misplaced = dict(state.misplaced)
        if extra:
            new_order = list(state.plan.order)
            flag = f"double feed: card {i + 1} took a card too many along to {_where(seat)}"
        else:
            planned = state.plan.order[j]
            new_order = rebalance_after_double_feed(state.plan.order, j, seat)
            flag = f"double feed: cards {i + 1} and {j + 1} both went to {_where(seat)}"
            if Counter(new_order) != Counter(fair_deal.slots(state.plan.cards_per_seat, state.plan.bottom)):
                flag += f" (card {j + 1} belongs to {_where(planned)})"
                misplaced[j] = planned
        self.journal.append(state.round, "double_feed", {"index": i, "seat": seat, "pulse_ms": pulse,
                                                         "flag": flag, "misplaced": misplaced, "ghost": j,
                                                         "order": new_order, "extra": extra})
        state.plan.order, state.misplaced = new_order, misplaced
        state.doubles_open.pop(i, None)
        state.flags.append(flag)
        ghost = _ghost(j)
        self.journal.append(state.round, "card_read", ghost)
        state.reads[j] = ghost
        self._emit("double_feed", index=i, seat=None if seat == BOTTOM else seat)
        self._card_out(state, j, seat, None, inferred=True)
        self._baseline(state)

    def _finish(self, state: DealState) -> DealResult:
        """Deck-consistency decoding, the checks, the first player, the record."""
        plan = state.plan
        labels, problems = self._decode(state)
        if abs(len(labels) - plan.total) >= WRONG_DECK_AT:  # one line, not a list of every card short
            return self._stop(state, [wrong_deck(len(labels), plan)])
        hands: list[list[str]] = [[] for _ in range(plan.seats)]
        bottom: list[str] = []
        for i in sorted(state.dealt):
            (bottom if state.dealt[i] == BOTTOM else hands[state.dealt[i]]).append(labels[i] or "?")
        sizes_wrong = False
        for s, hand in enumerate(hands):
            if len(hand) != plan.cards_per_seat[s]:
                problems.append(f"seat {s + 1} has {len(hand)} cards, not {plan.cards_per_seat[s]}")
                sizes_wrong = True
        if len(bottom) != plan.bottom:
            problems.append(f"the bottom has {len(bottom)} cards, not {plan.bottom}")
            sizes_wrong = True
        if sizes_wrong:
            for j, belongs in state.misplaced.items():   # no later slot could even out a double feed
                problems.append(f"a double feed put {labels[j]} at {_where(state.dealt[j])} but it belongs to "
                                f"{_where(belongs)}")
        if problems:
            return self._stop(state, problems)
        for group in self._unseen_doubts(state, labels):
            self._have_checked(state, group, labels)   # a person makes the table match, or voids
        record: dict[str, Any] = {"game": plan.game, "hands": hands, "bottom": bottom, "events": [],
                                  "deal": {"round": state.round, "fair": plan.fair, "first_seat": plan.first_seat,
                                           "commitment": plan.commitment, "flags": list(state.flags)}}
        if plan.preset:
            record["preset"] = plan.preset
        if plan.rules:
            record["rules"] = dict(plan.rules)
        fp = first_player(plan.game, hands, bottom, dealer=plan.first_seat)
        self.journal.append(state.round, "first_player", fp.to_event())
        self._announce(fp)
        self.journal.append(state.round, "deal_end", {"status": "done", "record": record,
                                                       "first_player": fp.seat, "flags": state.flags})
        self._emit("deal_done", status="done", flags=state.flags)
        return DealResult(state.round, "done", record, fp, flags=list(state.flags),
                          message=fp.text_en, message_zh=fp.text_zh)

    def _stop(self, state: DealState, problems: list[str]) -> DealResult:
        message = ("The deal is stopped, not a good deal: " + "; ".join(problems)
                   + ". Collect every card, check the deck (fix what is named), and deal again.")
        message_zh = ("发牌已停止，本局无效：" + "；".join(_zh(p) for p in problems)
                      + "。请收回所有牌，检查整副牌（按上述补齐或取出），然后重新发牌。")
        self.journal.append(state.round, "round_end", {"status": "stopped", "problems": problems,
                                                       "message": message})
        self._emit("deal_stopped", message=message, message_zh=message_zh, problems=problems)
        self._emit("deal_done", status="stopped", flags=state.flags)
        if self.voice is not None:
            self.voice.say("发牌有误，本局作废，请检查牌", "The deal has an error; check the deck.")
        return DealResult(state.round, "stopped", None, None, problems, message, message_zh, list(state.flags))

    def _announce(self, fp: FirstPlayer) -> None:
        if self.voice is not None:
            self.voice.say(fp.text_zh, fp.text_en)
        if self.panel is not None:
            try:
                self.panel.light(fp.seat)
            except Exception:  # noqa: BLE001 - the LEDs are a courtesy; the event and voice still go out
                pass
        try:
            self.rig.rotate_to(fp.seat)       # the turntable points at the first player
            self._at = fp.seat
        except Exception:  # noqa: BLE001
            self._at = None
        self._emit("first_player", **{k: v for k, v in fp.to_event().items() if k != "type"})

    # ------------------------------------------------------------------ reading
    def _read_card(self, state: DealState, i: int) -> dict[str, Any]:
        """Read the card at the window and journal it as card ``i`` (with its evidence crop)."""
        data, jpeg = self._look(state, i)
        if not data.get("empty"):
            self._record_read(state, data, jpeg)
        return data

    def _look(self, state: DealState, i: int, check: bool = False) -> tuple[dict[str, Any], bytes | None]:
        """Vote over fresh frames; more frames if unsure; ``empty`` when the hopper has no card.

        Right after an eject, a camera that tags its frames by scene change (the virtual rig's
        X-Frame-Seq) is asked for frames tagged after the ejected card's; other cameras drop ``skip``
        frames that may have been in flight. A ``check`` (after a fault) drops a few more."""
        newer, self._eject_tag = self._eject_tag, None
        if check:
            frames = self._frames(state, self.frames_per_read, skip=self.skip + 2)
        elif newer is not None:
            frames = self._frames(state, self.frames_per_read, skip=0, newer_than=newer)
        else:
            frames = self._frames(state, self.frames_per_read, skip=0 if self._tagged else self.skip)
        tags = [f.tag for f in frames if getattr(f, "tag", None) is not None]
        self._tagged = bool(tags)
        self._last_tag = max(tags) if tags else None
        reading = self._vote(frames)
        if self._empty(reading):
            return {"index": i, "empty": True}, None
        if reading.label is None or reading.confidence < DOUBTFUL:
            frames = frames + self._frames(state, MORE_FRAMES, skip=0)
            reading = self._vote(frames)
        probs = np.asarray(reading.probs, dtype=float)
        data = {"index": i, "label": reading.label, "confidence": round(float(reading.confidence), 4),
                "unsure": reading.label is None or reading.confidence < SURE,
                "probs": [float(f"{p:.4g}") for p in probs.tolist()]}
        return data, _evidence_jpeg(reading, frames)

    def _record_read(self, state: DealState, data: dict[str, Any], jpeg: bytes | None) -> None:
        self.journal.append(state.round, "card_read", data, image=jpeg)
        state.reads[data["index"]] = data

    def _vote(self, frames: list[Any]) -> Any:
        images = [f.image for f in frames]
        if hasattr(self.reader, "read_votes"):
            return self.reader.read_votes(images)
        return self.reader.read(images[0], kind="window")

    def _empty(self, reading: Any) -> bool:
        """The hopper is empty: the rig's card-present sensor says so, or the reader sees no card.
        (A confident read needs no sensor round trip.)"""
        if reading.label is not None and float(reading.confidence) >= SURE:
            return False
        status = self._status()
        if isinstance(status.get("hopper"), bool):          # the card-present sensor decides
            return not status["hopper"]
        return not getattr(reading, "found", True)

    def _frames(self, state: DealState, n: int, skip: int, newer_than: int | None = None) -> list[Any]:
        for attempt in range(CAMERA_RETRIES):
            try:
                return self.camera.grab(n, timeout=self.camera_timeout, skip=skip, newer_than=newer_than)
            except CameraError as exc:
                self.journal.append(state.round, "fault", {"kind": "camera", "attempt": attempt + 1,
                                                           "message": str(exc)})
                time.sleep(0.1 * (attempt + 1))
        self._pause(state, "camera", "The camera shows nothing: check its cable and light, then resume.",
                    "摄像头无画面：请检查连线和灯光，然后继续。")
        return self._frames(state, n, skip, newer_than)

    def _check_leftover(self, state: DealState) -> None:
        """After the last planned card the hopper must be empty; a card left over is an extra card."""
        i = max(state.plan.total, state.next_index)   # past a card too many a double feed took along
        reading = self._read_card(state, i)
        if reading.get("empty"):
            state.reads.pop(i, None)

    # ------------------------------------------------------------------ motion
    def _move(self, state: DealState, what: str, data: dict[str, Any], action: Callable[[], Any]) -> Any:
        """Write before move: the intent row, the motion, the result row (retrying after rig faults)."""
        while True:
            self.journal.append(state.round, f"{what}_intent", data)
            try:
                result = action()
            except Exception as exc:  # noqa: BLE001
                self._rig_fault(state, exc, during=what, resync=False)
                continue
            self.journal.append(state.round, f"{what}_done", {**data, "result": _plain(result)})
            return result

    def _rotate_async(self, state: DealState, i: int, seat: int) -> Future[Any] | None:
        if self._at == seat:
            return None
        target: int | str = "bottom" if seat == BOTTOM else seat
        self.journal.append(state.round, "rotate_intent", {"index": i, "seat": seat})
        self._at = None
        return self._motion.submit(self.rig.rotate_to, target)

    def _wait_rotation(self, state: DealState, fut: Future[Any] | None, i: int, seat: int) -> None:
        if fut is None:
            return
        try:
            fut.result()
        except Exception as exc:  # noqa: BLE001
            self._rig_fault(state, exc, during=f"turning to {_where(seat)}", resync=False)
            fut = self._rotate_async(state, i, seat)
            self._wait_rotation(state, fut, i, seat)
            return
        self.journal.append(state.round, "rotate_done", {"index": i, "seat": seat})
        self._at = seat

    # ------------------------------------------------------------------ faults
    def _rig_fault(self, state: DealState, exc: BaseException, during: str, resync: bool = True) -> None:
        """Sort out a rig error. After it, the journal again knows where every card is."""
        kind = type(exc).__name__
        fault: dict[str, Any] = {"kind": kind, "during": during, "message": str(exc)}
        double = kind == "DoubleFeed" and state.pending is not None
        if double:   # the row alone says where both cards went (index, seat), should nothing follow it
            fault.update(index=state.pending["index"], seat=state.pending["seat"],
                         pulse_ms=_pulse_ms(getattr(exc, "evidence", None)))
        self.journal.append(state.round, "fault", fault)
        self._at = None
        if double:
            i, seat, pulse = fault["index"], fault["seat"], fault["pulse_ms"] or None
            self._clear_fault()
            self._card_out(state, i, seat, pulse, double=True)
            self._double_feed(state, i, seat, pulse)
            return
        homed = False
        if kind in ("McuRebooted", "LinkLost"):
            rebooted = kind == "McuRebooted"
            self._emit("fault", kind="mcu" if rebooted else "link",
                       message=(f"The controller board restarted while {during}" if rebooted else
                                f"The link to the controller board was lost while {during}")
                       + "; reconnecting, re-homing and resuming from the journal.",
                       message_zh=("控制板重启" if rebooted else "与控制板的连接中断") + "，正在重连、归位并按记录继续。")
            self._reconnect(state)
            homed = True
        elif self._estop.is_set() or kind in ("Jam", "Fault", "EStop", "Estop"):
            reason = "jam" if kind == "Jam" else ("estop" if self._estop.is_set() else "fault")
            msg = {"jam": ("A card is jammed in the dealer. Clear it (leave it in the hopper), then resume.",
                           "发牌器卡牌。请清除卡住的牌（放回牌仓），然后继续。"),
                   "estop": ("Emergency stop. Make the table safe, then resume.", "急停。确认安全后继续。"),
                   "fault": (f"The rig reported a fault while {during}: {exc}. Fix it, then resume.",
                             f"发牌机故障：{exc}。排除后继续。")}[reason]
            self._pause(state, reason, *msg)
            self._clear_fault()
        else:
            self._pause(state, "fault", f"Unexpected rig error while {during}: {exc}. Check the rig, then resume.",
                        f"发牌机异常：{exc}。检查后继续。")
            self._reconnect(state)
            homed = True
        if resync:
            if not homed:
                self._move(state, "home", {}, self.rig.home)
            self._resync(state)

    def _reconnect(self, state: DealState) -> None:
        for attempt in range(5):
            try:
                self.rig.connect()
                self.journal.append(state.round, "reconnected", {"attempt": attempt + 1})
                self._move(state, "home", {}, self.rig.home)
                return
            except Exception as exc:  # noqa: BLE001
                self.journal.append(state.round, "fault", {"kind": type(exc).__name__, "during": "reconnect",
                                                           "message": str(exc)})
                time.sleep(0.2 * (attempt + 1))
        self._pause(state, "link", "The rig does not answer. Check its USB cable and power, then resume.",
                    "发牌机无响应：请检查 USB 线和电源，然后继续。")
        self._reconnect(state)

    def _clear_fault(self) -> None:
        try:
            self.rig.clear_fault()
        except Exception:  # noqa: BLE001 - a rig without a latched fault may refuse; harmless
            pass

    def _resync(self, state: DealState) -> None:
        """After a crash, reboot or jam: re-read the window and check it against the journal. With an
        eject in flight, decide whether that card left — by the MCU's eject counter when the MCU did
        not reboot, else by sight (the same card still at the window: it did not leave)."""
        pending = state.pending
        i = pending["index"] if pending else state.next_index
        known = state.reads.get(i)
        now, jpeg = self._look(state, i, check=True)
        if pending is None:
            if known and known.get("label") and now.get("label") and now["label"] != known["label"]:
                self._mismatch(state, i, known, now)
                return
            self.journal.append(state.round, "resync", {"index": i, "outcome": "in the hopper",
                                                        "label": now.get("label")})
            if not now.get("empty") and known is None:
                self._record_read(state, now, jpeg)
            self._baseline(state)
            return
        left, how = self._pending_left(state, known, now)
        self.journal.append(state.round, "resync", {"index": i, "outcome": "left" if left else "did not leave",
                                                    "by": how, "seat": pending["seat"], "label": now.get("label")})
        if left:   # card i went where the turntable pointed; the window shows card i+1 (or nothing)
            self._card_out(state, i, pending["seat"], None, inferred=True)
            if not now.get("empty"):
                self._record_read(state, {**now, "index": i + 1}, jpeg)
        else:
            state.pending = None
            if known is None and not now.get("empty"):
                self._record_read(state, now, jpeg)
        self._baseline(state)

    def _pending_left(self, state: DealState, known: dict[str, Any] | None,
                      now: dict[str, Any]) -> tuple[bool, str]:
        base, st = state.baseline, self._status()
        if base and st.get("boot_id") == base.get("boot_id") and isinstance(st.get("ejects"), int):
            return st["ejects"] - base["ejects"] > len(state.dealt) - base["dealt"], "counter"
        if now.get("empty"):
            return True, "sight: the hopper is empty"
        same = known is not None and now.get("label") is not None and now["label"] == known.get("label")
        return (not same), "sight"

    def _mismatch(self, state: DealState, i: int, known: dict[str, Any], now: dict[str, Any]) -> None:
        self._pause(state, "mismatch",
                    f"The card at the window ({now['label']}) is not the journal's card {i + 1} "
                    f"({known['label']}). Were cards moved? Put them back as they were, then resume.",
                    f"读到的牌（{now['label']}）与记录的第{i + 1}张（{known['label']}）不符。"
                    "是否动过牌？请复原后继续。")
        state.reads[i] = known
        self._resync(state)

    def _pause(self, state: DealState, reason: str, message: str, message_zh: str,
               public: tuple[str, str] | None = None, **details: Any) -> None:
        """Wait for the operator. ``public`` (en, zh): what the ``paused`` event and the voice say
        instead of the message, when the message names dealt cards (hands are secret; the operator
        gets the whole problem in ``attend``, and the journal keeps it). ``details`` go with the
        problem."""
        problem = {"reason": reason, "message": message, "message_zh": message_zh, **details}
        self.journal.append(state.round, "pause", problem)
        expect = getattr(self.operator, "expect", None)
        if expect is not None:  # waiting before anyone hears of the pause: an instant resume is not lost
            expect(problem)
        said_en, said_zh = public or (message, message_zh)
        self._emit("paused", reason=reason, message=said_en, message_zh=said_zh)
        if self.voice is not None:
            self.voice.say(said_zh, said_en)
        answer = self.operator.attend(problem)
        if answer == "void":
            raise DealVoided(f"voided by the operator after: {message}")
        self._estop.clear()
        self.journal.append(state.round, "resume_after_pause", {"reason": reason})
        self._emit("resumed")

    def _check_estop(self, state: DealState) -> None:
        if self._estop.is_set():
            self._pause(state, "estop", "Emergency stop. Make the table safe, then resume.",
                        "急停。确认安全后继续。")
            self._clear_fault()
            self._move(state, "home", {}, self.rig.home)
            self._at = None

    # ------------------------------------------------------------------ decoding
    def _decode(self, state: DealState) -> tuple[list[str | None], list[str]]:
        """Deck-consistency decoding over every card read; the problems it finds, named."""
        from vision.decode import decode_deal

        probs = _probs(state)
        n_read = len(probs)
        composition = Counter(str(c) for c in state.plan.deck.cards())
        result = decode_deal(probs, composition)
        labels: list[str | None] = list(result.labels)
        problems: list[str] = []
        for card in _names(result.missing):
            problems.append(f"{card} is missing from the deck (find it and put it back)")
        for card in _names(result.duplicated):
            problems.append(f"{card} is in the deck twice (take one out)")
        extra = _names(getattr(result, "extra", []))
        for j in sorted(state.dealt):
            # an unseen card (a double feed) the deck has no room for: it is one too many, at its seat
            if state.reads.get(j, {}).get("ghost") and j < len(labels) and labels[j] is None and "?" in extra:
                extra.remove("?")
                where = _where(state.dealt[j])
                problems.append(f"a card too many went to {where} with card {j} (a double feed took it along "
                                f"unseen: take it out of {where}'s cards)")
        for card in extra:
            problems.append(f"{card} does not belong in this deck (take it out)")
        if n_read > state.plan.total and not problems:
            problems.append(f"{n_read - state.plan.total} card(s) too many in the hopper")
        if n_read < state.plan.total and not problems:
            problems.append(f"the deck has {n_read} cards, not {state.plan.total}")
        self.journal.append(state.round, "decoded", {"corrected": _plain(getattr(result, "corrected", [])),
                                                     "unsure": _plain(getattr(result, "unsure", [])),
                                                     "problems": problems})
        return labels, problems

    def _unseen_doubts(self, state: DealState, labels: list[str | None]) -> list[list[int]]:
        """Groups of dealt cards whose places decoding had to guess: a card a double feed carried past
        the camera has no read, so decoding knows only which cards are missing, not which unseen card
        is which. Two cards are in doubt together when they lie in different places, have different
        labels, and swapping their labels costs decoding little (nothing at all for two unseen cards;
        for an unseen and a seen card, what the camera gave the other label). One unseen card, unseen
        cards all in one place, or unseen cards that are all the same card (two decks) are no doubt.
        Groups the operator already checked (``placed``) are left out."""
        unseen = [i for i in sorted(state.dealt) if state.reads.get(i, {}).get("ghost")
                  and i < len(labels) and labels[i] is not None]
        if not unseen:
            return []
        logp = -np.log(np.clip(_probs(state), 1e-9, 1.0))
        col = {label: k for k, label in enumerate(LABELS)}
        cards = [k for k in sorted(state.dealt) if k < len(labels) and labels[k] is not None]
        parent = {k: k for k in cards}

        def root(k: int) -> int:
            while parent[k] != k:
                k = parent[k]
            return k

        for g in unseen:
            for k in cards:
                if k == g or state.dealt[k] == state.dealt[g] or labels[k] == labels[g]:
                    continue
                a, b = col[str(labels[g])], col[str(labels[k])]
                loss = logp[g, b] + logp[k, a] - logp[g, a] - logp[k, b]
                if loss < SWAP_MARGIN:
                    parent[root(k)] = root(g)
        groups: dict[int, list[int]] = {}
        for k in cards:
            groups.setdefault(root(k), []).append(k)
        out = []
        for group in groups.values():
            if len(group) > 1 and not all(state.placed.get(k) == labels[k] for k in group):
                out.append(sorted(group))
        return out

    def _have_checked(self, state: DealState, group: list[int], labels: list[str | None]) -> None:
        """Pause: a person looks through the places ``group``'s cards went to and makes each hold the
        card the record says (swapping cards between them), then resumes; or voids the hand. The record
        then agrees with the table because a person made it so; a guess is never recorded as known."""
        from controller.announce import card_zh

        places = sorted({state.dealt[k] for k in group}, key=lambda s: (s == BOTTOM, s))
        hold = {s: sorted((str(labels[k]) for k in group if state.dealt[k] == s), key=LABELS.index)
                for s in places}
        unseen = [k for k in group if state.reads.get(k, {}).get("ghost")]
        seen = [k for k in group if k not in unseen]
        cards = sorted({str(labels[k]) for k in group}, key=LABELS.index)
        who = and_list([str(k + 1) for k in unseen])
        what = f"card{'s' if len(unseen) > 1 else ''} {who} went past the camera unseen"
        if seen:
            what += (f", and card{'s' if len(seen) > 1 else ''} {and_list([str(k + 1) for k in seen])} "
                     "could not be read for sure")
        must = "; ".join(f"{_where(s)} must hold {and_list(hold[s])}" for s in places)
        message = (f"Double feeds: {what}, so the camera cannot tell which of {and_list(cards)} went where. "
                   f"Look through the cards of {and_list([_where(s) for s in places])}: {must} (swap cards between "
                   "them until it is so), then resume. Void the hand if they are not all there.")

        def zh_place(s: int) -> str:
            return "底牌" if s == BOTTOM else f"{s + 1}号位"

        def zh_cards(labels_: list[str]) -> str:
            return "、".join(_safe_zh(c, card_zh) for c in labels_)

        message_zh = (f"双张：第{'、'.join(str(k + 1) for k in group)}张牌没有被看清，无法确定{zh_cards(cards)}各在哪家。"
                      f"请查看{'、'.join(zh_place(s) for s in places)}的牌，使"
                      + "，".join(f"{zh_place(s)}有{zh_cards(hold[s])}" for s in places)
                      + "（不对就互换），然后继续；如果牌不全，请作废本局。")
        place = {("bottom" if s == BOTTOM else str(s)): hold[s] for s in places}
        self._pause(state, "double_feed", message, message_zh,
                    public=("Double feeds: cards went by unseen. The operator checks some hands, then resumes.",
                            "双张：有牌没有被看到，操作员核对几家的牌后继续。"),
                    cards=list(group), place=place)
        checked = {k: str(labels[k]) for k in group}
        flag = (f"double feed: {what}; the operator made sure that " + "; ".join(
            f"{_where(s)} holds {and_list(hold[s])}" for s in places))
        self.journal.append(state.round, "placed", {"by": "operator", "cards": {str(k): v for k, v in checked.items()},
                                                    "place": place, "flag": flag})
        state.placed.update(checked)
        state.flags.append(flag)

    # ------------------------------------------------------------------ helpers
    def _status(self) -> dict[str, Any]:
        try:
            status = self.rig.status()
        except Exception:  # noqa: BLE001
            return {}
        if isinstance(status, dict):
            return status
        return dict(getattr(status, "__dict__", {}))

    def _emit(self, type_: str, **fields: Any) -> None:
        try:
            self._on_event({"type": type_, "round": self._round, **fields})
        except Exception:  # noqa: BLE001 - a display's bug must never stop a deal
            pass


# ---------------------------------------------------------------------------------------- small helpers
SWAP_MARGIN = float(np.log(20.0))   # two cards whose labels could swap at less than this log cost: a guess


def _ghost(j: int) -> dict[str, Any]:
    """The read of card ``j``, which a double feed carried past the camera: no evidence at all."""
    return {"index": j, "label": None, "confidence": 0.0, "unsure": True, "probs": None, "ghost": True}


def _probs(state: DealState) -> np.ndarray:
    """The reader's probabilities of every card read so far (uniform for an unseen card)."""
    n_read = max(state.reads) + 1 if state.reads else 0
    uniform = [1.0 / len(LABELS)] * len(LABELS)
    return np.array([state.reads[i].get("probs") or uniform if i in state.reads else uniform
                     for i in range(n_read)], dtype=float).reshape(n_read, len(LABELS))


def _pulse_ms(evidence: Any) -> float | None:
    if evidence is None:
        return None
    value = evidence.get("pulse_ms") if isinstance(evidence, dict) else getattr(evidence, "pulse_ms", None)
    return float(value) if value is not None else None


def _long_pulse(pulse: float | None, pulses: list[float]) -> bool:
    """An exit pulse far longer than the usual one: two cards left together."""
    if pulse is None or len(pulses) < 3:
        return False
    return pulse > DOUBLE_FEED_FACTOR * float(np.median(pulses))


def _where(seat: int) -> str:
    return "the bottom" if seat == BOTTOM else f"seat {seat + 1}"


def _names(cards: Any) -> list[str]:
    if not cards:
        return []
    if isinstance(cards, dict):
        return [str(k) for k, v in cards.items() for _ in range(int(v) if isinstance(v, int) else 1)]
    return [str(c) for c in cards]


def _plain(value: Any) -> Any:
    """A JSON-able copy of a rig's answer (dataclass, dict, list, number, text)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_plain(v) for v in value]
    if hasattr(value, "__dict__"):
        return {k: _plain(v) for k, v in vars(value).items() if not k.startswith("_")}
    if hasattr(value, "__dataclass_fields__"):
        return {k: _plain(getattr(value, k)) for k in value.__dataclass_fields__}
    return str(value)


def wrong_deck(held: int, plan: Any) -> str:
    """The problem line when the hopper held the wrong deck (far more or fewer cards than the deal)."""
    en, _ = deck_text(plan.deck.decks, plan.deck.jokers)
    return f"the hopper held {held} cards, but this deal needs {plan.total}, {en}: load that deck"


def _evidence_jpeg(reading: Any, frames: list[Any]) -> bytes:
    """The evidence image of a read: the reader's crops side by side, else the first frame."""
    crops = [c for c in (getattr(reading, "crops", None) or []) if isinstance(c, np.ndarray) and c.size]
    if crops:
        h = max(c.shape[0] for c in crops)
        parts = [_bgr(cv2.resize(c, (max(1, int(c.shape[1] * h / c.shape[0])), h))) for c in crops]
        image = np.hstack(parts)
    else:
        image = frames[0].image
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    return buf.tobytes() if ok else frames[0].to_jpeg()


def _bgr(img: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR) if img.ndim == 2 else img


_ZH_PATTERNS = (
    (r"^(\S+) is missing from the deck \(find it and put it back\)$", "缺少{c1}（找到后放回）"),
    (r"^(\S+) is in the deck twice \(take one out\)$", "{c1}有两张（取出一张）"),
    (r"^(\S+) does not belong in this deck \(take it out\)$", "{c1}不属于这副牌（取出）"),
    (r"^seat (\d+) has (\d+) cards, not (\d+)$", "{1}号位有{2}张牌，应为{3}张"),
    (r"^the bottom has (\d+) cards, not (\d+)$", "底牌有{1}张，应为{2}张"),
    (r"^a double feed put (\S+) at seat (\d+) but it belongs to seat (\d+)$",
     "双张：{c1}被发到{2}号位，应属{3}号位"),
    (r"^a double feed put (\S+) at the bottom but it belongs to seat (\d+)$", "双张：{c1}被发到底牌，应属{2}号位"),
    (r"^a double feed put (\S+) at seat (\d+) but it belongs to the bottom$", "双张：{c1}被发到{2}号位，应属底牌"),
    (r"^(\d+) card\(s\) too many in the hopper$", "牌仓多出{1}张牌"),
    (r"^a card too many went to seat (\d+) with card (\d+) \(.*\)$",
     "多了一张牌：双张时随第{2}张牌被带到{1}号位，未被看到（请从{1}号位的牌中取出）"),
    (r"^a card too many went to the bottom with card (\d+) \(.*\)$",
     "多了一张牌：双张时随第{1}张牌被带到底牌，未被看到（请从底牌中取出）"),
    (r"^the deck has (\d+) cards, not (\d+)$", "整副牌有{1}张，应为{2}张"),
    (r"^the hopper held (\d+) cards, but this deal needs (\d+), (.+): load that deck$",
     "牌仓里有{1}张牌，本局需要{2}张，即{d3}：请放入这副牌"),
)
_DECKS_ZH = dict(deck_text(n, j) for n in (1, 2, 3) for j in (False, True))


def _zh(problem: str) -> str:
    """The Chinese of a problem line (card names spoken the Chinese way: 红桃四)."""
    import re

    from controller.announce import card_zh

    for pattern, zh in _ZH_PATTERNS:
        m = re.match(pattern, problem)
        if m:
            groups = m.groups()
            named = {f"c{i + 1}": _safe_zh(g, card_zh) for i, g in enumerate(groups)}
            named.update({f"d{i + 1}": _DECKS_ZH.get(g, g) for i, g in enumerate(groups)})
            return zh.format(None, *groups, **named)
    return problem


def _safe_zh(text: str, card_zh: Callable[[str], str]) -> str:
    try:
        return card_zh(text)
    except ValueError:
        return text
