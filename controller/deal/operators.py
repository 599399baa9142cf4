"""The person at the rig: a fault that needs one (a latched jam, a camera that stays dark, an e-stop)
calls ``operator.attend(problem) -> "resume" | "void"``.

:class:`EventOperator` waits for ``resolve()`` from another thread (the service's buttons, the one
operator both the service and ``hongsi deal`` use); :class:`AutoOperator` clears after a delay (virtual
rig, unattended runs); :class:`ConsoleOperator` asks on the terminal.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

ANSWERS = ("resume", "void")


class DealVoided(Exception):
    """The operator voided the hand."""


class Operator(Protocol):
    def expect(self, problem: dict[str, Any]) -> None:
        """The deal is about to pause for ``problem`` (before anyone hears of it)."""

    def attend(self, problem: dict[str, Any]) -> str:
        """A person fixes ``problem`` (message, message_zh, reason); answer ``resume`` or ``void``."""


class AutoOperator:
    """Clears every fault after ``delay`` seconds (the virtual rig; unattended runs). Gives up with
    ``void`` after ``limit`` problems in one deal.

    A problem that needs someone to look at dealt cards (``problem["place"]``: which cards each place
    must hold, after double feeds carried cards past the camera unseen) cannot be cleared by waiting:
    without ``place`` it is declined (``void``) rather than guessed; so is ``find`` (cards that went by
    unseen, to look for at the places). ``place(problem)`` is the simulated person's hands (the virtual
    rig, which knows where every card is, puts them as asked); it returns ``"void"`` when it cannot."""

    def __init__(self, delay: float = 0.0, limit: int = 50,
                 place: Callable[[dict[str, Any]], None] | None = None,
                 tell: Callable[[dict[str, Any]], None] | None = None):
        self.delay, self.limit, self.seen, self.place, self.tell = delay, limit, 0, place, tell

    @property
    def attended(self) -> bool:
        """Someone's hands do what a problem asks (only the simulated person's here)."""
        return self.place is not None

    def expect(self, problem: dict[str, Any]) -> None:
        pass

    def attend(self, problem: dict[str, Any]) -> str:
        """A problem that asks for hands (``place``: check seats; ``hand_over``: move a named card;
        ``find``: look for cards that went by unseen) is told to ``tell`` (the terminal of an unattended
        ``hongsi deal``). A check or a find is declined without hands; a hand-over is not a guess, so it
        resumes (the deal says nobody confirmed it)."""
        self.seen += 1
        time.sleep(self.delay)
        if self.seen > self.limit:
            return "void"
        needs_hands = any(problem.get(k) is not None for k in ("place", "hand_over", "find"))
        if needs_hands and self.tell is not None:
            self.tell(problem)
        if needs_hands and self.place is not None:
            return "void" if self.place(problem) == "void" else "resume"   # the hands found nothing to do it with
        if problem.get("place") is not None or problem.get("find") is not None:
            return "void"
        return "resume"


class EventOperator:
    """Waits for :meth:`resolve` from another thread (the service's operator page).

    ``expect()`` before the ``paused`` event goes out, so an answer given the moment the event is seen
    is kept; then ``attend()`` blocks until ``resolve("resume" | "void")``."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._answer: str | None = None
        self._waiting = False
        self.problem: dict[str, Any] | None = None

    def expect(self, problem: dict[str, Any] | None = None) -> None:
        with self._cond:
            self._waiting, self.problem, self._answer = True, problem, None

    def attend(self, problem: dict[str, Any] | None = None) -> str:
        with self._cond:
            if not self._waiting or self.problem is not problem:  # not announced by expect(): a fresh wait
                self._waiting, self.problem, self._answer = True, problem, None
            while self._answer is None:
                self._cond.wait()
            answer, self._waiting, self.problem = self._answer, False, None
            return answer

    def resolve(self, answer: str = "resume") -> None:
        if answer not in ANSWERS:
            raise ValueError(f"answer {answer!r}: resume or void")
        with self._cond:
            self._answer = answer
            self._cond.notify_all()

    @property
    def waiting(self) -> bool:
        return self._waiting


class ConsoleOperator:
    """Asks on the terminal: Enter resumes, ``void`` ends the hand."""

    def expect(self, problem: dict[str, Any]) -> None:
        pass

    def attend(self, problem: dict[str, Any]) -> str:
        sys.stderr.write(f"\n{problem['message']}\n{problem['message_zh']}\n"
                         "Fix it, then press Enter to resume (or type 'void' to end the hand): ")
        sys.stderr.flush()
        line = sys.stdin.readline()
        return "void" if line.strip().lower() == "void" else "resume"
