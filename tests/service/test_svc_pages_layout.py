"""The display at the sizes it is used at, in Debian's chromium: a big screen (1920×1080), a laptop
(1280×800) and a phone (390×844). A long trick (11 lines and more) and the headline stay in the middle
of the table, never over a seat; a 3-seat hand after a 4-seat one drops the fourth seat without a
reload, and its seats sit inside the rim; the journal's receipt is shown, short form and QR code. The
seat page before a deal offers nothing to press, and after one says who plays first and shows the
receipt. Every seat is a person: the test acts for them through the service."""

from __future__ import annotations

import os
import re

import httpx
import pytest
from svc_helpers import wait_for
from test_svc_browser import CHROMIUM, browser  # noqa: F401 (the module's Chromium fixture)
from test_svc_pages_table import _act, _deal, _display, _legal

from controller.service.table import TableService

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian chromium is not installed")]

SIZES = [(1920, 1080), (1280, 800), (390, 844)]
LOW_TO_HIGH = ["4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "3"]


def _long_trick(svc: TableService, rnd, lines: int = 11) -> None:
    """Play singles, each seat the lowest that beats the last, until the trick has ``lines`` lines."""
    for _ in range(120):
        if len(rnd.public_trick()) >= lines or rnd.phase != "playing":
            return
        seat = rnd.turn()
        legal = _legal(rnd, seat)
        call = next((a for a in legal if a["action"] == "call"), None)
        singles = [a for a in legal if a["action"] == "play" and len(a["cards"]) == 1]
        pick = call or (min(singles, key=lambda a: LOW_TO_HIGH.index(a["cards"][0][1:])) if singles else None)
        pick = pick or next((a for a in legal if a["action"] == "pass"), None) or next(
            a for a in legal if a["action"] in ("play", "announce"))
        _act(svc, rnd, pick)


def _overlap(a: dict, b: dict) -> bool:
    return not (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])


def _inside(a: dict, b: dict, slack: float = 1.0) -> bool:
    return (a["x"] >= b["x"] - slack and a["y"] >= b["y"] - slack and a["x"] + a["width"] <= b["x"] + b["width"] + slack
            and a["y"] + a["height"] <= b["y"] + b["height"] + slack)


def _check_layout(page, seats: int, size) -> None:
    seat_boxes = [page.locator(f"#seat-{s}").bounding_box() for s in range(seats)]
    centre = page.locator(".centre").bounding_box()
    table = page.locator("#table").bounding_box()
    rim = page.eval_on_selector("#table", "el => parseFloat(getComputedStyle(el).borderTopWidth)")
    felt = {"x": table["x"] + rim, "y": table["y"] + rim, "width": table["width"] - 2 * rim,
            "height": table["height"] - 2 * rim}
    for s, box in enumerate(seat_boxes):
        assert not _overlap(box, centre), (size, s, box, centre)  # the middle never covers a seat
        assert _inside(box, felt), (size, s, box, felt)  # on the felt, not over the rim
        for t in range(s + 1, seats):
            assert not _overlap(box, seat_boxes[t]), (size, s, t)
    assert page.eval_on_selector(".centre", "el => getComputedStyle(el).overflow") == "hidden"
    # what the middle shows is whole and inside it: the headline and the trick's latest line
    for sel in ("#first-player:not(.hidden)", "#trick > div:last-child"):
        if page.locator(sel).count():
            assert _inside(page.locator(sel).bounding_box(), centre), (size, sel)


