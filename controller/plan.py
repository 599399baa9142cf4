"""The deal plan of one hand: how many seats, how many cards each, the bottom, and which seat each
card position goes to (counter-clockwise round robin, or the fair deal's random balanced assignment).

The counts come from the game's engine (``Game.deal_plan(settings)``): 红桃四 4×13, 挖坑 3×16+4,
捉红A 54 cards over 4 seats, 拱猪 4×13 (拱双猪 2 decks 4×26), 升级 2 decks 4×25+8.

>>> plan = make_plan("wakeng", first_seat=1, fair=False)            # doctest: +SKIP
>>> plan.total, plan.order[:4], plan.order[-4:]                     # doctest: +SKIP
(52, [1, 2, 0, 1], [-1, -1, -1, -1])
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from controller import fair_deal
from engine.cards import DeckSpec
from engine.game import DealPlan
from engine.registry import game_names, get_game

BOTTOM = fair_deal.BOTTOM

class PlanError(ValueError):
    """A plan that cannot be made (unknown game, seat out of range, ...)."""


@dataclass
class Plan:
    """One hand's deal. ``order[i]`` is where card position ``i`` goes: a seat, or :data:`BOTTOM`."""

    game: str
    seats: int
    cards_per_seat: tuple[int, ...]
    bottom: int
    deck: DeckSpec
    first_seat: int
    fair: bool
    order: list[int]
    seed: bytes | None = None
    preset: str | None = None
    rules: dict[str, Any] = field(default_factory=dict)
    contributions: dict[int, str] = field(default_factory=dict)   # the seats' shares of the seed (hex)

    @property
    def total(self) -> int:
        return len(self.order)

    @property
    def commitment(self) -> str | None:
        return fair_deal.commitment(self.seed) if self.seed is not None else None

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "seats": self.seats, "cards_per_seat": list(self.cards_per_seat),
                "bottom": self.bottom, "decks": self.deck.decks, "jokers": self.deck.jokers,
                "first_seat": self.first_seat, "fair": self.fair, "order": list(self.order),
                "seed": self.seed.hex() if self.seed is not None else None, "preset": self.preset,
                "rules": dict(self.rules),
                "contributions": {str(s): v for s, v in sorted(self.contributions.items())}}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Plan:
        return cls(game=obj["game"], seats=obj["seats"], cards_per_seat=tuple(obj["cards_per_seat"]),
                   bottom=obj["bottom"], deck=DeckSpec(jokers=obj["jokers"], decks=obj["decks"]),
                   first_seat=obj["first_seat"], fair=obj["fair"], order=list(obj["order"]),
                   seed=bytes.fromhex(obj["seed"]) if obj.get("seed") else None, preset=obj.get("preset"),
                   rules=dict(obj.get("rules") or {}),
                   contributions={int(s): str(v) for s, v in (obj.get("contributions") or {}).items()})


def deck_text(decks: int, jokers: bool) -> tuple[str, str]:
    """What a deck is, in English and Chinese.

    >>> deck_text(2, True)
    ('two decks with jokers', '两副牌（带大小王）')
    """
    en = {1: "one deck", 2: "two decks"}.get(decks, f"{decks} decks") + (" with jokers" if jokers else " without jokers")
    zh = {1: "一副牌", 2: "两副牌"}.get(decks, f"{decks}副牌") + ("（带大小王）" if jokers else "（不带大小王）")
    return en, zh


def game_counts(game: str, preset: str | None = None, rules: dict[str, Any] | None = None
                ) -> tuple[DealPlan, str]:
    """The engine's deal plan of ``game`` (seats, cards per seat, bottom, deck) and the preset's name."""
    try:
        engine = get_game(game)
        settings = engine.settings(preset, rules)
    except ValueError as exc:  # an unknown game, preset or setting
        raise PlanError(str(exc)) from None
    return engine.deal_plan(settings), preset or engine.default_preset


@functools.cache
def catalogue() -> tuple[dict[str, Any], ...]:
    """Every game this table deals, for the operator: its presets (house rules), the default one, its
    seats, and the deck each preset needs (a preset may change it: 拱双猪 deals two decks). Worked out
    once: it depends on nothing but the engines."""
    out = []
    for name in game_names():
        engine = get_game(name)
        decks = {}
        for preset in sorted(engine.presets):
            deck = game_counts(name, preset)[0].deck
            en, zh = deck_text(deck.decks, deck.jokers)
            decks[preset] = {"cards": deck.size, "text": en, "text_zh": zh}
        out.append({"name": name, "default_preset": engine.default_preset, "presets": sorted(engine.presets),
                    "seats": game_counts(name)[0].seats, "decks": decks, **engine.info.to_json()})
    return tuple(out)


def make_plan(game: str, *, first_seat: int | None = None, previous_winner: int | None = None,
              fair: bool = True, seed: bytes | None = None, preset: str | None = None,
              rules: dict[str, Any] | None = None, contributions: dict[int, str] | None = None) -> Plan:
    """The plan of a new hand. The first seat to receive a card is ``first_seat``, else the previous
    hand's winner, else seat 0. With ``fair``, a fresh CSPRNG seed (or ``seed``) decides the seats,
    together with the seats' ``contributions`` if any (``fair_deal.shared_assignment``)."""
    counts, preset = game_counts(game, preset, rules)
    first = first_seat if first_seat is not None else (previous_winner if previous_winner is not None else 0)
    if not 0 <= first < counts.seats:
        raise PlanError(f"first seat {first} is out of range: {game} has seats 0..{counts.seats - 1}")
    if fair:
        seed = seed if seed is not None else fair_deal.new_seed()
        contributions = {int(s): fair_deal.check_contribution(v) for s, v in (contributions or {}).items()}
        order = fair_deal.shared_assignment(seed, contributions, counts.cards_per_seat, counts.bottom)
    else:
        seed, contributions = None, {}
        order = fair_deal.round_robin(counts.cards_per_seat, counts.bottom, first)
    return Plan(game=game, seats=counts.seats, cards_per_seat=counts.cards_per_seat, bottom=counts.bottom,
                deck=counts.deck, first_seat=first, fair=fair, order=order, seed=seed,
                preset=preset, rules=dict(rules or {}), contributions=contributions)


def rebalance_after_double_feed(order: list[int], index: int, actual: int) -> list[int]:
    """Card ``index`` went to ``actual`` instead of ``order[index]`` (a double feed took it along).
    Keep every seat's count right: the next position planned for ``actual`` takes the displaced
    destination instead. Return the new order (the input is not changed)."""
    new = list(order)
    planned = new[index]
    new[index] = actual
    if planned != actual:
        for j in range(index + 1, len(new)):
            if new[j] == actual:
                new[j] = planned
                break
    return new
