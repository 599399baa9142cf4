"""Game records (``docs/game-record.md``): validation into a typed :class:`Record`.

Anything that is not a record raises :class:`RecordError` with one clear line saying what is wrong
and where, e.g. ``hands[2][5]: not a card: 'H11'``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from engine.cards import BY_NAME, DECKS, Card, CardError, DeckSpec, parse_card
from engine.registry import get_game


class RecordError(ValueError):
    """The input is not a valid game record."""


@dataclass
class Record:
    game: str
    preset: str | None
    rules: dict[str, Any]
    hands: list[list[Card]]
    bottom: list[Card]
    events: list[dict[str, Any]]
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"game": self.game}
        if self.preset is not None:
            out["preset"] = self.preset
        if self.rules:
            out["rules"] = dict(self.rules)
        out["hands"] = [[str(c) for c in h] for h in self.hands]
        out["bottom"] = [str(c) for c in self.bottom]
        out["events"] = [dict(e) for e in self.events]
        out.update(self.extra)
        return out


def _cards(value: Any, where: str) -> list[Card]:
    if not isinstance(value, list):
        raise RecordError(f"{where}: expected a list of cards, got {type(value).__name__}")
    out = []
    for i, text in enumerate(value):
        try:
            out.append(parse_card(text))
        except CardError as exc:
            raise RecordError(f"{where}[{i}]: {exc}") from None
    return out


_NAMES = frozenset(BY_NAME)
_ALLOWED: dict[DeckSpec, dict[str, int]] = {}


def _plain(value: Any) -> bool:
    """Whether ``value`` is a list of card names exactly as written out (``H4``, never ``h4``): the fast
    path; anything else goes the slow way, which says what is wrong."""
    try:
        return isinstance(value, list) and _NAMES.issuperset(value)
    except TypeError:  # an unhashable item: not a card
        return False


def _plain_events(events: list[Any], seats: int) -> bool:
    """Whether every event passes :func:`_check_events` plainly: an object with a seat
    0..seats-1 (an int), a string action, any ``cards`` a list of card names as written out (``_plain``) and
    no ``card`` (the fast path; anything else goes :func:`_check_events`, which says what is wrong)."""
    superset = _NAMES.issuperset
    try:
        for ev in events:
            if ev.__class__ is not dict:
                return False
            seat = ev.get("seat")
            if seat.__class__ is not int or not 0 <= seat < seats or ev.get("action").__class__ is not str:
                return False
            if len(ev) > 2:  # (seat and action only: a pass, a bid...)
                cards = ev.get("cards", ev)  # (ev: no cards)
                if (cards is not ev and (cards.__class__ is not list or not superset(cards))) or "card" in ev:
                    return False
    except TypeError:  # an unhashable item in cards: not a card
        return False
    return True


def _check_events(events: list[Any], seats: int) -> None:
    """Raise :class:`RecordError` for the first event that is not an event, saying what is wrong."""
    for i, ev in enumerate(events):
        if not isinstance(ev, dict):
            raise RecordError(f"events[{i}]: expected an object with 'seat' and 'action'")
        seat = ev.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < seats:
            raise RecordError(f"events[{i}].seat: {seat!r} is not a seat 0..{seats - 1}")
        if not isinstance(ev.get("action"), str):
            raise RecordError(f"events[{i}].action: missing or not a string")
        if "cards" in ev and not _plain(ev["cards"]):
            _cards(ev["cards"], f"events[{i}].cards")
        if "card" in ev and not (isinstance(ev["card"], str) and ev["card"] in _NAMES):
            _cards([ev["card"]], f"events[{i}].card")


def _fits(deck: DeckSpec, hands: list[Any], bottom: Any) -> bool:
    """Whether plain card names ``hands`` and ``bottom`` fit in the deck (else the slow check says why)."""
    allowed = _ALLOWED.get(deck)
    if allowed is None:
        allowed = _ALLOWED[deck] = {str(c): n for c, n in deck.composition().items()}
    seen: Counter[str] = Counter(bottom)
    for hand in hands:
        seen.update(hand)
    return all(allowed.get(name, 0) >= n for name, n in seen.items())


def parse_record(obj: Any) -> Record:
    """Validate a decoded JSON value as a record of a known game."""
    if not isinstance(obj, dict):
        raise RecordError(f"a record is a JSON object, got {type(obj).__name__}")
    name = obj.get("game")
    if not isinstance(name, str):
        raise RecordError("missing 'game' (one of hongsi, wakeng, zhuohonga, gongzhu, shengji)")
    if name not in DECKS:
        raise RecordError(f"unknown game {name!r}; known: {', '.join(DECKS)}")
    if "hands" not in obj:
        raise RecordError("missing 'hands' (a list of each seat's cards)")
    raw_hands = obj["hands"]
    if not isinstance(raw_hands, list):
        raise RecordError("hands: expected a list of hands")
    raw_bottom = obj.get("bottom", []) or []
    plain = _plain(raw_bottom) and all(_plain(h) for h in raw_hands)
    if plain:
        name_of = BY_NAME.__getitem__
        hands = [list(map(name_of, h)) for h in raw_hands]
        bottom = list(map(name_of, raw_bottom))
    else:
        hands = [_cards(h, f"hands[{i}]") for i, h in enumerate(raw_hands)]
        bottom = _cards(raw_bottom, "bottom")
    preset = obj.get("preset")
    if preset is not None and not isinstance(preset, str):
        raise RecordError("preset: expected a string")
    rules = obj.get("rules") or {}
    if not isinstance(rules, dict):
        raise RecordError("rules: expected an object of settings")
    game = get_game(name)
    try:
        settings = game.settings(preset, rules)
    except ValueError as exc:
        raise RecordError(f"rules: {exc}") from None
    plan = game.deal_plan(settings)
    if not (plain and _fits(plan.deck, raw_hands, raw_bottom)):
        _check_deck(plan.deck, name, hands, bottom)

    if len(hands) != plan.seats:
        raise RecordError(f"hands: {name} has {plan.seats} seats, the record has {len(hands)}")

    events = obj.get("events", [])
    if not isinstance(events, list):
        raise RecordError("events: expected a list of events")
    if not _plain_events(events, plan.seats):  # (the common case: every event plainly fine, in one loop)
        _check_events(events, plan.seats)
    extra = {k: v for k, v in obj.items() if k not in {"game", "preset", "rules", "hands", "bottom", "events"}}
    return Record(name, preset, dict(rules), hands, bottom, list(events), extra)


def _check_deck(deck: DeckSpec, name: str, hands: list[list[Card]], bottom: list[Card]) -> None:
    """Raise :class:`RecordError` at the first card that is not in the deck or is dealt too often."""
    allowed = deck.composition()
    seen: Counter[Card] = Counter()
    for where, cards in [*((f"hands[{i}]", h) for i, h in enumerate(hands)), ("bottom", bottom)]:
        for card in cards:
            seen[card] += 1
            if card not in allowed:
                raise RecordError(f"{where}: {card} is not in the {name} deck")
            if seen[card] > allowed[card]:
                times = "twice" if allowed[card] == 1 else f"{seen[card]} times"
                raise RecordError(f"{where}: {card} is dealt {times} but the {name} deck has {allowed[card]}")
