"""升级: declarations during the deal, the bottom, trump order, follow suit and structure, winners, 抠底,
levels, 甩牌, views, properties and self-play."""

import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from controller.cli import app
from engine.cards import DECKS, RANKS, parse_cards
from engine.record import RecordError
from engine.referee import referee
from engine.shengji import POINTS, TRUMP, ShengjiGame, ShengjiState, Trumps, shape
from engine.tricks import CODES, NAMES, Trick

GAME = ShengjiGame()
DECK = [str(c) for c in DECKS["shengji"].cards()]


def deal(spec: dict[int, list[str]], bottom: list[str] | None = None) -> tuple[list[list[str]], list[str]]:
    """Hands (in dealt order) that start with the given cards; the rest of the deck fills the seats."""
    rest = Counter(DECK)
    for cards in list(spec.values()) + [bottom or []]:
        rest.subtract(cards)
    assert min(rest.values()) >= 0
    pool = list(rest.elements())
    hands = []
    for seat in range(4):
        hand = list(spec.get(seat, []))
        while len(hand) < 25:
            hand.append(pool.pop())
        hands.append(hand)
    return hands, list(bottom) if bottom else [pool.pop() for _ in range(8)]


def new(spec=None, bottom=None, **rules) -> ShengjiState:
    hands, bot = deal(spec or {}, bottom)
    return GAME.new_state([parse_cards(h) for h in hands], parse_cards(bot), GAME.settings(None, rules))


def declare(s, seat, cards, dealt=None):
    ev = {"seat": seat, "action": "declare", "cards": cards}
    if dealt is not None:
        ev["dealt"] = dealt
    return [v.rule for v in s.judge(ev)]


def midgame(hands: dict[int, list[str]], trump: str | None = "S", level: str = "2", leader: int = 0,
            **rules) -> ShengjiState:
    """A state in play with the given (small) hands, trump and leader: for the trick rules."""
    s = new(level=level, **rules)
    s.trumps = Trumps(RANKS.index(level), None if trump is None else "SHDC".index(trump))
    s.phase = "play"
    s.counts = [[0] * 54 for _ in range(4)]
    for seat, cards in hands.items():
        for c in cards:
            s.counts[seat][CODES[c]] += 1
    s.trick = Trick(leader, 4)
    s.buried = []
    return s


def play(s, seat, cards):
    return [v.rule for v in s.judge({"seat": seat, "action": "play", "cards": cards})]


# ---------------------------------------------------------------- deal and declarations
def test_received_follows_the_dealing_order_from_the_dealer():
    s = new(dealer=2)
    assert [s.received(seat, 1) for seat in range(4)] == [0, 0, 1, 0]
    assert [s.received(seat, 6) for seat in range(4)] == [1, 1, 2, 2]
    assert [s.received(seat, 100) for seat in range(4)] == [25] * 4


def test_single_level_card_declares_once_dealt():
    s = new({0: ["C2", "C2"], 1: ["H2", "S3"]})
    assert declare(s, 1, ["H2"], dealt=1) == ["not_dealt"]     # seat 1's first card is the 2nd dealt
    assert declare(s, 1, ["C2"], dealt=50) == ["not_in_hand"]
    assert declare(s, 1, ["H2"], dealt=2) == []
    assert s.declarer == 1 and s.decl_suit == 1 and s.public_view(3)["declarations"][0]["cards"] == ["H2"]
    assert s.declarations == [{"seat": 1, "cards": ["H2"], "dealt": 2, "kind": "single"}]


def test_not_a_level_card_or_not_in_hand_is_rejected():
    s = new({0: ["S3", "S3", "BJ", "RJ"]})
    assert declare(s, 0, ["S3"], dealt=1) == ["declare"]
    assert declare(s, 0, ["S3", "S3"], dealt=5) == ["declare"]
    assert declare(s, 0, ["BJ", "RJ"], dealt=16) == ["declare"]          # joker_pair "same"
    assert declare(s, 3, ["S3"], dealt=100) == ["not_in_hand"]
    s = new({0: ["S3", "S3", "BJ", "RJ"]}, joker_pair="any")
    assert declare(s, 0, ["BJ", "RJ"], dealt=16) == [] and s.decl_suit == TRUMP


