"""The whole deal decoded: deck-consistency decoding over every card read, and the problems that stop
a deal (a card missing, twice, foreign; a place with the wrong count; the wrong deck)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from controller.deal.problems import Problem
from controller.deal.state import DealState
from controller.plan import BOTTOM, Plan
from vision.labels import LABELS

WRONG_DECK_AT = 5            # this many cards more or fewer than the deal needs: the wrong deck, not a lost card


def probs(state: DealState) -> np.ndarray:
    """The reader's probabilities of every card read so far (uniform for an unseen card)."""
    n_read = max(state.reads) + 1 if state.reads else 0
    uniform = [1.0 / len(LABELS)] * len(LABELS)
    return np.array([state.reads[i].get("probs") or uniform if i in state.reads else uniform
                     for i in range(n_read)], dtype=float).reshape(n_read, len(LABELS))


def neg_log_probs(state: DealState) -> np.ndarray:
    """-log of every read's probabilities: what relabelling a card costs."""
    return -np.log(np.clip(probs(state), 1e-9, 1.0))


def decode(state: DealState) -> tuple[list[str | None], list[Problem], dict[str, Any]]:
    """Each card's label, the deck's problems, and the ``decoded`` journal row."""
    from vision.decode import decode_deal

    p = probs(state)
    result = decode_deal(p, Counter(str(c) for c in state.plan.deck.cards()))
    labels: list[str | None] = list(result.labels)
    problems = [Problem("missing", {"card": c}) for c in _names(result.missing)]
    problems += [Problem("twice", {"card": c}) for c in _names(result.duplicated)]
    extra = _names(result.extra)
    for j in sorted(state.dealt):
        # an unseen card (a double feed) the deck has no room for: it is one too many, at its seat
        if state.is_unseen(j) and j < len(labels) and labels[j] is None and "?" in extra:
            extra.remove("?")
            problems.append(Problem("unseen_extra", {"seat": state.dealt[j], "with_card": j}))
    problems += [Problem("foreign", {"card": c}) for c in extra]
    n_read, total = len(p), state.plan.total
    if n_read > total and not problems:
        problems.append(Problem("hopper_extra", {"count": n_read - total}))
    if n_read < total and not problems:
        problems.append(Problem("deck_short", {"count": n_read, "want": total}))
    row = {"corrected": json_safe(result.corrected), "unsure": json_safe(result.unsure),
           "problems": [x.en for x in problems]}
    return labels, problems, row


def wrong_deck(held: int, plan: Plan) -> Problem:
    """The hopper held the wrong deck (far more or fewer cards than the deal): one line, not a list."""
    return Problem("wrong_deck", {"count": held, "want": plan.total, "deck": (plan.deck.decks, plan.deck.jokers)})


def places(state: DealState, labels: list[str | None],
           moves: dict[int, int] | None = None) -> tuple[list[list[str]], list[str]]:
    """The hands and the bottom as decoded (``?`` for a card decoding could not name), with the
    cards of ``moves`` (index -> seat) handed over."""
    hands: list[list[str]] = [[] for _ in range(state.plan.seats)]
    bottom: list[str] = []
    for i in sorted(state.dealt):
        seat = (moves or {}).get(i, state.dealt[i])
        (bottom if seat == BOTTOM else hands[seat]).append(labels[i] or "?")
    return hands, bottom


def hand_overs(state: DealState, labels: list[str | None], hands: list[list[str]],
               bottom: list[str]) -> dict[int, int]:
    """The double-fed cards a person must hand to the seat they belong to (index -> seat): when the
    counts are off only because a double feed near the end (no later card could even it out) put
    cards at the wrong seat, and each of those cards is named (by its read or by elimination)."""
    if not state.misplaced or not _counts_off(state.plan, hands, bottom):
        return {}
    moves = dict(state.misplaced)
    if any(j >= len(labels) or labels[j] is None for j in moves):
        return {}
    return {} if _counts_off(state.plan, *places(state, labels, moves)) else moves


def _counts_off(plan: Plan, hands: list[list[str]], bottom: list[str]) -> bool:
    return [len(h) for h in hands] != list(plan.cards_per_seat) or len(bottom) != plan.bottom


def count_problems(state: DealState, labels: list[str | None], hands: list[list[str]],
                   bottom: list[str]) -> list[Problem]:
    """Each place's count against the plan; when one is off, the double feeds that caused it."""
    plan = state.plan
    out = [Problem("seat_count", {"seat": s, "count": len(hand), "want": plan.cards_per_seat[s]})
           for s, hand in enumerate(hands) if len(hand) != plan.cards_per_seat[s]]
    if len(bottom) != plan.bottom:
        out.append(Problem("bottom_count", {"count": len(bottom), "want": plan.bottom}))
    if out:
        out += [Problem("misplaced", {"card": str(labels[j]), "at": state.dealt[j], "belongs": belongs})
                for j, belongs in state.misplaced.items()]   # no later slot could even out a double feed
    return out


def _names(cards: Any) -> list[str]:
    if not cards:
        return []
    if isinstance(cards, dict):
        return [str(k) for k, v in cards.items() for _ in range(int(v) if isinstance(v, int) else 1)]
    return [str(c) for c in cards]


def json_safe(value: Any) -> Any:
    """A JSON-able copy of a rig's or decoder's answer (dataclass, dict, list, number, text)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [json_safe(v) for v in value]
    if hasattr(value, "__dict__"):
        return {k: json_safe(v) for k, v in vars(value).items() if not k.startswith("_")}
    if hasattr(value, "__dataclass_fields__"):
        return {k: json_safe(getattr(value, k)) for k in value.__dataclass_fields__}
    return str(value)
