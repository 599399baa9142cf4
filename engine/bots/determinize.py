"""Sample the hidden cards of an information set, consistently with everything public.

The seat's own dealt hand and any bottom it has seen are kept; the cards other seats played, showed or
declared openly are given to them; the rest of the deck is dealt at random into the other seats' unknown
cards and the unseen bottom, to fit what each seat's follows showed (:mod:`engine.bots.follows`: voids,
pairs and tractors it did not hold). The sample is then replayed through the game's own referee from the
deal: a sample that breaks any rule (a declaration it could not make, a call, a 趴, an exposure) is
rejected. What survives is a whole deal the seat cannot tell from the real one. Cards played face down are
filled in from the player's sampled hand, with cards that would be hidden the same way; an unseen taker's
bury is planned with the deal.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from itertools import product
from math import perm, prod
from typing import Any, NamedTuple

from engine.bots.follows import Follows, Rank, Suit, faults, follows, rank_fn, suit_fn
from engine.bots.infoset import FROM_HAND, SHOWN, InfoSet
from engine.cards import parse_cards
from engine.game import HIDDEN, Action, DealtRule, Game, State

TAKES = frozenset({"take_bottom", "bury"})  # the first of these shows who took the bottom


STATS: Counter[str] = Counter()  # what became of each sample: kept, or why it was refused (a diagnostic)


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


class Facts(NamedTuple):
    """What every sample of one information set is drawn from (never changed by a sample)."""

    known: list[Counter[str]]  # each seat's known dealt cards
    pool: Counter[str]  # the unknown cards
    follows: Follows  # the voids and pair limits each seat showed
    suit: Suit
    rank: Rank | None
    taker: int | None  # a seat, not this one, that took the bottom and buried face down
    buried: int  # how many cards it buried face down
    spent: Counter[str]  # the taker's cards played or shown openly (never buried face down)
    # per seat, cards it cannot have been dealt: their twin was held when it showed no pair of the suit
    banned: list[set[str]]
    dealt: list[int]  # how many cards each seat was dealt
    keys: tuple[str, ...] = ()  # the unknown cards of the game's dealt rule, placed first
    placements: tuple[tuple[int, ...], ...] = ()  # where the rule admits them (a place each)
    weights: tuple[int, ...] = ()  # how many deals of the other unknown cards each placement leaves
    order: Callable[[int, list[str]], list[str]] | None = None  # the rule's order of a seat's sampled cards


def facts(game: Game, info: InfoSet) -> Facts:
    """What the seat knows of the hidden cards, from its information set."""
    known, pool = constraints(game, info)
    seats = game.deal_plan(info.settings).seats
    suit, rank = suit_fn(game, info), rank_fn(game, info)
    taker = next((ev.get("seat") for ev in info.events if ev.get("action") in TAKES), None)
    buried = sum(
        _cards(ev).count(HIDDEN)
        for ev in info.events
        if ev.get("action") == "bury" and ev.get("seat") == taker
    )
    spent = Counter(
        c
        for ev in info.events
        if ev.get("seat") == taker and ev.get("action") in FROM_HAND | SHOWN
        for c in _cards(ev)
        if c != HIDDEN
    )
    if taker == info.seat or not buried:
        taker = None
    shown = follows(game, info, seats, suit, rank)
    banned = [{c for lim in lims if lim.pairs == 0 for c in lim.held} for lims in shown.limits]
    for s, cards in game.dealt_bans(info.view, info.seat, info.dealt).items():
        banned[s] |= cards - set(known[s])  # (a card known to be there was dealt there)
    dealt = list(game.cards_dealt(info.settings, info.view))
    f = Facts(known, pool, shown, suit, rank, taker, buried, spent, banned, dealt)
    rule = game.dealt_rule(info.settings, info.view, info.seat, info.dealt)
    if rule is None:
        return f
    return f._replace(**_placements(rule, info, f))


def _placements(rule: DealtRule, info: InfoSet, f: Facts) -> dict[str, Any]:
    """The game's dealt rule as :class:`Facts` fields: every placement of its unknown cards in the seats
    (and an unseen bottom) that the rule admits and the seats' bans and voids allow, weighted by the deals
    of the other unknown cards it leaves (the product of ``cap!/(cap - n)!`` over the places: so drawing
    a placement by weight, then the rest at random, draws uniformly from the deals that fit)."""
    where = {c: s for s, cards in enumerate(f.known) for c in cards if c in rule.cards}
    where.update({c: BOTTOM for c in known_bottom(info) if c in rule.cards})
    keys = tuple(sorted(c for c in rule.cards if f.pool[c]))
    if any(f.pool[c] > 1 for c in keys) or (keys and f.taker is not None):
        raise Unsampleable("a dealt rule's cards are one of each, and none is buried unseen")
    cap = {s: n - len(list(f.known[s].elements())) for s, n in enumerate(f.dealt) if s != info.seat}
    cap[BOTTOM] = sum(f.pool.values()) - sum(cap.values())
    ok = [
        [p for p in cap if cap[p] and (p < 0 or (f.suit(c) not in f.follows.void[p] and c not in f.banned[p]))]
        for c in keys
    ]
    placements, weights = [], []
    for pick in product(*ok):
        n = Counter(pick)
        if any(n[p] > cap[p] for p in n) or not rule.admits({**where, **dict(zip(keys, pick, strict=True))}):
            continue
        placements.append(pick)
        weights.append(prod(perm(cap[p], k) for p, k in n.items()))
    return {"keys": keys, "placements": tuple(placements), "weights": tuple(weights), "order": rule.order}


def sample_deal(
    game: Game, info: InfoSet, rng: random.Random, f: Facts
) -> tuple[list[list[str]], list[str], list[str]]:
    """Known cards to their seats; the pool placed into the rest (:func:`_place`: no card to a seat void
    in its suit), then cards swapped between seats until every seat fits what its follows showed
    (:func:`_repair`). Also the cards an unseen taker buries face down (its voids and the pairs it cannot
    have held first, then as a dealer would): the sample's bury."""
    plan = game.deal_plan(info.settings)
    hands, need = [], []
    if f.keys and not f.placements:
        raise Unsampleable("the public record admits no deal of the game's dealt rule")
    for s, n in enumerate(f.dealt):
        mine = list(f.known[s].elements())  # known cards first: a declaration was made early in the deal
        rng.shuffle(mine)
        if n < len(mine):
            raise Unsampleable(f"seat {s} showed more cards than it was dealt")
        hands.append(mine)
        need.append(n - len(mine) if s != info.seat else 0)
    rest = list(f.pool.elements())
    rng.shuffle(rest)
    bottom = list(known_bottom(info))
    room = plan.bottom - len(bottom)
    if len(rest) != sum(need) + room:
        raise Unsampleable("the cards left do not fill the bottom")
    cap = {s: need[s] for s in range(len(need)) if s != info.seat}  # where the unknown cards go
    if f.taker is not None:  # it holds the bottom's cards too, and buries some: any card may be among those
        gone = f.follows.void[f.taker]
        cap[BURIED] = f.buried - sum(f.suit(c) in gone for c in Counter(bottom) - f.spent)
        cap[f.taker] += room - cap[BURIED]
        if min(cap[BURIED], cap[f.taker]) < 0:
            raise Unsampleable("the taker must have buried more than it did")
    elif room:
        cap[BOTTOM] = room
    if f.keys:  # the rule's cards first, where it admits them; the rest around them
        pick = rng.choices(f.placements, f.weights)[0]
        keys = set(f.keys)
        rest = [c for c in rest if c not in keys]
        for p in pick:
            cap[p] -= 1
        placed = _place(rest, cap, f, rng)
        for c, p in zip(f.keys, pick, strict=True):
            placed[p].append(c)
            cap[p] += 1
    else:
        placed = _place(rest, cap, f, rng)
    hidden = {s: Counter(placed[s]) for s in cap if s >= 0}
    if f.taker is not None:
        hidden[f.taker] += Counter(placed[BURIED])
    spare = Counter(placed.get(BOTTOM, ()))  # the bottom's unknown cards nobody took
    bury = _repair(game, info, rng, f, hidden, spare, bottom)
    for s, cards in hidden.items():
        got = list(cards.elements())
        rng.shuffle(got)
        n = need[s]
        hands[s] += got[:n]
        if s == f.taker:
            spare = Counter(got[n:])
    if f.order is not None:  # the order each seat was dealt its cards in is public in part (天宣)
        hands = [list(info.dealt) if s == info.seat else f.order(s, h) for s, h in enumerate(hands)]
    return hands, bottom + list(spare.elements()), bury


