"""Issue 31, finding 6, in Debian's chromium: a seat page adds its random share to the next deal's seed
on its own, and again to the deal after each new round."""

from __future__ import annotations

import os

import httpx
import pytest
from svc_helpers import LiveServer, wait_for

from controller.service.app import create_app
from controller.service.deal import SoftwareDealSource
from controller.service.table import TableService

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian chromium is not installed")]


def test_the_seat_page_contributes_to_every_next_deal(tmp_path):
    from playwright.sync_api import sync_playwright

    svc = TableService(tmp_path / "data", SoftwareDealSource(card_delay=0.0, seed=4), bot_delay=0.0, seed=2)
    srv = LiveServer(create_app(svc), svc).start()
    try:
        token = svc.tokens.new_seat_token(2)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(srv.url + f"/seat#t={token}")
            first = wait_for(lambda: (n := httpx.get(srv.url + "/api/deal/next").json())["contributed"] == [2] and n)
            op = {"Authorization": f"Bearer {svc.tokens.operator_token()}"}
            httpx.post(srv.url + "/api/rounds", json={"game": "hongsi", "bots": "all"}, headers=op)
            second = wait_for(lambda: (n := httpx.get(srv.url + "/api/deal/next").json())["contributed"] == [2] and n)
            assert second["commitment"] != first["commitment"] and not errors
            browser.close()
    finally:
        srv.stop()
        svc.close()
