"""The contract every registered game and preset keeps (OpenSpiel's "basic API test"):

- every legal action judges clean; an illegal one is refused with a rule id and changes nothing;
- cards are conserved; the scores sum as the game says (zero-sum where ``GameInfo.zero_sum``);
- no view shows a card its viewer may not know: what a viewer may know is computed here from the hand's
  history (its own dealt hand, the cards played or declared openly, a bottom shown to all), card by card
  and copy by copy, so a second deck's twin of a known card cannot pass for it;
- a record round-trips through JSON and re-referees to the same verdict.

Random playouts, seeded by hypothesis. Issue 31's leaks 1 (拱双猪 with 暗卖) and 2 (升级's kitty) are also
scripted below, so that they are caught whatever the seeds.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.bots.table import deal
from engine.cards import parse_cards
from engine.game import HIDDEN, Game, State
from engine.record import parse_record
from engine.referee import judge_record
from engine.registry import game_names, get_game

CARD = re.compile(r"^(?:[SHDC](?:10|[2-9JQKA])|BJ|RJ)$")
# every preset of every game, and the rule variants that hide cards (暗卖) on one deck and on two
CASES = [(name, preset, {}) for name in game_names() for preset in get_game(name).presets]
CASES += [("gongzhu", "gonglue", {"anmai": True}), ("gongzhu", "shuangzhu", {"anmai": True})]
MAX_STEPS = 600


def card_strings(obj: Any) -> Counter[str]:
    """Every card string anywhere in a JSON value, with its copies."""
    if isinstance(obj, str):
        return Counter([obj]) if CARD.match(obj) else Counter()
    if isinstance(obj, dict):
        return sum((card_strings(v) for v in obj.values()), Counter())
    if isinstance(obj, (list, tuple)):
        return sum((card_strings(v) for v in obj), Counter())
    return Counter()


class Table:
    """A hand in play, with what each viewer may know, worked out from its history alone."""

    def __init__(self, game: Game, rules: Any, hands: list[list[str]], bottom: list[str]):
        self.game, self.hands, self.bottom = game, hands, bottom
        self.seats = len(hands)
        self.state: State = game.new_state([parse_cards(h) for h in hands], parse_cards(bottom), rules)
        self.applied: list[dict[str, Any]] = []
        self.public = Counter[str]()  # cards the table has seen, copy by copy
        self.took_bottom: set[int] = set()
        self.rules = rules
        forced = {"all": ("SQ", "HA", "DJ", "C10"), "all_but_sheep": ("SQ", "HA", "C10")}  # 拱猪's 全亮
        self.public.update(c for h in hands for c in h if c in forced.get(getattr(rules, "exposure", ""), ()))

    def apply(self, action: dict[str, Any]) -> None:
        assert self.state.judge(action) == [], action
        self.applied.append(action)
        kind = action.get("action")
        open_cards = kind in ("play", "declare", "call") or (kind == "expose" and not action.get("hidden"))
        if kind == "play" and self.game.name == "zhuohonga":  # aces go down face down
            open_cards = False
            self.public.update(c for c in action["cards"] if not c.endswith("A"))
        if open_cards:
            self.public.update(action.get("cards") or [action["card"]] if "card" in action else action.get("cards") or [])
        if kind == "expose":
            self._force_last()
        if kind in ("take_bottom", "bury") and action["seat"] not in self.took_bottom:
            self.took_bottom.add(action["seat"])
            if self.game.info.bottom_public:
                self.public.update(self.bottom)

    def _force_last(self) -> None:
        """拱猪's 逼明 (one deck): once three of the four cards are exposed, the fourth is exposed openly."""
        r = self.rules
        if not (getattr(r, "force_last", False) and r.exposure == "optional" and getattr(r, "decks", 1) == 1):
            return
        exposed = {c for ev in self.applied if ev.get("action") == "expose" for c in ev["cards"]}
        rest = [c for c in ("SQ", "HA", "DJ", "C10") if c not in exposed]
        if len(rest) == 1 and not self.public[rest[0]]:
            self.public[rest[0]] += 1

    def known(self, seat: int | None) -> Counter[str]:
        out = Counter(self.public)
        if seat is not None:
            out |= Counter(self.hands[seat]) + self.public
            if seat in self.took_bottom:
                out += Counter(self.bottom)
        return out

    def flipped(self) -> Counter[str]:
        """Cards the rules turn face up later: 升级's bottom when nobody declared a trump, 捉红A's aces once
        a 宣 stands (the red side is then known)."""
        view = self.state.public_view(None)
        out = Counter(view.get("flipped") or [])
        if view.get("red_side") is not None:
            out.update(c for ev in self.applied if ev.get("action") == "play" for c in ev["cards"] if c.endswith("A"))
        return out


