"""Each fast path of the engines (issue 34) agrees with the slow path beside it, on random positions:

- 红桃四: rank masks carried through a play (``after_play``) equal those of the hand left; a one-rank play
  classified by look-up (``classify_mask``) equals ``classify``; the one-rank tables and the single taken
  by look-up equal the loops they replace; the moves the bots list equal ``play_options`` + ``may_pass``;
  a clone is independent of its origin;
- 拱猪: ``may_play`` of every card in the hand of the seat to play equals ``card in legal_plays``;
- the climbing games: a hand's ``levels`` kept through play equal its counts' masks, and the moves listed
  with them equal those listed without;
- records: a record of plain card names parses to the same record, or fails with the same line, as the
  same record written in lower case (which goes the slow way).
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import parse_cards
from engine.hongsi import combos as C
from engine.hongsi.bots import choose_play, talk
from engine.hongsi.state import HongsiState
from engine.record import RecordError, parse_record
from engine.registry import get_game

seeds = st.integers(0, 2**32 - 1)


def _combos_slow(mask: int, bombs: bool, min_pair_run: int, trick: C.Combo | None) -> list[C.Combo]:
    """Every combination of ``mask`` (that beats ``trick``), from the rank counts alone."""
    counts = C.counts_of(mask)
    out = [
        C.Combo(k, 1, r)
        for k in (C.SINGLE, C.PAIR, C.TRIPLE, C.BOMB)
        for r in range(C.N_RANKS)
        if counts[r] >= C.MULTIPLICITY[k] and (k != C.BOMB or bombs)
    ]
    for kind, least, need in ((C.STRAIGHT, 3, 1), (C.PAIR_RUN, min_pair_run, 2)):
        for low in range(C.RUN_RANKS):
            for top in range(low + least - 1, C.RUN_RANKS):
                if all(counts[r] >= need for r in range(low, top + 1)):
                    out.append(C.Combo(kind, top - low + 1, top))
    return [c for c in out if trick is None or c.beats(trick)]


@settings(max_examples=200, deadline=None)
@given(seeds, st.booleans(), st.integers(2, 4))
def test_hongsi_listing_and_rank_masks_match_the_slow_way(seed, bombs, min_pair_run):
    rng = random.Random(seed)
    hand = 0
    for code in rng.sample(range(52), rng.randint(1, 20)):
        hand |= 1 << code
    masks = C.rank_masks(hand)
    lead = C.lead_combos(hand, bombs=bombs, min_pair_run=min_pair_run)
    assert sorted(lead) == sorted(_combos_slow(hand, bombs, min_pair_run, None))
    assert lead == C.lead_combos(0, bombs=bombs, min_pair_run=min_pair_run, masks=masks)
    trick = rng.choice(_combos_slow((1 << 52) - 1, True, min_pair_run, None))
    follow = C.follow_combos(hand, trick, bombs=bombs, min_pair_run=min_pair_run)
    assert sorted(follow) == sorted(_combos_slow(hand, bombs, min_pair_run, trick))
    for combo in lead:
        avoid = 1 << rng.randrange(52)
        cards = C.take(hand, combo, avoid)
        assert cards & ~hand == 0 and cards.bit_count() == combo.size
        codes = C.codes_of(C.cards_of(cards))
        assert C.mask_of(codes) == cards and C.cards_of(cards) == [C.CARD_NAMES[c] for c in sorted(codes)]
        slow = C.classify(codes, bombs=True, min_pair_run=min_pair_run)
        assert slow == combo
        assert C.classify_mask(cards, codes, bombs=bombs, min_pair_run=min_pair_run) == C.classify(
            codes, bombs=bombs, min_pair_run=min_pair_run
        )
        assert C.after_play(masks, combo) == C.rank_masks(hand & ~cards)
        if combo.kind == C.SINGLE:  # the look-up's pick: the lowest suit held, ``avoid`` only if nothing else
            have = hand & C.RANK_MASK[combo.top]
            expect = min((b for b in range(52) if have >> b & 1 and not avoid >> b & 1), default=None)
            if expect is None:
                expect = min(b for b in range(52) if have >> b & 1)
            assert cards == 1 << expect


@settings(max_examples=40, deadline=None)
@given(seeds, st.booleans())
def test_hongsi_moves_and_clones_match_the_slow_way(seed, bombs):
    rng = random.Random(seed)
    game = get_game("hongsi")
    state = HongsiState(game.deal(rng), game.settings(None, {"bombs": bombs}))
    talk(state, rng, state.judge)
    while not state.is_terminal():
        for seat in range(4):
            assert state.moves(seat) == (state.play_options(seat), state.may_pass(seat))
            assert state.rank_masks[seat] == C.rank_masks(state.hands[seat])
        seat = state.current_player()
        if state.pending is not None:
            action = {"seat": seat, "action": "announce", "count": state.pending[1]}
        else:
            action = choose_play(state, seat, rng, "random")
        before = json.dumps(state.public_view(), sort_keys=True)
        twin = state.clone()
        assert twin.judge(action) == []
        assert json.dumps(state.public_view(), sort_keys=True) == before  # the clone shares nothing mutable
        assert state.judge(action) == []
        assert twin.public_view() == state.public_view() and twin.hands == state.hands


def _snapshot(state: HongsiState) -> tuple:
    return (
        json.dumps(state.public_view(), sort_keys=True),
        state.hands,
        state.n_events,
        state.passes,
        state.trick,
        state.trick_mask,
        state.turn,
        state.pending,
        state.log,
    )


@settings(max_examples=12, deadline=None)
@given(seeds, st.booleans())
def test_hongsi_judge_fast_path_matches_the_general_path(seed, bombs):
    """``judge`` (with its fast path for plays and passes) and ``_judge`` (the general path) give the same
    violations and leave the same state, for the bots' events and for broken ones."""
    rng = random.Random(seed)
    game = get_game("hongsi")
    state = HongsiState(game.deal(rng), game.settings(None, {"bombs": bombs}))
    talk(state, rng, state.judge)
    while not state.is_terminal():
        seat = state.current_player()
        if state.pending is not None:
            good = {"seat": seat, "action": "announce", "count": state.pending[1]}
        else:
            good = choose_play(state, seat, rng, "random")
        hand = C.cards_of(state.hands[seat])
        broken = [
            {**good, "seat": (seat + 1) % 4},
            {**good, "seat": True},
            {"seat": seat, "action": "pass"},
            {"seat": seat, "action": "play", "cards": [rng.choice(hand), rng.choice(C.CARD_NAMES)]},
            {"seat": seat, "action": "play", "cards": hand[:1]},
            {"seat": seat, "action": "play", "cards": []},
            {"seat": seat, "action": "play", "cards": ["h" + hand[0][1:]]},
        ]
        for action in [*broken, good]:
            fast, slow = state.clone(), state.clone()
            assert fast.judge(action) == slow._judge(action)
            assert _snapshot(fast) == _snapshot(slow)
        assert state.judge(good) == []


