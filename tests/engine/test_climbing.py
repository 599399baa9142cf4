"""The shared climbing machinery: classification, following and option generation without subsets."""

import copy
import doctest
from collections import Counter
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import CLIMBING, CLIMBING_JOKERS, deck, parse_cards
from engine.climbing import FOUR, PAIR, PAIR_RUN, SINGLE, STRAIGHT, TRIPLE_RUN, ClimbingRules, Combo, Hand
from engine.referee import referee


# ---------------------------------------------------------------------------- record helpers (wakeng, zhuohonga tests)
def judge_events(game, hands, events, bottom=(), rules=None, preset=None):
    """The referee's verdict of a hand-made record."""
    record = {"game": game, "hands": hands, "bottom": list(bottom), "events": events}
    if rules:
        record["rules"] = rules
    if preset:
        record["preset"] = preset
    return referee(record)


def broken(verdict):
    """``(event index, rule id)`` of each violation."""
    return [(v["event"], v["rule"]) for v in verdict["violations"]]


def ev(seat, action, **kw):
    return {"seat": seat, "action": action, **kw}


def play(seat, *cards):
    return ev(seat, "play", cards=list(cards))


def passes(*seats):
    return [ev(s, "pass") for s in seats]


def random_step(state, rng, also=()):
    """One random legal action of the seat to act (or one of ``also``) through the referee;
    now and then every listed action is judged on a copy: the referee accepts each."""
    actions = state.legal_actions(state.current_player())
    assert actions, "a legal action always exists"
    actions += also
    if rng.random() < 0.1:
        for a in actions:
            assert copy.deepcopy(state).judge(a) == [], a
    assert state.judge(rng.choice(actions)) == []


def held_and_played(state):
    """Every card still held or already played, with multiplicity."""
    held = Counter(c for h in state.hands for c in h.cards())
    return held + Counter(c for a in state.history if a["action"] == "play" for c in a["cards"])


WAKENG_LIKE = ClimbingRules(CLIMBING, run_top=10, min_runs=(3, 3, 3), bombs=True)
ZHUOHONGA_LIKE = ClimbingRules(CLIMBING_JOKERS, run_top=0, min_runs=(0, 0, 0), joker_pair=True)


def c(*names):
    return [str(card) for card in parse_cards(names)]


def test_classify_sets_and_runs():
    r = WAKENG_LIKE
    assert r.classify(c("S7")) == Combo(SINGLE, 1, 3)
    assert r.classify(c("S3", "H3", "D3", "C3")) == Combo(FOUR, 1, 12)
    assert r.classify(c("S4", "H5", "D6")) == Combo(STRAIGHT, 3, 2)
    assert r.classify(c("S4", "H4", "S5", "H5", "S6", "H6")) == Combo(PAIR_RUN, 3, 2)
    assert r.classify(c("S4", "H4", "D4", "S5", "H5", "D5", "S6", "H6", "D6")) == Combo(TRIPLE_RUN, 3, 2)
    for bad in [("SQ", "SK", "SA"), ("SK", "S2", "S3"), ("S4", "S5"), ("S4", "H4", "S5", "H5"),
                ("S4", "S5", "S7"), ("S4", "H4", "S5"), ("BJ",)]:
        assert r.classify(c(*bad)) is None, bad


def test_joker_pair_is_the_highest_pair_and_runs_can_be_switched_off():
    r = ZHUOHONGA_LIKE
    jokers = r.classify(c("BJ", "RJ"))
    assert jokers is not None and jokers.kind == PAIR
    assert r.beats(jokers, r.classify(c("S3", "H3")))
    assert r.classify(c("S4", "H5", "D6")) is None
    assert r.classify(c("BJ", "S3")) is None
    assert r.options(Hand(r, c("BJ", "RJ", "S4")).counts, r.classify(c("S3", "H3"))) == [jokers]


def test_bombs_beat_non_bombs_only_when_on():
    four = Combo(FOUR, 1, 0)
    straight = Combo(STRAIGHT, 5, 9)
    assert WAKENG_LIKE.beats(four, straight)
    assert not ClimbingRules(CLIMBING, run_top=10, bombs=False).beats(four, straight)
    assert WAKENG_LIKE.beats(Combo(FOUR, 1, 5), four) and not WAKENG_LIKE.beats(four, Combo(FOUR, 1, 5))


def _brute_force(rules, cards, beat):
    """Every rank pattern some subset of the cards makes (and that beats ``beat``)."""
    found = set()
    for k in range(1, len(cards) + 1):
        for sub in combinations(cards, k):
            combo = rules.classify(list(sub))
            if combo is not None and (beat is None or rules.beats(combo, beat)):
                found.add(combo)
    return found


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_options_equal_brute_force_subsets(data):
    rules = data.draw(st.sampled_from([WAKENG_LIKE, ZHUOHONGA_LIKE]))
    pool = [str(card) for card in deck(jokers=rules.joker_pair)]
    cards = data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=9, unique=True))
    hand = Hand(rules, cards)
    lead = set(rules.options(hand.counts, None))
    assert lead == _brute_force(rules, cards, None)
    beat = data.draw(st.sampled_from(sorted(lead)))
    assert set(rules.options(hand.counts, beat)) == _brute_force(rules, cards, beat)
    for combo in lead:  # the picked cards really play the combination
        picked = hand.pick(combo)
        assert rules.classify(picked) == combo and hand.holds(picked)


def test_the_module_examples_run():
    import engine.climbing
    import engine.wakeng
    import engine.zhuohonga

    for module in (engine.climbing, engine.wakeng, engine.zhuohonga):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__
