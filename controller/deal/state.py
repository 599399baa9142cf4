"""What the journal says about one round's deal: :class:`DealState`, rebuilt row by row after a crash.

Older journals are read through :func:`upgrade`, the one place that knows their rows; the replay
itself reads only today's rows.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from controller.journal import Journal
from controller.plan import BOTTOM, Plan

DOUBLE_FEED_FACTOR = 1.7     # a pulse this many times the median is two cards


@dataclass
class DealState:
    """One round's deal: the plan, every read, where every card went, what is still open."""

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
    unseen_rows: dict[int, set[str]] = field(default_factory=dict)  # unseen card -> its rows still to write

    @property
    def next_index(self) -> int:
        return len(self.dealt)

    def counts(self) -> list[int]:
        c = Counter(s for s in self.dealt.values() if s != BOTTOM)
        return [c.get(s, 0) for s in range(self.plan.seats)]

    def is_unseen(self, i: int) -> bool:
        return bool(self.reads.get(i, {}).get("unseen"))

    def open_double(self, i: int, seat: int, pulse: Any) -> None:
        self.doubles_open[i] = {"index": i, "seat": seat, "pulse_ms": pulse}

    @classmethod
    def from_journal(cls, journal: Journal, round_: int) -> DealState:
        return replay(journal, round_)


def unseen_read(j: int, seat: int | None = None) -> dict[str, Any]:
    """The read of card ``j``, which a double feed carried past the camera to ``seat``: no evidence at all."""
    return {"index": j, "label": None, "confidence": 0.0, "unsure": True, "probs": None, "unseen": True,
            "seat": seat}


def planned_seat(state: DealState, i: int) -> int | None:
    """The seat card ``i`` is dealt to by the order as it stands (None: past the plan, an extra card)."""
    return state.plan.order[i] if i < len(state.plan.order) else None


def long_pulse(pulse: float | None, pulses: list[float]) -> bool:
    """An exit pulse far longer than the usual one: two cards left together."""
    if pulse is None or len(pulses) < 3:
        return False
    return pulse > DOUBLE_FEED_FACTOR * float(np.median(pulses))


# ---------------------------------------------------------------------------------------- the replay
def replay(journal: Journal, round_: int) -> DealState:
    rows = upgrade([(r.kind, r.data, r.image) for r in journal.rows(round_)])
    plan_row = next((data for kind, data, _ in rows if kind == "deal_plan"), None)
    if plan_row is None:
        raise ValueError(f"round {round_} has no deal plan in the journal: it cannot be resumed")
    state = DealState(round_, Plan.from_json(plan_row["plan"]))
    done: set[int] = set()                  # double feeds whose double_feed row is written
    for kind, data, image in rows:
        step = _STEPS.get(kind)
        if step is not None:
            step(state, data, image, done)
    state.unseen_rows = {j: left for j, left in state.unseen_rows.items() if left}
    return state


def _shuffle_done(state: DealState, d: dict[str, Any], image: Any, done: set[int]) -> None:
    state.shuffled = True


def _card_read(state: DealState, d: dict[str, Any], image: Any, done: set[int]) -> None:
    state.unseen_rows.get(d["index"], set()).discard("card_read")
    if not state.is_unseen(d["index"]):
        state.reads[d["index"]] = {**d, "image": image}


def _eject_intent(state: DealState, d: dict[str, Any], image: Any, done: set[int]) -> None:
    state.pending = d


def _fault(state: DealState, d: dict[str, Any], image: Any, done: set[int]) -> None:
    if d.get("kind") == "DoubleFeed" and state.pending is not None:
        # the rig reports a double feed once both cards have passed the exit: the eject happened
        state.open_double(state.pending["index"], state.pending["seat"], d.get("pulse_ms"))
        state.pending = None


def _eject_done(state: DealState, d: dict[str, Any], image: Any, done: set[int]) -> None:
    i, pulse = d["index"], d.get("pulse_ms")
    state.unseen_rows.get(i, set()).discard("eject_done")
    if (d["double"] or i in state.doubles_open) and i not in done:
        state.open_double(i, d["seat"], pulse)
    state.dealt[i] = d["seat"]
    if pulse:
        state.pulses.append(float(pulse))
    if state.pending and state.pending["index"] == i:
        state.pending = None


def _double_feed(state: DealState, d: dict[str, Any], image: Any, done: set[int]) -> None:
    """The whole double feed in one row: the order after it, the unseen card and its seat."""
    i, seat, j = d["index"], d["seat"], int(d["unseen"])
    state.doubles_open.pop(i, None)
    done.add(i)
    if d.get("order") is not None:
        state.plan.order = list(d["order"])
    state.flags.append(d["flag"])
    state.misplaced = {int(k): v for k, v in (d.get("misplaced") or {}).items()}
    state.reads[j] = unseen_read(j, seat)
    state.dealt[j] = seat
    state.unseen_rows[j] = {"card_read", "eject_done"}
    if state.pending and state.pending["index"] == i:
        state.pending = None


