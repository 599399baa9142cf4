"""红桃四 (拐三) as a :class:`engine.game.Game`: presets, settings, the deal plan, states, bot hands.

>>> import random
>>> from engine.hongsi.game import HongsiGame
>>> game = HongsiGame()
>>> record = game.bot_hand(random.Random(7), bot="random")
>>> from engine.referee import referee
>>> referee(record)["violations"]
[]
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from engine.cards import DECKS, Card
from engine.game import Action, DealPlan, Game, IllegalAction
from engine.hongsi import combos as C
from engine.hongsi.bots import BOTS, play_out, talk
from engine.hongsi.settings import DEFAULT_PRESET, PRESETS, HongsiSettings
from engine.hongsi.state import HongsiState


class HongsiGame(Game):
    name = "hongsi"
    settings_type = HongsiSettings
    presets = PRESETS
    default_preset = DEFAULT_PRESET

    def deal_plan(self, settings: Any) -> DealPlan:
        return DealPlan(seats=4, cards_per_seat=(13, 13, 13, 13), bottom=0, deck=DECKS["hongsi"])

    def new_state(self, hands: list[list[Card]], bottom: list[Card], settings: Any) -> HongsiState:
        return HongsiState(hands, settings or self.settings())

    def rules_of(self, settings: HongsiSettings) -> dict[str, Any]:
        """The settings that differ from the default preset (the record's ``rules``)."""
        base = self.presets[self.default_preset]
        return {f.name: getattr(settings, f.name) for f in dataclasses.fields(settings)
                if getattr(settings, f.name) != getattr(base, f.name)}

    def deal(self, rng: random.Random, first_seat: int = 0) -> list[list[str]]:
        """Shuffle and deal 13 cards each, one at a time, starting at ``first_seat``."""
        deck = list(range(52))
        rng.shuffle(deck)
        masks = [0, 0, 0, 0]
        for i, code in enumerate(deck):
            masks[(first_seat + i) % 4] |= 1 << code
        return [C.cards_of(m) for m in masks]

    def bot_hand(self, rng: random.Random, *, bot: str = "greedy", settings: Any = None,
                 first_seat: int = 0) -> dict[str, Any]:
        if bot not in BOTS:
            raise ValueError(f"unknown bot {bot!r}; use greedy or random")
        settings = settings or self.settings()
        hands = self.deal(rng, first_seat)
        state = HongsiState(hands, settings)  # type: ignore[arg-type]
        events: list[Action] = []

        def do(event: Action) -> None:
            for v in state.judge(event):
                if v.severity == "error":
                    raise IllegalAction(v)  # a bot bug: bots make legal moves only
            events.append(event)

        talk(state, rng, do)
        play_out(state, rng, bot, do)
        return {
            "game": self.name,
            "preset": self.default_preset,
            "rules": self.rules_of(settings),
            "hands": hands,
            "bottom": [],
            "events": events,
            "next_first_seat": state.next_first_seat,
        }
