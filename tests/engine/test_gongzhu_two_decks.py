"""拱双猪 (``gongzhu`` with ``decks = 2``): deal, pairs, the pair orders, double exposures, double scoring,
and properties of random bot playouts (conservation of the 104 cards, legal actions, scores)."""

import copy
import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import DECKS, GAMES, parse_cards
from engine.gongzhu import PRESETS, TWO_DECKS, GongzhuGame, ShuangzhuState, play_strength
from engine.record import RecordError
from engine.referee import referee
from engine.tricks import CODES, NAMES, names

GAME = GongzhuGame()
ALL2 = [str(c) for c in TWO_DECKS.cards()]
COMPOSITION = Counter(ALL2)
RULE_IDS = {"finished", "malformed", "phase", "turn", "not_in_hand", "first_lead", "lead_pair", "follow_count",
            "follow_suit", "follow_pair", "exposed_first_round", "expose", "expose_forbidden"}


def deal2(spec: dict[int, list[str]], closed: str = "", dump: int = 0) -> list[list[str]]:
    """Seat hands of 26 holding the given cards. The other cards of the ``closed`` suits all go to seat
    ``dump`` (so every other seat holds exactly its listed cards of those suits); the rest fill up in deck
    order."""
    pool = Counter(ALL2)
    pool.subtract(c for cards in spec.values() for c in cards)
    assert min(pool.values()) >= 0, "a card listed more than twice"
    hands = [list(spec.get(seat, [])) for seat in range(4)]
    for card in ALL2:
        if card[0] in closed and pool[card] > 0:
            hands[dump].append(card)
            pool[card] -= 1
    assert len(hands[dump]) <= 26, "the dump seat overflows"
    rest = sorted((+pool).elements(), key=ALL2.index)
    for hand in hands:
        while len(hand) < 26:
            hand.append(rest.pop(0))
    assert Counter(c for h in hands for c in h) == COMPOSITION
    return hands


def state2(spec=None, closed="", dump=0, **rules) -> ShuangzhuState:
    rules = {"decks": 2, "leader": 0, **rules}
    s = GAME.new_state([parse_cards(h) for h in deal2(spec or {}, closed, dump)], [], GAME.settings(None, rules))
    assert isinstance(s, ShuangzhuState)
    return s


def play(s, seat, *cards):
    return s.judge({"seat": seat, "action": "play", "cards": list(cards)})


def expose(s, seat, *cards, **extra):
    return s.judge({"seat": seat, "action": "expose", "cards": list(cards), **extra})


def rules_of(violations):
    return [v.rule for v in violations]


def hand_of(s, seat):
    return names(sorted(s.hands[seat]))


def other(s, seat, not_suit, n=1, avoid=("SQ", "DJ", "C10")):
    """``n`` cards of ``seat``'s hand outside suit ``not_suit`` and without value (for a harmless discard)."""
    out = [c for c in hand_of(s, seat) if c[0] != not_suit and c[0] != "H" and c not in avoid]
    return out[:n] if n > 1 else out[0]


# ---------------------------------------------------------------- deal plan, settings, records
def test_deal_plan_is_104_cards_26_a_seat_and_one_deck_is_unchanged():
    plan = GAME.deal_plan(GAME.settings(None, {"decks": 2}))
    assert plan.cards_per_seat == (26, 26, 26, 26) and plan.bottom == 0
    assert plan.deck.size == 104 and not plan.deck.jokers and plan.deck.decks == 2
    assert set(plan.deck.composition().values()) == {2} and len(plan.deck.composition()) == 52
    one = GAME.deal_plan(GAME.settings())
    assert one.cards_per_seat == (13,) * 4 and one.deck == DECKS["gongzhu"]
    assert "gongzhu" in GAMES and len(GAMES) == 5  # no new game id
    assert GAME.settings().decks == 1