@pytest.mark.parametrize(
    "preset,rules",
    [("gonglue", {}), ("quanliang", {}), ("computer", {}), ("partners", {}), ("gonglue", {"anmai": True})],
)
@settings(max_examples=25, deadline=None)
@given(seed=seeds)
def test_gongzhu_may_play_matches_legal_plays(preset, rules, seed):
    rng = random.Random(seed)
    game = get_game("gongzhu")
    record = game.bot_hand(rng, bot="random", settings=game.settings(preset, rules))
    state = game.new_state([parse_cards(h) for h in record["hands"]], [], game.settings(preset, rules))
    checked = 0
    for event in record["events"]:
        seat = state.current_player()
        if event["action"] == "play" and seat is not None:
            legal = state.legal_plays(seat)
            for card in state.hands[seat]:
                assert state.may_play(seat, card) == (card in legal)
                checked += 1
        assert state.judge(event) == []
    assert checked


def _dealt(game, record):
    """A fresh state of ``record``'s deal (its rules, its first seat)."""
    return game.new_state(
        [parse_cards(h) for h in record["hands"]],
        parse_cards(record["bottom"]),
        game.settings(None, record.get("rules")),
        first_seat=record["first_seat"],
    )


def _lower(obj):
    """A record with every card name in lower case: the same record to the parser, read the slow way."""
    if isinstance(obj, str):
        return obj.lower()
    if isinstance(obj, list):
        return [_lower(x) for x in obj]
    if isinstance(obj, dict):
        return {k: (_lower(v) if k in ("hands", "bottom", "cards", "card") else v) for k, v in obj.items()}
    return obj


def _outcome(obj):
    try:
        return parse_record(obj).to_json()
    except RecordError as exc:
        return str(exc)