def test_reinforce_by_anyone_or_only_the_declarer():
    s = new({0: ["H2"], 1: ["H2"], 2: ["D2"]})
    assert declare(s, 0, ["H2"], dealt=1) == []
    assert declare(s, 2, ["D2"], dealt=3) == ["declare"]        # a single never overturns
    assert declare(s, 1, ["H2"], dealt=2) == []                 # 加固 by another player
    assert s.declarations[-1]["kind"] == "reinforce" and s.declarer == 0 and s.decl_strength == 2
    s = new({0: ["H2"], 1: ["H2"]}, reinforce="declarer")
    declare(s, 0, ["H2"], dealt=1)
    assert declare(s, 1, ["H2"], dealt=2) == ["declare"]


def test_pair_overturns_a_single_not_a_pair_nor_a_reinforced_single():
    s = new({0: ["H2"], 1: ["C2", "C2"], 2: ["D2", "D2"]})
    declare(s, 0, ["H2"], dealt=1)
    assert declare(s, 1, ["C2", "C2"], dealt=6) == []
    assert s.declarer == 1 and s.decl_suit == 3
    assert declare(s, 2, ["D2", "D2"], dealt=7) == ["declare"]
    s = new({0: ["H2", "H2"], 1: ["C2", "C2"]})
    declare(s, 0, ["H2"], dealt=1)
    declare(s, 0, ["H2"], dealt=5)                               # 加固 by the declarer
    assert declare(s, 1, ["C2", "C2"], dealt=6) == ["declare"]
    s = new({0: ["H2", "H2"], 1: ["C2", "C2"]}, reinforce_protects=False)
    declare(s, 0, ["H2"], dealt=1)
    declare(s, 0, ["H2"], dealt=5)
    assert declare(s, 1, ["C2", "C2"], dealt=6) == []


def test_joker_pair_means_no_trump_and_outranks_everything_once():
    s = new({0: ["S2", "S2"], 1: ["BJ", "BJ"], 2: ["RJ", "RJ"]})
    declare(s, 0, ["S2", "S2"], dealt=5)
    assert declare(s, 1, ["BJ", "BJ"], dealt=6) == []
    assert declare(s, 2, ["RJ", "RJ"], dealt=7) == ["declare"]
    s.apply({"seat": 0, "action": "bury", "cards": s.public_view(0)["hand"][-8:]})
    assert s.trumps.suit is None and s.verdict()["no_trump"] and s.verdict()["trump_from"] == "declared"


def test_dealt_must_be_a_count_and_never_go_back():
    s = new({0: ["H2"], 1: ["C2", "C2"]})
    assert declare(s, 0, ["H2"], dealt=0) == ["dealt"]
    assert declare(s, 0, ["H2"], dealt=101) == ["dealt"]
    assert declare(s, 0, ["H2"], dealt="5") == ["dealt"]
    assert declare(s, 1, ["C2", "C2"], dealt=40) == []
    assert declare(s, 0, ["H2"], dealt=30) == ["dealt"]


def test_flip_the_bottom_when_nobody_declares():
    s = new(bottom=["BJ", "RJ", "D7", "S5", "S6", "S7", "S8", "S9"])
    hand = s.public_view(0)["hand"]
    assert s.judge({"seat": 0, "action": "bury", "cards": hand[:8]}) == []
    v = s.verdict()
    assert v["trump_suit"] == "D" and v["trump_from"] == "bottom" and v["flipped"] == ["BJ", "RJ", "D7"]
    assert declare(s, 1, ["H2"]) == ["phase"]


