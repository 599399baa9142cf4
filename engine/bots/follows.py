"""What each seat's follows show of its hand, read from the public record (issue 34).

A seat that did not follow the led suit with every card it played holds none of that suit any more. One
that followed a led pair (or pairs) with fewer pairs of the suit held no other pair of it then, and one that
did not follow a led tractor with a tractor held no such run of pairs (升级, 拱双猪). The sampler deals the
hidden cards to fit these facts: a world that breaks one is refused by the referee's replay, and drawing such
worlds was most of the sampler's waste in 升级.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, NamedTuple

from engine.bots.infoset import SHOWN, InfoSet
from engine.game import HIDDEN, Action, Game

Suit = Callable[[str], Any]
Rank = Callable[[str], int]


class Limit(NamedTuple):
    """What a seat held of one suit when it followed a trick."""

    suit: str
    pairs: int  # at most this many pairs of the suit (-1: no limit)
    run: int  # no run of this many pairs, a tractor (0: no limit)
    held: Counter[str]  # its cards of the suit known held then: played in that trick or later, or shown


class Follows(NamedTuple):
    void: list[set[str]]  # per seat, the suits it holds none of
    limits: list[list[Limit]]  # per seat


def _cards(ev: Action) -> list[str]:
    cards = ev.get("cards")
    return [str(c) for c in cards] if isinstance(cards, list) else []


def suit_fn(game: Game, info: InfoSet) -> Suit:
    """``game.suit_of`` in this view, each card worked out once."""
    memo: dict[str, Any] = {}
    view = info.view

    def suit(card: str) -> Any:
        s = memo.get(card)
        if s is None:
            s = memo[card] = game.suit_of(card, view)
        return s

    return suit


def rank_fn(game: Game, info: InfoSet) -> Rank | None:
    """Where a card stands in its suit for runs of pairs (the game's trait; None: no runs of pairs)."""
    return game.pair_run_order(info.view)


def longest_run(pairs: list[str], rank: Rank | None) -> int:
    """The most pairs in a run of consecutive ranks (two pairs of one rank, 升级's off-suit level cards,
    count once)."""
    if not pairs:
        return 0
    if rank is None:
        return 1
    orders = sorted({rank(c) for c in pairs})
    best = run = 1
    for a, b in zip(orders, orders[1:], strict=False):
        run = run + 1 if b == a + 1 else 1
        best = max(best, run)
    return best


def follows(game: Game, info: InfoSet, seats: int, suit: Suit, rank: Rank | None) -> Follows:
    """The voids and limits every seat showed (none for a seat that played face down in a trick: its cards
    may be of any suit; a seat that buried face down, 升级's dealer, has them: what it holds in play is what
    it did not bury)."""
    void: list[set[str]] = [set() for _ in range(seats)]
    limits: list[list[Limit]] = [[] for _ in range(seats)]
    if not game.info.trick_taking or game.suit_of("SA", info.view) is None:
        return Follows(void, limits)
    plays = [ev for ev in info.events if ev.get("action") == "play"]
    face_down = {ev.get("seat") for ev in info.events if HIDDEN in _cards(ev) and ev.get("action") != "bury"}
    mine: list[list[list[str]]] = [[] for _ in range(seats)]  # each seat's plays in order
    shown: list[Counter[str]] = [Counter() for _ in range(seats)]
    for ev in info.events:
        s = ev.get("seat")
        if isinstance(s, int) and 0 <= s < seats:
            if ev.get("action") == "play":
                mine[s].append(_cards(ev))
            elif ev.get("action") in SHOWN:
                shown[s] |= Counter(_cards(ev))
    kept = [shown[s] - Counter(c for p in mine[s] for c in p) for s in range(seats)]  # shown, not played
    nth = [0] * seats
    for at in range(0, len(plays), seats):
        trick = plays[at : at + seats]
        lead = _cards(trick[0])
        led = suit(lead[0])
        lead_pairs = [c for c, n in Counter(lead).items() if n > 1]
        lead_run = longest_run(lead_pairs, rank) if len(lead_pairs) > 1 and rank is not None else 0
        nth[trick[0]["seat"]] += 1
        for ev in trick[1:]:
            s = ev["seat"]
            nth[s] += 1
            if s in face_down or s == info.seat:
                continue
            cards = _cards(ev)
            if any(suit(c) != led for c in cards):
                void[s].add(led)
                continue
            if not lead_pairs:
                continue
            got = [c for c, n in Counter(cards).items() if n > 1]
            pairs = len(got) if len(got) < len(lead_pairs) else -1
            run = lead_run if lead_run > 1 and longest_run(got, rank) < lead_run else 0
            if pairs >= 0 or run:
                held = Counter(c for p in mine[s][nth[s] - 1 :] for c in p if suit(c) == led)
                held += Counter({c: n for c, n in kept[s].items() if suit(c) == led})
                limits[s].append(Limit(led, pairs, run, held))
    return Follows(void, limits)


def faults(
    cards: Counter[str], void: set[str], limits: list[Limit], suit: Suit, rank: Rank | None
) -> list[str]:
    """The hidden ``cards`` of a seat that break what it showed: cards of a suit it is void in, and the
    cards of a pair it could not have held (one name per pair, each copy it holds)."""
    by_suit: dict[Any, list[str]] = {}
    for c, n in cards.items():
        if n > 0:
            by_suit.setdefault(suit(c), []).append(c)
    out = [c for v in void for c in by_suit.get(v, ()) for _ in range(cards[c])]
    for lim in limits:
        mine = by_suit.get(lim.suit)
        if not mine:
            continue  # the seat's known cards alone were legal
        held = lim.held
        pairs = [c for c in mine if cards[c] + held[c] > 1]
        if not pairs:
            continue
        pairs += [c for c, n in held.items() if n > 1 and not cards[c]]
        if (0 <= lim.pairs < len(pairs)) or (lim.run and longest_run(pairs, rank) >= lim.run):
            out += [c for c in pairs if cards[c] > 0]
    return out