def test_controller_plan_takes_the_two_deck_deal():
    from controller.plan import Plan, make_plan

    plan = make_plan("gongzhu", fair=False, rules={"decks": 2})
    assert plan.total == 104 and Counter(plan.order) == {0: 26, 1: 26, 2: 26, 3: 26}
    assert Plan.from_json(plan.to_json()).deck == TWO_DECKS


def test_bad_decks_settings_are_refused():
    for bad in ({"decks": 3}, {"decks": 0}, {"decks": True}, {"decks": 2, "zide": True},
                {"decks": 2, "teams": "zhuyang"}):
        with pytest.raises(ValueError):
            GAME.settings(None, bad)
    with pytest.raises(ValueError):
        GAME.settings("zhuyang", {"decks": 2})


def test_records_allow_two_copies_only_with_two_decks():
    hands = deal2({})
    verdict = referee({"game": "gongzhu", "rules": {"decks": 2}, "hands": hands, "events": []})
    assert verdict["violations"] == [] and verdict["finished"] is False
    three = [list(h) for h in hands]
    three[0][0], three[1][0] = "SA", "SA"  # S2 S2 out, a third and fourth SA in
    with pytest.raises(RecordError):
        referee({"game": "gongzhu", "rules": {"decks": 2}, "hands": three})
    with pytest.raises(RecordError):  # one deck: a duplicate is still refused
        referee({"game": "gongzhu", "hands": [h[:13] for h in hands]})
    with pytest.raises(RecordError):  # two decks: 13 a seat is not a deal
        referee({"game": "gongzhu", "rules": {"decks": 2}, "hands": [h[:13] for h in hands]})


# ---------------------------------------------------------------- leads
def test_first_lead_is_a_club_two_or_the_pair_of_them():
    s = state2({2: ["C2", "C2"]}, leader=None)
    assert s.current_player() == 2
    assert sorted(a["cards"] for a in s.legal_actions(2) if a["action"] == "play") == [["C2"], ["C2", "C2"]]
    assert rules_of(play(s, 2, other(s, 2, "C"))) == ["first_lead"]
    assert play(s, 2, "C2", "C2") == [] and s.current_player() == 3
    s = state2({1: ["C2"], 3: ["C2"]}, leader=None)
    assert s.current_player() == 1  # the lowest seat holding a copy
    assert rules_of(play(s, 1, "C2", "C2")) == ["not_in_hand"]
    assert play(s, 1, "C2") == []


def test_lead_one_card_or_a_pair_never_two_different_cards():
    s = state2({0: ["SA", "SA", "SK"]})
    assert rules_of(play(s, 0, "SA", "SK")) == ["lead_pair"]
    assert rules_of(play(s, 0, "SA", "SA", "SK")) == ["malformed"]
    missing = next(c for c in ALL2 if c not in hand_of(s, 0))
    assert rules_of(play(s, 0, missing, missing)) == ["not_in_hand"]
    legal = [a["cards"] for a in s.legal_actions(0) if a["action"] == "play"]
    assert ["SA", "SA"] in legal and ["SA"] in legal and ["SA", "SK"] not in legal
    assert play(s, 0, "SA", "SA") == [] and len(s.hands[0]) == 24


# ---------------------------------------------------------------- following a pair
def test_pair_must_follow_pair_then_two_of_the_suit_then_what_there_is():
    s = state2({1: ["S3", "S3", "S5", "S9"], 2: ["S4", "S7"], 3: ["S6"]}, closed="S")
    assert play(s, 0, "SA", "SA") == []
    assert [a["cards"] for a in s.legal_actions(1) if a["action"] == "play"] == [["S3", "S3"]]
    assert rules_of(play(s, 1, "S5", "S9")) == ["follow_pair"]
    assert rules_of(play(s, 1, "S3")) == ["follow_count"]
    assert rules_of(play(s, 1, "S3", other(s, 1, "S"))) == ["follow_suit"]
    assert play(s, 1, "S3", "S3") == []
    assert rules_of(play(s, 2, "S4", other(s, 2, "S"))) == ["follow_suit"]
    assert [a["cards"] for a in s.legal_actions(2) if a["action"] == "play"] == [["S4", "S7"]]
    assert play(s, 2, "S4", "S7") == []
    x, y = other(s, 3, "S", 2)
    assert rules_of(play(s, 3, x, y)) == ["follow_suit"]
    legal3 = [a["cards"] for a in s.legal_actions(3) if a["action"] == "play"]
    assert legal3 and all("S6" in cards and len(cards) == 2 for cards in legal3)
    assert len(legal3) == len(set(hand_of(s, 3))) - 1
    assert play(s, 3, "S6", x) == []
    # in spades two non-pair cards beat any pair: seat 2's S4 S7 takes the trick over AA and 33
    assert s.tricks[0].winner == 2 and len(s.taken[2]) == 8