# ---------------------------------------------------------------- the bottom
def test_bury_rules():
    s = new({0: ["S2"]}, bottom=["H5", "H5", "HK", "C3", "C4", "D9", "D10", "S8"])
    assert [v.rule for v in s.judge({"seat": 1, "action": "bury", "cards": ["H5"]})] == ["turn"]
    assert play(s, 0, ["S2"]) == ["phase"]
    assert [v.rule for v in s.judge({"seat": 0, "action": "bury", "cards": ["H5"] * 3})] == ["not_in_hand"]
    nine = s.public_view(0)["hand"][:9]
    assert [v.rule for v in s.judge({"seat": 0, "action": "bury", "cards": nine})] == ["bury"]
    assert s.judge({"seat": 0, "action": "bury", "cards": ["H5", "H5", "HK"]}) == []   # bottom cards count
    assert s.phase == "bury" and s.current_player() == 0
    assert play(s, 0, ["S2"]) == ["phase"]
    hand = [c for c in s.public_view(0)["hand"] if c != "S2"]
    assert s.judge({"seat": 0, "action": "bury", "cards": hand[:5]}) == []
    assert s.phase == "play" and sum(s.counts[0]) == 25
    assert [v.rule for v in s.judge({"seat": 0, "action": "bury", "cards": ["S2"]})] == ["phase"]
    assert s.public_view(0)["buried"][:3] == ["H5", "H5", "HK"] and "buried" not in s.public_view(1)
    assert s.verdict()["buried"] is None


def test_take_bottom_picks_up_the_bottom_and_ends_the_declaring():
    s = new(bottom=["H5", "H5", "HK", "C3", "C4", "D9", "D10", "S8"])
    assert {"seat": 0, "action": "take_bottom"} in s.legal_actions(0)
    assert not [a for a in s.legal_actions(1) if a["action"] == "take_bottom"]
    assert [v.rule for v in s.judge({"seat": 1, "action": "take_bottom"})] == ["turn"]
    assert "H5" not in s.public_view(0)["hand"]                     # the bottom is face down until then
    assert s.judge({"seat": 0, "action": "take_bottom"}) == []
    assert s.phase == "bury" and sum(s.counts[0]) == 33 and s.public_view(0)["hand"].count("H5") >= 2
    assert "H5" not in s.public_view(1).get("hand", [])                # the others still do not see it
    assert [v.rule for v in s.judge({"seat": 0, "action": "take_bottom"})] == ["phase"]
    assert not [a for a in s.legal_actions(0) if a["action"] in ("take_bottom", "declare")]
    assert s.judge({"seat": 0, "action": "bury", "cards": ["H5", "H5", "HK", "C3", "C4", "D9", "D10", "S8"]}) == []
    assert s.phase == "play" and sum(s.counts[0]) == 25


def test_legal_bury_actions_are_single_cards_of_the_hand_the_bottom_once_taken():
    s = new(bottom=["H5", "H5", "HK", "C3", "C4", "D9", "D10", "S8"])
    hand = set(s.public_view(0)["hand"])
    buries = [a for a in s.legal_actions(0) if a["action"] == "bury"]
    assert {a["cards"][0] for a in buries} == hand  # the bottom is face down: not offered (issue 31, leak 2)
    assert not [a for a in s.legal_actions(1) if a["action"] == "bury"]
    assert s.judge({"seat": 0, "action": "take_bottom"}) == []
    buries = [a for a in s.legal_actions(0) if a["action"] == "bury"]
    assert {a["cards"][0] for a in buries} == hand | {"H5", "HK", "C3", "C4", "D9", "D10", "S8"}