BOTTOM, BURIED = -1, -2  # places the unknown cards go besides seats: the bottom, what the taker buried


def _place(cards: list[str], cap: dict[int, int], f: Facts, rng: random.Random) -> dict[int, list[str]]:
    """The unknown ``cards`` (shuffled) placed up to each place's ``cap``: the most constrained first, each
    to a place that may hold it (a seat not void in its suit, nor known to hold its twin when it showed no
    pair of the suit), weighted by the room left; where every place that may hold it is full, cards move
    along a chain of places to make room (so a tight deal is found whenever one exists)."""
    void, banned = f.follows.void, f.banned
    if not any(void) and not any(banned):  # nothing shown: the shuffled cards dealt out in turn
        at, out = 0, {}
        for p, n in cap.items():
            out[p], at = cards[at : at + n], at + n
        return out
    ok = {
        c: [p for p in cap if p < 0 or (f.suit(c) not in void[p] and c not in banned[p])] for c in set(cards)
    }
    out: dict[int, list[str]] = {p: [] for p in cap}
    for c in sorted(cards, key=lambda c: len(ok[c])):
        free = [p for p in ok[c] if len(out[p]) < cap[p]]
        if free:
            out[rng.choices(free, [cap[p] - len(out[p]) for p in free])[0]].append(c)
        elif not _shift(c, ok, out, cap):
            raise Unsampleable(f"no place may hold {c}")
    return out