def test_void_follower_gives_any_two_cards_and_they_are_a_discard():
    s = state2({1: [], 2: [], 3: []}, closed="C")  # seat 0 holds every club
    assert play(s, 0, "C2", "C2") == []
    hand = set(hand_of(s, 1))
    legal = [tuple(a["cards"]) for a in s.legal_actions(1) if a["action"] == "play"]
    pairs = sum(1 for c in hand if hand_of(s, 1).count(c) == 2)
    assert len(legal) == len(hand) * (len(hand) - 1) // 2 + pairs
    for seat in (1, 2, 3):
        assert play(s, seat, *hand_of(s, seat)[-2:]) == []
    assert s.tricks[0].winner == 0  # a discard never wins, not even a pair of aces


# ---------------------------------------------------------------- the order of pairs and two cards
def test_hearts_two_cards_beat_a_pair_and_go_by_the_higher_card_a2_beats_kq():
    s = state2({1: ["HK", "HQ"], 2: ["HA", "H2"], 3: ["H5", "H5"]}, closed="H")
    assert play(s, 0, "H3", "H3") == []
    assert play(s, 1, "HK", "HQ") == [] and s.trick.best == 1
    assert play(s, 2, "H2", "HA") == [] and s.trick.best == 2
    assert rules_of(play(s, 3, "H5", other(s, 3, "H"))) == ["follow_suit"]
    assert play(s, 3, "H5", "H5") == []
    assert s.tricks[0].winner == 2


def test_clubs_pair_is_under_two_cards_and_over_a_discard():
    s = state2({1: ["CA", "CA"], 2: ["C2", "C4"], 3: []}, closed="C")
    assert play(s, 0, "C3", "C3") == []
    assert play(s, 1, "CA", "CA") == [] and s.trick.best == 1   # AA over 33
    assert play(s, 2, "C2", "C4") == [] and s.trick.best == 2   # C2 C4 over any club pair
    assert play(s, 3, *other(s, 3, "C", 2, avoid=("SQ", "DJ", "C10", "SA", "SK", "DA", "DK"))) == []
    assert s.tricks[0].winner == 2


def test_diamonds_pair_beats_two_cards_and_pairs_go_by_rank():
    s = state2({1: ["DK", "DQ"], 2: ["D3", "D3"], 3: ["DA", "DA"]}, closed="D")
    assert play(s, 0, "D2", "D2") == []
    assert play(s, 1, "DK", "DQ") == [] and s.trick.best == 0   # ♦ two cards under the pair 22
    assert play(s, 2, "D3", "D3") == [] and s.trick.best == 2
    assert play(s, 3, "DA", "DA") == []
    assert s.tricks[0].winner == 3 and s.tricks[0].best == 3


