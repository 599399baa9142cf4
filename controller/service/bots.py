"""Bots that take empty seats, so one person can try the whole flow.

A bot uses its game's own greedy player for plays (``engine.<game>.bots.choose_play(state, seat, rng,
"greedy")``, or a ``choose_action(state, seat, rng)``) when the engine has one; otherwise, and for the
table talk, a plain policy over ``State.legal_actions``: answer a 趴 request with a refusal, never declare (挑/爆闷/趴), call when a
call is due, and play the smallest play it has (passing only when it cannot play).

>>> choose_action(get_game("hongsi"), state, 2, state.legal_actions(2), random.Random(1))   # doctest: +SKIP
{'seat': 2, 'action': 'play', 'cards': ['S5']}
"""

from __future__ import annotations

import importlib
import random
from typing import Any

from engine.game import Game, State

DECLARATIONS = {"tiao", "baomen", "pa", "announce"}


def _engine_bot(game: Game) -> Any:
    """The game's own bot: ``bots`` beside the module that implements the game (a package's)."""
    package = type(game).__module__.rpartition(".")[0]
    try:
        module = importlib.import_module(f"{package}.bots")
    except ImportError:
        return None
    if hasattr(module, "choose_action"):
        return module.choose_action
    if hasattr(module, "choose_play"):
        return lambda state, seat, rng: module.choose_play(state, seat, rng, "greedy")
    return None


def choose_action(game: Game, state: State, seat: int, legal: list[dict[str, Any]],
                  rng: random.Random) -> dict[str, Any]:
    """One legal action for the bot in ``seat`` (``legal`` is ``state.legal_actions(seat)``)."""
    bot = _engine_bot(game)
    plays = {"play", "pass"} & {a.get("action") for a in legal}
    if bot is not None and plays and len(plays) == len({a.get("action") for a in legal}):
        action = bot(state, seat, rng)
        if isinstance(action, dict) and action.get("seat") == seat:
            return action
    try:
        own = set(state.public_view(seat).get("hand") or [])
    except Exception:  # an engine that cannot show this seat now: no preference
        own = set()
    return plain_policy(seat, legal, rng, own)


def plain_policy(seat: int, legal: list[dict[str, Any]], rng: random.Random,
                 own: set[str] | None = None) -> dict[str, Any]:
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for a in legal:
        by_kind.setdefault(str(a.get("action")), []).append(a)
    if "pa_refuse" in by_kind:
        return by_kind["pa_refuse"][0]
    if "call" in by_kind:  # call a card it does not hold (a partner), as most players do
        others = [a for a in by_kind["call"] if a.get("card") not in (own or set())]
        return rng.choice(others or by_kind["call"])
    if "play" in by_kind:
        return min(by_kind["play"], key=lambda a: (len(a.get("cards") or []), rng.random()))
    if "pass" in by_kind:
        return by_kind["pass"][0]
    rest = [a for a in legal if a.get("action") not in DECLARATIONS] or legal
    return {**rng.choice(rest), "seat": seat}