def check_views(t: Table) -> None:
    state = t.state
    shown = Counter[str]()
    for ev in state.public_actions(t.applied):
        shown += card_strings(ev)
    public = t.known(None) + t.flipped()
    assert not shown - public, f"the public actions show {shown - public}"
    view = state.public_view(None)
    assert set(card_strings(view)) <= set(public), f"public view: {set(card_strings(view)) - set(public)}"
    for seat in range(t.seats):
        known = t.known(seat) + t.flipped()
        # the cards an action would move (a 红桃四 call names any callable card: no secret)
        moves = [a.get("cards") for a in state.legal_actions(seat) + state.offered_actions(seat)]
        seen = card_strings([state.public_view(seat), moves])
        assert set(seen) <= set(known), f"seat {seat} sees {set(seen) - set(known)}"


def check_conserved(t: Table) -> None:
    hands = Counter[str]()
    for seat in range(t.seats):
        hands.update(t.state.public_view(seat).get("hand") or [])
    played = Counter(c for ev in t.applied if ev.get("action") == "play" for c in ev["cards"])
    dealt = Counter(c for h in t.hands for c in h) + Counter(t.bottom)
    now = hands + played
    assert not now - dealt, f"cards from nowhere: {now - dealt}"
    total = sum(dealt.values())
    assert total - len(t.bottom) <= sum(now.values()) <= total


def check_refusals(t: Table, rng: random.Random) -> None:
    """A sample of certainly illegal actions: each is refused with a rule id and changes nothing."""
    state = t.state
    if state.due_announcements():  # a count is due: judging anything else reports the missed count
        return
    seat = rng.randrange(t.seats)
    hand = set(state.public_view(seat).get("hand") or [])
    foreign = sorted({c for h in t.hands for c in h} - hand)
    tries = [{"seat": seat, "action": "fly"}, {"seat": t.seats + 3, "action": "play", "cards": foreign[:1]}]
    if foreign:
        tries.append({"seat": seat, "action": "play", "cards": [rng.choice(foreign)]})
    before = json.dumps(state.public_view(None), sort_keys=True)
    for bad in tries:
        errors = [v for v in state.judge(bad) if v.severity == "error"]
        assert errors and all(isinstance(v.rule, str) and v.rule for v in errors), bad
        assert json.dumps(state.public_view(None), sort_keys=True) == before, f"{bad} changed the hand"


def check_vocabulary(t: Table) -> None:
    """Every action the engine offers is one the game lists, with the fields it lists as needed: what the
    service refuses as bad input (``GameInfo.malformed``) is never a move the engine could make."""
    for seat in range(t.seats):
        for action in t.state.legal_actions(seat) + t.state.offered_actions(seat):
            assert t.game.info.malformed(action) is None, action
            assert t.game.info.malformed({k: v for k, v in action.items() if k != "action"}) is not None


def choose(t: Table, rng: random.Random) -> dict[str, Any]:
    state = t.state
    mover = state.current_player()
    if mover is not None and rng.random() < 0.8 and (mine := state.legal_actions(mover)):
        return rng.choice(mine)
    everyone = [a for s in range(t.seats) for a in state.legal_actions(s)]
    assert everyone, "no seat may act in a hand that is not over"
    return rng.choice(everyone)


def playout(name: str, preset: str, overrides: dict[str, Any], seed: int) -> Table:
    game = get_game(name)
    rules = game.settings(preset, overrides)
    rng = random.Random(seed)
    t = Table(game, rules, *deal(game, rules, rng))
    for step in range(MAX_STEPS):
        if t.state.is_terminal():
            break
        if step == 0 or rng.random() < 0.35:  # a sample of the positions keeps the suite quick
            check_views(t)
            check_conserved(t)
            check_vocabulary(t)
        if rng.random() < 0.2:
            check_refusals(t, rng)
        t.apply(choose(t, rng))
    assert t.state.is_terminal(), "the hand never ended"
    return t