def test_strength_table():
    def st_(lead, p):
        return play_strength(tuple(CODES[c] for c in lead), tuple(CODES[c] for c in p))

    ranks = ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"]
    for suit in "SHDC":
        pairs = [st_([suit + "2"] * 2, [suit + r] * 2) for r in ranks]
        assert pairs == sorted(pairs, reverse=True) and len(set(pairs)) == 13  # AA > KK > ... > 22
        two = st_([suit + "2"] * 2, [suit + "2", suit + "3"])
        discard = st_([suit + "2"] * 2, [suit + "A", "HA" if suit != "H" else "SA"])
        if suit == "D":
            assert st_(["D2"] * 2, ["D2", "D2"]) > st_(["D2"] * 2, ["DA", "DK"]) > discard
        else:  # 黑桃AA小于黑桃23
            assert two > st_([suit + "2"] * 2, [suit + "A"] * 2) > discard
        assert st_([suit + "2"] * 2, [suit + "A", suit + "2"]) > st_([suit + "2"] * 2, [suit + "K", suit + "Q"])
        assert st_([suit + "2"] * 2, [suit + "A", suit + "2"]) == st_([suit + "2"] * 2, [suit + "A", suit + "K"])


def test_single_lead_identical_cards_the_first_keeps_the_trick():
    s = state2({1: ["SA"], 2: ["SA"], 3: []}, closed="S")
    assert play(s, 0, "S5") == []
    assert rules_of(play(s, 1, "SA", "SA")) == ["not_in_hand"]
    assert rules_of(play(s, 1, other(s, 1, "S"))) == ["follow_suit"]
    assert play(s, 1, "SA") == [] and play(s, 2, "SA") == [] and play(s, 3, other(s, 3, "S")) == []
    assert s.tricks[0].winner == 1


# ---------------------------------------------------------------- exposing copies
def test_exposing_copies():
    s = state2({1: ["SQ"], 2: ["SQ", "HA", "HA"]})
    assert rules_of(expose(s, 1, "SQ", "SQ")) == ["not_in_hand"]
    assert expose(s, 1, "SQ") == []
    assert rules_of(expose(s, 1, "SQ")) == ["expose"]
    assert rules_of(expose(s, 1, "S2")) == ["not_in_hand"] or rules_of(expose(s, 1, "S2")) == ["expose"]
    assert ["HA", "HA"] in [a["cards"] for a in s.legal_actions(2) if a["action"] == "expose"]
    assert expose(s, 2, "HA", "HA") == [] and expose(s, 2, "SQ") == []
    assert s.factor(CODES["SQ"]) == 4 and s.factor(CODES["HA"]) == 4 and s.factor(CODES["DJ"]) == 1
    view = s.public_view(3)
    assert len(view["exposed"]) == 4 and len(view["hand"]) == 26 and "hand" not in s.public_view()
    assert play(s, 0, s.legal_actions(0)[0]["cards"][0]) == []
    assert rules_of(expose(s, 3, "DJ")) == ["phase"]


def test_exposure_of_one_copy_counts_for_both_and_the_other_copy_is_free():
    s = state2({1: ["SQ", "S5"], 2: ["SQ", "S6"], 3: []}, closed="S")
    assert expose(s, 1, "SQ") == []
    assert play(s, 0, "S2") == []
    assert rules_of(play(s, 1, "SQ")) == ["exposed_first_round"]
    assert play(s, 1, "S5") == []
    assert play(s, 2, "SQ") == []  # the unexposed copy has no first-round restriction
    assert play(s, 3, other(s, 3, "S")) == []
    assert s.tricks[0].winner == 2
    assert s.seat_points(2) == -200  # ... but it is worth as much as the exposed one


def test_holding_both_copies_with_one_exposed():
    s = state2({1: ["SQ", "SQ", "S5"]}, closed="S")
    assert expose(s, 1, "SQ") == []
    assert play(s, 0, "S2") == []
    legal = [a["cards"] for a in s.legal_actions(1) if a["action"] == "play"]
    assert ["SQ"] in legal and ["S5"] in legal  # the unexposed copy may go
    assert play(s, 1, "SQ") == []
    s = state2({1: ["SQ", "SQ", "S5"]}, closed="S")
    assert expose(s, 1, "SQ") == []
    assert play(s, 0, "S3", "S3") == []
    # a pair was led: the only spade pair must be given, even with an exposed copy in it
    assert [a["cards"] for a in s.legal_actions(1) if a["action"] == "play"] == [["SQ", "SQ"]]
    assert rules_of(play(s, 1, "SQ", "S5")) == ["follow_pair"]
    # both copies exposed: the held-back pair still goes when it is the only allowed play
    s = state2({1: ["SQ", "SQ", "S5", "S7"]}, closed="S")
    assert expose(s, 1, "SQ", "SQ") == []
    assert play(s, 0, "S2") == []
    assert [a["cards"] for a in s.legal_actions(1) if a["action"] == "play"] == [["S5"], ["S7"]]


