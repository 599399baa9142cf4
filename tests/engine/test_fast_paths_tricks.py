"""The trick games' fast paths of round 3 (issue 34) agree with the plain ways they replace:

- 升级: the random bot's pick (``_random_play``) is ``rng.choice`` of the listed options, from the same draw;
  the leads kept per suit equal the leads listed afresh, also in a clone and after the bury; a one-card play
  wins or loses the trick as :meth:`ShengjiState._beats` of its shape says;
- 拱猪: ``legal_plays`` equals the plain listing (with cards exposed and held back too); the verdict's
  scores and next leader equal ``returns()`` and ``next_leader()`` worked out afresh; the pig's taker
  read from the taken cards equals the taker of the trick that held it;
- tricks: ``Trick.to_json`` names the plays as the plain map does.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_fast_paths import _shengji_lead_options_slow as _leads_slow

from engine import gongzhu as gz
from engine import shengji as sj
from engine.cards import parse_cards
from engine.registry import get_game
from engine.tricks import NAMES, Trick

seeds = st.integers(0, 2**32 - 1)


def _shengji_dealt(record):
    game = get_game("shengji")
    return game.new_state(
        [parse_cards(h) for h in record["hands"]],
        parse_cards(record["bottom"]),
        game.settings(None, record.get("rules")),
    )


@settings(max_examples=30, deadline=None)
@given(seed=seeds, bot=st.sampled_from(["random", "greedy"]))
def test_shengji_random_pick_and_kept_leads_match_the_plain_way(seed, bot):
    """At every play of a bot hand: ``_random_play`` picks what ``rng.choice`` picks from the listed options
    and leaves the generator in the same state; the kept leads equal the plain listing (in the state and
    in a clone played on); a one-card play's trick winner is the one ``_beats`` of shapes gives."""
    rng = random.Random(seed)
    record = get_game("shengji").bot_hand(rng, bot=bot)
    state = _shengji_dealt(record)
    checked = 0
    for event in record["events"]:
        if state.phase == "play":
            seat = state.trick.to_play
            for _ in range(3):  # a few draws, on a clone that kept some suits' leads and not others
                probe = state.clone()
                probe._leads[seat] = {k: v for k, v in probe._leads[seat].items() if rng.random() < 0.5}
                fast, plain = random.Random(rng.random()), random.Random()
                plain.setstate(fast.getstate())
                pick = sj._random_play(probe, seat, fast)
                listed = state.follow_options(seat) if state.trick.plays else state.lead_options(seat)
                assert pick == plain.choice(listed)
                assert fast.getstate() == plain.getstate()
            if not state.trick.plays:
                assert listed == _leads_slow(state, seat)
            # the trick's winner after a single, by the general beat of shapes
            cards = tuple(sj.CODES[c] for c in event["cards"])
            if len(cards) == 1 and state.trick.plays:
                expect_best = state.trick.best
                if state._beats(sj.shape(cards, state.trumps)):
                    expect_best = len(state.trick.plays)
                before = len(state.tricks)
                assert state.judge(event) == []
                trick = state.tricks[-1] if len(state.tricks) > before else state.trick
                assert trick.best == expect_best
                checked += 1
                continue
        assert state.judge(event) == []
        if state.trumps is not None and state.phase == "play" and rng.random() < 0.2:
            clone = state.clone()  # a clone's kept leads follow its own plays, not the source's
            clone.play_out_greedy()
            for seat in range(4):
                assert state.lead_options(seat) == _leads_slow(state, seat)
    assert state.is_terminal() and checked


@settings(max_examples=20, deadline=None)
@given(seed=seeds)
def test_shengji_kept_leads_are_dropped_by_the_bottom_and_the_bury(seed):
    """Leads asked for before the bottom is taken and between buries are listed again once the hand changes."""
    rng = random.Random(seed)
    record = get_game("shengji").bot_hand(rng, bot="random")
    state = _shengji_dealt(record)
    dealer = state.dealer
    state.trumps = sj.trumps_for(state.level, 0)  # (listing needs a trump; the bottom taken fixes the real one)
    state.lead_options(dealer)
    state.trumps = None
    assert state.judge({"seat": dealer, "action": "take_bottom"}) == []
    assert state.lead_options(dealer) == _leads_slow(state, dealer)
    hand = [c for c in range(54) for _ in range(state.counts[dealer][c])]
    for card in rng.sample(hand, sj.BOTTOM):
        assert state.judge({"seat": dealer, "action": "bury", "cards": [sj.NAMES[card]]}) == []
        assert state.lead_options(dealer) == _leads_slow(state, dealer)


