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

from engine.game import Action, IllegalAction
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


def _lowest(cards: int, n: int) -> int:
    """The lowest ``n`` bits of ``cards`` (0 if it has fewer)."""
    out = 0
    for _ in range(n):
        if not cards:
            return 0
        out |= cards & -cards
        cards &= cards - 1
    return out


_LOWEST = tuple(tuple(_lowest(nibble, n) for n in range(5)) for nibble in range(16))  # by a rank's 4 suit bits
_ABOVE_RANK = tuple(~((2 << top) - 1) for top in range(combos.N_RANKS))  # the ranks above each rank


def random_play(state: HongsiState, rng: random.Random, events: list[Action], judge=None) -> None:
    """:func:`play_out` for the random bot, judging every event through ``judge`` (``state.judge`` by
    default; an error raises :class:`IllegalAction`) and keeping it in ``events``. :func:`choose_play` and
    :meth:`HongsiState.moves` are inlined, and so is ``randrange(n)``'s draw (for an exact
    ``random.Random``, the only kind given here: ``_randbelow_with_getrandbits``): the same choices from
    the same random numbers, in fewer calls. A follow of a one-rank trick counts its options and makes
    only the one chosen; a lead lists its options without a call; a single's, pair's or triple's cards are
    taken inline (as :func:`combos.take` takes them)."""
    below, bits = rng._randbelow, rng.getrandbits  # (``below`` inlined below as _randbelow_with_getrandbits)
    judge = judge or state.judge
    s = state.settings
    bombs, min_pair_run = s.bombs, s.min_pair_run
    hands, ranks = state.hands, state._ranks
    singles, pairs, triples, bomb_sets = combos._S, combos._P, combos._T, combos._B
    ones = (singles, pairs, triples)
    straights, pair_runs = combos._STRAIGHTS_IN, combos._pair_runs_table(min_pair_run)
    name_of_bit, rank_mask = combos.NAME_OF_BIT, combos.RANK_MASK
    lowest, one_rank_names = _LOWEST, combos._SMALL
    above_rank = _ABOVE_RANK
    TRIPLE, SINGLE = combos.TRIPLE, combos.SINGLE  # noqa: N806 (locals, for speed)
    # take()'s ``avoid`` as the cards a single is taken from first (the call is made before any play)
    keep = ~(1 << state.called) if state.called is not None else -1
    while not state.started and not state.finished:  # the first play (no count is due before it)
        seat = state.current_player()
        options, can_pass = state.moves(seat)  # type: ignore[arg-type]
        i = below(len(options) + can_pass)
        event = ({"seat": seat, "action": "pass"} if i == len(options)
                 else state.play_event(seat, options[i]))  # type: ignore[arg-type]
        _judged(judge, event)
        events.append(event)
    while not state.finished:  # in play: ``started`` stays true
        pending = state.pending
        if pending is not None:
            event = {"seat": pending[0], "action": "announce", "count": pending[1]}
        else:
            while True:  # until a play: a pass neither ends the hand nor makes a count due
                seat = state.turn
                masks = ranks[seat] or state._rank_masks(seat)  # type: ignore[index]
                trick = state.trick
                if trick is None:  # lead_combos, the same options in the same order, without the call
                    m1, m2 = masks[0], masks[1]
                    options = singles[m1] + pairs[m2] + triples[masks[2]]
                    if bombs:
                        options += bomb_sets[masks[3]]
                    options += straights[m1 & 0x3FF] + pair_runs[m2 & 0x3FF]
                    total = len(options)
                    k = total.bit_length()
                    i = bits(k)
                    while i >= total:
                        i = bits(k)
                    combo = options[i]
                    break
                if trick[0] <= TRIPLE:  # follow_combos, counted: the same options in the same order
                    kind = trick[0]
                    first = ones[kind][masks[kind] & above_rank[trick[2]]]
                    more = bomb_sets[masks[3]] if bombs else ()
                    if first or more:
                        n = len(first)
                        total = n + len(more) + 1
                        k = total.bit_length()
                        i = bits(k)
                        while i >= total:
                            i = bits(k)
                        combo = first[i] if i < n else more[i - n] if i < total - 1 else None
                    else:  # nothing beats it: randrange(1)'s draws, then a pass
                        while bits(1):
                            pass
                        combo = None
                else:
                    options = combos.follow_combos(0, trick, bombs=bombs, min_pair_run=min_pair_run, masks=masks)
                    total = len(options) + 1
                    k = total.bit_length()
                    i = bits(k)
                    while i >= total:
                        i = bits(k)
                    combo = None if i == len(options) else options[i]
                if combo is not None:
                    break
                event = {"seat": seat, "action": "pass"}
                found = judge(event)
                if found:
                    _judged(judge, event, found)
                events.append(event)
            if combo[0] == SINGLE:  # take(), inlined for a single
                have = hands[seat] & rank_mask[combo[2]]  # type: ignore[index]
                pick = have & keep or have
                event = {"seat": seat, "action": "play", "cards": [name_of_bit[pick & -pick]]}
            elif combo[0] <= TRIPLE:  # take(), inlined for a pair or a triple: the lowest suits but ``keep``'s
                shift = combo[2] << 2
                have = hands[seat] >> shift & 15  # type: ignore[index]
                pick = lowest[have & keep >> shift & 15][combo[0] + 1]
                event = {"seat": seat, "action": "play", "cards": list(one_rank_names[(pick or have) << shift])}
            else:
                event = state.play_event(seat, combo)  # type: ignore[arg-type]
        found = judge(event)
        if found:
            _judged(judge, event, found)
        events.append(event)