# ---------------------------------------------------------------- trump order and shapes
def test_trump_order_jokers_level_cards_trump_suit():
    t = Trumps(RANKS.index("2"), 0)   # spades, level 2
    o = t.order
    chain = ["RJ", "BJ", "S2", "H2", "SA", "SK", "S3"]
    assert all(t.eff[CODES[c]] == TRUMP for c in chain)
    assert [o[CODES[a]] > o[CODES[b]] for a, b in zip(chain, chain[1:], strict=False)] == [True] * 6
    assert o[CODES["H2"]] == o[CODES["C2"]] == o[CODES["D2"]]
    assert t.eff[CODES["HA"]] == 1 and o[CODES["HA"]] > o[CODES["H3"]]
    t5 = Trumps(RANKS.index("5"), 1)
    assert t5.order[CODES["S6"]] == t5.order[CODES["S4"]] + 1        # the level rank is skipped
    nt = Trumps(RANKS.index("2"), None)
    assert nt.order[CODES["RJ"]] > nt.order[CODES["BJ"]] > nt.order[CODES["S2"]] == nt.order[CODES["H2"]]
    assert nt.eff[CODES["SA"]] == 0


def shp(cards, t):
    return shape(tuple(CODES[c] for c in cards), t).kind


def test_shapes_pairs_and_tractors():
    t = Trumps(RANKS.index("2"), 0)
    assert shp(["H7"], t) == "single" and shp(["H7", "H7"], t) == "pair"
    assert shp(["H7", "H7", "H8", "H8"], t) == "tractor"
    assert shp(["H7", "H7", "H9", "H9"], t) == "other"
    assert shp(["H7", "H8"], t) == "other" and shp(["H7", "D7"], t) == "mixed"
    assert shp(["SA", "SA", "H2", "H2", "S2", "S2", "BJ", "BJ", "RJ", "RJ"], t) == "tractor"
    assert shp(["H2", "H2", "C2", "C2"], t) == "other"
    nt = Trumps(RANKS.index("2"), None)
    assert shp(["BJ", "BJ", "S2", "S2"], nt) == "tractor"            # the text's example
    t5 = Trumps(RANKS.index("5"), 1)
    assert shp(["S4", "S4", "S6", "S6"], t5) == "tractor"


# ---------------------------------------------------------------- leads and follows
def test_lead_must_be_single_pair_or_tractor():
    s = midgame({0: ["H7", "H8", "H9", "H9", "D3", "D4", "D4"]})
    assert play(s, 0, ["H7", "H8"]) == ["lead_combo"]
    assert play(s, 0, ["H9", "D4"]) == ["lead_combo"]
    assert play(s, 0, ["H9", "H9", "D4", "D4"]) == ["lead_combo"]
    assert play(s, 1, ["H9"]) == ["turn"]
    assert play(s, 0, ["HA"]) == ["not_in_hand"]
    assert play(s, 0, ["H9", "H9"]) == []


def test_follow_count_and_follow_suit():
    s = midgame({0: ["H7", "D9"], 1: ["H3", "D5", "D6"], 2: ["S4", "C4"], 3: ["HA", "H10"]})
    assert play(s, 0, ["H7"]) == []
    assert play(s, 1, ["D5", "D6"]) == ["follow_count"]
    assert play(s, 1, ["D5"]) == ["follow_suit"]
    assert play(s, 1, ["H3"]) == []
    assert play(s, 2, ["S4"]) == []              # void: trump in (毙)
    assert play(s, 3, ["HA"]) == []
    assert s.current_player() == 2 and s.tricks[-1].winner == 2


def test_short_suit_plays_all_of_it_then_anything():
    s = midgame({0: ["H7", "H7"], 1: ["H3", "D5", "D6"]})
    play(s, 0, ["H7", "H7"])
    assert play(s, 1, ["D5", "D6"]) == ["follow_suit"]
    assert play(s, 1, ["H3", "D6"]) == []


def test_pair_followed_with_a_pair_if_held():
    s = midgame({0: ["H7", "H7"], 1: ["H3", "H4", "H9", "H9"]})
    play(s, 0, ["H7", "H7"])
    assert play(s, 1, ["H3", "H4"]) == ["follow_structure"]
    assert play(s, 1, ["H9", "H9"]) == []
    s = midgame({0: ["H7", "H7"], 1: ["H3", "H4", "H9"]})
    play(s, 0, ["H7", "H7"])
    assert play(s, 1, ["H3", "H9"]) == []


