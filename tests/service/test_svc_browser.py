"""The pages in Debian's chromium (Playwright, no browser download): the display shows the deal's
progress and then the first player; a seat page plays a card, and an illegal play is refused with the
rule and a message. A screenshot of the display is saved under ``artifacts/``."""

from __future__ import annotations

import os
import re
from pathlib import Path

import httpx
import pytest
from svc_helpers import LiveServer, rig_parts_missing, rig_service, wait_for

from controller.service.app import create_app
from controller.service.deal import SoftwareDealSource
from controller.service.rounds import public_violation
from controller.service.table import TableService
from controller.text import card_sign

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian chromium is not installed")]


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def paced(tmp_path):
    """A live server dealing at a visible pace, bots thinking briefly."""
    svc = TableService(tmp_path / "data", SoftwareDealSource(card_delay=0.03, seed=4), bot_delay=0.05, seed=2)
    srv = LiveServer(create_app(svc), svc).start()
    yield srv
    srv.stop()
    svc.close()


@pytest.fixture
def dealing(tmp_path):
    """The display's server: on the virtual rig with the real dealer when its parts are installed."""
    vr = None
    if rig_parts_missing() is None:
        svc, vr = rig_service(tmp_path, speed=40, bot_delay=0.3)
    else:
        svc = TableService(tmp_path / "data", SoftwareDealSource(card_delay=0.03, seed=4), bot_delay=0.3, seed=2)
    srv = LiveServer(create_app(svc), svc).start()
    yield srv
    srv.stop()
    svc.close()
    if vr is not None:
        vr.stop()


def test_display_shows_deal_progress_then_first_player(browser, dealing):
    paced = dealing
    svc = paced.svc
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    (ARTIFACTS / "display-dealing.png").unlink(missing_ok=True)
    page.goto(paced.url + "/")
    page.wait_for_function("document.getElementById('ledger').rows.length > 1")
    op = {"Authorization": f"Bearer {svc.tokens.operator_token()}"}
    svc.tokens.new_seat_token(0)  # seat 0 is a person: the bots take 1..3
    rid = httpx.post(paced.url + "/api/rounds", json={"game": "hongsi", "first_seat": 2}, headers=op).json()["id"]
    seen = set()
    def progress() -> bool:
        text = page.inner_text("#deal-count")
        m = re.match(r"(\d+) / 52", text)
        if m:
            seen.add(int(m.group(1)))
            if 12 <= int(m.group(1)) <= 40 and not (ARTIFACTS / "display-dealing.png").exists():
                ARTIFACTS.mkdir(exist_ok=True)
                page.screenshot(path=str(ARTIFACTS / "display-dealing.png"))
        if svc.get_round(rid).phase == "interrupted":  # the rig paused for a person (a slow machine): resume
            httpx.post(f"{paced.url}/api/rounds/{rid}/resume", headers=op)
        return bool(seen and max(seen) == 52) or page.is_visible("#first-player")
    try:
        wait_for(progress, timeout=120, step=0.05)
    except AssertionError:
        rnd = svc.get_round(rid)
        rows = [(r.kind, r.data) for r in svc.journal.rows(rid)][-8:]
        raise AssertionError(f"the deal did not finish: {rnd.phase} {rnd.dealt}/52 {rnd.message}; "
                             f"page {page.inner_text('#deal-count')!r}; journal {rows}") from None
    mid = [n for n in seen if 0 < n < 52]
    assert mid, seen  # the deal was shown while it happened
    page.wait_for_selector("#first-player:not(.hidden)", timeout=10000)
    rnd = svc.get_round(rid)
    holder = rnd.first_player
    assert any("H4" == str(c) for c in rnd.hands[holder])
    text = page.inner_text("#first-player")
    assert f"Seat {holder + 1}" in text and "红桃四" in text
    assert page.get_attribute("#first-player", "data-seat") == str(holder)
    big = page.eval_on_selector("#first-player", "el => parseFloat(getComputedStyle(el).fontSize)")
    assert big >= 32  # large type
    page.wait_for_function("document.querySelectorAll('.seat .count').length === 4")
    counts = page.eval_on_selector_all(".seat .count", "els => els.map(e => Number(e.dataset.count))")
    assert sum(counts) <= 52 and all(0 <= c <= 13 for c in counts)
    # play goes on: the 记牌器 shows the called card once the ♥4 holder calls (a bot here, or seat 0's turn)
    # the bots wait for seat 0, a person, to declare or say it will not; the display says so
    page.wait_for_function("document.getElementById('turn').textContent.includes('waiting for declarations')",
                           timeout=10000)
    # and for how long: a countdown of the bots' window (32 s here, restarted by each declaration)
    left = page.wait_for_function(
        "(/(\\d+) s left/.exec(document.getElementById('declare-left').textContent) || [])[1]", timeout=5000)
    assert 0 < int(left.json_value()) <= svc.declare_window
    assert httpx.post(f"{paced.url}/api/rounds/{rid}/seats/0/ready", headers=op).json()["undecided"] == []
    if holder != 0:
        page.wait_for_selector("#tracker .card", timeout=10000)
        called = rnd.called()
        assert page.get_attribute("#tracker .card", "data-card") == called["card"]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "display.png"), full_page=True)
    assert (ARTIFACTS / "display.png").stat().st_size > 10000
    # no hidden card is anywhere in the page's text (played and called cards only)
    html = page.content()
    with rnd.lock:
        public = {c for a in rnd.public()["actions"] if a["applied"] for c in (a.get("cards") or [])}
        called = rnd.called()
    for card in (str(c) for h in rnd.hands for c in h):
        if card not in public and (not called or card != called["card"]):
            assert f'data-card="{card}"' not in html, card
    assert not errors, errors
    page.close()