def test_display_keeps_the_middle_off_the_seats_at_every_size(browser, live):  # noqa: F811
    svc = live.svc
    for _ in range(6):  # a deal whose first tricks all end short (about 1 in 6) is dealt again
        rnd = _deal(live.url, svc)
        for s in range(4):  # nobody declares: play begins
            svc.ready(rnd.id, s)
        _long_trick(svc, rnd)
        if len(rnd.public_trick()) >= 11:
            break
    assert len(rnd.public_trick()) >= 11
    page, problems = _display(browser, live.url)
    page.wait_for_function("document.querySelectorAll('#trick > div').length >= 11")
    for w, h in SIZES:
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(50)
        _check_layout(page, 4, (w, h))
    # the deal's receipt: its short form, as the journal has it, and a QR code that loads
    page.wait_for_selector("#receipt-panel:not(.hidden)")
    receipt = svc.journal.receipt(rnd.id)
    assert page.inner_text(".receipt-short") == receipt["short"]
    assert page.eval_on_selector(".receipt-qr", "img => img.complete && img.naturalWidth > 0")
    # a 3-seat game now: the fourth seat goes without a reload, the others keep inside the rim
    op = {"Authorization": f"Bearer {svc.tokens.operator_token()}"}
    r = httpx.post(live.url + "/api/rounds", json={"game": "wakeng", "first_seat": 0, "bots": []}, headers=op)
    assert r.status_code == 200, r.text
    page.wait_for_function(f"document.getElementById('round-label').textContent.startsWith('#{r.json()['id']}')")
    page.wait_for_selector("#seat-2")
    assert page.locator("#seat-3").count() == 0 and "♥4" not in page.inner_text("#table")
    for w, h in SIZES:
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(50)
        _check_layout(page, 3, (w, h))
    assert not problems, problems
    page.close()


def test_seat_page_before_and_after_a_deal(browser, live):  # noqa: F811
    svc = live.svc
    token = svc.tokens.new_seat_token(0)
    page = browser.new_page(viewport={"width": 390, "height": 844})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(live.url + f"/seat#t={token}")
    page.wait_for_function("document.getElementById('status').textContent.includes('Waiting for a deal')")
    # nothing to press and no empty menus before the first deal, but a player may give a name
    assert not [b for b in page.locator("button:not(#name-form button), select").all() if b.is_visible()]
    page.fill("#name", "小李")
    page.click("#name-form button")
    page.wait_for_selector("#msg.ok")
    page.wait_for_function("document.getElementById('who').textContent.includes('小李')", timeout=5000)
    assert [r.data for r in svc.journal.rows_of_kind("seat_name")] == [{"seat": 0, "name": "小李"}]  # journaled
    bad = httpx.put(live.url + "/api/seats/0/name", json={"name": "<b>x</b>"},
                    headers={"Authorization": f"Bearer {token}"})
    assert bad.status_code == 422 and "plain text" in bad.json()["detail"]
    other = httpx.put(live.url + "/api/seats/1/name", json={"name": "x"}, headers={"Authorization": f"Bearer {token}"})
    assert other.status_code == 403  # a seat names only itself
    display, problems = _display(browser, live.url)
    assert "小李" in display.inner_text("#ledger")  # the ledger names the player
    rnd = _deal(live.url, svc)
    display.wait_for_selector("#seat-0")
    assert "小李" in display.inner_text("#seat-0")  # and so does the table
    assert not problems, problems
    display.close()
    page.wait_for_function("document.querySelectorAll('#hand .card').length === 13")
    wait_for(lambda: svc.journal.receipt(rnd.id) is not None)
    page.wait_for_selector("#receipt:not(.hidden)")
    assert page.inner_text("#receipt .receipt-short") == svc.journal.receipt(rnd.id)["short"]
    first = page.inner_text("#table-info .first")  # "♥4 is at Seat N", in both languages
    assert f"Seat {rnd.first_player + 1}" in first and "红桃四" in first
    assert page.is_visible("#btn-play")
    # the rules of this game, from the service: rank order and what 挑, 爆闷 and 趴 mean
    page.click("#help summary")
    help_text = page.inner_text("#help")
    assert "4 < 5 < 6" in help_text and "< 2 < 3" in help_text
    for term, meaning in (("挑", "alone against the other three"), ("爆闷", "must go out first"), ("趴", "lie down")):
        assert re.search(rf"(^|\n){term} .*\n.*{meaning}", help_text), (term, help_text)
    assert not errors, errors
    page.close()