def test_tractor_followed_with_a_tractor_then_pairs_then_singles():
    lead = ["H7", "H7", "H8", "H8"]
    s = midgame({0: lead, 1: ["H3", "H3", "H4", "H4", "HJ", "HJ", "HA"]})
    play(s, 0, lead)
    assert play(s, 1, ["H3", "H3", "HJ", "HJ"]) == ["follow_structure"]
    assert play(s, 1, ["H3", "H3", "H4", "H4"]) == []
    s = midgame({0: lead, 1: ["H3", "H3", "H5", "H5", "HA", "HK"]})
    play(s, 0, lead)
    assert play(s, 1, ["H3", "H3", "HA", "HK"]) == ["follow_structure"]
    assert play(s, 1, ["H3", "H3", "H5", "H5"]) == []
    s = midgame({0: lead, 1: ["H3", "H3", "H5", "HA", "HK"]})
    play(s, 0, lead)
    assert play(s, 1, ["H5", "HA", "HK", "H3"]) == ["follow_structure"]
    assert play(s, 1, ["H3", "H3", "HA", "HK"]) == []


def test_trump_in_and_over_trump_and_structure_to_win():
    s = midgame({0: ["H7", "H7"], 1: ["S3", "S4", "D3"], 2: ["S5", "S5", "D4"], 3: ["RJ", "RJ", "C3"]})
    play(s, 0, ["H7", "H7"])
    assert play(s, 1, ["S3", "S4"]) == []        # two trumps, not a pair: does not win
    assert s.trick.winner == 0
    assert play(s, 2, ["S5", "S5"]) == []        # a trump pair wins
    assert play(s, 3, ["RJ", "RJ"]) == []        # a higher trump pair wins (蓋斃)
    assert s.tricks[-1].winner == 3


def test_led_suit_higher_wins_discard_never_and_equal_keeps_first():
    s = midgame({0: ["H7"], 1: ["H7"], 2: ["DA"], 3: ["H9"]})
    for seat, card in [(0, "H7"), (1, "H7"), (2, "DA")]:
        play(s, seat, [card])
    assert s.trick.winner == 0
    play(s, 3, ["H9"])
    assert s.tricks[-1].winner == 3
    s = midgame({0: ["H2"], 1: ["C2"], 2: ["D3"], 3: ["D4"]}, trump="S", level="2")
    play(s, 0, ["H2"])
    play(s, 1, ["C2"])                            # equal off-suit level cards: the first keeps it
    assert s.trick.winner == 0


def test_tractor_beaten_only_by_a_tractor():
    s = midgame({0: ["H7", "H7", "H8", "H8"], 1: ["S3", "S3", "S5", "S5"], 2: ["S9", "S9", "S10", "S10"],
                 3: ["C3", "C4", "C5", "C6"]})
    play(s, 0, ["H7", "H7", "H8", "H8"])
    play(s, 1, ["S3", "S3", "S5", "S5"])
    assert s.trick.winner == 0
    play(s, 2, ["S9", "S9", "S10", "S10"])
    assert s.trick.winner == 2


# ---------------------------------------------------------------- points, 抠底, levels
def test_trick_points_go_to_the_attackers_only():
    s = midgame({0: ["H5", "DA"], 1: ["HK", "D3"], 2: ["H10", "D4"], 3: ["H3", "D6"]})
    for seat, card in [(0, "H5"), (1, "HK"), (2, "H10"), (3, "H3")]:
        play(s, seat, [card])
    assert s.trick_points == 25 and s.trick.leader == 1
    s = midgame({0: ["HA", "DA"], 1: ["HK", "D3"], 2: ["H10", "D4"], 3: ["H3", "D6"]})
    for seat, card in [(0, "HA"), (1, "HK"), (2, "H10"), (3, "H3")]:
        play(s, seat, [card])
    assert s.trick_points == 0