def test_seat_page_plays_a_card_and_an_illegal_play_is_refused(browser, paced):
    svc = paced.svc
    op = {"Authorization": f"Bearer {svc.tokens.operator_token()}"}
    token = svc.tokens.new_seat_token(0)
    paced.svc.deal_source.card_delay = 0.0
    rid = httpx.post(paced.url + "/api/rounds", json={"game": "hongsi", "first_seat": 0, "bots": [1, 2, 3]},
                     headers=op).json()["id"]
    rnd = svc.get_round(rid)
    wait_for(lambda: rnd.phase == "playing")
    page = browser.new_page(viewport={"width": 420, "height": 860})  # a phone
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(paced.url + f"/seat#t={token}")
    page.wait_for_function("document.querySelectorAll('#hand .card').length === 13", timeout=10000)
    assert not errors, errors
    hidden = [sel for sel in ("#btn-tiao", "#btn-baomen", "#talk", "#btn-pass") if not page.is_visible(sel)]
    assert not hidden, (hidden, page.evaluate("document.body.className"), rnd.events)
    assert page.is_hidden("#btn-bury")
    if not any(rnd.applied):  # nobody has acted: the bots wait for this seat's word, given by its button
        assert "s left" in page.inner_text("#ready-left")  # and say for how long
        page.click("#btn-ready")
        page.wait_for_selector("#btn-ready.hidden", state="attached", timeout=5000)
        assert 0 in rnd.ready and rnd.undecided() == []
    hand = page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.card)")
    assert sorted(hand) == sorted(str(c) for c in rnd.hands[0])  # its own hand, and only that
    assert "Seat 1" in page.inner_text("#who")
    # an illegal play: two cards of different ranks are never a combination
    for card in (hand[0], hand[-1]):
        # a bot's play re-draws the hand; a click that lands mid-draw is lost, so click until it shows
        sel = f'#hand .card[data-card="{card}"]'
        for _ in range(5):
            if page.query_selector(f"{sel}.selected"):
                break
            page.click(sel)
    assert len(page.query_selector_all("#hand .card.selected")) == 2
    page.click("#btn-play")
    page.wait_for_selector("#msg.refused", timeout=5000)
    msg = page.inner_text("#msg")
    assert "Refused" in msg and "违规" in msg
    rule = rnd.violations[-1]["list"][0]["rule"]
    assert rnd.applied[-1] is False
    # in people's words: out of turn is "not your turn"; a bad combination names ♠4 ♠3, never S4 S3
    if rule == "combo":
        assert card_sign(hand[0]) in msg and card_sign(hand[-1]) in msg and "not a combination" in msg
        assert f"{hand[0]} {hand[-1]}" not in msg
    else:  # not seat 1's turn, or seat 1 holds ♥4 and must call first
        assert re.search(r"Not Seat 1's turn: Seat [234] is to act|must call", msg), msg
    assert len(page.query_selector_all("#hand .card")) == 13
    # the display shows the referee's call, in both languages, without the cards that were tried
    display = browser.new_page(viewport={"width": 1400, "height": 900})
    display.goto(paced.url + "/")
    display.wait_for_selector("#calls .call", timeout=5000)
    call_text = display.inner_text("#calls .call")
    assert public_violation({"rule": rule})["message"] in call_text and "Seat 1" in call_text
    assert f"\n{rule}\n" not in call_text and "<b>" not in call_text  # words, not the rule's code
    assert re.search(r"[\u4e00-\u9fff]", call_text)  # Chinese as well as English
    assert hand[0] not in call_text and hand[-1] not in call_text
    display.close()
    # now play for real: wait for seat 0's turn, call if the call is due, then play a legal card
    played = _play_a_card(page, rnd)
    for _ in range(3):  # seat 0 may pass a whole hand away (never able to beat, never leading): deal again
        if played:
            break
        rid = httpx.post(paced.url + "/api/rounds", json={"game": "hongsi", "bots": [1, 2, 3]}, headers=op).json()["id"]
        rnd = svc.get_round(rid)
        wait_for(lambda r=rnd: r.phase == "playing")
        page.wait_for_function(f"document.getElementById('status').textContent.startsWith('#{rid}')", timeout=10000)
        played = _play_a_card(page, rnd)
    assert played, "seat 0 never got to play"
    ev = [e for e, ok in zip(rnd.events, rnd.applied, strict=True) if ok and e["seat"] == 0
          and e["action"] == "play"][0]
    page.wait_for_function(f"!document.querySelector('#hand .card[data-card=\"{ev['cards'][0]}\"]')", timeout=5000)
    assert len(page.query_selector_all("#hand .card")) == 13 - len(ev["cards"])
    assert not errors, errors
    page.close()


