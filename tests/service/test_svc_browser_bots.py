"""The bot bits of the pages in Debian's chromium: the operator picks the empty seats' bot style (its line
in Chinese and English), and a seat that ticks the beginner's hint sees one short line of what the bot
would play; a seat that did not tick it sees none."""

from __future__ import annotations

import os

import pytest
from svc_helpers import LiveServer, wait_for

from controller.service import bots
from controller.service.app import create_app
from controller.service.deal import SoftwareDealSource
from controller.service.table import TableService
from controller.text import BOT_STYLES

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian chromium is not installed")]


@pytest.fixture
def srv(tmp_path, monkeypatch):
    monkeypatch.setattr(bots.SETTINGS, "bot", "greedy")
    monkeypatch.setattr(bots.SETTINGS, "budget_ms", 25.0)
    svc = TableService(tmp_path / "data", SoftwareDealSource(card_delay=0.0, seed=4), bot_delay=0.05, seed=2,
                       declare_window=60.0)
    s = LiveServer(create_app(svc), svc).start()
    yield s
    s.stop()
    svc.close()


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def test_the_operator_picks_the_bot_style_and_a_seat_its_hint(browser, srv):
    svc = srv.svc
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(srv.url + f"/operator#t={svc.tokens.operator_token()}")
    page.wait_for_function("document.querySelectorAll('#bot-style option').length === 3")
    assert page.input_value("#bot-style") == "greedy"
    page.select_option("#bot-style", "bold")
    wait_for(lambda: bots.SETTINGS.bot == "bold")
    # the line is redrawn once the PUT's answer reaches the page, a moment after the service changed
    page.wait_for_function("t => document.getElementById('bot-style-text').innerText.includes(t)",
                           arg=BOT_STYLES["bold"][0])
    line = page.inner_text("#bot-style-text")
    assert BOT_STYLES["bold"][0] in line and BOT_STYLES["bold"][1] in line
    page.fill("#bot-ms", "30")
    page.dispatch_event("#bot-ms", "change")
    wait_for(lambda: bots.SETTINGS.budget_ms == 30.0)

    mine, other = svc.tokens.new_seat_token(0), svc.tokens.new_seat_token(1)
    # the talker's declaring window stays open while the page loads (CI once saw it close first on a loaded
    # machine: the seat then had nothing to do, and no hint to show)
    window, svc.declare_window = svc.declare_window, 600.0
    try:
        _hint_shown(browser, srv, mine, other, errors)
    finally:
        svc.declare_window = window


def _hint_shown(browser, srv, mine: str, other: str, errors: list[str]) -> None:
    svc = srv.svc
    rnd = svc.start_round(game="hongsi", first_seat=0, bots=[2, 3])  # the bots wait for seats 0 and 1
    wait_for(lambda: rnd.phase == "playing")
    with rnd.lock:
        talker = next(s for s in (0, 1) if rnd.state.legal_actions(s))  # the ♥4 holder, or a seat that may 挑
    seat_page = browser.new_page()
    seat_page.on("pageerror", lambda exc: errors.append(str(exc)))
    seat_page.goto(srv.url + f"/seat#t={mine if talker == 0 else other}")
    seat_page.wait_for_function("document.getElementById('hand').children.length > 0")
    seat_page.wait_for_timeout(400)
    assert not seat_page.is_visible("#bot-hint")  # off until the seat turns it on
    seat_page.check("#hint-on")
    seat_page.wait_for_function("!document.getElementById('bot-hint').classList.contains('hidden')")
    text = seat_page.inner_text("#bot-hint").strip()
    hint = svc.hint(rnd.id, talker)  # what the service worked out for that seat, shown as it is
    assert "\n" not in text and hint["text_zh"] in text and hint["text"] in text
    assert talker in svc.hints and (1 - talker) not in svc.hints
    assert not errors, errors
