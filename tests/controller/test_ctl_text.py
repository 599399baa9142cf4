"""People's words for the referee's reasons come from each violation's code and params (controller.text):
seats from 1, cards as ♠A; the record keeps the engine's words."""

from __future__ import annotations

import pytest

from controller.text import VIOLATION_WORDS, people_words, violation_for_people
from engine.cards import parse_cards
from engine.registry import get_game

HANDS = [["H4", "S5", "S6"], ["C2", "D9", "SA"], ["H5", "C7", "D4"], ["S9", "CK", "HQ"]]


def hongsi_state():
    game = get_game("hongsi")
    deck = [str(c) for c in game.deal_plan(game.settings()).deck.cards()]
    hands = [deck[i::4] for i in range(4)]
    return game.new_state([parse_cards(h) for h in hands], [], game.settings()), hands


def test_a_turn_refusal_names_seats_from_one_and_the_record_keeps_the_engines_words() -> None:
    state, hands = hongsi_state()
    h4 = next(s for s, h in enumerate(hands) if "H4" in h)
    other = (h4 + 1) % 4
    call = next(c for c in hands[other] if c[1:] in ("5", "6", "7", "8", "9", "10"))
    assert state.judge({"seat": h4, "action": "call", "card": call}) == []
    [v] = [v for v in state.judge({"seat": other, "action": "play", "cards": [hands[other][0]]})
           if v.severity == "error"]
    assert v.code == "not_your_turn" and v.params == {"seat": other, "due": h4}
    en, zh = people_words(v)
    assert f"Seat {other + 1}" in en and f"Seat {h4 + 1}" in en
    assert f"{'一二三四'[h4]}号位" in zh
    out = violation_for_people(v)
    assert (out["rule"], out["message"]) == ("turn", en)
    assert f"seat {h4}" in v.to_json()["message"]  # the record's words: seats from 0


def test_a_refused_call_names_the_card_as_people_write_it() -> None:
    state, hands = hongsi_state()
    h4 = next(s for s, h in enumerate(hands) if "H4" in h)
    [v] = state.judge({"seat": h4, "action": "call", "card": "SA"})
    assert v.code == "call_card"
    en, zh = people_words(v)
    assert "♠A" in en and "'SA'" not in en and "♠A" in zh


@pytest.mark.parametrize("code", sorted(VIOLATION_WORDS))
def test_every_code_renders_both_languages_with_seats_from_one(code: str) -> None:
    params = {"seat": 0, "due": 1, "target": 2, "cards": ["SA", "H10"], "card": "DQ", "count": 2, "left": 1,
              "held": 1, "dealt": 30, "suit": "C"}
    en, zh = VIOLATION_WORDS[code](params)
    assert en and zh and "Seat 0" not in en and "零号" not in zh
    assert "Seat 1" in en or "SA" not in en  # a seat, when named, is numbered from 1
