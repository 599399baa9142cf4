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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

from engine.cards import Card, DeckSpec
from engine.settings import check_settings

Action = dict[str, Any]
HIDDEN = "?"  # what the table sees of a card it may not see


@dataclass(frozen=True)
class GameInfo:
    """A game's traits as data (OpenSpiel's GameType): what the service, the pages and the CLI ask
    instead of naming a game."""

    name_zh: str
    name_en: str
    trick_taking: bool = False  # a trick is one play from each seat; hands shrink evenly
    declares_before_play: bool = False  # any seat may declare out of turn before the first play
    passes: bool = False  # a seat may pass instead of playing (the climbing games)
    count_announce_events: bool = False  # counts are announced as record events (红桃四's rule 8)
    zero_sum: bool = True  # the scores of a hand sum to 0
    bottom_public: bool = False  # the bottom is shown to all once taken (挖坑)
    call_tracker: bool = False  # a card is called, and the display keeps a 记牌器
    lead_moves: bool = False  # declarations may move the first lead from the first player (对挑, 趴)
    talk: tuple[str, ...] = ()  # declarations a seat page shows (dimmed until due) before the first play
    # every action of the game and the fields it cannot do without (a play its ``cards``); anything else
    # is no action of the game: the service refuses it as bad input instead of putting it in the record
    actions: tuple[tuple[str, tuple[str, ...]], ...] = (("play", ("cards",)),)

    def to_json(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "talk": list(self.talk),
                "actions": {name: list(fields) for name, fields in self.actions}}

    def malformed(self, action: Action) -> str | None:
        """Why ``action`` is no action of this game (an unknown name, a field it needs missing), or None."""
        name = action.get("action")
        needs = dict(self.actions).get(name)  # type: ignore[arg-type]
        if needs is None:
            return f"{name!r} is not an action of {self.name_zh} ({', '.join(n for n, _ in self.actions)})"
        missing = [f for f in needs if action.get(f) in (None, [])]  # (a play of no cards names none)
        return f"{name} needs {' and '.join(missing)}" if missing else None


@dataclass(frozen=True)
class FirstPlay:
    """Who plays first in a dealt hand and why: the seat holding ``card``, or the ``dealer``."""

    seat: int
    card: str | None
    rule: str  # "holder" (of ``card``), "lowest_heart" or "dealer"


@dataclass(frozen=True)
class News:
    """A public fact an action made known (升级's trump, 挖坑's digger, ...): a code and its
    parameters; ``controller.text`` says it in words."""

    code: str
    params: dict[str, Any] = field(default_factory=dict)


def holder(hands: Sequence[Sequence[Any]], card: str) -> int | None:
    """The seat whose hand holds ``card`` (None: nobody)."""
    for seat, hand in enumerate(hands):
        if card in [str(c) for c in hand]:
            return seat
    return None


@dataclass(frozen=True, slots=True)
class Violation:
    """A rule broken by one event. ``severity`` is ``error`` (not applied) or ``warning`` (applied)."""

    rule: str
    message: str
    message_zh: str
    severity: str = "error"
    event: int | None = None
    code: str = ""  # what ``controller.text`` renders for people (default: the rule)
    params: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)  # seat, cards, counts, ...

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


def violation(rule: str, message: str, message_zh: str, severity: str = "error", event: int | None = None,
              *, code: str = "", **params: Any) -> Violation:
    """The one way engines make a :class:`Violation`: the rule id, the engine's words (kept in records),
    and the code and parameters people's words are rendered from."""
    return Violation(rule, message, message_zh, severity, event, code=code or rule, params=params)


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