def test_void_asks_first_and_the_table_hears_it(browser, live):  # noqa: F811
    svc = live.svc
    rnd = _deal(live.url, svc)
    display, problems = _display(browser, live.url)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(live.url + f"/operator#t={svc.tokens.operator_token()}")
    page.wait_for_function(f"document.getElementById('health').textContent.includes('{rnd.id}')", timeout=5000)
    asked: list[str] = []

    def answer(dialog, accept: bool) -> None:
        asked.append(dialog.message)
        dialog.accept() if accept else dialog.dismiss()

    page.once("dialog", lambda d: answer(d, False))
    page.click("#btn-void")
    page.wait_for_timeout(300)
    assert asked and "Void hand" in asked[0] and rnd.phase == "playing"  # asked, and "no" keeps the hand
    page.once("dialog", lambda d: answer(d, True))
    page.click("#btn-void")
    wait_for(lambda: rnd.phase == "void")
    # announced: the display's announcements and its message say so, in both languages
    display.wait_for_function("document.getElementById('caption').textContent.includes('void')", timeout=5000)
    assert "作废" in display.inner_text("#caption")
    # and after a reload the announcement is still there
    display.reload()
    display.wait_for_function("document.getElementById('caption').textContent.includes('void')", timeout=5000)
    assert not problems, problems
    page.close()
    display.close()


def test_a_second_deal_while_dealing_says_wait(tmp_path):
    from svc_helpers import LiveServer

    from controller.service.app import create_app
    from controller.service.deal import SoftwareDealSource

    svc = TableService(tmp_path / "data", SoftwareDealSource(card_delay=0.05, seed=4), bot_delay=0.0, seed=2)
    srv = LiveServer(create_app(svc), svc).start()
    try:
        op = {"Authorization": f"Bearer {svc.tokens.operator_token()}"}
        first = httpx.post(srv.url + "/api/rounds", json={"game": "hongsi"}, headers=op)
        assert first.status_code == 200
        again = httpx.post(srv.url + "/api/rounds", json={"game": "hongsi"}, headers=op)
        assert again.status_code == 409
        assert "dealing" in again.json()["detail"] and "wait" in again.json()["detail"]
        assert "请稍候" in again.json()["detail_zh"] and "void" not in again.json()["detail"]
        svc.void(first.json()["id"])  # no need to wait for the rest of the deal
    finally:
        srv.stop()
        svc.close()


def test_a_session_keeps_a_ledger_per_game_with_a_plot(browser, live):  # noqa: F811
    from test_svc_pages_table import _play_out

    svc = live.svc
    rnd = _deal(live.url, svc)
    call = next(a for a in _legal(rnd, rnd.turn()) if a["action"] == "call")  # the ♥4 holder calls first
    _act(svc, rnd, call)
    _play_out(svc, rnd)
    scores = rnd.result()["scores"]
    page, problems = _display(browser, live.url)
    page.wait_for_selector("#ledger-plot svg polyline")
    assert page.locator("#ledger-plot polyline").count() == 4  # one line per seat
    assert "红桃四" in page.inner_text("#ledger-game") and "1 局" in page.inner_text("#ledger-game")
    shown = page.eval_on_selector_all("#ledger td:last-child", "els => els.map(e => Number(e.textContent))")
    assert shown == scores
    session = httpx.get(live.url + "/api/session").json()
    assert session["games"]["hongsi"]["history"] == [scores]
    # a new session (the operator's): journaled, and every ledger starts again
    op = {"Authorization": f"Bearer {svc.tokens.operator_token()}"}
    assert httpx.post(live.url + "/api/session").status_code == 401
    assert httpx.post(live.url + "/api/session", headers=op).json()["games"] == {}
    assert any(r.kind == "session" for r in svc.journal.rows())
    page.wait_for_function("document.querySelectorAll('#ledger-plot polyline').length === 0", timeout=5000)
    shown = page.eval_on_selector_all("#ledger td:last-child", "els => els.map(e => Number(e.textContent))")
    assert shown == [0, 0, 0, 0] and httpx.get(live.url + "/api/ledger").json()["ledger"] == [0, 0, 0, 0]
    assert not problems, problems
    page.close()
