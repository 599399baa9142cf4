"""The beginner's hint (issue 34, item 4) is worked out from the seat's information set only: on two deals
the seat cannot tell apart it is the same, word for word, in English and Chinese."""

from __future__ import annotations

import random

import pytest
from test_bots_infoset import twin

from controller.service.bots import plan_hint
from engine.registry import get_game


@pytest.mark.parametrize("name", ["hongsi", "gongzhu", "wakeng"])
def test_the_hint_is_the_same_whatever_the_hands_it_cannot_see(name: str) -> None:
    game = get_game(name)
    rules = game.settings()
    rng = random.Random(4)
    tested = 0
    for hand in range(4):
        record = game.bot_hand(random.Random(200 + hand), bot="greedy", settings=rules)
        n = len(record["events"])
        for cut in (n // 4, n // 2):
            pair = twin(game, rules, record, cut, rng)
            if pair is None:
                continue
            real, other, seat = pair
            assert [real.public_view(s).get("hand") for s in range(len(record["hands"]))] != [
                other.public_view(s).get("hand") for s in range(len(record["hands"]))
            ]
            a = plan_hint(game, real, seat, random.Random(11), budget_ms=60_000, samples=3)()
            b = plan_hint(game, other, seat, random.Random(11), budget_ms=60_000, samples=3)()
            assert a == b
            assert a["action"] in real.offered_actions(seat) or len(real.offered_actions(seat)) == 0
            assert a["text"] and a["text_zh"] and a["text"] != a["text_zh"]
            tested += 1
        if tested >= 2:
            break
    assert tested >= 1
