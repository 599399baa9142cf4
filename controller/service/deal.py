"""Where a round's cards come from: the seam between the table service and the dealer.

A :class:`DealSource` deals one hand and reports progress through ``on_event`` (dicts; the service
passes on only whitelisted, card-free fields). It answers a :class:`DealResult` (who holds what, read
by the camera) or raises :class:`DealInterrupted` (e-stop, fault) — the service then lets the operator
resume or void the deal.

Two sources:

- :class:`RigDealSource` — the real thing: ``controller.dealer.Dealer`` driving a rig (real or the
  virtual one) over serial, with the camera reading every card.
- :class:`SoftwareDealSource` — a software shuffle (``secrets``-seeded) dealt in the game's deal
  order, for running the service with no rig at all (and a seat in tests for the service alone).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.cards import Card
from engine.game import DealPlan

OnEvent = Callable[[dict[str, Any]], None]


@dataclass
class DealResult:
    """A dealt hand as the camera read it."""

    hands: list[list[Card]]
    bottom: list[Card]
    first_player: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # goes into the game record (deal facts)
    journal_round: int | None = None


class DealInterrupted(Exception):
    """The deal stopped before the end (e-stop, jam, fault); ``dealt`` cards went out."""

    def __init__(self, message: str, dealt: int = 0, resumable: bool = True):
        super().__init__(message)
        self.dealt = dealt
        self.resumable = resumable


class DealSource(Protocol):
    def deal(self, *, game: str, plan: DealPlan, first_seat: int, fair: bool, on_event: OnEvent,
             resume: bool = False) -> DealResult: ...

    def estop(self) -> None: ...

    def clear_fault(self) -> None: ...

    def status(self) -> dict[str, Any]: ...

    def close(self) -> None: ...


def deal_order(plan: DealPlan, first_seat: int) -> list[int | None]:
    """Seat of each card in dealing order: round-robin from ``first_seat`` until each seat has its
    share; ``None`` marks a bottom card (dealt last)."""
    left = list(plan.cards_per_seat)
    order: list[int | None] = []
    seat = first_seat % plan.seats
    while any(left):
        if left[seat]:
            order.append(seat)
            left[seat] -= 1
        seat = (seat + 1) % plan.seats
    return order + [None] * plan.bottom


class SoftwareDealSource:
    """Deal a software-shuffled deck (no rig). ``card_delay`` seconds between cards, for a visible deal.

    >>> src = SoftwareDealSource(card_delay=0)
    >>> res = src.deal(game="hongsi", plan=plan, first_seat=0, fair=True, on_event=print)  # doctest: +SKIP
    """

    def __init__(self, card_delay: float = 0.0, seed: int | None = None):
        self.card_delay = card_delay
        self._rng = random.Random(seed) if seed is not None else random.SystemRandom()
        self._stop = threading.Event()
        self._pending: dict[str, Any] | None = None  # an interrupted deal, to resume
        self.state = "ready"

    def deal(self, *, game: str, plan: DealPlan, first_seat: int, fair: bool, on_event: OnEvent,
             resume: bool = False) -> DealResult:
        if resume and self._pending is not None:
            p = self._pending
        else:
            cards = plan.deck.cards()
            self._rng.shuffle(cards)
            p = {"cards": cards, "order": deal_order(plan, first_seat), "next": 0,
                 "hands": [[] for _ in range(plan.seats)], "bottom": []}
        self._pending = p
        self._stop.clear()
        self.state = "dealing"
        total = len(p["order"])
        while p["next"] < total:
            if self._stop.is_set():
                self.state = "stopped"
                raise DealInterrupted("emergency stop while dealing", dealt=p["next"])
            k = p["next"]
            seat = p["order"][k]
            (p["bottom"] if seat is None else p["hands"][seat]).append(p["cards"][k])
            p["next"] = k + 1
            on_event({"type": "card", "index": k, "seat": seat, "dealt": k + 1, "total": total})
            if self.card_delay:
                time.sleep(self.card_delay)
        self._pending = None
        self.state = "ready"
        return DealResult(hands=p["hands"], bottom=p["bottom"], extra={"deal_source": "software"})

    def estop(self) -> None:
        self._stop.set()

    def clear_fault(self) -> None:
        self._stop.clear()
        if self.state == "stopped":
            self.state = "ready"

    def status(self) -> dict[str, Any]:
        return {"rig": "software", "state": self.state, "estop": self._stop.is_set(),
                "resumable": self._pending is not None}

    def close(self) -> None:
        self._stop.set()