@settings(max_examples=60, deadline=None)
@given(
    seeds,
    st.sampled_from(["hongsi", "wakeng", "zhuohonga", "gongzhu", "shengji"]),
    st.sampled_from(["none", "duplicate", "foreign", "drop", "bad_event"]),
)
def test_record_fast_parse_matches_the_slow_way(seed, name, damage):
    rng = random.Random(seed)
    record = get_game(name).bot_hand(rng, bot="random")
    hands = record["hands"]
    seat = rng.randrange(len(hands))
    if damage == "duplicate":
        hands[seat][0] = hands[(seat + 1) % len(hands)][-1]
    elif damage == "foreign":
        hands[seat][0] = "RJ" if name != "zhuohonga" and name != "shengji" else "S10"
    elif damage == "drop":
        hands[seat].pop()
    elif damage == "bad_event" and record["events"]:
        record["events"][rng.randrange(len(record["events"]))]["cards"] = [11]  # not a card, either way
    fast = _outcome(json.loads(json.dumps(record)))
    slow = _outcome(_lower(json.loads(json.dumps(record))))
    if isinstance(fast, dict):
        assert isinstance(slow, dict)
        assert fast["hands"] == slow["hands"] and fast.get("bottom") == slow.get("bottom")
    else:
        assert fast == slow


_EVENT_VALUES = {
    "seat": st.sampled_from([0, 1, 2, 3, 4, -1, True, False, 1.0, "1", None]),
    "action": st.sampled_from(["play", "pass", "bid", "", None, 3, ["play"]]),
    "cards": st.one_of(
        st.lists(st.sampled_from(["H4", "SA", "RJ", "BJ", "h4", "S1", "", "C10", 11, None, ["H4"]]), max_size=3),
        st.sampled_from(["H4", None, 4, {}, ("H4",)]),
    ),
    "card": st.sampled_from(["H4", "h4", "X9", 4, None, ["H4"]]),
    "value": st.integers(0, 3),
}


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.fixed_dictionaries(
                {"seat": st.integers(0, 3), "action": st.just("play")},
                optional={"cards": st.lists(st.sampled_from(["H4", "SA", "RJ", "D10"]), max_size=3)},
            ),
            st.fixed_dictionaries({}, optional=_EVENT_VALUES),
            st.sampled_from([None, [], "pass", 3]),
        ),
        max_size=6,
    ),
    st.integers(3, 4),
)
def test_record_plain_events_match_the_full_checks(events, seats):
    """``_plain_events`` (the referee's one-loop check of a record's events) says yes only where the full
    checks (``_check_events``) pass, and for records of plainly written events it says yes."""
    from engine.record import _check_events, _plain_events

    try:
        _check_events(events, seats)
        passed = True
    except RecordError:
        passed = False
    if _plain_events(events, seats):
        assert passed
    plain = all(
        type(e) is dict
        and set(e) <= {"seat", "action", "cards", "value"}
        and type(e.get("seat")) is int
        and 0 <= e["seat"] < seats
        and type(e.get("action")) is str
        and (
            "cards" not in e
            or (type(e["cards"]) is list and all(type(c) is str and c in _PLAIN_NAMES for c in e["cards"]))
        )
        for e in events
    )
    assert _plain_events(events, seats) == plain


_PLAIN_NAMES = {"H4", "SA", "RJ", "BJ", "C10", "D10"}


@pytest.mark.parametrize("name", ["wakeng", "zhuohonga"])
@settings(max_examples=30, deadline=None)
@given(seed=seeds)
def test_climbing_levels_match_the_counts(name, seed):
    """A climbing hand's ``levels`` kept through every play equal the masks worked out from its counts,
    and the moves listed with them equal those listed from the counts alone."""
    rng = random.Random(seed)
    game = get_game(name)
    record = game.bot_hand(rng, bot="random")
    state = _dealt(game, record)
    for event in record["events"]:
        assert state.judge(event) == []
        trick = getattr(state, "trick", None)
        for hand in state.hands:
            assert hand.levels == [sum(1 << r for r, n in enumerate(hand.counts) if n > i) for i in range(4)]
            if trick is not None:
                rules = trick.rules
                assert rules.options(hand.counts, trick.beat, hand.levels) == rules.options(
                    hand.counts, trick.beat
                )