def _judged(judge, event: Action, found=None) -> None:
    """Judge ``event`` (unless ``found`` are its violations already): an error is a bot bug, raised."""
    for v in judge(event) if found is None else found:
        if v.severity == "error":
            raise IllegalAction(v)  # bots make legal moves only


def _sample4(rng: random.Random) -> list[int]:
    """``random.sample(range(4), 4)``, its algorithm and so the same draws, without its checks (and for an
    exact ``random.Random``, its ``_randbelow_with_getrandbits`` inline)."""
    pool, out = [0, 1, 2, 3], []
    if type(rng) is random.Random:
        bits = rng.getrandbits
        for i, n, k in ((0, 4, 3), (1, 3, 2), (2, 2, 2), (3, 1, 1)):  # (i, 4 - i, its bit_length())
            j = bits(k)
            while j >= n:
                j = bits(k)
            out.append(pool[j])
            pool[j] = pool[3 - i]
        return out
    below = rng._randbelow
    for i in range(4):
        j = below(4 - i)
        out.append(pool[j])
        pool[j] = pool[3 - i]
    return out


def _nth_bit(mask: int, n: int) -> int:
    """The code of the n-th (from 0, low to high) set bit of ``mask``."""
    for _ in range(n):
        mask &= mask - 1
    return (mask & -mask).bit_length() - 1


CALLABLE_MASK = combos.mask_of(CALLABLE)


def talk(state: HongsiState, rng: random.Random, do) -> None:
    """The declarations, the call and the 趴 talk of a hand, made through ``do(event)``. (The draws are
    those of ``rng.sample`` and ``rng.choice`` on the lists they once made: :func:`_sample4`, and the
    n-th callable card by mask.)"""
    h4 = state.h4
    if h4 is None:
        return
    chance, below = rng.random, rng._randbelow
    if chance() < P_BAOMEN:
        do({"seat": h4, "action": "baomen"})
    else:
        for seat in _sample4(rng):
            if chance() < P_TIAO and len(state.tiaos) < 2:
                do({"seat": seat, "action": "tiao"})
    if not state.call_due():
        return
    own = state.dealt[h4] & CALLABLE_MASK
    if own and chance() < P_ANJIAO:
        card = _nth_bit(own, below(own.bit_count()))
    else:
        rest = CALLABLE_MASK & ~own
        card = _nth_bit(rest, below(rest.bit_count()))
    do({"seat": h4, "action": "call", "card": combos.CARD_NAMES[card]})
    # declaration_options' 趴 asks, worked out once: between the call and the answers nobody lies down,
    # the sides stand, and each seat asks at most once (its own turn in this loop)
    sides = state.sides() or []
    for seat in _sample4(rng):
        side: list[int] = []
        for t in sides:
            if seat in t:
                side = t
                break
        if len(side) > 1 and chance() < P_PA:  # the seat's teammates, asked as listed (the side holds the seat)
            do({"seat": seat, "action": "pa", "target": [t for t in side if t != seat][below(len(side) - 1)]})
    while state.requests and chance() >= P_LEAVE_UNANSWERED:
        asker, target = next(iter(state.requests.items()))
        do({"seat": target, "action": "pa_accept" if chance() < P_ACCEPT else "pa_refuse"})


def play_out(state: HongsiState, rng: random.Random, bot: str, do) -> None:
    """Play the hand to its end; announce counts when due."""
    if bot == "random" and type(rng) is random.Random:
        return random_play(state, rng, [], lambda event: do(event) or ())  # ``do`` keeps the events
    while not state.finished:
        pending = state.pending
        if pending is not None:
            do({"seat": pending[0], "action": "announce", "count": pending[1]})
        else:
            do(choose_play(state, state.current_player(), rng, bot))  # type: ignore[arg-type]