@pytest.mark.parametrize(("name", "preset", "overrides"), CASES, ids=[f"{n}-{p}{'-' + '-'.join(o) if o else ''}"
                                                                     for n, p, o in CASES])
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_contract(name: str, preset: str, overrides: dict[str, Any], seed: int) -> None:
    t = playout(name, preset, overrides, seed)
    game, state = t.game, t.state
    scores = state.returns()
    assert scores is not None and len(scores) == t.seats
    if game.info.zero_sum:
        assert sum(scores) == 0, scores
    verdict = state.verdict()
    record = {"game": name, "preset": preset, "rules": overrides, "hands": t.hands, "bottom": t.bottom,
              "events": t.applied}
    again = judge_record(parse_record(json.loads(json.dumps(parse_record(record).to_json()))))
    assert again["violations"] == []
    assert json.dumps({k: v for k, v in again.items() if k != "violations"}, sort_keys=True) == \
        json.dumps(verdict, sort_keys=True)


# ---------------------------------------------------------------------------- issue 31's two leaks
def test_a_hidden_expose_stays_hidden_when_its_twin_is_exposed_openly() -> None:
    """Leak 1, two decks: seat 0 exposes ♥A hidden (暗卖), seat 1 the other ♥A openly."""
    game = get_game("gongzhu")
    rules = game.settings("shuangzhu", {"anmai": True})
    rng = random.Random(3)
    deck = [str(c) for c in game.deal_plan(rules).deck.cards()]
    deck.remove("HA")
    deck.remove("HA")
    rng.shuffle(deck)
    hands = [["HA"] + deck[:25], ["HA"] + deck[25:50], deck[50:76], deck[76:102]]
    t = Table(game, rules, hands, [])
    t.apply({"seat": 0, "action": "expose", "cards": ["HA"], "hidden": True})
    t.apply({"seat": 1, "action": "expose", "cards": ["HA"]})
    shown = t.state.public_actions(t.applied)
    assert shown[0]["cards"] == [HIDDEN] and shown[1]["cards"] == ["HA"]
    check_views(t)


def test_a_hidden_expose_stays_hidden_once_its_card_is_played() -> None:
    """Leak 1, one deck: the ♥A exposed hidden is played before the hand ends."""
    t = playout("gongzhu", "gonglue", {"anmai": True}, 0)  # warm the engine: a whole hand plays out
    game = t.game
    rules = game.settings("gonglue", {"anmai": True})
    for seed in range(200):
        hands, _ = deal(game, rules, random.Random(seed))
        t = Table(game, rules, hands, [])
        ace = next(s for s, h in enumerate(hands) if "HA" in h)
        t.apply({"seat": ace, "action": "expose", "cards": ["HA"], "hidden": True})
        rng = random.Random(seed)
        while not t.state.is_terminal() and not any(ev.get("cards") == ["HA"] and ev["action"] == "play"
                                                    for ev in t.applied):
            mover = t.state.current_player()
            t.apply(rng.choice([a for a in t.state.legal_actions(mover) if a["action"] == "play"]))
        if not t.state.is_terminal():
            assert t.state.public_actions(t.applied)[0]["cards"] == [HIDDEN]
            check_views(t)
            return
    pytest.fail("no seed played ♥A before the end")


def test_the_kitty_is_not_offered_before_the_dealer_takes_it() -> None:
    """Leak 2: while declarations are open, the dealer's legal actions name no bottom card."""
    game = get_game("shengji")
    rules = game.settings()
    hands, bottom = deal(game, rules, random.Random(5))
    state = game.new_state([parse_cards(h) for h in hands], parse_cards(bottom), rules)
    dealer = rules.dealer
    offered = card_strings([a.get("cards") for a in state.legal_actions(dealer) + state.offered_actions(dealer)])
    assert set(bottom) - set(hands[dealer]), "a kitty whose cards the dealer also holds proves nothing"
    assert set(offered) <= set(hands[dealer]), f"the dealer is offered {set(offered) - set(hands[dealer])}"