@settings(max_examples=25, deadline=None)
@given(seed=seeds)
def test_shengji_follow_options_match_the_slow_way(seed):
    """升级's follows when a seat is short of the led suit (one card to fill by look-up) equal the general
    way: every fill of the missing cards from the other suits, each once."""
    import itertools

    from engine import shengji as sj

    rng = random.Random(seed)
    game = get_game("shengji")
    record = game.bot_hand(rng, bot="random")
    state = _dealt(game, record)
    short = 0
    for event in record["events"]:
        if state.phase == "play" and state.trick.plays:
            seat = state.trick.to_play
            suited = state.holding(seat, state.lead_shape.suit)
            n = state.lead_shape.size
            if len(suited) < n:
                rest = [
                    c
                    for c in range(54)
                    if state.trumps.eff[c] != state.lead_shape.suit
                    for _ in range(state.counts[seat][c])
                ]
                slow = sj._unique(tuple(suited) + f for f in itertools.combinations(rest, n - len(suited)))
                assert state.follow_options(seat) == slow[: sj.OPTION_CAP]
                short += 1
        assert state.judge(event) == []
    assert short


def _shengji_lead_options_slow(state, seat):
    """升级's leads the plain way: per suit its singles, pairs and tractors."""
    from engine import shengji as sj

    out, counts, order = [], state.counts[seat], state.trumps.order
    for suit in range(5):
        codes = [c for c in state.trumps.suit_codes[suit] if counts[c]]
        pairs = [c for c in codes if counts[c] >= 2]
        out += [(c,) for c in codes] + [(c, c) for c in pairs]
        if len(pairs) >= 2:
            out += [tuple(c for c in t for _ in (0, 1)) for t in sj._tractors(pairs, order)]
    return out


def _shengji_snapshot(state) -> tuple:
    return (
        json.dumps(state.public_view(), sort_keys=True),
        state.counts,
        state.log,
        state.lead_shape,
        state.best_shape,
        state.trick.best,
        state.trick.plays,
        len(state.tricks),
        state.trick_points,
    )


@settings(max_examples=6, deadline=None)
@given(seed=seeds)
def test_shengji_judge_options_and_holdings_match_the_slow_way(seed):
    """升级's ``judge`` (a fast path for plays) and ``LoggedState.judge`` over ``_judge`` (the general path)
    give the same violations and leave the same state, for the bots' plays and broken ones; the leads
    and single follows listed equal the plain way's; the holdings kept through play equal those listed
    afresh from the counts."""
    import copy

    from engine import shengji as sj
    from engine.game import LoggedState

    rng = random.Random(seed)
    game = get_game("shengji")
    record = game.bot_hand(rng, bot="random")
    state = _dealt(game, record)
    for event in record["events"]:
        if state.phase == "play":
            seat = state.trick.to_play
            if state.trick.plays:
                suited = state.holding(seat, state.lead_shape.suit)
                if state.lead_shape.size == 1 and suited:
                    assert state.follow_options(seat) == [(c,) for c in sorted(set(suited), key=suited.index)]
            else:
                assert state.lead_options(seat) == _shengji_lead_options_slow(state, seat)
            hand = [sj.NAMES[c] for c in range(54) for _ in range(state.counts[seat][c])]
            n = len(event["cards"])
            broken = [
                {**event, "seat": (seat + 1) % 4},
                {**event, "seat": True},
                {**event, "cards": []},
                {**event, "cards": rng.sample(hand, min(n, len(hand)))},
                {**event, "cards": [rng.choice(sj.NAMES)] * n},
                {**event, "cards": hand[: n + 1]},
                {**event, "cards": [c.lower() for c in event["cards"]]},
                {**event, "cards": ["X9"]},
                {"seat": seat, "action": "play", "card": event["cards"][0]},
            ]
            if n == 1 and rng.random() > 0.2:  # (copies are slow: a fifth of the singles, every other play)
                broken = []
            for action in [*broken, event]:
                fast, slow = copy.deepcopy(state), copy.deepcopy(state)
                assert fast.judge(action) == LoggedState.judge(slow, action)
                assert _shengji_snapshot(fast) == _shengji_snapshot(slow)
        assert state.judge(event) == []
        if state.trumps is not None:
            for seat in range(4):
                for suit, kept in state._held[seat].items():
                    assert kept == [
                        c for c in state.trumps.suit_codes[suit] for _ in range(state.counts[seat][c])
                    ]
    assert state.is_terminal()


