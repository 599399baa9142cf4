"""Sample the hidden cards of an information set, consistently with everything public.

The seat's own dealt hand and any bottom it has seen are kept; the cards other seats played, showed or
declared openly are given to them; the rest of the deck is shuffled into the other seats' unknown
cards and the unseen bottom. The sample is then replayed through the game's own referee from the deal:
a sample that breaks any rule (a void shown by not following suit, a declaration it could not make, a
call, a 趴, an exposure) is rejected. What survives is a whole deal the seat cannot tell from the real
one. Cards played face down are filled in from the player's sampled hand, with cards that would be
hidden the same way.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from engine.bots.infoset import FROM_HAND, SHOWN, InfoSet
from engine.cards import parse_cards
from engine.game import HIDDEN, Action, Game, State

TAKES = frozenset({"take_bottom", "bury"})  # the first of these shows who took the bottom


class Unsampleable(Exception):
    """The public record admits no deal here (a bug, or a record this sampler does not understand)."""


def _cards(ev: Action) -> list[str]:
    cards = ev.get("cards")
    return [str(c) for c in cards] if isinstance(cards, list) else []


def constraints(game: Game, info: InfoSet) -> tuple[list[Counter[str]], Counter[str]]:
    """Each seat's known dealt cards (the seat's own: all of them) and the unknown pool."""
    plan = game.deal_plan(info.settings)
    seats = plan.seats
    pool = Counter(str(c) for c in plan.deck.cards())
    known = [Counter[str]() for _ in range(seats)]
    known[info.seat] = Counter(info.dealt)
    spent = [Counter[str]() for _ in range(seats)]
    shown = [Counter[str]() for _ in range(seats)]
    for ev in info.events:
        s, kind = ev.get("seat"), ev.get("action")
        if not isinstance(s, int) or s == info.seat or not 0 <= s < seats:
            continue
        open_cards = Counter(c for c in _cards(ev) if c != HIDDEN)
        if kind in FROM_HAND:
            spent[s] += open_cards
        elif kind in SHOWN:
            shown[s] |= open_cards
    bottom = Counter(known_bottom(info))
    # a card from the bottom went only to the seat that took it, and was never dealt to it; another seat's
    # card of the same name (two decks) is its own. (升级's dealer may bury without a take_bottom first: a
    # dealer that did so had the bottom taken from every seat's plays, and most samples were refused.)
    taker = next((ev.get("seat") for ev in info.events if ev.get("action") in TAKES), None)
    for s in range(seats):
        if s != info.seat:
            known[s] = (spent[s] | shown[s]) - (bottom if s == taker else Counter())
    pool -= bottom
    for s in range(seats):
        if known[s] - pool:
            raise Unsampleable(f"seat {s} showed cards the deck cannot give it: {sorted(known[s] - pool)}")
        pool -= known[s]
    return known, pool


def known_bottom(info: InfoSet) -> tuple[str, ...]:
    """The bottom cards the seat knows, in the bottom's order: all it has seen, else the cards flipped
    from its top in the open (升级's 翻底 names the trump: a sample with another first card has another
    trump, and was refused by the replay or, before any play showed it, searched a different hand)."""
    if info.bottom is not None:
        return info.bottom
    return tuple(str(c) for c in info.view.get("flipped") or ())


def voids(game: Game, info: InfoSet) -> list[set[str]]:
    """The suits each seat has shown it no longer holds, by not following the led suit in a trick.
    (Not for a seat that played cards face down in a trick: those may be of any suit. A seat that buried
    face down, 升级's dealer, has its voids: what it holds in play is what it did not bury.)"""
    seats = game.deal_plan(info.settings).seats
    out: list[set[str]] = [set() for _ in range(seats)]
    if not game.info.trick_taking or game.suit_of("SA", info.view) is None:
        return out
    plays = [ev for ev in info.events if ev.get("action") == "play"]
    hidden = {ev.get("seat") for ev in info.events if HIDDEN in _cards(ev) and ev.get("action") != "bury"}
    for at in range(0, len(plays), seats):
        trick = plays[at : at + seats]
        led = game.suit_of(_cards(trick[0])[0], info.view)
        lead_pairs = any(n > 1 for n in Counter(_cards(trick[0])).values())
        for ev in trick[1:]:
            s = ev.get("seat")
            if s in hidden:
                continue
            if any(game.suit_of(c, info.view) != led for c in _cards(ev)):
                out[s].add(led)  # type: ignore[arg-type]
            elif lead_pairs and not any(n > 1 for n in Counter(_cards(ev)).values()):
                out[s].add(f"pair:{led}")  # followed a pair without one: no pair left in the suit
    return out


def sample_deal(
    game: Game,
    info: InfoSet,
    rng: random.Random,
    known: list[Counter[str]],
    pool: Counter[str],
    void: list[set[str]] | None = None,
) -> tuple[list[list[str]], list[str]]:
    """Known cards to their seats; the pool shuffled into the rest, a seat void in a suit getting none of
    it (the most constrained cards placed first)."""
    plan = game.deal_plan(info.settings)
    hands, need = [], []
    for s, n in enumerate(plan.cards_per_seat):
        mine = list(known[s].elements())  # known cards first: a declaration was made early in the deal
        rng.shuffle(mine)
        if n < len(mine):
            raise Unsampleable(f"seat {s} showed more cards than it was dealt")
        hands.append(mine)
        need.append(n - len(mine) if s != info.seat else 0)
    rest = list(pool.elements())
    rng.shuffle(rest)
    bottom = list(known_bottom(info))
    room = plan.bottom - len(bottom)
    if void and any(void):

        def allowed(card: str) -> list[int]:
            suit = game.suit_of(card, info.view)
            return [
                s
                for s in range(len(need))
                if need[s] and suit not in void[s] and not (f"pair:{suit}" in void[s] and card in hands[s])
            ]

        rest.sort(key=lambda c: len(allowed(c)))
        spill = []
        for card in rest:
            ok = allowed(card)
            if not ok:
                spill.append(card)
                continue
            weights = [need[s] for s in ok]
            s = rng.choices(ok, weights)[0]
            hands[s].append(card)
            need[s] -= 1
        rest = spill
    for s in range(len(need)):
        hands[s] += rest[: need[s]]
        del rest[: need[s]]
    if len(rest) != room:
        raise Unsampleable("the cards left do not fill the bottom")
    return hands, bottom + rest


def _fill(
    state: State,
    ev: Action,
    later: Counter[str],
    rng: random.Random,
    first: Callable[[str], float] | None = None,
) -> Action:
    """``ev`` with its face-down cards replaced by cards from the player's sampled hand that would be
    face down too, keeping the cards it plays openly later; ``first``: the order to put cards down in
    (lowest first)."""
    seat = ev["seat"]
    hand = Counter(state.public_view(seat).get("hand") or []) - later
    cards = _cards(ev)
    free = list((hand - Counter(c for c in cards if c != HIDDEN)).elements())
    rng.shuffle(free)
    if first is not None:
        free.sort(key=first)
    out = []
    for c in cards:
        if c != HIDDEN:
            out.append(c)
            continue
        pick = next((f for f in free if _masked(state, ev, f)), free[0] if free else HIDDEN)
        if pick in free:
            free.remove(pick)
        out.append(pick)
    return {**ev, "cards": out}


def bury_prior(state: State, rng: random.Random) -> Callable[[str], float]:
    """The order a player buries in, cards first buried first: 升级's dealer keeps trumps and points and
    buries low plain cards (as the greedy bots and most people do; a uniform guess put points and trumps in
    the bottom and left the dealer weak); a little noise so that near cards change places."""
    if type(state).__name__ != "ShengjiState":
        return lambda c: rng.random()
    from engine.shengji import CODES, POINTS, TRUMP, Trumps

    s: Any = state
    t = s.trumps or Trumps(s.level, s.trump_choice()[0])
    return lambda c: (
        100 * (t.eff[CODES[c]] == TRUMP) + 50 * (POINTS[CODES[c]] > 0) + t.order[CODES[c]] + 4 * rng.random()
    )


def _masked(state: State, ev: Action, card: str) -> bool:
    shown = state.public_action({**ev, "cards": [card]}).get("cards") or []
    return bool(shown) and shown[0] == HIDDEN


def replay(
    game: Game,
    info: InfoSet,
    hands: list[list[str]],
    bottom: list[str],
    rng: random.Random,
    void: list[set[str]] | None = None,
) -> State | None:
    """The sampled deal played through the public record; ``None`` if the referee refuses any event."""
    try:
        state = game.new_state(
            [parse_cards(h) for h in hands], parse_cards(bottom), info.settings, **info.deal_args
        )
    except Exception:  # noqa: BLE001 — a sample the game cannot even deal is just a rejected sample
        return None
    events = list(info.events)
    for i, ev in enumerate(events):
        if ev.get("seat") != info.seat and HIDDEN in _cards(ev):
            later = Counter(
                c
                for e in events[i + 1 :]
                if e.get("seat") == ev["seat"] and e.get("action") in FROM_HAND
                for c in _cards(e)
                if c != HIDDEN
            )
            order = None
            if ev.get("action") == "bury":
                gone = void[ev["seat"]] if void else set()
                prior = bury_prior(state, rng)
                order = lambda c, g=gone, p=prior: (game.suit_of(c, info.view) not in g, p(c))  # noqa: E731
            ev = _fill(state, ev, later, rng, order)
        if any(v.severity == "error" for v in state.judge(dict(ev))):
            return None
    return state


_last: tuple[Any, Any] = (None, None)  # the last information set sampled, and its facts


def _facts(game: Game, info: InfoSet) -> tuple[list[Counter[str]], Counter[str], list[set[str]]]:
    """``constraints`` and ``voids`` of ``info``, worked out once for the many samples of one move (they
    took a fifth of a 升级 search's time when made again for each sample; never changed by a sample).
    Read and set as one pair: bots at one table search in threads of their own."""
    global _last
    seen, facts = _last
    if seen is not info:
        facts = (*constraints(game, info), voids(game, info))
        _last = (info, facts)
    return facts


def determinize(
    game: Game, info: InfoSet, rng: random.Random, tries: int = 20, deadline: float | None = None
) -> State | None:
    """A state consistent with ``info`` (``None`` if ``tries`` samples were all rejected, or the
    ``deadline``, a ``time.perf_counter()``, passed)."""
    known, pool, void = _facts(game, info)
    for _ in range(tries):
        if deadline is not None and time.perf_counter() > deadline:
            return None
        try:
            hands, bottom = sample_deal(game, info, rng, known, pool, void)
        except Unsampleable:
            continue
        state = replay(game, info, hands, bottom, rng, void)
        if state is not None and same_view(state, info):
            return state
    return None


def same_view(state: State, info: InfoSet) -> bool:
    """Whether the sample shows the seat what it sees: who acts may hang on hidden cards (红桃四's 对挑 is
    led by the duellist with the higher heart), and a world where another seat is to act gave the seat's
    greedy move no play (``min() arg is an empty sequence``) and its search illegal plays."""
    return _plain(state.public_view(info.seat)) == _plain(info.view)


def _plain(view: dict[str, Any]) -> dict[str, Any]:
    """A view with its hand as a multiset (some games list a hand in the order it was dealt)."""
    hand = view.get("hand")
    return {**view, "hand": sorted(hand)} if isinstance(hand, list) else view