def test_exposed_may_lead_off_holds_back_the_exposed_copy_only():
    s = state2({0: ["SQ", "SQ"], 1: [], 2: [], 3: []}, closed="S", exposed_may_lead=False)
    assert expose(s, 0, "SQ") == []
    legal = [a["cards"] for a in s.legal_actions(0) if a["action"] == "play"]
    assert ["SQ"] in legal and ["SQ", "SQ"] not in legal
    assert rules_of(play(s, 0, "SQ", "SQ")) == ["exposed_first_round"]


def test_compulsory_exposure_exposes_every_copy():
    s = state2({}, exposure="all_but_sheep")
    assert s.factor(CODES["SQ"]) == 4 and s.factor(CODES["HA"]) == 4 and s.factor(CODES["C10"]) == 4
    assert s.factor(CODES["DJ"]) == 1
    assert len(s.exposures) == 6
    seat = next(x for x in range(4) if CODES["DJ"] in s.hands[x])
    assert rules_of(expose(s, seat, "DJ")) == ["expose_forbidden"]


# ---------------------------------------------------------------- scoring
def scored(taken, exposures=(), **rules):
    spec: dict[int, list[str]] = {}
    for seat, cards in exposures:
        spec.setdefault(seat, []).extend(cards)
    s = state2(spec, **rules)
    for seat, cards in exposures:
        assert expose(s, seat, *cards) == []
    s.taken[0] = [CODES[c] for c in taken]
    return s.seat_points(0)


@pytest.mark.parametrize("card,value", [("DJ", 100), ("SQ", -100)])
def test_double_sheep_and_double_pig_200_400_800(card, value):
    assert scored([card, card]) == 2 * value
    assert scored([card, card], [(1, [card])]) == 4 * value
    assert scored([card, card], [(1, [card]), (2, [card])]) == 8 * value
    assert scored([card, card], [(1, [card, card])]) == 8 * value
    assert scored([card]) == value
    assert scored([card], [(1, [card])]) == 2 * value  # one copy taken: as if it were the exposed one


def test_double_transformer_4_8_16_times():
    assert scored(["C10", "SQ"]) == -200
    assert scored(["C10", "C10", "SQ"]) == -400
    assert scored(["C10", "C10", "SQ"], [(1, ["C10"])]) == -800
    assert scored(["C10", "C10", "SQ"], [(1, ["C10"]), (3, ["C10"])]) == -1600
    assert scored(["C10", "SQ"], [(1, ["C10"])]) == -400
    assert scored(["C10", "C10", "H2"]) == 100  # alone: 50 a transformer
    assert scored(["C10", "C10"], [(1, ["C10"])]) == 200
    assert scored(["C10"]) == 50


def test_hearts_double_with_one_ace_exposed_and_quadruple_with_both():
    assert scored(["H5", "HK"]) == -50
    assert scored(["H5", "HK"], [(1, ["HA"])]) == -100
    assert scored(["H5", "HK"], [(1, ["HA"]), (2, ["HA"])]) == -200
    assert scored(["HA", "HA"], [(1, ["HA", "HA"])]) == -400