@pytest.mark.parametrize("lead,mult", [(["HA"], 2), (["HA", "HA"], 4), (["HK", "HK", "HA", "HA"], 4),
                                       (["HQ", "HQ", "HK", "HK", "HA", "HA"], 8)])
def test_kou_di_multiplies_the_bottom(lead, mult):
    n = len(lead)
    s = midgame({1: lead, 0: ["C3", "C4", "C6", "C7", "C8", "C9"][:n], 2: ["D3", "D4", "D6", "D7", "D8", "D9"][:n],
                 3: ["C3", "C4", "C6", "C7", "C8", "C9"][:n]}, leader=1)
    s.buried = [CODES[c] for c in ["D5", "D10", "DK", "C3", "C4", "C6", "C7", "C8"]]
    s.trick_points = 30
    assert play(s, 1, lead) == []
    for seat, hand in [(2, s.counts[2]), (3, s.counts[3]), (0, s.counts[0])]:
        assert play(s, seat, [NAMES[c] for c in range(54) for _ in range(hand[c])]) == []
    assert s.is_terminal()
    pts = sum({"K": 10}.get(c[-1], 0) for c in lead)
    assert s.bottom_multiplier == mult and s.attacker_points == 30 + pts + 25 * mult


def test_no_kou_di_when_the_dealer_side_wins_the_last_trick():
    s = midgame({0: ["HA"], 1: ["H3"], 2: ["H4"], 3: ["H6"]})
    s.buried = [CODES["D10"]]
    for seat, card in [(0, "HA"), (1, "H3"), (2, "H4"), (3, "H6")]:
        play(s, seat, [card])
    assert s.is_terminal() and s.bottom_multiplier == 0 and s.attacker_points == 0


@pytest.mark.parametrize("points,up,side,next_dealer", [(0, 3, 0, 2), (5, 2, 0, 0), (35, 2, 0, 0), (40, 1, 0, 0),
                                                        (75, 1, 0, 0), (80, 1, 1, 1), (115, 1, 1, 1),
                                                        (120, 2, 1, 1), (200, 2, 1, 1)])
def test_level_table(points, up, side, next_dealer):
    s = new()
    s.phase, s.attacker_points = "over", points
    change, winner = s.level_change()
    assert winner == side and max(change) == up
    assert s.returns() == ([up, 0, up, 0] if side == 0 else [0, up, 0, up])
    assert s.next_dealer() == next_dealer
    v = s.verdict()
    assert v["winners"] == ([[0, 2], [1, 3]][side]) and v["level_up"] == up and v["zero_sum"] is False


def test_next_dealer_settings():
    s = new(keep_dealer="partner", dealer=1)
    s.phase, s.attacker_points = "over", 50
    assert s.next_dealer() == 3
    s = new(daguang_partner_deals=False, dealer=1)
    s.phase, s.attacker_points = "over", 0
    assert s.next_dealer() == 1
    s = new(dealer=3)
    s.phase, s.attacker_points = "over", 100
    assert s.next_dealer() == 0


# ---------------------------------------------------------------- 甩牌
def test_throw_off_by_default_and_checked_when_on():
    hands = {0: ["HA", "HK", "HQ", "HQ"], 1: ["H3", "H4", "H5", "H6"], 2: ["H7", "H8", "H8", "H9"],
             3: ["S3", "S3", "C3", "C4"]}
    assert play(midgame(hands), 0, ["HA", "HK", "HQ", "HQ"]) == ["lead_combo"]
    s = midgame(hands, throw=True)
    assert play(s, 0, ["HA", "HK", "HQ", "HQ"]) == []
    play(s, 1, ["H3", "H4", "H5", "H6"])
    play(s, 2, ["H7", "H8", "H8", "H9"])
    assert s.trick.winner == 0
    play(s, 3, ["S3", "S3", "C3", "C4"])             # trumps but not the same shape
    assert s.tricks[-1].winner == 0
    hands[1] = ["H3", "H4", "H5", "HA"]
    hands[0] = ["HA", "HK", "HQ", "HQ"]
    s = midgame(hands, throw=True)
    s.counts[1][CODES["HA"]] = 1
    assert play(s, 0, ["HK", "HQ", "HQ"]) == ["throw"]