def test_the_seat_page_holds_a_first_play_while_others_may_still_speak(browser, tmp_path):
    """The rules' order (叫完牌问有没有人说话？确定没人喊趴再开始出牌): an outside audit's ♥4 holders called and led
    within 1-2 s, so nobody could 趴. The seat page holds the first play while another person may still
    declare, says whom it waits for, and plays once they are ready; the API itself still referees at once."""
    svc = TableService(tmp_path / "data", SoftwareDealSource(card_delay=0.0, seed=4), bot_delay=0.05, seed=2,
                       declare_window=60.0)
    srv = LiveServer(create_app(svc), svc).start()
    try:
        rnd = svc.start_round(game="hongsi", first_seat=0, bots=[])
        wait_for(lambda: rnd.phase == "playing")
        h4 = rnd.turn()
        other = (h4 + 1) % 4
        with rnd.lock:
            rnd.bots = {0, 1, 2, 3} - {h4, other}  # two people: the ♥4 holder and one more
            call = next(a for a in rnd.state.legal_actions(h4) if a["action"] == "call")
        assert svc.act(rnd.id, call)["applied"]
        with rnd.lock:
            lead = next(a for a in rnd.state.legal_actions(h4) if a["action"] == "play")
        page = browser.new_page(viewport={"width": 420, "height": 860})
        page.goto(srv.url + f"/seat#t={svc.tokens.new_seat_token(h4)}")
        page.wait_for_function("document.querySelectorAll('#hand .card').length === 13", timeout=10000)
        for c in lead["cards"]:
            page.click(f'#hand .card[data-card="{c}"]')
        page.click("#btn-play")
        page.wait_for_selector("#msg.refused", timeout=5000)
        msg = page.inner_text("#msg")
        assert f"Seat {other + 1} may still declare" in msg and "还有人可以说话" in msg, msg
        assert len(rnd.events) == 1  # nothing sent
        svc.ready(rnd.id, other)
        page.wait_for_function("document.getElementById('btn-play') !== null", timeout=5000)
        # the page hears the ready (its next refresh): the other seat is no longer undecided in its state
        page.wait_for_function(f"lastPub && !(lastPub.undecided || []).includes({other})", timeout=10000)
        page.click("#btn-play")
        page.wait_for_selector("#msg.ok", timeout=5000)
        assert rnd.applied[-1] and rnd.events[-1]["action"] == "play" and rnd.events[-1]["seat"] == h4
        page.close()
    finally:
        srv.stop()
        svc.close()


