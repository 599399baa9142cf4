"""红桃四 public views and legal actions at each phase: what a seat, or anyone, may see and do."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st_

from engine.cards import parse_cards
from engine.hongsi.examples import SUITED, accept, call, pa, pass_, play, tiao
from engine.hongsi.game import HongsiGame
from engine.hongsi.state import HongsiState


def state_after(events, hands=SUITED, **rules):
    st = HongsiState([parse_cards(h) for h in hands], HongsiGame().settings(None, rules))
    for e in events:
        assert [v for v in st.judge(e) if v.severity == "error"] == [], e
    return st


def kinds(actions):
    return sorted({a["action"] for a in actions})


def test_legal_actions_by_phase():
    st = state_after([])
    assert st.current_player() == 0
    assert kinds(st.legal_actions(0)) == ["baomen", "call", "tiao"]
    assert len([a for a in st.legal_actions(0) if a["action"] == "call"]) == 27  # 4..10 ×4 suits, not ♥4
    assert st.legal_actions(2) == [{"seat": 2, "action": "tiao"}]
    st = state_after([call(0, "S10")])
    assert kinds(st.legal_actions(0)) == ["pa", "play"]
    assert [a["target"] for a in st.legal_actions(1) if a["action"] == "pa"] == [0]
    assert [a["target"] for a in st.legal_actions(2) if a["action"] == "pa"] == [3]
    st = state_after([call(0, "S10"), pa(1, 0)])
    assert kinds(st.legal_actions(0)) == ["pa", "pa_accept", "pa_refuse", "play"]
    st = state_after([call(0, "S10"), play(0, "H4")])
    assert st.current_player() == 1
    assert kinds(st.legal_actions(1)) == ["pass", "play"] and st.legal_actions(2) == []
    plays = [a["cards"] for a in st.legal_actions(1) if a["action"] == "play"]
    assert plays == [[f"S{r}"] for r in ("5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "3")]


def test_announcement_is_the_only_legal_action_while_due():
    straight = ["H4", "H5", "H6", "H7", "H8", "H9", "H10", "HJ", "HQ", "HK"]
    st = state_after([call(0, "S10"), play(0, *straight)])
    assert st.current_player() == 0
    assert st.legal_actions(0) == [{"seat": 0, "action": "announce", "count": 3}]
    assert st.legal_actions(1) == []
    assert st.public_view(None)["announce_due"] == {"seat": 0, "count": 3}


def test_partner_stays_secret_until_the_called_card_is_played():
    st = state_after([call(0, "S10"), play(0, "H4")])
    for seat in (None, 2, 3):
        view = st.public_view(seat)
        assert view["called"] == "S10" and view["partner"] is None and view["mode"] is None
    caller = st.public_view(0)  # the caller knows it is 2 vs 2, not who holds the card it called
    assert caller["partner"] is None and caller["mode"] == "normal"
    assert st.public_view(1)["partner"] == 1 and st.public_view(1)["mode"] == "normal"  # the holder knows
    st.judge(play(1, "S10"))
    view = st.public_view(None)
    assert view["partner"] == 1 and view["mode"] == "normal"
    assert view["trick"]["cards"] == ["S10"] and view["trick"]["seat"] == 1


def test_anjiao_is_secret_to_the_others_until_exposed():
    st = state_after([call(0, "H10")])
    assert st.public_view(2)["mode"] is None and st.public_view(0)["mode"] == "anjiao"
    st = state_after([call(0, "H10"), pa(2, 3), accept(3)])
    assert st.public_view(None)["mode"] == "anjiao" and st.public_view(None)["exposed"] is True


def test_view_shape_and_own_hand_only():
    st = state_after([tiao(1), play(0, "H4"), pass_(1)])
    view = st.public_view(3)
    assert view["phase"] == "play" and view["mode"] == "dantiao" and view["tiao"] == [1]
    assert view["counts"] == [12, 13, 13, 13] and view["hand"] == SUITED[3]
    assert view["to_act"] == 2 and view["turn"] == 2
    assert [e["action"] for e in view["events"]] == ["tiao", "play", "pass"]
    assert "hand" not in st.public_view(None)
    text = str(st.public_view(3))
    assert not any(f"'{c}'" in text for c in SUITED[1] + SUITED[2])  # nobody else's cards


def _offered_pa(state, seat):
    return sorted(a["target"] for a in state.offered_actions(seat) if a["action"] == "pa")


def _what_seat_sees(state, seat):
    view = state.public_view(seat)
    return _offered_pa(state, seat), view["mode"], view["partner"], kinds(state.offered_actions(seat))


@settings(max_examples=150, deadline=None)
@given(st_.integers(0, 2**32 - 1), st_.data())
def test_what_a_seat_is_offered_never_tells_it_who_holds_the_called_card(seed, data):
    """Move the called card between two seats the asking seat cannot tell apart (neither itself nor the
    caller): everything that seat is offered and shown stays the same. (The QA found the 请趴 menu listed
    only the true teammate, naming the secret partner.)"""
    deck = [s + r for s in "HSDC" for r in ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "3")]
    random.Random(seed).shuffle(deck)
    hands = [deck[i * 13:(i + 1) * 13] for i in range(4)]
    h4 = next(s for s, h in enumerate(hands) if "H4" in h)
    seat = data.draw(st_.integers(0, 3), label="seat")
    others = [s for s in range(4) if s not in (seat, h4)]
    a, b = others[0], others[-1]
    card = data.draw(st_.sampled_from([c for c in hands[a] if c[1:] in ("4", "5", "6", "7", "8", "9", "10")
                                       and c != "H4"] or ["none"]), label="called")
    if card == "none":
        return
    swapped = [list(h) for h in hands]
    give = next(c for c in swapped[b] if c != "H4")
    swapped[a][swapped[a].index(card)], swapped[b][swapped[b].index(give)] = give, card
    seen = []
    for deal in (hands, swapped):
        state = state_after([call(h4, card)], hands=deal)
        seen.append(_what_seat_sees(state, seat))
    assert seen[0] == seen[1]
    assert seat == h4 or seen[0][0]  # a seat that may ask is offered someone


def test_pa_candidates_in_anjiao_and_once_the_sides_are_known():
    st = state_after([call(0, "H10")])  # 暗叫: the caller knows it plays alone; the others do not know it
    assert _offered_pa(st, 0) == [] and _offered_pa(st, 2) == [1, 3]
    st = state_after([call(0, "S10"), pa(1, 0), accept(0)])  # the sides are public: no one else asks seat 0
    assert _offered_pa(st, 2) == [3] and _offered_pa(st, 1) == []
    assert st.legal_actions(2) == [a for a in st.offered_actions(2)]  # known sides: offered = legal
