"""Fast play-outs for the search's rollouts, where a game's state offers them (OpenSpiel's way: a trait of
the state, never a branch on the game's name).

``clone()``: a state's own cheap copy, else a deep copy. ``play_out_greedy()``: a game's own greedy loop
straight through its options without judging each play (升级: much quicker than the referee's loop;
tests/engine/test_bots_search.py checks the result against the judged play-out).
"""

from __future__ import annotations

import copy

from engine.game import State


def clone(state: State) -> State:
    """An independent copy of ``state`` for a rollout."""
    own = getattr(state, "clone", None)
    return own() if own is not None else copy.deepcopy(state)


def play_out(state: State) -> bool:
    """Play the hand out greedily in place if this game has a fast loop for where it stands (True), else
    leave it (False: the caller plays it through the referee)."""
    own = getattr(state, "play_out_greedy", None)
    return bool(own()) if own is not None else False
