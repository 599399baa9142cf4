"""捉红A's sampler deals each seat as many cards as it was dealt (issue 34): the seats dealt 14 are the deal
order's first two, whoever was dealt first."""

from __future__ import annotations

import random

from engine.bots import determinize as D
from engine.bots.infoset import info_set
from engine.registry import get_game


def test_a_hand_dealt_from_another_seat_is_sampled():
    """After the first hand the deal starts with the last hand's 末贡, so seats other than 0 and 1 hold 14
    cards: the sampler dealt 14 to seats 0 and 1 whatever the view's counts, and found no world at all (the
    search bot always fell back to greedy)."""
    game = get_game("zhuohonga")
    cfg = game.settings()
    for first_seat in (1, 2, 3):
        rng = random.Random(first_seat)
        state = game.new_state(game.deal(rng, cfg, first_seat), [], cfg)
        state.judge(state.greedy_move(state.current_player(), rng))  # the first play (no ace in it: ♥4's)
        info = info_set(game, state, state.current_player())
        assert list(game.cards_dealt(info.settings, info.view)) == [len(state.seat_dealt(s)) for s in range(4)]
        assert all(D.determinize(game, info, rng, tries=1) is not None for _ in range(10))
