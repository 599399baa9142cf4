"""What the pages are given to show, without a browser: the game panel comes from the fields of each
game's public view (so no page names a game), a seat being dealt is never "low on cards", and a refusal
reads as people say it ("not your turn", ♠4 ♠3)."""

from __future__ import annotations

import re
from pathlib import Path

from svc_helpers import wait_for

from controller.service.deal import SoftwareDealSource
from controller.service.table import TableService
from controller.text import refusal_words
from engine.game import violation
from engine.registry import game_names

STATIC = Path(__file__).resolve().parents[2] / "controller" / "service" / "static"


def test_no_page_names_a_game():
    for js in STATIC.glob("*.js"):
        text = js.read_text(encoding="utf-8")
        for name in game_names():  # as a string or a key (``hongsi`` is the project's name too)
            assert not re.search(rf"[\"'`]{name}[\"'`]|\b{name}\s*:|\.{name}\b", text), (js.name, name)


def test_the_game_panel_comes_from_the_view_in_every_game(service):
    seen = {}
    for game in game_names():
        rnd = service.start_round(game=game, bots=[])
        wait_for(lambda rnd=rnd: rnd.phase == "playing")
        pub = rnd.public()
        labels = [r["en"] for r in pub["panel"]]
        assert all(set(r) == {"zh", "en", "kind", "value"} and re.search(r"[\u4e00-\u9fff]", r["zh"])
                   for r in pub["panel"]), pub["panel"]
        seen[game] = labels
    assert seen["hongsi"] == []  # 红桃四's table is its own: the 记牌器 and the badges
    assert {"level", "trump", "dealer", "attackers' points"} <= set(seen["shengji"])
    assert {"digger", "bid", "multiplier", "bottom"} <= set(seen["wakeng"])
    assert {"red aces", "counter", "multiplier"} <= set(seen["zhuohonga"])
    assert "exposed" in seen["gongzhu"] and "Seat 1 took" in seen["gongzhu"]


def test_a_seat_being_dealt_is_not_low_after_an_estop(tmp_path):
    svc = TableService(tmp_path, SoftwareDealSource(card_delay=0.01, seed=1), bot_delay=0)
    try:
        rnd = svc.start_round(bots=[])
        wait_for(lambda: rnd.dealt >= 6)
        svc.estop()
        wait_for(lambda: rnd.phase == "interrupted")
        pub = rnd.public()
        assert 0 < rnd.dealt < 52 and any(0 < n <= rnd.announce_at() for n in pub["dealt_per_seat"])
        assert pub["low"] == []  # a seat with 1 or 2 cards so far is being dealt, not nearly out
    finally:
        svc.close()


def test_refusals_in_peoples_words():
    phase = violation("phase", "the ♥4 holder must call a card before play starts", "红桃四须先叫牌，才能出牌")
    en, zh = refusal_words(phase, {"seat": 2, "action": "play", "cards": ["S4"]}, turn=0)
    assert en == "Not Seat 3's turn: Seat 1 is to act." and "还没轮到三号位" in zh
    # the ♥4 holder itself is told to call
    assert refusal_words(phase, {"seat": 0, "action": "play", "cards": ["S4"]}, turn=0)[0] == phase.message
    combo = violation("combo", "S4 S3 is not a combination", "S4 S3 不是合法牌型")
    en, zh = refusal_words(combo, {"seat": 0, "action": "play", "cards": ["S4", "S3"]}, turn=0)
    assert en == "♠4 ♠3 is not a combination." and zh == "♠4 ♠3 不是合法牌型"
    assert refusal_words(combo, {"seat": 0, "action": "play", "cards": ["X9"]}, turn=0)[0] == combo.message


def test_the_voice_says_the_first_players_name(service):
    """A named seat is called by its player's name when the voice tells the table who plays first."""
    for seat, name in enumerate(["小李", "老王", "Anna", "阿强"]):
        service.set_seat_name(seat, name)
    rnd = service.start_round(game="hongsi", first_seat=0, bots="all")
    wait_for(lambda: rnd.first_player is not None and any("先出" in e["text_zh"] for e in service.voice.said))
    first = next(e for e in service.voice.said if "先出" in e["text_zh"])
    name = ["小李", "老王", "Anna", "阿强"][rnd.first_player]
    assert first["text_zh"].startswith(f"{name}，") and name in first["text"]


def test_the_count_announcement_term_says_when_the_referee_wants_it():
    """The rules panel told players to announce at one or two cards; rule 8 (and the table) does at three."""
    from controller.text import GAME_TERMS
    from engine.hongsi.settings import HongsiSettings

    at = HongsiSettings().count_announce_at
    _, zh, en = next(t for t in GAME_TERMS["hongsi"] if t[0] == "报牌")
    assert "一二三四五"[at - 1] in zh and ["one", "two", "three", "four", "five"][at - 1] in en
    assert "一两张" not in zh and "one or two" not in en