class DealtRule(NamedTuple):
    """Where some cards may have been dealt: ``admits(where)``, ``where`` giving each of ``cards`` (one deck:
    each name once) its seat (-1: a bottom), says whether the public record allows it. ``order(seat, cards)``,
    if the order a seat was dealt its cards in shows (天宣 reads the first three): another seat's sampled
    cards in an order the record allows."""

    cards: frozenset[str]
    admits: Callable[[dict[str, int]], bool]
    order: Callable[[int, list[str]], list[str]] | None = None


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

    def public_actions(self, events: Sequence[Action]) -> list[Action]:
        """The applied ``events`` of this hand, in order, as the table sees them now: a card the table
        may not see becomes :data:`HIDDEN`. Decided by each event itself, never by a card's name (two
        decks hold each card twice, and a card played openly says nothing of a hidden one)."""
        return [self.public_action(ev) for ev in events]

    def public_action(self, event: Action) -> Action:
        """One applied event as the table sees it now (see :meth:`public_actions`). Default: all of it."""
        return dict(event)

    def due_announcements(self) -> list[Action]:
        """Events the table service makes for a player now, as the rules require them of the player
        (红桃四's rule 8: a count announced after a play that leaves few cards). Default: none."""
        return []

    def one_ask(self, action: Action) -> bool:
        """Whether ``action`` is of a kind a seat may try once a hand (红桃四's 趴). Default: none."""
        return False

    def counts_as_ask(self, action: Action, violations: list[Violation]) -> bool:
        """Whether judging ``action`` (with ``violations``) used the seat's one ask (see :meth:`one_ask`)."""
        return False

    def public_refusal(self, action: Action, violations: list[Violation]) -> Action:
        """What the table may learn of a refused ``action`` beyond its seat and name. Default: nothing."""
        return {}

    # What a seat itself knows beyond the public view (the bots' information set, ``engine.bots``).
    def applied_events(self) -> list[Action]:
        """The events applied so far, in order (unmasked: callers mask them with :meth:`public_action`)."""
        return list(getattr(self, "log", []))

    def seat_dealt(self, seat: int) -> list[str]:
        """The cards ``seat`` was dealt (it saw them)."""
        raise NotImplementedError

    def seen_bottom(self, seat: int) -> list[str] | None:
        """The bottom cards ``seat`` has seen (taken, or shown to all), or ``None``."""
        return None

    def deal_args(self) -> dict[str, Any]:
        """The public facts of the deal that :meth:`Game.new_state` takes (``first_seat``, ``dealer``)."""
        return {}

    # Traits for the bots (engine.bots): the game's own greedy move and what its search maximises.
    def greedy_move(self, seat: int, rng: random.Random) -> Action | None:
        """The game's own greedy move for ``seat`` now, or ``None`` (talk, bids, or no greedy player of
        its own: the bots' plain policy moves then)."""
        return None

    def search_value(self, seat: int) -> float | None:
        """What a search maximises for ``seat`` at the end of the hand (``None`` before): its score."""
        returns = self.returns()
        return None if returns is None else float(returns[seat])


def mask_cards(event: Action) -> Action:
    """``event`` with every card field hidden (``cards`` and ``card``)."""
    out = dict(event)
    if isinstance(out.get("cards"), list):
        out["cards"] = [HIDDEN] * len(out["cards"])
    if isinstance(out.get("card"), str):
        out["card"] = HIDDEN
    return out


class LoggedState(State):
    """A state that keeps the events it applied in ``log`` (what the bots' information sets replay);
    the game referees in ``_judge``."""

    log: list[Action]

    def judge(self, action: Action) -> list[Violation]:
        out = self._judge(action)
        if not out or not any(v.severity == "error" for v in out):
            self.log.append(dict(action))
        return out

    @abstractmethod
    def _judge(self, action: Action) -> list[Violation]: ...


