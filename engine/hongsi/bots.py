"""红桃四 bots: a random one and a greedy one, both choosing among legal plays only, and the table talk
(挑, 爆闷, the call, 暗叫, 趴) they make now and then so that every mode occurs in self-play.

>>> import random
>>> from engine.hongsi.game import HongsiGame
>>> record = HongsiGame().bot_hand(random.Random(1), bot="greedy")
>>> record["game"], len(record["hands"])
('hongsi', 4)
"""

from __future__ import annotations

import random

from engine.game import Action
from engine.hongsi import combos
from engine.hongsi.state import CALLABLE, HongsiState

BOTS = ("greedy", "random")
THREE = 12  # the rank 3, the highest

# How often the bots talk (per hand): enough for every mode to appear in a few hundred hands.
P_BAOMEN = 0.03
P_TIAO = 0.05
P_ANJIAO = 0.12
P_PA = 0.25
P_ACCEPT = 0.7
P_LEAVE_UNANSWERED = 0.1


def _keeps(combo: combos.Combo, counts: list[int], bombs: bool) -> bool:
    """Greedy keeps its 3s and its bombs: plays using a 3, a bomb, or part of a bomb are held back."""
    if combo.kind == combos.BOMB or combo.top == THREE:
        return True
    return bombs and any(counts[r] == 4 for r in combo.ranks())


def choose_play(state: HongsiState, seat: int, rng: random.Random, bot: str) -> Action:
    """One play or pass for ``seat``, which must be the seat to play."""
    options, can_pass = state.moves(seat)
    if bot == "random":
        i = rng.randrange(len(options) + can_pass)
        return {"seat": seat, "action": "pass"} if i == len(options) else state.play_event(seat, options[i])
    hand = state.hands[seat]
    size = hand.bit_count()
    out = [c for c in options if c.size == size]
    if out:
        return state.play_event(seat, out[0])
    counts = combos.counts_of(hand)
    normal = [c for c in options if not _keeps(c, counts, state.settings.bombs)]
    if not can_pass:  # lead: the lowest cards first, as many of them as one combination takes
        best = min(normal or options, key=lambda c: (c.low, -c.size))
        return state.play_event(seat, best)
    pool = normal or (options if size <= 5 else [])
    if not pool:
        return {"seat": seat, "action": "pass"}
    return state.play_event(seat, min(pool, key=lambda c: (c.kind == combos.BOMB, c.top)))


def _play_out_random(state: HongsiState, rng: random.Random, do) -> None:
    """:func:`play_out` for the random bot, with :func:`choose_play` inlined: the same choices from the
    same random numbers (``_randbelow`` is what ``randrange(n)`` calls), in fewer calls."""
    below = rng._randbelow
    while not state.finished:
        pending = state.pending
        if pending is not None:
            do({"seat": pending[0], "action": "announce", "count": pending[1]})
            continue
        seat = state.turn if state.started else state.current_player()  # in play: the seat to play
        options, can_pass = state.moves(seat)  # type: ignore[arg-type]
        i = below(len(options) + can_pass)
        do({"seat": seat, "action": "pass"} if i == len(options) else state.play_event(seat, options[i]))  # type: ignore[arg-type]


def talk(state: HongsiState, rng: random.Random, do) -> None:
    """The declarations, the call and the 趴 talk of a hand, made through ``do(event)``."""
    h4 = state.h4
    if h4 is None:
        return
    if rng.random() < P_BAOMEN:
        do({"seat": h4, "action": "baomen"})
    else:
        for seat in rng.sample(range(4), 4):
            if rng.random() < P_TIAO and len(state.tiaos) < 2:
                do({"seat": seat, "action": "tiao"})
    if not state.call_due():
        return
    own = [c for c in CALLABLE if state.dealt[h4] >> c & 1]
    if own and rng.random() < P_ANJIAO:
        card = rng.choice(own)
    else:
        card = rng.choice([c for c in CALLABLE if not state.dealt[h4] >> c & 1])
    do({"seat": h4, "action": "call", "card": combos.CARD_NAMES[card]})
    for seat in rng.sample(range(4), 4):
        asks = [a for a in state.declaration_options(seat) if a["action"] == "pa"]
        if asks and rng.random() < P_PA:
            do(rng.choice(asks))
    while state.requests and rng.random() >= P_LEAVE_UNANSWERED:
        asker, target = next(iter(state.requests.items()))
        do({"seat": target, "action": "pa_accept" if rng.random() < P_ACCEPT else "pa_refuse"})


def play_out(state: HongsiState, rng: random.Random, bot: str, do) -> None:
    """Play the hand to its end; announce counts when due."""
    if bot == "random" and type(rng) is random.Random:
        return _play_out_random(state, rng, do)
    while not state.finished:
        pending = state.pending
        if pending is not None:
            do({"seat": pending[0], "action": "announce", "count": pending[1]})
        else:
            do(choose_play(state, state.current_player(), rng, bot))  # type: ignore[arg-type]