def _play_a_card(page, rnd) -> bool:
    """Act for seat 0 through its page until it has played a card (True) or the hand is over (False)."""
    for _ in range(60):
        wait_for(lambda: rnd.turn() == 0 or rnd.phase == "finished", timeout=20)
        if rnd.phase == "finished":
            return False
        with rnd.lock:
            legal = rnd.state.legal_actions(0)
        calls = [a for a in legal if a["action"] == "call"]
        plays = [a for a in legal if a["action"] == "play"]
        n_before = len(rnd.events)
        if calls:
            page.select_option("#call-card", calls[0]["card"])
            page.click("#btn-call")
        elif plays:
            chosen = page.locator("#hand .card.selected")
            while chosen.count():
                chosen.first.click()
            for c in plays[0]["cards"]:
                page.click(f'#hand .card[data-card="{c}"]')
            page.click("#btn-play")
        else:
            page.click("#btn-pass")
        wait_for(lambda n=n_before: len(rnd.events) > n, timeout=5)
        if plays and not calls:
            page.wait_for_selector("#msg.ok", timeout=5000)
            assert rnd.applied[n_before] and rnd.events[n_before]["action"] == "play"
            return True
    return False


def test_operator_page_makes_a_seat_token_with_a_qr_code(browser, paced):
    svc = paced.svc
    page = browser.new_page()
    page.goto(paced.url + f"/operator#t={svc.tokens.operator_token()}")
    page.click("#token-buttons button[data-seat='2']")
    page.wait_for_selector("#qr svg", timeout=5000)
    link = page.inner_text("#qr a")
    token = link.split("#t=")[1]
    assert svc.tokens.identify(token).seat == 2
    page.wait_for_selector("#token-list button[data-revoke='2']", timeout=5000)
    page.click("#token-list button[data-revoke='2']")
    wait_for(lambda: svc.tokens.identify(token) is None)
    page.click("#btn-estop")
    wait_for(lambda: svc.estopped)
    # the health panel reads as a table, in both languages, and follows the e-stop
    page.wait_for_function("document.querySelector('#health td[data-key=estop]').textContent.includes('pressed')",
                           timeout=5000)
    assert "E-stop" in page.inner_text("#health") and "急停" in page.inner_text("#health")
    page.click("#btn-clear")
    wait_for(lambda: not svc.estopped)
    page.wait_for_function("document.querySelector('#health td[data-key=estop]').textContent === '—'", timeout=5000)
    assert "{" not in page.inner_text("#health")  # no raw JSON for the fields it knows
    # a preset (house rules) is chosen with its game: 拱双猪 deals two decks
    page.select_option("#game", "gongzhu")
    page.wait_for_function("[...document.querySelectorAll('#preset option')].some(o => o.value === 'shuangzhu')")
    assert page.eval_on_selector("#preset", "el => el.value") == "gonglue"  # the game's default first
    assert "load one deck without jokers, 52 cards" in page.inner_text("#deck-needed")
    page.select_option("#preset", "shuangzhu")
    assert "两副牌" in page.inner_text("#deck-needed") and "104 cards" in page.inner_text("#deck-needed")
    page.click("#btn-deal")
    wait_for(lambda: svc.current is not None and svc.current.preset == "shuangzhu", timeout=10)
    assert svc.current.game.name == "gongzhu" and svc.current.plan.deck.size == 104
    page.close()