def test_text_example_and_all_hearts_and_grand_slam_with_two_decks():
    assert scored(["SQ", "H6", "H8", "H10", "HJ", "C10"], [(1, ["HA"])]) == -400
    hearts = [c for c in ALL2 if c[0] == "H"]
    assert scored(hearts) == 200
    assert scored(hearts, [(1, ["HA"])]) == 400
    assert scored(hearts, all_hearts="negate") == 400
    assert scored(hearts[:-1]) == -350  # 25 hearts (one ♥A short) are no 全红: -400 + 50
    slam = hearts + ["SQ", "SQ", "DJ", "DJ", "C10", "C10"]
    assert scored(slam) == 2000
    assert scored(slam, grand_slam_unexposed=None) == (400 + 200 + 200) * 4  # hearts 2 × 200, pigs 2 × 100, sheep 2 × 100
    assert scored(slam, [(1, ["SQ"])]) == (400 + 400 + 200) * 4


def test_pig_taker_is_the_first_to_take_a_pig_and_partners_add_up():
    s = finished({"teams": "partners"}, seed=5)
    first = next(seat for seat, t in zip(s.takers, s.tricks, strict=True) if CODES["SQ"] in t.cards())
    assert s.verdict()["pig_taker"] == first
    points = [s.seat_points(x) for x in range(4)]
    assert s.returns() == [points[0] + points[2], points[1] + points[3]] * 2


# ---------------------------------------------------------------- properties of bot playouts
def finished(rules, seed, bot="greedy"):
    sets = GAME.settings(None, {"decks": 2, **rules})
    record = GAME.bot_hand(random.Random(seed), bot=bot, settings=sets)
    s = GAME.new_state([parse_cards(h) for h in record["hands"]], [], sets)
    for ev in record["events"]:
        s.apply(ev)
    return s


VARIANTS = [{}, {"anmai": True, "shouming": True}, {"exposure": "all_but_sheep"}, {"exposure": "all"},
            {"exposure": "none"}, {"teams": "partners"}, {"discard_colour": True}, {"exposed_may_lead": False},
            {"swap_pig_sheep": True, "all_hearts": "negate"}, {"next_leader": "pig_taker", "force_last": True}]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), bot=st.sampled_from(["random", "greedy"]),
       rules=st.sampled_from(VARIANTS))
def test_playouts_conserve_the_104_cards_and_every_legal_action_is_accepted(seed, bot, rules):
    sets = GAME.settings(None, {"decks": 2, **rules})
    record = GAME.bot_hand(random.Random(seed), bot=bot, settings=sets)
    assert Counter(c for h in record["hands"] for c in h) == COMPOSITION
    s = GAME.new_state([parse_cards(h) for h in record["hands"]], [], sets)
    rng = random.Random(seed)
    for ev in record["events"]:
        seat = ev["seat"]
        if ev["action"] == "play":
            legal = [a for a in s.legal_actions(seat) if a["action"] == "play"]
            assert sorted(ev["cards"]) in [sorted(a["cards"]) for a in legal]
            for a in rng.sample(legal, min(4, len(legal))):
                assert copy.deepcopy(s).judge(a) == []
            hand = hand_of(s, seat)
            bad = sorted(rng.sample(hand, 2)) if len(hand) >= 2 else []
            if bad and bad not in [sorted(a["cards"]) for a in legal]:
                before = [len(h) for h in s.hands]
                errs = s.judge({"seat": seat, "action": "play", "cards": bad})
                assert len(errs) == 1 and errs[0].rule in RULE_IDS and errs[0].message and errs[0].message_zh
                assert [len(h) for h in s.hands] == before
        assert s.judge(ev) == []
        in_trick = 0 if s.is_terminal() else len(s.trick.cards())
        assert sum(len(h) for h in s.hands) + sum(len(t) for t in s.taken) + in_trick == 104
    assert s.is_terminal() and s.current_player() is None
    assert Counter(names(c for t in s.taken for c in t)) == COMPOSITION
    assert Counter(names(c for t in s.tricks for c in t.cards())) == COMPOSITION
    for t in s.tricks:  # every trick: four plays of the lead's size
        assert len(t.plays) == 4 and {len(cards) for _, cards in t.plays} == {len(t.lead)}
    record["rules"] = dict(record["rules"])
    verdict = referee(json.loads(json.dumps(record)))
    assert verdict["violations"] == [] and verdict["finished"] is True
    assert verdict["seat_points"] == [s.seat_points(x) for x in range(4)]


