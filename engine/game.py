"""The one small game interface every game implements (in the spirit of OpenSpiel).

A :class:`Game` knows its presets, its typed settings and its deal plan, and makes states.
A :class:`State` is one hand in progress. Actions are record events: plain dicts such as
``{"seat": 2, "action": "play", "cards": ["D5", "D6", "D7"]}`` (see ``game-record.md``), so that the
referee, the bots, the table service and the records all speak the same language.

>>> from engine.registry import get_game
>>> game = get_game("hongsi")                                       # doctest: +SKIP
>>> state = game.new_state(hands, bottom=[], settings=game.settings()) # doctest: +SKIP
>>> while not state.is_terminal():                                  # doctest: +SKIP
...     seat = state.current_player()
...     state.judge(random.choice(state.legal_actions(seat)))

Engines are pure Python: no I/O here or below.
"""

from __future__ import annotations

import dataclasses
import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.cards import Card, DeckSpec
from engine.settings import check_settings

Action = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Violation:
    """A rule broken by one event. ``severity`` is ``error`` (not applied) or ``warning`` (applied)."""

    rule: str
    message: str
    message_zh: str
    severity: str = "error"
    event: int | None = None

    def at(self, index: int) -> Violation:
        """This violation placed at event ``index``, unless the engine already placed it (a missed count
        announcement, say, is reported on the earlier play that made it due)."""
        return self if self.event is not None else dataclasses.replace(self, event=index)

    def to_json(self) -> dict[str, Any]:
        return {
            "event": self.event,
            "rule": self.rule,
            "severity": self.severity,
            "message": self.message,
            "message_zh": self.message_zh,
        }


class IllegalAction(Exception):
    """Raised by engines inside :meth:`State.judge` paths; carries the :class:`Violation`."""

    def __init__(self, violation: Violation):
        super().__init__(violation.message)
        self.violation = violation


def violation(rule: str, message: str, message_zh: str, severity: str = "error") -> IllegalAction:
    """Shorthand: ``raise violation("follow", "…", "…")``."""
    return IllegalAction(Violation(rule, message, message_zh, severity))


@dataclass(frozen=True)
class DealPlan:
    """How a game's cards are dealt: seats, cards per seat, bottom cards, deck."""

    seats: int
    cards_per_seat: tuple[int, ...]
    bottom: int
    deck: DeckSpec

    def __post_init__(self) -> None:
        assert len(self.cards_per_seat) == self.seats
        assert sum(self.cards_per_seat) + self.bottom == self.deck.size, "a plan deals the whole deck"


class State(ABC):
    """One hand in progress. Subclasses keep whatever representation is fast."""

    @abstractmethod
    def current_player(self) -> int | None:
        """The seat to act, or ``None`` when the hand is over (or any seat may act)."""

    @abstractmethod
    def legal_actions(self, seat: int) -> list[Action]:
        """Every legal action of ``seat`` now; never empty for the seat to act while not terminal."""

    def offered_actions(self, seat: int) -> list[Action]:
        """The actions a person in ``seat`` is offered: ``legal_actions`` unless what is legal depends on
        cards the seat cannot see (红桃四's 趴 goes to one's teammate, whom only the partner knows). Then
        the seat is offered what it might believe legal, and the referee judges what it picks."""
        return self.legal_actions(seat)

    @abstractmethod
    def judge(self, action: Action) -> list[Violation]:
        """Referee one action: apply it unless an error is found; return the violations (maybe empty).

        An ``error`` violation means the state is unchanged; ``warning``\\ s are applied."""

    def apply(self, action: Action) -> None:
        """Apply a legal action; raise :class:`IllegalAction` with the first error otherwise."""
        for v in self.judge(action):
            if v.severity == "error":
                raise IllegalAction(v)

    @abstractmethod
    def is_terminal(self) -> bool: ...

    @abstractmethod
    def returns(self) -> list[int] | None:
        """Each seat's score for the hand (zero-sum), or ``None`` before the end."""

    @abstractmethod
    def public_view(self, seat: int | None = None) -> dict[str, Any]:
        """What ``seat`` may see (its own hand and public facts); ``None``: a spectator's view.

        Never contains another seat's hidden cards."""

    @abstractmethod
    def verdict(self) -> dict[str, Any]:
        """The verdict fields of ``game-record.md`` (without ``violations``, which the referee adds)."""


class Game(ABC):
    """A game: its name, settings type, presets and deal plan; a factory of states."""

    name: ClassVar[str]
    settings_type: ClassVar[type]
    presets: ClassVar[dict[str, Any]]  # preset name -> settings instance
    default_preset: ClassVar[str]

    def settings(self, preset: str | None = None, overrides: dict[str, Any] | None = None) -> Any:
        """The typed settings of ``preset`` (default preset if None) with ``overrides`` applied.

        Raises ``ValueError`` naming an unknown preset, unknown setting or bad value."""
        name = preset or self.default_preset
        if name not in self.presets:
            raise ValueError(f"unknown preset {name!r} for {self.name}; known: {sorted(self.presets)}")
        base = self.presets[name]
        if not overrides:
            return base
        known = {f.name: f for f in dataclasses.fields(base)}
        for key in overrides:
            if key not in known:
                raise ValueError(f"unknown setting {key!r} for {self.name}; known: {sorted(known)}")
        try:
            settings = dataclasses.replace(base, **overrides)
            check_settings(settings)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"bad setting for {self.name}: {exc}") from None
        return settings

    @abstractmethod
    def deal_plan(self, settings: Any) -> DealPlan: ...

    @abstractmethod
    def new_state(self, hands: list[list[Card]], bottom: list[Card], settings: Any) -> State: ...

    @abstractmethod
    def bot_hand(self, rng: random.Random, *, bot: str = "greedy", settings: Any = None,
                 first_seat: int = 0) -> dict[str, Any]:
        """Deal a random hand and let bots play every seat; return the game record (with events)."""


@dataclass
class RefereeResult:
    verdict: dict[str, Any]
    violations: list[Violation] = field(default_factory=list)