def test_seat_page_offers_another_games_own_actions(browser, paced):
    """挖坑: the seat page shows the bids the referee allows, and a tap on one is refereed and applied."""
    from engine.registry import get_game

    try:
        get_game("wakeng")
    except ImportError:
        pytest.skip("wakeng engine not installed")
    svc = paced.svc
    op = {"Authorization": f"Bearer {svc.tokens.operator_token()}"}
    token = svc.tokens.new_seat_token(0)
    paced.svc.deal_source.card_delay = 0.0
    # no bots: a bot may bid 3 before seat 0's turn and leave it nothing but a pass; the other seats pass
    rid = httpx.post(paced.url + "/api/rounds", json={"game": "wakeng", "first_seat": 0, "bots": []},
                     headers=op).json()["id"]
    rnd = svc.get_round(rid)
    wait_for(lambda: rnd.phase == "playing")
    while rnd.turn() != 0:
        seat_to = rnd.turn()
        with rnd.lock:
            legal = rnd.state.legal_actions(seat_to)
        no = next(a for a in legal if a.get("value") == 0 or a.get("dig") is False)  # no bid, no 黑挖
        out = httpx.post(paced.url + f"/api/rounds/{rid}/events", json=no, headers=op)
        assert out.status_code == 200 and not out.json()["violations"], out.text
    page = browser.new_page(viewport={"width": 420, "height": 860})
    page.goto(paced.url + f"/seat#t={token}")
    try:
        page.wait_for_selector("#other button", timeout=20000)
    except Exception:  # say what the page was given (a CI run once timed out here; not seen since)
        seen = httpx.get(paced.url + f"/api/rounds/{rid}/seats/0", headers={"Authorization": f"Bearer {token}"})
        raise AssertionError(f"no bid buttons; turn {rnd.turn()}, seat view {seen.status_code}: "
                             f"{seen.text[:600]}; page: {page.inner_text('body')[:400]}") from None
    with rnd.lock:
        legal = rnd.state.legal_actions(0)
    shown = page.eval_on_selector_all("#other button", "els => els.map(e => [e.dataset.action, e.textContent])")
    kinds = {a["action"] for a in legal} - {"play", "pass"}
    assert kinds and kinds <= {k for k, _ in shown}
    for _kind, text in shown:  # named in both languages, never by the engine's identifier
        assert re.search(r"[\u4e00-\u9fff]", text) and re.search(r"[a-z]{3}", text) and "_" not in text, text
    n = len(rnd.events)
    page.click("#other button >> nth=0")
    page.wait_for_selector("#msg.ok", timeout=5000)
    assert rnd.applied[n] is True and rnd.events[n]["seat"] == 0 and rnd.events[n]["action"] in kinds
    page.close()


def test_display_seats_three_players_in_a_triangle(browser, paced):
    """挖坑 has three players: the display puts them round the table as a triangle (me at the bottom,
    the next two counter-clockwise at the top right and top left), not on three sides of a square. The
    round starts while the display's event stream is down: it is found when the stream reconnects."""
    svc = paced.svc
    op = {"Authorization": f"Bearer {svc.tokens.operator_token()}"}
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    dropped: list[str] = []

    def drop_first_stream(route):  # the display's event stream fails once, as on a flaky Wi-Fi
        if dropped:
            route.continue_()
        else:
            dropped.append(route.request.url)
            route.abort()

    page.route("**/api/events", drop_first_stream)
    page.goto(paced.url + "/")
    while not dropped:
        page.wait_for_timeout(20)
    # The round starts while the display is not listening: it must still find it when the stream is back.
    r = httpx.post(paced.url + "/api/rounds", json={"game": "wakeng", "first_seat": 0, "bots": [1, 2]},
                   headers=op)
    assert r.status_code == 200, r.text
    page.wait_for_selector("#seat-2", timeout=15000)
    boxes = [page.locator(f"#seat-{s}").bounding_box() for s in range(3)]
    assert page.locator("#seat-3").count() == 0
    table = page.locator("#table").bounding_box()
    mid_x = table["x"] + table["width"] / 2
    centre = [(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2) for b in boxes]
    assert abs(centre[0][0] - mid_x) < 5  # seat 1 (index 0) sits at the bottom, centred
    assert centre[1][0] > mid_x and centre[2][0] < mid_x  # the next seat to the right, the last to the left
    assert centre[1][1] < centre[0][1] and abs(centre[1][1] - centre[2][1]) < 5  # both above, level
    for i in range(3):
        for j in range(i + 1, 3):
            a, b = boxes[i], boxes[j]
            assert (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                    or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"]), (i, j)
    page.wait_for_selector("#game-panel:not(.hidden)", timeout=15000)  # 挖坑's digger, bid and bottom
    assert "挖坑" in page.inner_text("#game-panel") and "digger" in page.inner_text("#game-panel")
    assert page.is_hidden("#tracker-panel")
    page.screenshot(path=str(ARTIFACTS / "display-three-seats.png"))
    page.close()


def test_seat_page_buries_the_chosen_cards_in_shengji(browser, paced):
    """升级's dealer takes the bottom (拿底), which it then sees in its hand, and buries 8 cards of its choice,
    both copies of a card among them: the seat page shows a Bury button only then, and it buries the cards
    tapped in the hand (not one button per card, which could never list a 33-card hand)."""
    svc = paced.svc
    op = {"Authorization": f"Bearer {svc.tokens.operator_token()}"}
    token = svc.tokens.new_seat_token(0)
    paced.svc.deal_source.card_delay = 0.0
    r = httpx.post(paced.url + "/api/rounds", json={"game": "shengji", "first_seat": 0, "bots": [1, 2, 3]},
                   headers=op)
    assert r.status_code == 200, r.text
    rnd = svc.get_round(r.json()["id"])
    wait_for(lambda: rnd.phase == "playing", timeout=30)

    def bury_due() -> bool:
        with rnd.lock:
            return any(a["action"] == "bury" for a in rnd.state.legal_actions(0))

    wait_for(bury_due, timeout=20)
    page = browser.new_page(viewport={"width": 420, "height": 860})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(paced.url + f"/seat#t={token}")
    page.wait_for_selector("#btn-bury:not(.hidden)", timeout=10000)
    page.wait_for_function("document.querySelectorAll('#hand .card').length === 25", timeout=10000)
    # 红桃四's own controls are not offered at a 升级 table, nor Pass (升级 never passes)
    assert all(page.is_hidden(sel) for sel in ("#btn-tiao", "#btn-baomen", "#talk", "#btn-pass"))
    before = page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.card)")
    page.click("#other button[data-action='take_bottom']")
    page.wait_for_selector("#msg.ok", timeout=5000)
    page.wait_for_function("document.querySelectorAll('#hand .card').length === 33", timeout=10000)
    hand = page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.card)")
    assert sorted(hand) == sorted(before + [str(c) for c in rnd.bottom])  # the bottom joined the hand
    assert "bury" not in page.eval_on_selector_all("#other button", "els => els.map(e => e.dataset.action)")
    # both copies of a card the hand holds twice (two decks), and the last cards of the hand, which a
    # one-button-per-card list cut at 24 never showed
    pair = next(i for i in range(len(hand)) if hand[i] in hand[i + 1:])
    picks = [pair, hand.index(hand[pair], pair + 1)]
    picks += [i for i in range(len(hand) - 1, -1, -1) if i not in picks and hand[i] != hand[pair]][:6]
    chosen = sorted(hand[i] for i in picks)
    assert len(picks) == 8 and len(set(chosen)) < 8
    for i in picks:
        page.click(f"#hand .card >> nth={i}")
    page.click("#btn-bury")

    def buried() -> list[dict]:
        # the take-bottom's "✓ accepted" may still be showing, so wait on the round, not on #msg.ok
        with rnd.lock:
            return [e for e, ok in zip(rnd.events, rnd.applied, strict=True) if ok and e["action"] == "bury"]

    wait_for(lambda: buried(), timeout=10)
    bury = buried()
    assert len(bury) == 1 and bury[0]["seat"] == 0 and sorted(bury[0]["cards"]) == chosen
    page.wait_for_function("document.querySelectorAll('#hand .card').length === 25", timeout=10000)
    page.wait_for_selector("#btn-bury.hidden", state="attached", timeout=10000)
    assert not errors, errors
    page.close()