def _legal_plays_slow(state, seat):
    """拱猪's legal cards the plain way (as before round 3)."""
    if state.finished() or seat != state.trick.to_play:
        return []
    hand = state.hands[seat]
    if not state.trick.plays:
        if state.must_lead is not None:
            return [state.must_lead]
        if state.settings.exposed_may_lead:
            return sorted(hand)
        free = [c for c in hand if not (state._held_back(c) and c // 13 not in state.led_suits)]
        return sorted(free or hand)
    led = state.trick.lead[0] // 13
    suited = [c for c in hand if c // 13 == led]
    if not suited:
        return sorted(hand)
    if len(suited) > 1 and state.first_round:
        suited = [c for c in suited if not state._held_back(c)] or suited
    return sorted(suited)


@pytest.mark.parametrize(
    "preset,rules",
    [
        ("gonglue", {}),
        ("quanliang", {}),
        ("computer", {}),
        ("zhuyang", {}),
        ("gonglue", {"exposed_may_lead": False, "exposure": "all"}),
        ("gonglue", {"discard_colour": True, "next_leader": "pig_taker"}),
    ],
)
@settings(max_examples=15, deadline=None)
@given(seed=seeds)
def test_gongzhu_legal_plays_verdict_and_taker_match_the_plain_way(preset, rules, seed):
    rng = random.Random(seed)
    game = get_game("gongzhu")
    s = game.settings(preset, rules)
    record = game.bot_hand(rng, bot=rng.choice(["random", "greedy"]), settings=s)
    state = game.new_state([parse_cards(h) for h in record["hands"]], [], s)
    for event in record["events"]:
        for seat in [*range(4), 7]:
            assert state.legal_plays(seat) == _legal_plays_slow(state, seat)
        assert state.judge(event) == []
    for seat in range(4):
        assert state.legal_plays(seat) == [] == _legal_plays_slow(state, seat)
    verdict = state.verdict()
    assert verdict["scores"] == state.returns()
    assert verdict["next_first_seat"] == state.next_leader()
    for card in (gz.PIG, gz.SHEEP, gz.TRANSFORMER, gz.HEART_A):
        assert state._taker(card) == next(
            state.takers[i] for i, t in enumerate(state.tricks) if card in t.cards()
        )


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(0, 53), min_size=1, max_size=4), min_size=0, max_size=4), st.data())
def test_trick_json_names_the_plays_as_the_plain_map(plays, data):
    trick = Trick(data.draw(st.integers(0, 3)), 4)
    trick.plays = [(i % 4, tuple(cs)) for i, cs in enumerate(plays)]
    trick.best = data.draw(st.integers(0, max(0, len(plays) - 1)))
    assert trick.to_json() == {
        "leader": trick.leader,
        "plays": [{"seat": s, "cards": [NAMES[c] for c in cs]} for s, cs in trick.plays],
        "winner": trick.winner if trick.plays else None,
    }


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(NAMES), max_size=30), st.lists(st.booleans(), min_size=30, max_size=30), st.data())
def test_codes_of_a_hand_match_the_plain_way(names_, as_card, data):
    """``codes_of`` of names, of the parser's cards, of cards made anew, and of a mix, equals the code of
    ``str`` of each; a hand with a non-card fails the same way."""
    from engine.cards import BY_NAME, Card
    from engine.tricks import CODES, codes_of

    fresh = data.draw(st.booleans())
    hand = [
        (Card(BY_NAME[n].suit, BY_NAME[n].rank) if fresh else BY_NAME[n]) if flag else n
        for n, flag in zip(names_, as_card, strict=False)
    ]
    assert codes_of(hand) == [CODES[str(c)] for c in hand]
    assert codes_of(tuple(hand)) == codes_of(iter(hand)) == [CODES[str(c)] for c in hand]
    bad = data.draw(st.sampled_from(["h4", "X9", "S1", ""]))
    with pytest.raises(KeyError):
        codes_of([*hand, bad])


@settings(max_examples=30, deadline=None)
@given(seed=seeds)
def test_shengji_short_follow_checks_and_shapes_match_the_full_rules(seed):
    """At every follow of a bot hand, for the bot's play and for random plays of the seat's cards (pairs,
    two cards, one card, mixed suits): ``_check_follow`` (with its short cases for a single or a pair led)
    gives the verdict of ``_follow_rules`` (the rules in full); ``shape`` of one or two cards equals
    ``_shape_general``; ``has_cards`` of two cards equals the count of each."""
    from collections import Counter

    from engine.tricks import has_cards

    rng = random.Random(seed)
    record = get_game("shengji").bot_hand(rng, bot=rng.choice(["random", "greedy"]))
    state = _shengji_dealt(record)
    checked = 0
    for event in record["events"]:
        if state.phase == "play" and state.trick.plays:
            seat = state.trick.to_play
            hand = [c for c in range(54) for _ in range(state.counts[seat][c])]
            n = state.lead_shape.size
            plays = [tuple(sj.CODES[c] for c in event["cards"])]
            plays += [tuple(rng.sample(hand, min(n, len(hand)))) for _ in range(6)]
            plays += [(c, c) for c in set(hand) if hand.count(c) == 2 and n == 2]
            for play in plays:
                if len(play) != n:
                    continue
                suited = state._holding(seat, state.lead_shape.suit)
                assert state._check_follow(seat, play) == state._follow_rules(seat, play, list(suited))
                checked += 1
        if state.trumps is not None:
            for _ in range(4):
                cards = tuple(rng.choice(range(54)) for _ in range(rng.choice([1, 2, 2])))
                if rng.random() < 0.3:
                    cards = (cards[0], cards[0])
                assert sj.shape(cards, state.trumps) == sj._shape_general(cards, state.trumps)
                counts = [rng.choice([0, 1, 2]) for _ in range(54)]
                need = Counter(cards)
                assert has_cards(counts, cards) == all(counts[c] >= k for c, k in need.items())
        assert state.judge(event) == []
    assert checked


@settings(max_examples=40, deadline=None)
@given(seed=seeds, cap=st.sampled_from([1, 3, 64]))
def test_shengji_follows_of_a_pair_match_the_full_listing(seed, cap):
    """At every follow of a pair led in a bot hand where the seat holds more of the suit than two cards,
    ``follow_options`` (each pair held, else every two cards) equals ``_structured_follows`` (the full
    listing of tractors, pairs and fills), also under a small cap."""
    rng = random.Random(seed)
    record = get_game("shengji").bot_hand(rng, bot=rng.choice(["random", "greedy"]))
    state = _shengji_dealt(record)
    for event in record["events"]:
        if state.phase == "play" and state.trick.plays and state.lead_shape.pairs:
            seat = state.trick.to_play
            suited = state._holding(seat, state.lead_shape.suit)
            if len(suited) > state.lead_shape.size:
                full = state._structured_follows(seat, list(suited), cap)
                assert state.follow_options(seat, cap) == full
        assert state.judge(event) == []