def _shift(card: str, ok: dict[str, list[int]], out: dict[int, list[str]], cap: dict[int, int]) -> bool:
    """Room for ``card``: the shortest chain of moves (a card from one full place to another that may hold
    it, ..., to a place with room), made; ``False`` if there is none."""
    came: dict[int, tuple[int | None, str]] = {p: (None, card) for p in ok[card]}  # place: (from, card in)
    frontier = list(came)
    while frontier:
        ahead = []
        for p in frontier:
            for d in out[p]:
                for q in ok[d]:
                    if q in came:
                        continue
                    came[q] = (p, d)
                    if len(out[q]) < cap[q]:
                        while True:  # make the moves, from the end of the chain back to ``card``
                            src, moved = came[q]
                            out[q].append(moved)
                            if src is None:
                                return True
                            out[src].remove(moved)
                            q = src
                    ahead.append(q)
        frontier = ahead
    return False


SWAPS = 40  # swaps made before a sample is given up (most need a few)
TRIALS = 6  # swaps tried for one faulty card, looking for one that leaves fewer faults


def _repair(
    game: Game,
    info: InfoSet,
    rng: random.Random,
    f: Facts,
    hidden: dict[int, Counter[str]],
    spare: Counter[str],
    bottom: list[str],
) -> list[str]:
    """Swap hidden cards between seats (and the bottom nobody took) until each seat fits its follows;
    the taker's bury. Raises :class:`Unsampleable` if swaps do not get there."""
    void, limits = f.follows.void, f.follows.limits
    prior = bury_prior(game, info, rng)

    def bad(s: int) -> tuple[list[str], list[str]]:
        """The seat's faults, and (the taker's) bury."""
        if s != f.taker:
            return faults(hidden[s], void[s], limits[s], f.suit, f.rank), []
        bury, kept = _bury(f.known[s] + hidden[s] + Counter(bottom) - f.spent, f, prior)
        return faults(kept, void[s], limits[s], f.suit, f.rank), bury

    def move(h: Counter[str], out: str, into: str) -> None:
        h[out] -= 1
        if not h[out]:
            del h[out]
        h[into] += 1

    seats = [s for s in hidden if void[s] or limits[s] or s == f.taker]
    holders: list[tuple[int | None, Counter[str]]] = [*hidden.items(), (None, spare)]
    wrong = {s: bad(s) for s in seats}  # each seat's faults, found again only when its cards change
    for _ in range(SWAPS):
        now = [s for s in seats if wrong[s][0]]
        if not now:
            return wrong[f.taker][1] if f.taker is not None else []
        s = rng.choice(now)
        b = [c for c in wrong[s][0] if hidden[s][c]]  # (the taker's may be flipped bottom cards: they stay)
        if not b:
            raise Unsampleable("the taker's known cards break what it showed")
        card = rng.choice(b)
        options = [
            (t, h, y)
            for t, h in holders
            if h is not hidden[s]
            for y in h
            if y != card
            and f.suit(y) not in void[s]
            and (t in (None, f.taker) or (f.suit(card) not in void[t] and card not in f.banned[t]))
        ]
        if not options:
            continue  # (another faulty card may have some)
        rng.shuffle(options)
        for k, (t, h, y) in enumerate(options[:TRIALS]):
            move(hidden[s], card, y)
            move(h, y, card)
            was = len(wrong[s][0]) + (len(wrong[t][0]) if t in wrong else 0)
            new_s, new_t = bad(s), (bad(t) if t in wrong else None)
            if len(new_s[0]) + (len(new_t[0]) if new_t else 0) < was or k == min(TRIALS, len(options)) - 1:
                wrong[s] = new_s  # fewer faults, or the last try kept anyway: a step of a random walk
                if new_t is not None:
                    wrong[t] = new_t  # type: ignore[index]
                break
            move(h, card, y)
            move(hidden[s], y, card)
    raise Unsampleable("no swap made every seat fit what it showed")


