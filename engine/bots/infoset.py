"""A seat's information set: everything the seat may know, and nothing else.

Bots are given an :class:`InfoSet`, never a :class:`engine.game.State`. It is built at the edge
(the table service, self-play) from the state's public view for the seat, the public record (each
event as the table sees it, the seat's own events as the seat made them), the seat's dealt hand and
any bottom it has seen.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from engine.game import Action, Game, State

# actions that put cards from the actor's hand face up or down (a 红桃四 call names a card it may not hold)
FROM_HAND = frozenset({"play", "bury"})  # the cards leave the hand
SHOWN = frozenset({"expose", "declare"})  # the cards are shown and stay in the hand


@dataclass(frozen=True)
class InfoSet:
    game: str
    seat: int
    settings: Any
    view: dict[str, Any]  # State.public_view(seat)
    events: tuple[Action, ...]  # the public record (own events unmasked)
    dealt: tuple[str, ...]  # the seat's dealt cards
    bottom: tuple[str, ...] | None  # the bottom cards the seat has seen
    deal_args: dict[str, Any]  # first_seat / dealer, as new_state takes them
    legal: tuple[Action, ...]  # what the seat is offered now

    @property
    def hand(self) -> list[str]:
        return list(self.view.get("hand") or [])

    def key(self) -> str:
        """A canonical text of the whole information set (two states a seat cannot tell apart give one key)."""
        return json.dumps(
            [
                self.game,
                self.seat,
                repr(self.settings),
                self.view,
                self.events,
                self.dealt,
                self.bottom,
                self.deal_args,
                self.legal,
            ],
            sort_keys=True,
            default=str,
        )


def info_set(game: Game, state: State, seat: int) -> InfoSet:
    """The information set of ``seat`` in ``state``."""
    events = []
    for ev in state.applied_events():
        events.append(dict(ev) if ev.get("seat") == seat else state.public_action(ev))
    bottom = state.seen_bottom(seat)
    return InfoSet(
        game=game.name,
        seat=seat,
        settings=getattr(state, "settings", None) or getattr(state, "s", None),
        view=state.public_view(seat),
        events=tuple(events),
        dealt=tuple(state.seat_dealt(seat)),
        bottom=None if bottom is None else tuple(bottom),
        deal_args=dict(state.deal_args()),
        legal=tuple(state.offered_actions(seat)),
    )
