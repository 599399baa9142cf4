"""Fast play-outs for the search's rollouts where a game's own loop is much quicker than the referee's.

升级: a private copy of the state (no deep copy) and the greedy play-out straight through the engine's
own options and play, without judging each play: the greedy player picks only among the legal options
the engine lists, so the referee would accept every one (tests/engine/test_bots_search.py checks the
result against the judged play-out).
"""

from __future__ import annotations

import copy
from typing import Any

from engine.game import State


def clone(state: State) -> State:
    """An independent copy of ``state`` for a rollout."""
    own = getattr(state, "clone", None)
    if own is not None:
        return own()
    if type(state).__name__ == "ShengjiState":
        return _clone_shengji(state)
    return copy.deepcopy(state)


def _clone_shengji(state: Any) -> Any:
    from engine.tricks import Trick

    new = copy.copy(state)
    new.counts = [list(c) for c in state.counts]
    new._held = [dict(h) for h in state._held]  # holdings are lists never changed in place (rebuilt instead)
    new.log = list(state.log)
    new.declarations = list(state.declarations)
    new.flipped, new.buried, new.tricks = list(state.flipped), list(state.buried), list(state.tricks)
    trick = Trick(state.trick.leader, state.trick.seats)
    trick.plays, trick.best = list(state.trick.plays), state.trick.best
    new.trick = trick
    return new


def play_out(state: State) -> bool:
    """Play the hand out greedily in place if this game has a fast loop for where it stands (True), else
    leave it (False: the caller plays it through the referee)."""
    if type(state).__name__ != "ShengjiState" or state.phase != "play":  # type: ignore[attr-defined]
        return False
    from engine.shengji import _greedy_play

    s: Any = state
    while s.phase == "play":
        trick = s.trick
        seat = trick.to_play
        options = s.follow_options(seat) if trick.plays else s.lead_options(seat)
        s._play(seat, _greedy_play(s, seat, options))
    return True
