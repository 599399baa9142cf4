"""The room page in Debian's chromium (Playwright, no browser download): staff log in, see each table's
live state, an e-stop and a forged receipt loud, the ledger plot, and a past hand from the archive."""

from __future__ import annotations

import os

import pytest
from club_helpers import LivePage, SoftTable, club_for, wait_for

from controller.club.messages import Receipt

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]
LIVE_MS = 20_000  # a live MQTT event reaches the page in well under 1 s idle; CI's two busy cores took over 5 s
pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian chromium is not installed")]


def test_the_room_page_shows_tables_faults_ledgers_and_a_past_hand(tmp_path, broker, dsn):
    from playwright.sync_api import expect, sync_playwright

    club = club_for(dsn, broker)
    page_srv = LivePage(club, dsn).start()
    t1 = SoftTable(tmp_path, broker, "t1").start()
    t2 = SoftTable(tmp_path, broker, "t2").start()
    try:
        t1.hand(scores=(3, -1, -1, -1))
        t2.hand(scores=(-2, 2, 0, 0))
        wait_for(lambda: len(t1.pub.outbox) == 0 and len(t2.pub.outbox) == 0, why="both hands acknowledged")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page()
            page.goto(page_srv.url + "/")
            page.fill("#name", "staff")
            page.fill("#password", "staff password")
            page.click("#login button")
            card1, card2 = page.locator('.table[data-table="t1"]'), page.locator('.table[data-table="t2"]')
            expect(card1).to_contain_text("finished")
            expect(card2).not_to_have_class("table alarm")
            t1.pub.event({"type": "estop", "round": 2, "reason": "operator"})      # live, over MQTT
            t2.pub._queue("receipt", {**Receipt(1, 50, "reveal", "a" * 64).to_body(),
                                      "signature": "00" * 64, "public_key": "11" * 32})
            expect(card1).to_contain_text("E-STOP", timeout=LIVE_MS)
            expect(card1).to_have_class("table alarm", timeout=LIVE_MS)
            expect(card2).to_contain_text("bad signature", timeout=LIVE_MS)
            expect(card2).to_have_class("table alarm", timeout=LIVE_MS)
            expect(page.locator("#ledger")).to_contain_text("t1 seat 0")
            assert page.evaluate("document.getElementById('plot').naturalWidth") > 0 or \
                wait_for(lambda: page.evaluate("document.getElementById('plot').naturalWidth") > 0, why="the plot")
            page.fill("#past-table", "t1")
            page.fill("#past-round", "1")
            page.click("#past button")
            expect(page.locator("#past-out")).to_contain_text("round_end")
            expect(page.locator("#past-out")).to_contain_text("matches")
            browser.close()
    finally:
        t1.close()
        t2.close()
        page_srv.stop()
        club.close()
