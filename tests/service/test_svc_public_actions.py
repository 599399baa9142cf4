"""The table's view of a round hides what the engine hides, event by event (issue 31, leak 1): a hidden
expose (暗卖) of ♥A stays hidden when the other ♥A of two decks is exposed openly, whatever the names."""

from __future__ import annotations

import random

from controller.service.rounds import Round
from engine.cards import parse_cards
from engine.game import HIDDEN
from engine.registry import get_game


def two_deck_round() -> Round:
    game = get_game("gongzhu")
    settings = game.settings("shuangzhu", {"anmai": True})
    deck = [str(c) for c in game.deal_plan(settings).deck.cards()]
    deck.remove("HA")
    deck.remove("HA")
    random.Random(3).shuffle(deck)
    hands = [["HA"] + deck[:25], ["HA"] + deck[25:50], deck[50:76], deck[76:102]]
    rnd = Round(1, game, settings, first_seat=0, fair_deal=False, bots=set(), preset="shuangzhu",
                rules={"anmai": True})
    rnd.start_play([parse_cards(h) for h in hands], [], None, {})
    return rnd


def test_a_hidden_expose_stays_hidden_when_the_twin_is_exposed_openly() -> None:
    rnd = two_deck_round()
    assert rnd.judge({"seat": 0, "action": "expose", "cards": ["HA"], "hidden": True})[2]
    assert rnd.judge({"seat": 1, "action": "expose", "cards": ["HA"]})[2]
    actions = rnd.public()["actions"]
    assert actions[0]["cards"] == [HIDDEN] and actions[0]["hidden"] is True
    assert actions[1]["cards"] == ["HA"]
    assert [rnd.public_action(i)["cards"] for i in (0, 1)] == [[HIDDEN], ["HA"]]