def _gongzhu_snapshot(state) -> tuple:
    return (
        json.dumps(state.public_view(), sort_keys=True),
        state.hands,
        state.log,
        state.taken,
        state.takers,
        state.trick.plays,
        state.trick.best,
        state.led_suits,
        state.first_round,
        state.must_lead,
        state.started,
        state.penalties,
        len(state.tricks),
    )


@pytest.mark.parametrize("preset", ["gonglue", "computer", "partners"])
@settings(max_examples=4, deadline=None)
@given(seed=seeds)
def test_gongzhu_judge_fast_path_matches_the_general_path(preset, seed):
    """拱猪's ``judge`` (a fast path for one-card plays) and ``LoggedState.judge`` over ``_judge`` (the
    general path) give the same violations and leave the same state, for the bots' plays and broken ones."""
    import copy

    from engine.game import LoggedState
    from engine.tricks import NAMES

    rng = random.Random(seed)
    game = get_game("gongzhu")
    record = game.bot_hand(rng, bot="random", settings=game.settings(preset))
    state = game.new_state([parse_cards(h) for h in record["hands"]], [], game.settings(preset))
    for event in record["events"]:
        seat = state.current_player()
        if event["action"] == "play" and rng.random() < 0.3:  # (copies are slow: about a third of the plays)
            hand = [NAMES[c] for c in state.hands[seat]]
            broken = [
                {**event, "seat": (seat + 1) % 4},
                {**event, "seat": True},
                {**event, "cards": []},
                {**event, "cards": [rng.choice(hand)]},
                {**event, "cards": [rng.choice(NAMES[:52])]},
                {**event, "cards": hand[:2]},
                {**event, "cards": [event["cards"][0].lower()]},
                {**event, "cards": [["H4"]]},
                {"seat": seat, "action": "play", "card": event["cards"][0]},
            ]
            for action in [*broken, event]:
                fast, slow = copy.deepcopy(state), copy.deepcopy(state)
                assert fast.judge(action) == LoggedState.judge(slow, action)
                assert _gongzhu_snapshot(fast) == _gongzhu_snapshot(slow)
        assert state.judge(event) == []
    assert state.is_terminal()


def _climbing_snapshot(state) -> tuple:
    t = state.trick
    return (
        json.dumps(state.public_view(), sort_keys=True),
        state.history,
        [h.cards() for h in state.hands],
        [(h.mask, h.counts, h.levels) for h in state.hands],
        t.turn,
        t.beat,
        t.beat_seat,
        t.beat_cards,
        t.passes,
        t.out,
        t.bombs,
        state.is_terminal(),
    )


@pytest.mark.parametrize("name", ["wakeng", "zhuohonga"])
@settings(max_examples=5, deadline=None)
@given(seed=seeds)
def test_climbing_judge_fast_path_matches_the_general_path(name, seed):
    """The climbing games' ``judge`` (a fast path for plainly legal plays and passes) and ``_judge`` (the
    general path) give the same violations and leave the same state, for the bots' events and broken ones."""
    import copy

    from engine.climbing import CODE

    rng = random.Random(seed)
    game = get_game(name)
    record = game.bot_hand(rng, bot="random")
    state = _dealt(game, record)
    for event in record["events"]:
        seat = event["seat"]
        if event["action"] in ("play", "pass") and rng.random() < 0.25:  # (copies are slow)
            hand = state.hands[seat].cards()
            play = event.get("cards") or hand[:1]
            broken = [
                {**event, "seat": (seat + 1) % len(state.hands)},
                {**event, "seat": True},
                {"seat": seat, "action": "pass"},
                {"seat": seat, "action": "play", "cards": []},
                {"seat": seat, "action": "play", "cards": [rng.choice(hand)]},
                {"seat": seat, "action": "play", "cards": rng.sample(hand, min(2, len(hand)))},
                {"seat": seat, "action": "play", "cards": [rng.choice(list(CODE))]},
                {"seat": seat, "action": "play", "cards": play + play[:1]},
                {"seat": seat, "action": "play", "cards": [c.lower() for c in play]},
                {"seat": seat, "action": "play", "cards": [play]},
            ]
            for action in [*broken, event]:
                fast, slow = copy.deepcopy(state), copy.deepcopy(state)
                assert fast.judge(action) == slow._judge(action)
                assert _climbing_snapshot(fast) == _climbing_snapshot(slow)
        assert state.judge(event) == []
    assert state.is_terminal()