# ---------------------------------------------------------------- views, records
def test_public_view_never_shows_other_hands():
    rec = GAME.bot_hand(random.Random(4))
    s = GAME.new_state([parse_cards(h) for h in rec["hands"]], parse_cards(rec["bottom"]), GAME.settings())
    for ev in rec["events"][:len(rec["events"]) // 2]:
        s.apply(ev)
    public = set(NAMES[c] for t in s.tricks for c in t.cards()) | set(s.trick and NAMES[c] for c in s.trick.cards())
    public |= {c for d in s.declarations for c in d["cards"]} | set(NAMES[c] for c in s.flipped)
    for seat in [None, 0, 1, 2, 3]:
        text = json.dumps(s.public_view(seat))
        own = set(s.public_view(seat).get("hand", [])) | set(s.public_view(seat).get("buried", []))
        for other in range(4):
            for c in range(54):
                if s.counts[other][c] and NAMES[c] not in own | public:
                    assert f'"{NAMES[c]}"' not in text, (seat, NAMES[c])
        if seat != 0:
            assert "buried" not in s.public_view(seat)


def test_bad_deals_and_settings_are_record_errors():
    hands, bottom = deal({})
    with pytest.raises(RecordError):
        referee({"game": "shengji", "hands": hands, "bottom": bottom[:7]})
    for rules in ({"level": "1"}, {"dealer": 4}, {"joker_pair": "maybe"}):
        with pytest.raises(RecordError):
            referee({"game": "shengji", "rules": rules, "hands": hands, "bottom": bottom})
    v = referee({"game": "shengji", "hands": hands, "bottom": bottom,
                 "events": [{"seat": 0, "action": "dance"}, {"seat": 0, "action": "play", "cards": ["H3"]}]})
    assert [x["rule"] for x in v["violations"]] == ["phase", "phase"] and v["finished"] is False


def test_after_the_last_trick_everything_is_finished():
    record = GAME.bot_hand(random.Random(9))
    s = _replay(record)
    for ev in record["events"]:
        assert s.judge(ev) == []
    assert s.is_terminal() and s.current_player() is None and s.legal_actions(0) == []
    assert [v.rule for v in s.judge(record["events"][-1])] == ["finished"]
    assert s.verdict()["buried"] == record["events"][[e["action"] for e in record["events"]].index("bury")]["cards"]


def test_malformed_events():
    s = new()
    assert [v.rule for v in s.judge({"seat": 7, "action": "declare", "cards": ["S2"]})] == ["malformed"]
    assert declare(s, 0, []) == ["malformed"]
    s = midgame({0: ["H3"]})
    assert play(s, 0, ["H33"]) == ["malformed"]


# ---------------------------------------------------------------- properties and self-play
def _replay(record):
    sets = GAME.settings(record.get("preset"), record.get("rules"))
    return GAME.new_state([parse_cards(h) for h in record["hands"]], parse_cards(record["bottom"]), sets)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), bot=st.sampled_from(["random", "greedy"]),
       level=st.sampled_from(RANKS), dealer=st.integers(0, 3))