def test_display_of_another_game_names_it_and_shows_only_the_current_trick(browser, paced):
    """A 升级 hand on the display: the game is named in both languages, 红桃四's 记牌器 is not shown, the
    trick in the middle is at most one play from each seat, and the result names the game."""
    svc = paced.svc
    op = {"Authorization": f"Bearer {svc.tokens.operator_token()}"}
    paced.svc.deal_source.card_delay = 0.0
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(paced.url + "/")
    page.wait_for_function("document.getElementById('ledger').rows.length > 1")
    r = httpx.post(paced.url + "/api/rounds", json={"game": "shengji", "bots": "all"}, headers=op)
    assert r.status_code == 200, r.text
    rnd = svc.get_round(r.json()["id"])
    page.wait_for_function("document.getElementById('round-label').textContent.includes('升级')", timeout=15000)
    assert "Tractor" in page.inner_text("#round-label") and page.is_hidden("#tracker-panel")
    most = 0
    while rnd.phase != "finished":
        most = max(most, page.eval_on_selector_all("#trick > div", "els => els.length"))
        page.wait_for_timeout(30)
    page.wait_for_selector("#result h2", timeout=10000)
    # the game's own facts for the whole table: level, trump, dealer, the attackers' points
    info = page.inner_text("#game-panel")
    with rnd.lock:
        verdict = rnd.result()
    assert page.is_visible("#game-panel") and "升级" in info and "level" in info and "trump" in info
    assert f"Seat {verdict['dealer'] + 1}" in info and str(verdict["attacker_points"]) in info
    result = page.inner_text("#result")
    assert 0 < most <= 4 and "升级" in result and "undefined" not in page.inner_text("body")
    assert not errors, errors
    page.close()
