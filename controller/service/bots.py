"""Bots that take empty seats, so one person can try the whole flow.

A bot is given its seat's information set (``engine.bots.infoset``: its view, its dealt hand, the public
record), never the state, and plays the search bot (``engine.bots.search``: determinized rollouts within
``budget_ms``, style ``careful`` or ``bold``) or the plain ``greedy`` one. A search that fails for any
reason plays the greedy move and logs why, so a hand never stalls on a bot.

>>> choose_action(get_game("hongsi"), state, 2, state.legal_actions(2), random.Random(1))   # doctest: +SKIP
{'seat': 2, 'action': 'play', 'cards': ['S5']}
"""

from __future__ import annotations

import copy
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from controller.text import hint_words
from engine.bots.greedy import DECLARATIONS, plain_policy  # noqa: F401 — re-exported for old callers
from engine.bots.infoset import info_set
from engine.bots.search import STYLES, WAIT, choose, fallback
from engine.game import Game, State

log = logging.getLogger(__name__)
BOTS = ("greedy", *STYLES)
MAX_BUDGET_MS = 10_000.0  # a bot's (and a hint's) longest think a move; a Pi 4 wants about 1000 ms


@dataclass
class BotSettings:
    bot: str = "careful"  # careful | bold (the search bot) | greedy (the quick one)
    budget_ms: float = 200.0  # the search's time per move (a Pi 4 wants about 1 s; 200 ms here)


SETTINGS = BotSettings()


def configure(bot: str | None = None, budget_ms: float | None = None) -> BotSettings:
    """Set the table's bots (``hongsi serve`` options); raises ``ValueError`` on an unknown bot."""
    if bot is not None:
        if bot not in BOTS:
            raise ValueError(f"unknown bot {bot!r}; use {', '.join(BOTS)}")
        SETTINGS.bot = bot
    if budget_ms is not None:
        if not 0 < budget_ms <= MAX_BUDGET_MS:  # NaN too: a search runs until its budget is spent
            raise ValueError(f"the bots' time per move is positive, at most {MAX_BUDGET_MS:.0f} ms")
        SETTINGS.budget_ms = budget_ms
    return SETTINGS


def plan_action(game: Game, state: State, seat: int, legal: list[dict[str, Any]], rng: random.Random, *,
                bot: str | None = None, budget_ms: float | None = None) -> Callable[[], dict[str, Any]]:
    """Read ``state`` into ``seat``'s information set now (under the caller's lock) and return the
    thinking, to run without the lock: a search's budget must not hold the table up. The state is read
    here only to build that information set; the bot sees nothing else."""
    try:
        info = copy.deepcopy(info_set(game, state, seat))  # the table moves on while the bot thinks
    except Exception:  # an engine that cannot show this seat now: the plain policy on what is offered
        log.exception("no information set for seat %s", seat)
        action = plain_policy(seat, legal, rng)
        return lambda: action
    style = bot or SETTINGS.bot
    if style == "greedy":
        return lambda: fallback(game, info, rng)
    budget = budget_ms or SETTINGS.budget_ms
    return lambda: _paced(lambda: choose(game, info, rng, style=style, budget_ms=budget).action, budget)


def plan_talk(game: Game, state: State, seat: int, rng: random.Random) -> Callable[[], dict[str, Any]] | None:
    """A bot seat not to act but offered a declaration (挑 before the call, 趴, 亮主 during the deal, ...):
    the thinking that declares or answers ``{"action": "wait"}``; None for the greedy bots (they never
    declare out of turn) or an engine that cannot show the seat now."""
    if SETTINGS.bot == "greedy":
        return None
    try:
        info = copy.deepcopy(info_set(game, state, seat))
    except Exception:
        log.exception("no information set for seat %s", seat)
        return None
    style, budget = SETTINGS.bot, SETTINGS.budget_ms
    return lambda: _paced(
        lambda: choose(game, info, rng, style=style, budget_ms=budget, out_of_turn=True).action, budget
    )


def _paced(think: Callable[[], dict[str, Any]], budget_ms: float) -> dict[str, Any]:
    """``think()``, taking at least ``budget_ms``: a search ends early when its seat has one move only (one
    card of the suit led), and the table sees how long a bot takes, so a quick move would tell it so."""
    end = time.monotonic() + budget_ms / 1000.0
    action = think()
    time.sleep(max(0.0, end - time.monotonic()))
    return action


def plan_hint(game: Game, state: State, seat: int, rng: random.Random, *, budget_ms: float | None = None,
              samples: int | None = None) -> Callable[[], dict[str, Any]]:
    """A beginner's hint for ``seat`` (what the careful bot would do, and why, in one short line, English
    and Chinese), from the seat's information set read now; the thinking runs without the caller's lock."""
    info = copy.deepcopy(info_set(game, state, seat))
    aside = state.current_player() != seat  # offered a declaration while another seat is to act

    def think() -> dict[str, Any]:
        if not info.legal:
            return {"action": None, "text": "Nothing to do now.", "text_zh": "现在无事可做。"}
        c = choose(game, info, rng, style="careful", budget_ms=budget_ms or SETTINGS.budget_ms, samples=samples,
                   out_of_turn=aside)
        if c.action.get("action") == WAIT:
            return {"action": None, "text": "Nothing worth declaring now: wait for your turn.",
                    "text_zh": "现在不值得叫，等轮到你再说。"}
        en, zh = hint_words(c.action, c.how, c.value, c.samples)
        return {"action": c.action, "text": en, "text_zh": zh}
    return think


def choose_action(game: Game, state: State, seat: int, legal: list[dict[str, Any]],
                  rng: random.Random, *, bot: str | None = None, budget_ms: float | None = None) -> dict[str, Any]:
    """One action for the bot in ``seat`` (``legal``: what the service offers it), thought at once."""
    return plan_action(game, state, seat, legal, rng, bot=bot, budget_ms=budget_ms)()