def test_properties_conservation_legal_action_referee(seed, bot, level, dealer):
    sets = GAME.settings(None, {"level": level, "dealer": dealer})
    record = GAME.bot_hand(random.Random(seed), bot=bot, settings=sets)
    s = _replay(record)
    for ev in record["events"]:
        if ev["action"] == "play":
            assert any(a["action"] == "play" for a in s.legal_actions(s.current_player()))
        assert s.judge(ev) == []
        held = sum(sum(c) for c in s.counts) + len(s.buried) + sum(len(t.cards()) for t in s.tricks)
        held += 0 if s.is_terminal() else len(s.trick.cards())
        held += 8 if s.phase == "deal" else 0
        assert held == 108
    assert s.is_terminal()
    seen = Counter(c for t in s.tricks for c in t.cards()) + Counter(s.buried)
    assert seen == Counter(CODES[c] for c in DECK)
    v = s.verdict()
    defenders = sum(POINTS[c] for t in s.tricks if t.winner not in s.attackers for c in t.cards())
    assert v["trick_points"] + defenders + v["bottom_points"] == 200          # points are conserved
    assert v["attacker_points"] == v["trick_points"] + v["bottom_points"] * v["bottom_multiplier"]
    assert referee(record)["violations"] == []


def test_random_legal_actions_are_always_accepted():
    rng = random.Random(7)
    for _ in range(8):
        hands, bottom = deal({})
        cards = [c for h in hands for c in h] + bottom
        rng.shuffle(cards)
        s = GAME.new_state([parse_cards(cards[i * 25:(i + 1) * 25]) for i in range(4)], parse_cards(cards[100:]),
                           GAME.settings(None, {"throw": True}))
        while not s.is_terminal():
            seat = s.current_player()
            actions = s.legal_actions(seat)
            assert actions
            assert s.judge(rng.choice(actions)) == []


def test_selfplay_thousand_hands_zero_violations():
    rng = random.Random(2026)
    kinds = Counter()
    for i in range(1000):
        record = GAME.bot_hand(rng, bot="greedy" if i % 2 else "random")
        verdict = referee(record)
        assert verdict["violations"] == [] and verdict["finished"]
        assert verdict["attacker_points"] == record["attacker_points"]
        kinds[verdict["trump_from"]] += 1
        kinds[len(verdict["declarations"]) > 1] += 1
    assert kinds["declared"] and kinds["bottom"] and kinds[True]


def test_cli_referee_and_selfplay(tmp_path):
    runner = CliRunner()
    out = tmp_path / "games"
    result = runner.invoke(app, ["selfplay", "--game", "shengji", "-n", "5", "--seed", "3", "--out", str(out)])
    assert result.exit_code == 0, result.output
    files = sorted(out.glob("*.json"))
    assert len(files) == 5
    dealers = [json.loads(f.read_text())["rules"].get("dealer", 0) for f in files]
    nexts = [json.loads(f.read_text())["next_first_seat"] for f in files]
    assert dealers[1:] == nexts[:-1]                   # the next dealer deals the next hand
    result = runner.invoke(app, ["referee", str(files[-1])])
    assert result.exit_code == 0
    verdict = json.loads(result.output)
    assert verdict["game"] == "shengji" and verdict["finished"] and verdict["violations"] == []
    assert len(verdict["scores"]) == 4 and isinstance(verdict["attacker_points"], int)


def test_listed_plays_and_judged_plays_agree():
    """Where the list is complete (under the cap), a play is accepted exactly when it is listed."""
    import copy

    from engine.shengji import OPTION_CAP

    rng = random.Random(12)
    checked = 0
    for _ in range(3):
        record = GAME.bot_hand(rng, bot="random")
        s = _replay(record)
        for ev in record["events"]:
            seat = ev["seat"]
            if ev["action"] == "play":
                listed = {tuple(sorted(a["cards"])) for a in s.legal_actions(seat)}
                if len(listed) < OPTION_CAP:
                    hand = s.public_view(seat)["hand"]
                    size = len(s.trick.lead) if s.trick.plays else rng.choice([1, 2, 4])
                    for _ in range(4):
                        if len(hand) < size:
                            break
                        cand = sorted(rng.sample(hand, size))
                        ok = copy.deepcopy(s).judge({"seat": seat, "action": "play", "cards": cand}) == []
                        assert ok == (tuple(cand) in listed), (cand, sorted(listed))
                        checked += 1
            s.apply(ev)
    assert checked > 300
