"""The deal, top to bottom: plan → shuffle → home → for each card: read, rotate, eject, confirm,
journal → decode the whole deal → announce the first player → the game record.

Write before move: each motion's intent row is journaled before it starts, its result row after, so
after a crash (even ``kill -9``) :meth:`Dealer.resume` knows what may have happened. Reading the
window, double feeds and recovering from rig faults are this class's parts in their own modules.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from controller import fair_deal
from controller.announce import FirstPlayer, Voice, first_player
from controller.deal import decode as decoding
from controller.deal.double_feed import DoubleFeeds, pulse_ms, unseen_doubts
from controller.deal.operators import AutoOperator, DealVoided, Operator
from controller.deal.problems import Problem, where
from controller.deal.recovery import Recovery
from controller.deal.seams import Camera, CardReader, Rig
from controller.deal.state import DealState, long_pulse
from controller.deal.window import FRAMES_PER_READ, WindowReads
from controller.journal import Journal, owner_fields
from controller.plan import BOTTOM, make_plan
from engine.cards import parse_card
from engine.record import Record
from engine.registry import DEFAULT_GAME

OnEvent = Callable[[dict[str, Any]], None]


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
    codes: list[Problem] = field(default_factory=list)   # the problems as data (``problems``: their English)


def void_round(journal: Journal, round_: int, reason: str = "voided by the operator") -> DealResult:
    """End a hand without a record (the cards go back for a re-shuffle); no rig needed."""
    journal.append(round_, "round_end", {"status": "void", "reason": reason})
    said = Problem("voided", {"round": round_})
    return DealResult(round_, "void", message=said.en, message_zh=said.zh)


class Dealer(WindowReads, DoubleFeeds, Recovery):
    """Deals one hand at a time on a rig, reading every card; see :mod:`controller.deal`."""

    def __init__(self, rig: Rig, camera: Camera, reader: CardReader, journal: Journal, *, config: Any = None,
                 voice: Voice | None = None, panel: Any = None, operator: Operator | None = None,
                 frames_per_read: int = FRAMES_PER_READ, camera_timeout: float = 2.0, skip: int = 1):
        self.rig, self.camera, self.reader, self.journal = rig, camera, reader, journal
        self.config, self.voice, self.panel = config, voice, panel
        self.operator: Operator = operator or AutoOperator()
        self.frames_per_read = frames_per_read
        self.camera_timeout = camera_timeout
        self.skip = skip
        self._estop = threading.Event()
        self._motion = ThreadPoolExecutor(1, thread_name_prefix="rig-motion")
        self._on_event: OnEvent = lambda ev: None
        self._round = 0
        self._at: int | str | None = None     # where the turntable points (None: unknown)
        self._tagged = False
        self._stamped = False
        self._last_tag: int | None = None
        self._eject_tag: int | None = None

    def close(self) -> None:
        self._motion.shutdown(wait=True)

    # ------------------------------------------------------------------ what callers use
    def run(self, game: str = DEFAULT_GAME, *, first_seat: int | None = None, fair: bool = True,
            preset: str | None = None, rules: dict[str, Any] | None = None, on_event: OnEvent | None = None,
            round_: int | None = None, previous_winner: int | None = None, seed: bytes | None = None,
            contributions: dict[int, str] | None = None) -> DealResult:
        """Shuffle and deal one whole hand; return its result (``status`` done, stopped or void).
        ``seed``: the rig's seed, committed to before the seats' ``contributions`` came."""
        plan = make_plan(game, first_seat=first_seat, previous_winner=previous_winner, fair=fair,
                         preset=preset, rules=rules, seed=seed, contributions=contributions)
        if round_ is None:
            round_ = self.journal.new_round({"game": game, "first_seat": plan.first_seat, "fair_deal": fair})
        for seat, value in sorted(plan.contributions.items()):   # what verify-deal checks the proof against
            self.journal.append(round_, "contribution", {"seat": seat, "value": value,
                                                         "commitment": plan.commitment})
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
        return void_round(self.journal, round_, reason)

    def reveal(self, round_: int) -> dict[str, Any] | None:
        """After the hand: journal and return the fair-deal proof (seed, commitment, seats)."""
        state = DealState.from_journal(self.journal, round_)
        if state.plan.seed is None:
            return None
        seats = [state.dealt.get(i, BOTTOM) for i in range(state.plan.total)]
        plan = state.plan
        proof = (fair_deal.make_shared_proof(plan.seed, plan.contributions, plan.cards_per_seat, plan.bottom, seats)
                 if plan.contributions else fair_deal.make_proof(plan.seed, plan.cards_per_seat, plan.bottom, seats))
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

    # ------------------------------------------------------------------ the flow
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

    def _clear_host_silent(self, state: DealState) -> None:
        """The controller was gone (a crash, kill -9): the MCU stopped safely and latched "host
        silent". That is the expected failsafe, not a fault for a person: clear it and go on."""
        if self._status().get("fault") == "host silent":
            self.journal.append(state.round, "fault", {"kind": "host silent", "during": "restart"})
            self._clear_fault()

    def _shuffle(self, state: DealState) -> None:
        passes = int(getattr(self.config, "shuffle_passes", 1))   # one riffle: no stack return to the bins
        self._emit("shuffling", passes=passes)
        self._move(state, "shuffle", {"passes": passes}, lambda: self.rig.shuffle(passes))
        state.shuffled = True

    def _connect_and_home(self, state: DealState, check_window: bool) -> None:
        self._emit("homing")
        self._move(state, "home", {}, self.rig.home)
        self._at = None
        self._finish_double_feeds(state)
        if check_window or state.pending is not None:
            self._resync(state)
        else:
            self._baseline(state)

    def _baseline(self, state: DealState) -> None:
        """Journal the MCU's boot id and eject counter with the number of cards dealt: after a crash,
        the counter tells whether an eject in flight happened (even for two identical cards)."""
        status = self._status()
        if isinstance(status.get("ejects"), int) and status.get("boot_id") is not None:
            state.baseline = {"boot_id": status["boot_id"], "ejects": status["ejects"], "dealt": len(state.dealt)}
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
        except Exception as exc:  # noqa: BLE001 - every rig fault is sorted out by _rig_fault
            self._rig_fault(state, exc, during=f"ejecting card {i + 1}")
            return
        pulse = pulse_ms(evidence)
        double = long_pulse(pulse, state.pulses)   # the rig raises DoubleFeed; this is a second opinion
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
            state.open_double(i, seat, pulse)
        self._eject_tag = self._last_tag      # the next read must show a later scene than this card's
        state.dealt[i] = seat
        state.pending = None
        if pulse:
            state.pulses.append(pulse)
        self._emit("card_dealt", index=i, seat=None if seat == BOTTOM else seat, total=state.plan.total,
                   counts=state.counts(), unsure=bool(state.reads.get(i, {}).get("unsure")))

    # ------------------------------------------------------------------ the end of a deal
    def _finish(self, state: DealState) -> DealResult:
        """Deck-consistency decoding, the checks, the first player, the record."""
        plan = state.plan
        labels, problems, row = decoding.decode(state)
        if self._find_unseen(state, labels, problems):   # stacked doubles: the table found the unseen cards
            labels, problems, row = decoding.decode(state)
        self.journal.append(state.round, "decoded", row)
        if abs(len(labels) - plan.total) >= decoding.WRONG_DECK_AT:  # one line, not a list of every card short
            return self._stop(state, [decoding.wrong_deck(len(labels), plan)])
        hands, bottom = decoding.places(state, labels)
        moves = decoding.hand_overs(state, labels, hands, bottom)   # a double feed at the end: hand cards over
        if not moves:
            problems += decoding.count_problems(state, labels, hands, bottom)
        if problems:
            return self._stop(state, problems)
        for group in unseen_doubts(state, labels, decoding.neg_log_probs(state)):
            self._have_checked(state, group, labels)   # a person makes the table match, or voids
        self._hand_over(state, labels, moves)          # then the named cards go where they belong
        hands, bottom = decoding.places(state, labels)
        record = self._record(state, hands, bottom)
        fp = first_player(plan.game, hands, bottom, dealer=plan.first_seat)
        self.journal.append(state.round, "first_player", fp.to_event())
        self._announce(fp)
        self.journal.append(state.round, "deal_end", {"status": "done", "record": record,
                                                       "first_player": fp.seat, "flags": state.flags})
        self._emit("deal_done", status="done", flags=state.flags)
        return DealResult(state.round, "done", record, fp, flags=list(state.flags),
                          message=fp.text_en, message_zh=fp.text_zh)

    @staticmethod
    def _record(state: DealState, hands: list[list[str]], bottom: list[str]) -> dict[str, Any]:
        """The game record of the deal (events empty: the play is still to come)."""
        plan = state.plan
        deal = {"round": state.round, "fair": plan.fair, "first_seat": plan.first_seat,
                "commitment": plan.commitment, "flags": list(state.flags)}
        return Record(plan.game, plan.preset or None, dict(plan.rules or {}),
                      [[parse_card(c) for c in h] for h in hands], [parse_card(c) for c in bottom], [],
                      {"deal": deal}).to_json()

    def _stop(self, state: DealState, problems: list[Problem]) -> DealResult:
        stopped = Problem("stopped", {"problems": problems})
        lines = [p.en for p in problems]
        self.journal.append(state.round, "round_end", {"status": "stopped", "problems": lines,
                                                       "message": stopped.en})
        self._emit("deal_stopped", message=stopped.en, message_zh=stopped.zh, problems=lines)
        self._emit("deal_done", status="stopped", flags=state.flags)
        if self.voice is not None:
            self.voice.say("发牌有误，本局作废，请检查牌", "The deal has an error; check the deck.")
        return DealResult(state.round, "stopped", None, None, lines, stopped.en, stopped.zh, list(state.flags),
                          codes=list(problems))

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
            self.journal.append(state.round, f"{what}_done", {**data, "result": decoding.json_safe(result)})
            return result

    def _rotate_async(self, state: DealState, i: int, seat: int) -> Future[Any] | None:
        if self._at == seat:
            return None
        target: int | str = "bottom" if seat == BOTTOM else seat
        self.journal.append(state.round, "rotate_intent", {"index": i, "seat": seat})
        self._at = None
        return self._motion.submit(self.rig.rotate_to, target)

    def _wait_rotation(self, state: DealState, fut: Future[Any] | None, i: int, seat: int) -> None:
        """Wait for the turn to ``seat``; after a rig fault, turn again."""
        while fut is not None:
            try:
                fut.result()
            except Exception as exc:  # noqa: BLE001
                self._rig_fault(state, exc, during=f"turning to {where(seat)}", resync=False)
                fut = self._rotate_async(state, i, seat)
                continue
            self.journal.append(state.round, "rotate_done", {"index": i, "seat": seat})
            self._at = seat
            return

    # ------------------------------------------------------------------ the operator
    def _pause(self, state: DealState, problem: Problem, reason: str, **details: Any) -> None:
        """Wait for the operator. The ``paused`` event and the voice say the problem's public words
        (hands are secret: the operator gets the whole problem in ``attend``, and the journal keeps
        it). ``details`` go with the problem."""
        asked = {"reason": reason, "code": problem.code, "message": problem.en, "message_zh": problem.zh,
                 **details}
        self.journal.append(state.round, "pause", asked)
        self.operator.expect(asked)   # waiting before anyone hears of the pause: an instant resume is not lost
        said_en, said_zh = problem.public
        self._emit("paused", reason=reason, message=said_en, message_zh=said_zh)
        if self.voice is not None:
            self.voice.say(said_zh, said_en)
        if self.operator.attend(asked) == "void":
            raise DealVoided(f"voided by the operator after: {problem.en}")
        self._estop.clear()
        self.journal.append(state.round, "resume_after_pause", {"reason": reason})
        self._emit("resumed")

    def _check_estop(self, state: DealState) -> None:
        if self._estop.is_set():
            self._pause(state, Problem("estop"), "estop")
            self._clear_fault()
            self._move(state, "home", {}, self.rig.home)
            self._at = None

    # ------------------------------------------------------------------ helpers
    def _status(self) -> dict[str, Any]:
        try:
            return dict(self.rig.status())
        except Exception:  # noqa: BLE001 - no status is no evidence: the dealer goes by sight
            return {}

    def _emit(self, type_: str, **fields: Any) -> None:
        try:
            self._on_event({"type": type_, "round": self._round, **fields})
        except Exception:  # noqa: BLE001 - a display's bug must never stop a deal
            pass
