"""Bots that take empty seats, so one person can try the whole flow.

A bot is given its seat's information set (``engine.bots.infoset``: its view, its dealt hand, the public
record), never the state, and plays the search bot (``engine.bots.search``: determinized rollouts within
``budget_ms``, style ``careful`` or ``bold``) or the plain ``greedy`` one. A search that fails for any
reason plays the greedy move and logs why, so a hand never stalls on a bot.

>>> choose_action(get_game("hongsi"), state, 2, state.legal_actions(2), random.Random(1))   # doctest: +SKIP
{'seat': 2, 'action': 'play', 'cards': ['S5']}
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from typing import Any

from engine.bots.greedy import DECLARATIONS, plain_policy  # noqa: F401 — re-exported for old callers
from engine.bots.infoset import info_set
from engine.bots.search import STYLES, choose, fallback
from engine.game import Game, State

log = logging.getLogger(__name__)
BOTS = ("greedy", *STYLES)


@dataclass
class BotSettings:
    bot: str = "careful"  # greedy | careful | bold
    budget_ms: float = 200.0  # the search's time per move (a Pi 4 wants about 1 s; 200 ms here)


SETTINGS = BotSettings()


def configure(bot: str | None = None, budget_ms: float | None = None) -> BotSettings:
    """Set the table's bots (``hongsi serve`` options); raises ``ValueError`` on an unknown bot."""
    if bot is not None:
        if bot not in BOTS:
            raise ValueError(f"unknown bot {bot!r}; use {', '.join(BOTS)}")
        SETTINGS.bot = bot
    if budget_ms is not None:
        if budget_ms <= 0:
            raise ValueError("the bots' time per move is positive (ms)")
        SETTINGS.budget_ms = budget_ms
    return SETTINGS


def choose_action(game: Game, state: State, seat: int, legal: list[dict[str, Any]],
                  rng: random.Random, *, bot: str | None = None, budget_ms: float | None = None) -> dict[str, Any]:
    """One action for the bot in ``seat`` (``legal``: what the service offers it). The state is read
    here only to build the seat's information set; the bot sees nothing else."""
    try:
        info = info_set(game, state, seat)
    except Exception:  # an engine that cannot show this seat now: the plain policy on what is offered
        log.exception("no information set for seat %s", seat)
        return plain_policy(seat, legal, rng)
    style = bot or SETTINGS.bot
    if style == "greedy":
        return fallback(game, info, rng)
    return choose(game, info, rng, style=style, budget_ms=budget_ms or SETTINGS.budget_ms).action
