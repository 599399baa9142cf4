"""Double feeds: two cards left the dealer together, the second one unseen by the camera. Everything
about them lives here: noticing one (the rig's DoubleFeed, or an exit pulse far too long), journaling
it in one row, finishing one a crash interrupted, and, once the deck is decoded, having a person check
the places of unseen cards decoding could only guess. A part of :class:`controller.deal.flow.Dealer`."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

import numpy as np

from controller import fair_deal
from controller.deal.decode import WRONG_DECK_AT
from controller.deal.operators import DealVoided, Operator
from controller.deal.problems import Problem
from controller.deal.state import DealState, planned_seat, unseen_read
from controller.journal import Journal
from controller.plan import BOTTOM, rebalance_after_double_feed
from vision.labels import LABELS

SWAP_MARGIN = float(np.log(20.0))   # two cards whose labels could swap at less than this log cost: a guess


class DoubleFeeds:
    journal: Journal
    operator: Operator

    if TYPE_CHECKING:                 # the dealer's own
        def _card_out(self, state: DealState, i: int, seat: int, pulse: float | None, inferred: bool = False,
                      double: bool = False) -> None: ...
        def _baseline(self, state: DealState) -> None: ...
        def _emit(self, type_: str, **fields: Any) -> None: ...
        def _clear_fault(self) -> None: ...
        def _pause(self, state: DealState, problem: Problem, reason: str, **details: Any) -> None: ...

    def _double_fed(self, state: DealState, evidence: Any) -> None:
        """The rig said two cards left with the pending eject (its ``fault`` row is written)."""
        assert state.pending is not None
        i, seat = state.pending["index"], state.pending["seat"]
        pulse = pulse_ms(evidence) or None
        self._clear_fault()
        self._card_out(state, i, seat, pulse, double=True)
        self._double_feed(state, i, seat, pulse)

    def _double_feed(self, state: DealState, i: int, seat: int, pulse: float | None) -> None:
        """Card ``i`` took the unread card behind it along to the same seat. Record that card (identity
        from deck decoding), keep every seat's count right, and flag the deal for the operator.

        One ``double_feed`` row holds all of it (the new order, the unseen card ``j`` and its seat), so
        a crash after any row of a double feed resumes knowing where both cards went. After the last
        planned card, the card taken along is one too many: journaled the same way, and the deal is
        stopped when it finishes (the seat's count, and decoding, name it)."""
        j = i + 1
        extra = j >= state.plan.total
        new_order, misplaced, flag = _reorder(state, i, j, seat)
        self.journal.append(state.round, "double_feed", {"index": i, "seat": seat, "pulse_ms": pulse,
                                                         "flag": flag.en, "misplaced": misplaced, "unseen": j,
                                                         "order": new_order, "extra": extra})
        state.plan.order, state.misplaced = new_order, misplaced
        state.doubles_open.pop(i, None)
        state.flags.append(flag.en)
        read = unseen_read(j, seat)
        self.journal.append(state.round, "card_read", read)
        state.reads[j] = read
        self._emit("double_feed", index=i, seat=None if seat == BOTTOM else seat)
        self._card_out(state, j, seat, None, inferred=True)
        self._baseline(state)

    def _finish_double_feeds(self, state: DealState) -> None:
        """Interrupted in the middle of a double feed (its ``fault`` or ``eject_done`` row says two
        cards left; its ``double_feed`` row is missing): journal the rest of it before the window is
        checked (the window shows the card after the unseen one)."""
        for j, missing in sorted(state.unseen_rows.items()):   # its unseen card's own rows, for the record
            if "card_read" in missing:
                self.journal.append(state.round, "card_read", state.reads[j])
            if "eject_done" in missing:
                self._card_out(state, j, state.dealt[j], None, inferred=True)
        state.unseen_rows.clear()
        for d in sorted(state.doubles_open.values(), key=lambda d: d["index"]):
            i, seat, pulse = d["index"], d["seat"], d.get("pulse_ms")
            pulse = float(pulse) if pulse else None
            if i not in state.dealt:
                self._card_out(state, i, seat, pulse, double=True)
            self._double_feed(state, i, seat, pulse)

    def _have_checked(self, state: DealState, group: list[int], labels: list[str | None]) -> None:
        """Pause: a person looks through the places ``group``'s cards went to and makes each hold the
        card the record says (swapping cards between them), then resumes; or voids the hand. The record
        then agrees with the table because a person made it so; a guess is never recorded as known."""
        places = sorted({state.dealt[k] for k in group}, key=lambda s: (s == BOTTOM, s))
        hold = [(s, sorted((str(labels[k]) for k in group if state.dealt[k] == s), key=LABELS.index))
                for s in places]
        unseen = [k + 1 for k in group if state.is_unseen(k)]
        seen = [k + 1 for k in group if not state.is_unseen(k)]
        cards = sorted({str(labels[k]) for k in group}, key=LABELS.index)
        check = Problem("unseen_check", {"unseen": unseen, "seen": seen, "numbers": [k + 1 for k in group],
                                         "cards": cards, "places": places, "hold": hold})
        place = {("bottom" if s == BOTTOM else str(s)): held for s, held in hold}
        self._pause(state, check, "double_feed", cards=list(group), place=place)
        checked = {k: str(labels[k]) for k in group}
        flag = Problem("unseen_placed", {"unseen": unseen, "seen": seen, "places": places}).en
        self.journal.append(state.round, "placed", {"by": "operator", "cards": {str(k): v for k, v in checked.items()},
                                                    "place": place, "flag": flag})
        state.placed.update(checked)
        state.flags.append(flag)

    def _hand_over(self, state: DealState, labels: list[str | None], moves: dict[int, int]) -> None:
        """Pause: a person hands each double-fed card in ``moves`` (index -> seat) from the seat it went
        to over to the seat it belongs to (the card is named: read, or known by elimination), then
        resumes. Journaled as ``handed_over``, so the record holds every card where it must end up.

        Unattended (an :class:`AutoOperator` with no hands to lend) the instruction is still printed and
        journaled, and the deal finishes: nothing in it is a guess, so, as for a jam, the operator's
        resume is taken as done; the flag says nobody confirmed it."""
        attended = getattr(self.operator, "attended", True)
        for j, to in sorted(moves.items()):
            at, card = state.dealt[j], str(labels[j])
            ask = Problem("hand_over", {"card": card, "n": j + 1, "at": at, "belongs": to})
            self._pause(state, ask, "double_feed", hand_over={"index": j, "card": card, "from": _place(at),
                                                              "to": _place(to)})
            flag = Problem("handed_over" if attended else "hand_over_asked", {"n": j + 1, "at": at, "belongs": to}).en
            self.journal.append(state.round, "handed_over", {"index": j, "card": card, "from": at, "to": to,
                                                             "by": "operator" if attended else "nobody",
                                                             "flag": flag})
            state.dealt[j] = to
            state.misplaced.pop(j, None)
            state.flags.append(flag)

    def _find_unseen(self, state: DealState, labels: list[str | None], problems: list[Problem]) -> bool:
        """The hopper ran out ``k`` cards early and just ``k`` cards are missing: the deck lacks them, or
        doubles stacked flush took them past the camera (two flush cards block the beam as one: no pulse
        tells them). Ask the table: each such card lies at a place with a card too many (counting names
        no card); a person gives each to a seat of the last ``k`` slots, which it then fills, and the
        deal finishes exact (unseen cards that could swap are checked after, as for any double feed).
        Nobody finds them, or nobody is there to look: False, and the deal stops naming them."""
        plan, first = state.plan, state.next_index
        k = plan.total - first
        if not 0 < k == len(problems) or any(p.code != "missing" for p in problems) or k >= WRONG_DECK_AT:
            return False
        unseen = [str(labels[j]) for j in sorted(state.dealt) if state.is_unseen(j) and labels[j] is not None]
        cards = sorted({*(p.params["card"] for p in problems), *unseen}, key=LABELS.index)
        to = [planned_seat(state, j) for j in range(first, plan.total)]
        held = Counter(state.dealt.values())
        want = sorted(held.items(), key=lambda kv: (kv[0] == BOTTOM, kv[0]))
        ask = Problem("find_unseen", {"cards": cards, "count": k, "counts": want, "belongs": to})
        try:
            self._pause(state, ask, "double_feed", find={"cards": cards, "want": {_place(s): n for s, n in want},
                                                         "to": [_place(s) for s in to]})
        except DealVoided:
            return False
        for j, seat in zip(range(first, plan.total), to, strict=True):
            flag = Problem("found_unseen", {"n": j + 1, "belongs": seat}).en
            self.journal.append(state.round, "handed_over", {"index": j, "card": cards[0] if len(cards) == 1 else None,
                                                             "from": None, "to": seat, "by": "operator", "flag": flag})
            state.dealt[j] = seat
            state.flags.append(flag)
            read = unseen_read(j, seat)
            self.journal.append(state.round, "card_read", read)
            state.reads[j] = read
        return True


def _place(seat: int) -> str:
    return "bottom" if seat == BOTTOM else str(seat)


def _reorder(state: DealState, i: int, j: int, seat: int) -> tuple[list[int], dict[int, int], Problem]:
    """The deal order after card ``j`` went to ``seat`` with card ``i``, the cards now at the wrong
    place, and the flag for the operator."""
    misplaced = dict(state.misplaced)
    if j >= state.plan.total:
        return list(state.plan.order), misplaced, Problem("double_extra", {"n": i + 1, "seat": seat})
    planned = state.plan.order[j]
    new_order = rebalance_after_double_feed(state.plan.order, j, seat)
    if Counter(new_order) == Counter(fair_deal.slots(state.plan.cards_per_seat, state.plan.bottom)):
        return new_order, misplaced, Problem("double_carried", {"n": i + 1, "with_card": j + 1, "seat": seat})
    misplaced[j] = planned
    return new_order, misplaced, Problem("double_carried_belongs", {"n": i + 1, "with_card": j + 1, "seat": seat,
                                                                    "belongs": planned})


def unseen_doubts(state: DealState, labels: list[str | None], logp: np.ndarray) -> list[list[int]]:
    """Groups of dealt cards whose places decoding had to guess: a card a double feed carried past
    the camera has no read, so decoding knows only which cards are missing, not which unseen card
    is which. Two cards are in doubt together when they lie in different places, have different
    labels, and swapping their labels costs decoding little (nothing at all for two unseen cards;
    for an unseen and a seen card, what the camera gave the other label). One unseen card, unseen
    cards all in one place, or unseen cards that are all the same card (two decks) are no doubt.
    Groups the operator already checked (``placed``) are left out. ``logp``: -log of every read's
    probabilities."""
    unseen = [i for i in sorted(state.dealt) if state.is_unseen(i) and i < len(labels) and labels[i] is not None]
    if not unseen:
        return []
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
            if logp[g, b] + logp[k, a] - logp[g, a] - logp[k, b] < SWAP_MARGIN:
                parent[root(k)] = root(g)
    groups: dict[int, list[int]] = {}
    for k in cards:
        groups.setdefault(root(k), []).append(k)
    return [sorted(group) for group in groups.values()
            if len(group) > 1 and not all(state.placed.get(k) == labels[k] for k in group)]


def pulse_ms(evidence: Any) -> float | None:
    """The exit pulse of an eject's evidence (an EjectEvidence, or its journaled dict)."""
    if evidence is None:
        return None
    value = evidence.get("pulse_ms") if isinstance(evidence, dict) else getattr(evidence, "pulse_ms", None)
    return float(value) if value is not None else None