def _bury(hand: Counter[str], f: Facts, prior: Callable[[str], float]) -> tuple[list[str], Counter[str]]:
    """The taker's face-down bury from the cards it may have buried, and what it kept: the cards of suits
    it showed void in, then one of each pair it showed it did not hold, then as ``prior`` orders."""
    void, limits = f.follows.void[f.taker], f.follows.limits[f.taker]  # type: ignore[index]
    out = [c for c in hand.elements() if f.suit(c) in void][: f.buried]  # (any more are faults to swap)
    kept = hand - Counter(out)
    while len(out) < f.buried and limits:
        wrong = faults(kept, set(), limits, f.suit, f.rank)
        if not wrong:
            break
        c = min(wrong, key=prior)
        out.append(c)
        kept[c] -= 1
        kept += Counter()
    if len(out) < f.buried:
        more = sorted(kept.elements(), key=prior)[: f.buried - len(out)]
        out += more
        kept -= Counter(more)
    return out, kept


def _fill(
    state: State,
    ev: Action,
    later: Counter[str],
    rng: random.Random,
) -> Action:
    """``ev`` with its face-down cards replaced by cards from the player's sampled hand that would be
    face down too, keeping the cards it plays openly later."""
    seat = ev["seat"]
    hand = Counter(state.public_view(seat).get("hand") or []) - later
    cards = _cards(ev)
    free = list((hand - Counter(c for c in cards if c != HIDDEN)).elements())
    rng.shuffle(free)
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


def bury_prior(game: Game, info: InfoSet, rng: random.Random) -> Callable[[str], float]:
    """The order a player buries in, cards first buried first: the game's own order (升级's dealer keeps
    trumps and points; a uniform guess put them in the bottom and left the dealer weak), with a little
    noise so that near cards change places."""
    key = game.bury_order(info.view)
    if key is None:
        return lambda c: rng.random()
    return lambda c: key(c) + 4 * rng.random()


def _masked(state: State, ev: Action, card: str) -> bool:
    shown = state.public_action({**ev, "cards": [card]}).get("cards") or []
    return bool(shown) and shown[0] == HIDDEN


def replay(
    game: Game,
    info: InfoSet,
    hands: list[list[str]],
    bottom: list[str],
    rng: random.Random,
    bury: list[str] | None = None,
) -> State | None:
    """The sampled deal played through the public record, the taker's face-down ``bury`` in its hidden
    slots; ``None`` if the referee refuses any event."""
    try:
        state = game.new_state(
            [parse_cards(h) for h in hands], parse_cards(bottom), info.settings, **info.deal_args
        )
    except Exception:  # noqa: BLE001 — a sample the game cannot even deal is just a rejected sample
        STATS["refused: cannot deal"] += 1
        return None
    events = list(info.events)
    planned = list(bury or ())
    for i, ev in enumerate(events):
        if ev.get("seat") != info.seat and HIDDEN in _cards(ev):
            if ev.get("action") == "bury" and planned:
                ev = {**ev, "cards": [c if c != HIDDEN else planned.pop(0) for c in _cards(ev)]}
            else:
                later = Counter(
                    c
                    for e in events[i + 1 :]
                    if e.get("seat") == ev["seat"] and e.get("action") in FROM_HAND
                    for c in _cards(e)
                    if c != HIDDEN
                )
                ev = _fill(state, ev, later, rng)
        errors = [v for v in state.judge(dict(ev)) if v.severity == "error"]
        if errors:
            v = errors[0]  # the rule, and its words when they name no seat or card (which pair rule)
            why = v.rule if any(ch.isdigit() for ch in v.message) else f"{v.rule} ({v.message})"
            STATS[f"refused: {ev.get('action')} {why}"] += 1
            return None
    return state


_last: tuple[Any, Any] = (None, None)  # the last information set sampled, and its facts


def _facts(game: Game, info: InfoSet) -> Facts:
    """:func:`facts` of ``info``, worked out once for the many samples of one move (they took a fifth of a
    升级 search's time when made again for each sample). Read and set as one pair: bots at one table search
    in threads of their own."""
    global _last
    seen, found = _last
    if seen is not info:
        found = facts(game, info)
        _last = (info, found)
    return found


def determinize(
    game: Game, info: InfoSet, rng: random.Random, tries: int = 20, deadline: float | None = None
) -> State | None:
    """A state consistent with ``info`` (``None`` if ``tries`` samples were all rejected, or the
    ``deadline``, a ``time.perf_counter()``, passed)."""
    f = _facts(game, info)
    for _ in range(tries):
        if deadline is not None and time.perf_counter() > deadline:
            return None
        try:
            hands, bottom, bury = sample_deal(game, info, rng, f)
        except Unsampleable:
            STATS["refused: unsampleable"] += 1
            continue
        state = replay(game, info, hands, bottom, rng, bury)
        if state is not None:
            if same_view(state, info):
                STATS["kept"] += 1
                return state
            STATS["refused: another view"] += 1
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
