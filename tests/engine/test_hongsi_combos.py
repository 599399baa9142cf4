"""红桃四 combinations: classification, following, and the move generator against a brute-force oracle
that enumerates every subset of a hand (the generator itself never does)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.hongsi import combos as C

ALL_COMBOS = sorted(set(C._BY_RANKS.values()))


def oracle_leads(codes, bombs, min_pair_run):
    """Every combination any non-empty subset of ``codes`` makes (2**13 - 1 subsets for a full hand)."""
    found = set()
    n = len(codes)
    for bits in range(1, 1 << n):
        subset = [codes[i] for i in range(n) if bits >> i & 1]
        combo = C.classify(subset, bombs=bombs, min_pair_run=min_pair_run)
        if combo is not None:
            found.add(combo)
    return found


hands13 = st.lists(st.integers(0, 51), min_size=13, max_size=13, unique=True)
house = st.tuples(st.booleans(), st.integers(2, 5))


@settings(max_examples=40, deadline=None)
@given(hands13, house)
def test_lead_plays_equal_the_brute_force_oracle(codes, rules):
    bombs, mpr = rules
    generated = C.lead_combos(C.mask_of(codes), bombs=bombs, min_pair_run=mpr)
    assert len(generated) == len(set(generated))  # one entry per rank pattern, no repeats
    assert set(generated) == oracle_leads(codes, bombs, mpr)


@settings(max_examples=60, deadline=None)
@given(hands13, house, st.sampled_from(ALL_COMBOS))
def test_follow_plays_equal_the_leads_that_beat(codes, rules, trick):
    bombs, mpr = rules
    mask = C.mask_of(codes)
    leads = C.lead_combos(mask, bombs=bombs, min_pair_run=mpr)
    follows = C.follow_combos(mask, trick, bombs=bombs, min_pair_run=mpr)
    assert set(follows) == {c for c in leads if c.beats(trick)}


@settings(max_examples=60, deadline=None)
@given(hands13, st.integers(0, 51 * 4))
def test_take_gives_cards_of_the_hand_that_make_the_combo(codes, avoid_code):
    mask = C.mask_of(codes)
    avoid = 1 << (avoid_code % 52)
    for combo in C.lead_combos(mask, bombs=True, min_pair_run=2):
        cards = C.take(mask, combo, avoid)
        assert cards & ~mask == 0 and cards.bit_count() == combo.size
        picked = [i for i in range(52) if cards >> i & 1]
        assert C.classify(picked, bombs=True, min_pair_run=2) == combo
        if cards & avoid:  # the avoided card only when the rank has no other card to give
            rank = (avoid_code % 52) >> 2
            assert (mask & C.RANK_MASK[rank] & ~avoid).bit_count() < C.MULTIPLICITY[combo.kind]


def test_classify_examples():
    def kind(*cards, bombs=False, mpr=3):
        combo = C.classify(C.codes_of(cards), bombs=bombs, min_pair_run=mpr)
        return None if combo is None else str(combo)

    assert kind("S5") == "single 5"
    assert kind("S5", "H5") == "pair 5"
    assert kind("S3", "H3", "D3") == "triple 3"
    assert kind("S4", "D5", "C6") == "straight 4-6"
    assert kind("S10", "DJ", "CQ", "HK") == "straight 10-K"
    assert kind("SQ", "DK", "CA") is None
    assert kind("S4", "H4", "S5", "H5", "S6", "H6") == "pair_run 4-6"
    assert kind("S4", "H4", "S5", "H5") is None
    assert kind("S4", "H4", "S5", "H5", mpr=2) == "pair_run 4-5"
    assert kind("S4", "H4", "D4", "C4") is None
    assert kind("S4", "H4", "D4", "C4", bombs=True) == "bomb 4"
    assert kind("S4", "H4", "D4", "S5") is None
    assert kind("S2", "H2", "S3", "H3", "SA", "HA") is None


def test_beats():
    single = C.Combo(C.SINGLE, 1, 5)
    assert C.Combo(C.SINGLE, 1, 6).beats(single) and not C.Combo(C.SINGLE, 1, 5).beats(single)
    assert not C.Combo(C.PAIR, 1, 12).beats(single)
    s3 = C.Combo(C.STRAIGHT, 3, 4)
    assert C.Combo(C.STRAIGHT, 3, 5).beats(s3) and not C.Combo(C.STRAIGHT, 4, 9).beats(s3)
    bomb = C.Combo(C.BOMB, 1, 0)
    assert bomb.beats(C.Combo(C.PAIR_RUN, 5, 9)) and bomb.beats(C.Combo(C.SINGLE, 1, 12))
    assert C.Combo(C.BOMB, 1, 1).beats(bomb) and not bomb.beats(C.Combo(C.BOMB, 1, 1))


def test_card_codes_round_trip():
    assert [C.CARD_NAMES[c] for c in C.codes_of(["h4", "S10", "C3"])] == ["H4", "S10", "C3"]
    assert C.code_of("H11") is None and C.code_of(7) is None
    assert C.cards_of(C.mask_of(C.codes_of(["C3", "H4", "SA"]))) == ["H4", "SA", "C3"]


def test_the_usage_examples_in_the_docstrings_hold():
    import doctest
    import importlib

    for name in ("combos", "settings", "scoring", "state", "bots", "game", "examples"):
        module = importlib.import_module(f"engine.hongsi.{name}")
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, name