def _order(state: DealState, d: dict[str, Any], image: Any, done: set[int]) -> None:
    state.plan.order = list(d["order"])          # an older journal's reorder (see upgrade)


def _placed(state: DealState, d: dict[str, Any], image: Any, done: set[int]) -> None:
    state.placed.update({int(k): v for k, v in d["cards"].items()})
    state.flags.append(d["flag"])


def _handed_over(state: DealState, d: dict[str, Any], image: Any, done: set[int]) -> None:
    """A person moved a double-fed card to the seat it belongs to (``from`` None: a stacked card found at
    the table, never read: the row alone is its read too, so a crash before its card_read row loses nothing)."""
    j = int(d["index"])
    if d.get("from") is None and j not in state.reads:
        state.reads[j] = unseen_read(j, d["to"])
        state.unseen_rows[j] = {"card_read"}      # written on resume if the crash came first
    state.dealt[j] = d["to"]
    state.misplaced.pop(int(d["index"]), None)
    state.flags.append(d["flag"])


def _mcu_baseline(state: DealState, d: dict[str, Any], image: Any, done: set[int]) -> None:
    state.baseline = d


_STEPS = {"shuffle_done": _shuffle_done, "card_read": _card_read, "eject_intent": _eject_intent, "fault": _fault,
          "eject_done": _eject_done, "double_feed": _double_feed, "placed": _placed, "mcu_baseline": _mcu_baseline,
          "order": _order, "handed_over": _handed_over}


# ---------------------------------------------------------------------------------------- each card's seat
def card_seats(rows: list[Any]) -> list[int | str | None]:
    """For each ``card_read`` row of a round's journal rows (in order), the seat that card finally went
    to: a seat from 0, ``"bottom"``, or None (not dealt: a card left over, or the deal ended before it).

    The card_read row's own ``seat`` is the plan's seat when the card was read (older journals have
    none); what happened after decides: the eject that dealt it, a double feed that carried it along
    unseen, a person who handed it over. ``rows``: journal rows (``.kind``, ``.data``) or (kind, data, image)."""
    rows = upgrade([(r.kind, r.data, r.image) if hasattr(r, "kind") else tuple(r) for r in rows])
    final: dict[int, int] = {}
    reads: list[int] = []
    for kind, d, _ in rows:
        if kind == "card_read":
            reads.append(int(d["index"]))
        elif kind == "eject_done":
            final[int(d["index"])] = int(d["seat"])
        elif kind == "double_feed":
            final[int(d["unseen"])] = int(d["seat"])     # before its eject_done row (a crash may come between)
        elif kind == "handed_over":
            final[int(d["index"])] = int(d["to"])
    return [_seat_word(final[i]) if i in final else None for i in reads]


def _seat_word(seat: int) -> int | str:
    return "bottom" if seat == BOTTOM else seat


# ---------------------------------------------------------------------------------------- older journals
Row = tuple[str, dict[str, Any], Any]


def upgrade(rows: list[Row]) -> list[Row]:
    """Older journals' rows as today's dealer writes them:

    - a card a double feed carried past the camera was called ``ghost`` (card_read, double_feed);
    - ``eject_done`` had no ``double``: the long-pulse test the dealer made then is made again;
    - a ``double_feed`` row had no card number (it is the next card), and its new order came first in
      an ``order`` row ("double feed at card N"); an order row whose double feed was never written is
      dropped (that double feed is redone on resume, from the order before it)."""
    out: list[Row] = []
    pulses: list[float] = []
    orders: dict[int, list[int]] = {}        # double-fed card -> the order its order row gave
    for kind, data, image in rows:
        d = dict(data)
        if kind in ("card_read", "double_feed") and "ghost" in d:
            d["unseen"] = d.pop("ghost")
        if kind == "eject_done":
            pulse = d.get("pulse_ms")
            if "double" not in d:
                d["double"] = not d.get("inferred") and long_pulse(float(pulse) if pulse else None, pulses)
            if pulse:
                pulses.append(float(pulse))
        elif kind == "order":
            reason = str(d.get("reason", ""))
            if reason.startswith("double feed at card "):
                orders[int(reason.rsplit(" ", 1)[1]) - 1] = list(d["order"])
                continue
        elif kind == "double_feed":
            d.setdefault("unseen", d["index"] + 1)
            if d.get("order") is None and d["index"] in orders:
                d["order"] = orders.pop(d["index"])
        out.append((kind, d, image))
    return out
