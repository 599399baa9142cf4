"""Rig faults and getting back in step: each typed rig error sorted out (a double feed, a lost link or
a rebooted board, a latched fault for a person, anything else), the reconnect loop, and the window
checked against the journal after a crash. A part of :class:`controller.deal.flow.Dealer`."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from controller.deal.double_feed import pulse_ms
from controller.deal.problems import Problem
from controller.deal.seams import Rig
from controller.deal.state import DealState
from controller.journal import Journal
from firmware_bridge.errors import DoubleFeed, EStop, Fault, Jam, LinkLost, McuRebooted

RECONNECT_TRIES = 5


class Recovery:
    rig: Rig
    journal: Journal
    _estop: threading.Event
    _at: int | str | None

    if TYPE_CHECKING:                 # the dealer's own
        def _status(self) -> dict[str, Any]: ...
        def _emit(self, type_: str, **fields: Any) -> None: ...
        def _pause(self, state: DealState, problem: Problem, reason: str, **details: Any) -> None: ...
        def _move(self, state: DealState, what: str, data: dict[str, Any], action: Callable[[], Any]) -> Any: ...
        def _look(self, state: DealState, i: int, check: bool = False) -> tuple[dict[str, Any], bytes | None]: ...
        def _record_read(self, state: DealState, data: dict[str, Any], jpeg: bytes | None) -> None: ...
        def _card_out(self, state: DealState, i: int, seat: int, pulse: float | None, inferred: bool = False,
                      double: bool = False) -> None: ...
        def _baseline(self, state: DealState) -> None: ...
        def _double_fed(self, state: DealState, evidence: Any) -> None: ...

    def _rig_fault(self, state: DealState, exc: BaseException, during: str, resync: bool = True) -> None:
        """Sort out a rig error. After it, the journal again knows where every card is."""
        fault: dict[str, Any] = {"kind": type(exc).__name__, "during": during, "message": str(exc)}
        if isinstance(exc, DoubleFeed) and state.pending is not None:
            # the row alone says where both cards went (index, seat), should nothing follow it
            fault.update(index=state.pending["index"], seat=state.pending["seat"], pulse_ms=pulse_ms(exc.evidence))
            self.journal.append(state.round, "fault", fault)
            self._at = None
            self._double_fed(state, exc.evidence)
            return
        self.journal.append(state.round, "fault", fault)
        self._at = None
        homed = self._recover(state, exc, during)
        if resync:
            if not homed:
                self._move(state, "home", {}, self.rig.home)
            self._resync(state)

    def _recover(self, state: DealState, exc: BaseException, during: str) -> bool:
        """Get the rig going again after ``exc``; return whether that homed it."""
        if isinstance(exc, (McuRebooted, LinkLost)):
            rebooted = isinstance(exc, McuRebooted)
            said = Problem("mcu_rebooted" if rebooted else "link_lost", {"during": during})
            self._emit("fault", kind="mcu" if rebooted else "link", message=said.en, message_zh=said.zh)
            self._reconnect(state)
            return True
        if self._estop.is_set() or isinstance(exc, Fault):
            if isinstance(exc, Jam):
                self._pause(state, Problem("jam"), "jam")
            elif self._estop.is_set() or isinstance(exc, EStop):
                self._pause(state, Problem("estop"), "estop")
            else:
                self._pause(state, Problem("rig_fault", {"during": during, "error": str(exc)}), "fault")
            self._clear_fault()
            return False
        self._pause(state, Problem("rig_unexpected", {"during": during, "error": str(exc)}), "fault")
        self._reconnect(state)
        return True

    def _reconnect(self, state: DealState) -> None:
        """Connect and home, a few tries at a time; between rounds of tries a person checks the rig."""
        while True:
            for attempt in range(RECONNECT_TRIES):
                try:
                    self.rig.connect()
                    self.journal.append(state.round, "reconnected", {"attempt": attempt + 1})
                    self._move(state, "home", {}, self.rig.home)
                    return
                except Exception as exc:  # noqa: BLE001 - any failure here is tried again
                    self.journal.append(state.round, "fault", {"kind": type(exc).__name__, "during": "reconnect",
                                                               "message": str(exc)})
                    time.sleep(0.2 * (attempt + 1))
            self._pause(state, Problem("no_answer"), "link")

    def _clear_fault(self) -> None:
        try:
            self.rig.clear_fault()
        except Exception:  # noqa: BLE001 - a rig without a latched fault may refuse; harmless
            pass

    def _resync(self, state: DealState) -> None:
        """After a crash, reboot or jam: re-read the window and check it against the journal (a moved
        card pauses for the operator, then the window is read again)."""
        while not self._resynced(state):
            pass

    def _resynced(self, state: DealState) -> bool:
        """One check of the window. With an eject in flight, decide whether that card left — by the
        MCU's eject counter when the MCU did not reboot, else by sight (the same card still at the
        window: it did not leave). False: the window showed another card than the journal's."""
        pending = state.pending
        i = pending["index"] if pending else state.next_index
        known = state.reads.get(i)
        now, jpeg = self._look(state, i, check=True)
        if pending is None:
            if known and known.get("label") and now.get("label") and now["label"] != known["label"]:
                self._mismatch(state, i, known, now)
                return False
            self.journal.append(state.round, "resync", {"index": i, "outcome": "in the hopper",
                                                        "label": now.get("label")})
            if not now.get("empty") and known is None:
                self._record_read(state, now, jpeg)
        else:
            self._settle_pending(state, pending, known, now, jpeg)
        self._baseline(state)
        return True

    def _settle_pending(self, state: DealState, pending: dict[str, Any], known: dict[str, Any] | None,
                        now: dict[str, Any], jpeg: bytes | None) -> None:
        i = pending["index"]
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

    def _pending_left(self, state: DealState, known: dict[str, Any] | None,
                      now: dict[str, Any]) -> tuple[bool, str]:
        base, status = state.baseline, self._status()
        if base and status.get("boot_id") == base.get("boot_id") and isinstance(status.get("ejects"), int):
            left = status["ejects"] - base["ejects"] > len(state.dealt) - base["dealt"]
            if left and still_at_window(state, known, now):
                return False, "sight: the counter counted a card the window still shows"
            return left, "counter"
        if now.get("empty"):
            return True, "sight: the hopper is empty"
        same = known is not None and now.get("label") is not None and now["label"] == known.get("label")
        return (not same), "sight"

    def _mismatch(self, state: DealState, i: int, known: dict[str, Any], now: dict[str, Any]) -> None:
        self._pause(state, Problem("mismatch", {"now": now["label"], "n": i + 1, "known": known["label"]}), "mismatch")
        state.reads[i] = known


def still_at_window(state: DealState, known: dict[str, Any] | None, now: dict[str, Any]) -> bool:
    """The window surely shows the card in flight itself: a sure read of its label, and every copy of
    that label the deck holds is read already (one deck: the card itself). The beam cannot tell a card
    pulled back by hand at an e-stop from one that went on: its count says gone, the window knows."""
    label = now.get("label")
    if label is None or now.get("unsure") or known is None or known.get("label") != label:
        return False
    copies = Counter(str(c) for c in state.plan.deck.cards())[label]
    return sum(r.get("label") == label for r in state.reads.values()) >= copies