def _reference_points(s, seat):
    """The two-deck scoring table, written out again from the captured cards and the exposures (no 全红)."""
    factor = Counter()
    for _, card, kind in s.exposures:
        factor[NAMES[card]] += 2 if kind == "first" else 1  # powers of two
    f = {c: 2 ** factor[c] for c in ("SQ", "DJ", "C10", "HA")}
    taken = Counter(names(s.taken[seat]))
    heart = dict(zip(["5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"], [-10] * 6 + [-20, -30, -40, -50], strict=True))
    hearts = sum(heart.get(c[1:], 0) * n for c, n in taken.items() if c[0] == "H")
    base = hearts * f["HA"] - 100 * taken["SQ"] * f["SQ"] + 100 * taken["DJ"] * f["DJ"]
    valued = hearts or taken["SQ"] or taken["DJ"]
    if taken["C10"]:
        return base * 2 ** taken["C10"] * f["C10"] if valued else 50 * taken["C10"] * f["C10"]
    return base


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), bot=st.sampled_from(["random", "greedy"]),
       rules=st.sampled_from([{}, {"anmai": True, "shouming": True}, {"exposure": "all_but_sheep"},
                              {"exposure": "none"}]))
def test_scores_follow_the_captured_cards(seed, bot, rules):
    s = finished(rules, seed, bot)
    if any(sum(1 for c in t if 13 <= c < 26) == 26 for t in s.taken):
        return  # 全红 / 满贯: their own tests above
    assert [s.seat_points(x) for x in range(4)] == [_reference_points(s, x) for x in range(4)]
    assert s.returns() == [s.seat_points(x) for x in range(4)]
    if not s.exposures:  # conserved: with the transformers undone the seats add up to the two decks' -400
        total = 0
        for seat in range(4):
            t = s.taken[seat].count(CODES["C10"])
            valued = any(s.values[c] for c in s.taken[seat])
            total += s.seat_points(seat) // 2 ** t if valued else 0
        assert total == -400


def test_every_legal_action_of_whole_hands_is_accepted():
    rng = random.Random(11)
    for _ in range(2):
        cards = list(ALL2)
        rng.shuffle(cards)
        s = GAME.new_state([parse_cards(cards[i * 26:(i + 1) * 26]) for i in range(4)], [],
                           GAME.settings(None, {"decks": 2, "anmai": True, "shouming": True}))
        while not s.is_terminal():
            seat = s.current_player()
            actions = [a for x in range(4) for a in s.legal_actions(x)]
            assert any(a["seat"] == seat for a in actions)
            for a in actions:
                assert copy.deepcopy(s).judge(a) == [], a
            assert s.judge(rng.choice(actions)) == []


def test_bot_hands_are_clean_under_every_preset_that_allows_two_decks():
    for preset in sorted(GAME.presets):
        if preset == "zhuyang":
            continue
        sets = GAME.settings(preset, {"decks": 2})
        for bot in ("random", "greedy"):
            record = GAME.bot_hand(random.Random(3), bot=bot, settings=sets)
            record["preset"], record["rules"] = preset, {"decks": 2}
            verdict = referee(record)
            assert verdict["violations"] == [] and verdict["finished"]
            assert sum(len(t) for t in verdict["taken"]) == 104


def test_two_deck_presets_play_clean():
    two = {name: sets for name, sets in PRESETS.items() if sets.decks == 2}
    assert sorted(two) == ["shuangzhu", "shuangzhu-quanliang"]
    for name, sets in two.items():
        record = GAME.bot_hand(random.Random(4), bot="random", settings=sets)
        record["preset"], record["rules"] = name, {}  # the preset alone gives the referee two decks
        assert referee(record)["violations"] == []
