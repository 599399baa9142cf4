"""The plain greedy policy: the search's fallback and its rollout policy.

Plays come from the game's own greedy player where it has one (红桃四's ``choose_play``), otherwise from
:func:`plain_policy` over the legal actions: answer a 趴 request with a refusal, never declare, call a
card it does not hold, play the smallest play it has, pass only when it cannot play.
"""

from __future__ import annotations

import random
from typing import Any

from engine.game import Action, State

DECLARATIONS = frozenset({"tiao", "baomen", "pa", "announce", "xuan", "fan_xuan", "expose", "declare"})


def plain_policy(
    seat: int, legal: list[Action] | tuple[Action, ...], rng: random.Random, own: set[str] | None = None
) -> Action:
    by_kind: dict[str, list[Action]] = {}
    for a in legal:
        by_kind.setdefault(str(a.get("action")), []).append(a)
    if "pa_refuse" in by_kind:
        return by_kind["pa_refuse"][0]
    if "announce" in by_kind:  # a count due is announced at once (the rules require it)
        return by_kind["announce"][0]
    if "call" in by_kind:  # call a card it does not hold (a partner), as most players do
        others = [a for a in by_kind["call"] if a.get("card") not in (own or set())]
        return rng.choice(others or by_kind["call"])
    if "play" in by_kind:
        return min(by_kind["play"], key=lambda a: (len(a.get("cards") or []), rng.random()))
    if "pass" in by_kind:
        return by_kind["pass"][0]
    rest = [a for a in legal if a.get("action") not in DECLARATIONS] or list(legal)
    return {**rng.choice(rest), "seat": seat}


def greedy_action(state: State, seat: int, rng: random.Random) -> Action:
    """The greedy action of ``seat`` in ``state`` (a sampled state in the search: the real one only in the
    benchmark's opponents and self-play). Plays use the game's own greedy player (``State.greedy_move``)."""
    play = state.greedy_move(seat, rng)
    if play is not None:
        return play
    legal = state.legal_actions(seat)
    own: Any = (
        set(state.public_view(seat).get("hand") or [])
        if any(a.get("action") == "call" for a in legal)
        else None
    )
    return plain_policy(seat, legal, rng, own)