class Game(ABC):
    """A game: its name, settings type, presets and deal plan; a factory of states."""

    name: ClassVar[str]
    info: ClassVar[GameInfo]
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
        # a record's rules are checked once per distinct rules, not once per record (the referee of 升级
        # records, each with its dealer, spent a fifth of its time resolving the settings' annotations)
        kept = _settings_key(base, overrides)
        made = _SETTINGS_MADE.get(kept) if kept is not None else None
        if made is not None:
            return made
        known = {f.name: f for f in dataclasses.fields(base)}
        for key in overrides:
            if key not in known:
                raise ValueError(f"unknown setting {key!r} for {self.name}; known: {sorted(known)}")
        try:
            settings = dataclasses.replace(base, **overrides)
            check_settings(settings)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"bad setting for {self.name}: {exc}") from None
        if kept is not None:
            if len(_SETTINGS_MADE) >= 4096:
                _SETTINGS_MADE.clear()
            _SETTINGS_MADE[kept] = settings
        return settings

    @abstractmethod
    def deal_plan(self, settings: Any) -> DealPlan: ...

    @abstractmethod
    def new_state(self, hands: list[list[Card]], bottom: list[Card], settings: Any, *,
                  first_seat: int | None = None, dealer: int | None = None) -> State:
        """A hand as dealt. ``first_seat``: the seat dealt first (挖坑's bidding starts there);
        ``dealer``: the dealer, where the game has one and the settings do not fix it (升级)."""

    def first_play(self, hands: Sequence[Sequence[Any]], bottom: Sequence[Any], *, dealer: int = 0) -> FirstPlay:
        """Who plays first in this deal by the game's rule. Raise ``ValueError`` if no seat qualifies."""
        raise ValueError(f"{self.name} names no first player from the deal")

    def news(self, before: dict[str, Any], after: dict[str, Any]) -> News | None:
        """What an action made known to the table, from the public views before and after it."""
        return None

    def may_make_news(self, action: str | None) -> bool:
        """Whether ``action`` can make :meth:`news` (so the views are built only then)."""
        return False

    def suit_of(self, card: str, view: dict[str, Any]) -> str | None:
        """The suit ``card`` follows as, given the public ``view`` (trumps), in a game where a seat must
        follow suit (the bots learn voids from it). Default: ``None``, no following."""
        return None

    def pair_run_order(self, view: dict[str, Any]) -> Callable[[str], int] | None:
        """Where a card stands for runs of pairs (升级's tractors) in the public ``view``: consecutive
        numbers make a run. Default: ``None``, the game has no runs of pairs (or no trump is known yet)."""
        return None

    def bury_order(self, view: dict[str, Any]) -> Callable[[str], float] | None:
        """How a player picks cards to bury face down, lowest first (the bots sample an unseen bury with
        it). Default: ``None``, no known order (any card alike)."""
        return None

    def dealt_bans(self, view: dict[str, Any], seat: int, dealt: Sequence[str]) -> dict[int, set[str]]:
        """Cards other seats cannot have been dealt, by what ``seat`` sees (its ``view`` and ``dealt``
        hand) of a rule that turned on a hidden card (the bots' samples keep to them). Default: none."""
        return {}

    def dealt_rule(self, settings: Any, view: dict[str, Any], seat: int, dealt: Sequence[str]) -> DealtRule | None:
        """What the public record says of where a few cards were dealt, by what ``seat`` sees, as a test of
        their whereabouts (the bots deal those cards first, by the test: 捉红A's aces played face down, the
        red aces' side). Default: none."""
        return None

    def cards_dealt(self, settings: Any, view: dict[str, Any]) -> Sequence[int]:
        """How many cards each seat was dealt, in ``view``. Default: the deal plan's, seat by seat."""
        return self.deal_plan(settings).cards_per_seat

    def announce_at(self, settings: Any) -> int:
        """A seat left with 1..this many cards is announced to the table (0: never). The climbing
        games by the table's courtesy at 3; never in a trick-taking game (hands shrink evenly)."""
        return 0 if self.info.trick_taking else 3

    def rules_of(self, settings: Any) -> dict[str, Any]:
        """The settings that differ from the default preset (a record's ``rules``)."""
        base = self.presets[self.default_preset]
        return {} if settings is base else settings_diff(base, settings)

    def bot_record(self, state: State, settings: Any, hands: Sequence[Sequence[Any]], bottom: Sequence[Any],
                   events: list[Action], *, first_seat: int = 0, **extra: Any) -> dict[str, Any]:
        """The one shape of a bot hand's record (``game-record.md``): the deal, the events, and the
        verdict the bots' hand came to (no violations), its scores and ``next_first_seat``."""
        verdict = state.verdict()
        verdict["violations"] = []
        record: dict[str, Any] = {"game": self.name, "preset": self.default_preset,
                                  "rules": self.rules_of(settings),
                                  "hands": [list(h) if set(map(type, h)) == _STR else list(map(str, h))
                                            for h in hands],  # (names already: copied, not str()-ed)
                                  "bottom": list(map(str, bottom)), "events": events,
                                  "first_seat": first_seat, "verdict": verdict, "scores": verdict.get("scores"),
                                  "next_first_seat": verdict.get("next_first_seat")}
        record.update(extra)
        return record

    @abstractmethod
    def bot_hand(self, rng: random.Random, *, bot: str = "greedy", settings: Any = None,
                 first_seat: int = 0) -> dict[str, Any]:
        """Deal a random hand and let bots play every seat; return the game record (with events)."""


_STR = {str}
_ATOMS = frozenset({bool, int, float, str, type(None)})
_SETTINGS_MADE: dict[tuple, Any] = {}  # (preset settings, overrides) -> the checked settings (frozen: shared)


def _settings_key(base: Any, overrides: dict[str, Any]) -> tuple | None:
    """The key :meth:`Game.settings` keeps checked settings by: the preset's settings and each override with
    its type (``True`` and ``1`` are equal but not the same setting); ``None`` for a value that is not a
    plain bool, number, string or None (not kept)."""
    items = []
    for name, value in overrides.items():
        if value.__class__ not in _ATOMS:
            return None
        items.append((name, value.__class__, value))
    key = (base, tuple(items))
    try:
        hash(key)
    except TypeError:  # (settings with a list in them)
        return None
    return key


def settings_diff(base: Any, settings: Any) -> dict[str, Any]:
    """The fields of ``settings`` that differ from ``base`` (the same settings type)."""
    return {f.name: getattr(settings, f.name) for f in dataclasses.fields(settings)
            if getattr(settings, f.name) != getattr(base, f.name)}


@dataclass
class RefereeResult:
    verdict: dict[str, Any]
    violations: list[Violation] = field(default_factory=list)
