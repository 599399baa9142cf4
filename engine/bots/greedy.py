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
    benchmark's opponents and self-play). Plays use the game's own greedy player."""
    play = _game_greedy(state, seat, rng)
    if play is not None:
        return play
    legal = state.legal_actions(seat)
    own: Any = (
        set(state.public_view(seat).get("hand") or [])
        if any(a.get("action") == "call" for a in legal)
        else None
    )
    return plain_policy(seat, legal, rng, own)


def _game_greedy(state: Any, seat: int, rng: random.Random) -> Action | None:
    """The game's own greedy play when ``seat`` is to play (None: talk, bids, or no such player)."""
    kind = type(state).__name__
    if kind == "HongsiState" and not _talk_due(state, seat):
        from engine.hongsi.bots import choose_play

        if state.pending is not None:
            return {"seat": seat, "action": "announce", "count": state.pending[1]}
        return choose_play(state, seat, rng, "greedy")
    if kind in ("GongzhuState", "ShuangzhuState") and state.trick.to_play == seat and not state.finished():
        from engine import gongzhu as g

        if kind == "ShuangzhuState":
            return {
                "seat": seat,
                "action": "play",
                "cards": g.names(g._greedy_combo(state, seat, state.legal_combos(seat))),
            }
        return {
            "seat": seat,
            "action": "play",
            "cards": [g.NAMES[g._greedy_play(state, seat, state.legal_plays(seat))]],
        }
    if kind == "ShengjiState":
        from engine import shengji as sj

        if state.phase == "play" and state.trick.to_play == seat:
            options = state.follow_options(seat) if state.trick.plays else state.lead_options(seat)
            return {"seat": seat, "action": "play", "cards": sj.names(sj._greedy_play(state, seat, options))}
        if state.phase in ("deal", "bury") and seat == state.dealer and state.current_player() == seat:
            if state.phase == "deal":  # take the bottom first: it is not seen before
                return {"seat": seat, "action": "take_bottom"}
            hand = [c for c in range(54) for _ in range(state.counts[seat][c])]
            bury = sj._greedy_bury(hand, sj.Trumps(state.level, state.trump_choice()[0]))
            return {"seat": seat, "action": "bury", "cards": sj.names(bury[: sj.BOTTOM - len(state.buried)])}
        return None
    if kind in ("WakengState", "ZhuohongaState") and getattr(state, "phase", "play") == "play":
        from engine.climbing import choose

        trick = state.trick
        if trick is None or trick.turn != seat or (kind == "ZhuohongaState" and state._must_show_h4()):
            return None
        combo = choose(
            state.rules if kind == "WakengState" else _zh_rules(),
            trick.options(seat),
            trick.beat,
            rng,
            "greedy",
        )
        if combo is None:
            return {"seat": seat, "action": "pass"}
        return {"seat": seat, "action": "play", "cards": state.hands[seat].pick(combo)}
    return None


def _zh_rules() -> Any:
    from engine.zhuohonga import RULES

    return RULES


def _talk_due(state: Any, seat: int) -> bool:
    """红桃四: a call or a 趴 answer is due from ``seat`` (not a play)."""
    return bool(
        state.call_due() or seat in state.requests.values() or state.pending is None and state.requests
    )
