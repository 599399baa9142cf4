"""An outside attacker's audit of what the bots, the beginner's hint and the table camera added. Tests that
failed on the code before their fix: the operator sees a live hand only openly (a referee view the table is
told of), not through the table camera's crops, not by replaying a round only the journal holds, not
through the referee's reasons when acting (or confirming a camera reading) for a seat; a burst of hint asks
runs one search; a bot time that never ends is refused; a bot's pace does not tell its hand; a camera
reading confirmed twice at once is refereed once, and a double tap of Play sends one play; the public
session ledger is not worked out from the whole journal on every request; the e-stop never waits for a
busy server. Tests that held
already, and keep it so: no live event names a card still hidden, in any game; a camera reading is
confirmed only by its seat (or the operator)."""

from __future__ import annotations

import copy
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import cv2
import httpx
import numpy as np
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from svc_helpers import card_strings, wait_for

from controller.service import bots, table
from controller.service.app import create_app
from controller.service.deal import SoftwareDealSource
from controller.service.table import ServiceError, TableService
from controller.table_camera.tracker import Change
from controller.table_camera.watcher import KIND, TableWatcher
from engine.record import parse_record
from engine.registry import game_names, get_game


def _jpeg(seed: int) -> bytes:
    picture = np.random.default_rng(seed).integers(0, 255, (48, 64, 3), dtype=np.uint8)
    return cv2.imencode(".jpg", picture)[1].tobytes()


def _op(svc: TableService) -> dict[str, str]:
    return {"Authorization": f"Bearer {svc.tokens.operator_token()}"}


def _playing(svc: TableService, game: str = "hongsi"):
    rnd = svc.start_round(game=game, first_seat=0, bots=[])
    wait_for(lambda: rnd.phase == "playing")
    return rnd


def test_a_live_plays_camera_crops_stay_hidden_from_the_operator(service):
    """A hand hovering over the play area: the camera reads cards still in it and asks the seat. The
    picture and the crops go to the journal; while the hand is live the operator gets neither their
    digests (GET /api/journal) nor the images (GET /api/images), until the referee view is open."""
    rnd = _playing(service)
    watcher = TableWatcher(
        service, camera=None
    )  # the real watcher's asking and journalling, no camera thread
    service.table_camera = watcher
    seat = rnd.turn()
    held = [str(c) for c in rnd.hands[(seat + 1) % 4][:2]]  # another seat's cards, seen over the table
    frame, crop_jpeg = _jpeg(1), _jpeg(2)
    crop = service.journal.store_image(crop_jpeg)
    picture = cv2.imdecode(np.frombuffer(frame, np.uint8), cv2.IMREAD_COLOR)
    boxes = [{"label": c, "box": [4.0, 4.0, 20.0, 30.0], "confidence": 0.6} for c in held]
    watcher._ask(rnd, seat, "two_plays", Change("play", picture, picture), None, frame, [crop], boxes)
    asked = [r for r in service.journal.rows(rnd.id) if r.kind == KIND]
    assert len(asked) == 1 and asked[0].data["crops"] == [crop] and asked[0].image
    op = _op(service)
    with TestClient(create_app(service)) as client:
        shown = client.get(f"/api/journal?round={rnd.id}", headers=op).text
        assert crop not in shown and asked[0].image not in shown and not set(held) & card_strings(shown)
        assert client.get(f"/api/images/{crop}", headers=op).status_code == 409
        assert client.get(f"/api/images/{asked[0].image}", headers=op).status_code == 409
        everything = str([e for e in service.hub.since(0)])
        assert crop not in everything and not set(held) & card_strings(everything)
        # an image no journal row names is nobody's to fetch (a crop stored before its row is written)
        stray = service.journal.store_image(_jpeg(3))
        assert client.get(f"/api/images/{stray}", headers=op).status_code == 404
        # openly, in front of the table: now the operator sees them
        assert client.post(f"/api/rounds/{rnd.id}/referee_view", headers=op).json()["announced"]
        assert client.get(f"/api/images/{crop}", headers=op).content == crop_jpeg
        rows = client.get(f"/api/journal?round={rnd.id}", headers=op).json()["rows"]
        assert [r["data"]["crops"] for r in rows if r["kind"] == KIND] == [[crop]]


def _cli_deal(journal, record: dict, crop: bytes) -> int:
    """A round as ``hongsi deal`` journals it into the service's data directory: the camera's reads with
    their crops and ``deal_end`` with the record; its hand is then played at the table, unrefereed."""
    rid = journal.new_round({"game": "hongsi", "first_seat": 0, "fair_deal": False, "source": "cli"})
    for i, card in enumerate(c for hand in record["hands"] for c in hand):
        journal.append(
            rid, "card_read", {"index": i, "label": card, "confidence": 0.99}, image=crop if i == 0 else None
        )
        journal.append(rid, "eject_done", {"index": i, "seat": i // 13, "pulse_ms": 20.0})
    journal.append(rid, "deal_end", {"status": "done", "record": {**record, "events": []}, "first_player": 0})
    return rid


def test_replaying_a_live_hand_only_the_journal_holds_is_done_in_front_of_the_table(service, tmp_path):
    """A CLI deal (or a hand an earlier run of the service left live) is not in the service's memory; its
    replay shows every card and whose it is, so the operator gets it only as from a held round: openly."""
    dealt = _playing(service)
    with dealt.lock:
        record = dealt.record()
    service.void(dealt.id)
    crop = _jpeg(4)
    rid = _cli_deal(service.journal, record, crop)
    assert rid not in service.rounds and service.journal.status(rid) == "dealt"
    op = _op(service)
    with TestClient(create_app(service)) as client:
        assert client.get(f"/api/rounds/{rid}/replay").status_code == 401
        assert client.get(f"/api/journal?round={rid}", headers=op).json()["rows"][0]["redacted"]
        view = client.get(f"/api/rounds/{rid}/replay", headers=op).json()
        told = [e for e in service.hub.since(0) if e.get("type") == "referee_view"]
        assert [e["round"] for e in told] == [rid] and not card_strings(told)  # the table was told, first
        assert [r.kind for r in service.journal.rows(rid)].count("referee_view") == 1
        assert view["hands"] == record["hands"] and view["cards"][0]["label"] == record["hands"][0][0]
        # the view is open now: the crop and the journal whole, as for a round the service holds
        assert client.get(f"/api/images/{view['cards'][0]['image']}", headers=op).content == crop
        assert not client.get(f"/api/journal?round={rid}", headers=op).json()["rows"][0].get("redacted")
        client.get(f"/api/rounds/{rid}/replay", headers=op)
        assert len([e for e in service.hub.since(0) if e.get("type") == "referee_view"]) == 1  # told once
        # and the operator may open it on purpose too, before any replay
        other = _cli_deal(service.journal, record, _jpeg(5))
        got = client.post(f"/api/rounds/{other}/referee_view", json={"reason": "a dispute"}, headers=op)
        assert got.status_code == 200 and got.json() == {"round": other, "open": True, "announced": True}
        assert client.post("/api/rounds/999/referee_view", headers=op).status_code == 404


def _follow_suit_spot(svc: TableService, rnd) -> tuple[int, str] | None:
    """Play legal moves of 拱猪 until the seat to act holds the suit led and another: (seat, a card off suit)."""
    for _ in range(60):
        seat = rnd.turn()
        with rnd.lock:
            plays = [e for e in rnd.trick if e.get("action") == "play"]
            hand = [str(c) for c in rnd.hands[seat]]
            legal = rnd.state.legal_actions(seat)
        if plays:
            led = plays[0]["cards"][0][0]
            off = [c for c in hand if c[0] != led]
            if off and any(c[0] == led for c in hand):
                return seat, off[0]
        svc.act(rnd.id, next((a for a in legal if a["action"] == "play"), legal[0]))
    return None


def test_the_operator_acting_for_a_seat_hears_only_what_the_table_hears(service):
    """The referee's reason may tell what a hand holds ("Seat 2 holds clubs"): the seat reads it, the table
    hears only that the referee refused; so does the operator acting for that seat, until a referee view."""
    rnd = _playing(service, "gongzhu")
    spot = _follow_suit_spot(service, rnd)
    assert spot is not None
    seat, off = spot
    op, own = _op(service), {"Authorization": f"Bearer {service.tokens.new_seat_token(seat)}"}
    play = {"seat": seat, "action": "play", "cards": [off]}
    with TestClient(create_app(service)) as client:
        mine = client.post(f"/api/rounds/{rnd.id}/events", json=play, headers=own).json()
        assert not mine["applied"] and mine["violations"][0]["rule"] == "follow_suit"
        assert "holds" in mine["violations"][0]["message"]  # the seat itself reads why
        heard = client.post(f"/api/rounds/{rnd.id}/events", json=play, headers=op).json()
        table = [e for e in service.hub.since(0) if e.get("type") == "refused"][-1]
        assert not heard["applied"] and len(heard["violations"]) == 1
        v = heard["violations"][0]
        assert (v["rule"], v["message"], v["message_zh"]) == (
            table["rule"],
            table["message"],
            table["message_zh"],
        )
        assert "holds" not in v["message"] and v["rule"] != "follow_suit"
        # the same reading confirmed for the seat from the table camera's ask: the same words as the table's
        watcher = TableWatcher(service, camera=None)
        service.table_camera = watcher
        picture = cv2.imdecode(np.frombuffer(_jpeg(7), np.uint8), cv2.IMREAD_COLOR)
        watcher._ask(rnd, seat, "illegal", Change("play", picture, picture), [off], _jpeg(7), [], [])
        confirmed = client.post(f"/api/rounds/{rnd.id}/seats/{seat}/table_camera/confirm", headers=op).json()
        assert not confirmed["applied"] and confirmed["violations"][0]["rule"] != "follow_suit"
        assert "holds" not in confirmed["violations"][0]["message"]
        client.post(f"/api/rounds/{rnd.id}/referee_view", json={"reason": "a dispute"}, headers=op)
        opened = client.post(f"/api/rounds/{rnd.id}/events", json=play, headers=op).json()
        assert opened["violations"][0]["rule"] == "follow_suit"  # openly, the operator reads it whole


def test_a_burst_of_hint_asks_searches_once(live, monkeypatch):
    """Each hint is a whole bot search (up to 10 s a move): a seat asking many at once must not hold as many
    of the server's worker threads (the operator's e-stop waits for one) nor as much CPU. One search runs
    for a seat at a time; asks meanwhile hear 409, and the answer is kept for the rest of the turn."""
    svc = live.svc
    monkeypatch.setattr(bots.SETTINGS, "budget_ms", 400.0)
    searches = []
    real = table.plan_hint

    def counted(*args, **kw):  # the real search, counted
        searches.append(args[2])
        return real(*args, **kw)

    monkeypatch.setattr(table, "plan_hint", counted)
    rnd = _playing(svc, "gongzhu")
    for _ in range(5):  # a few plays in, so that the seat to act has choices to search
        legal = rnd.state.legal_actions(rnd.turn())
        svc.act(rnd.id, next(a for a in legal if a["action"] == "play"))
    seat = rnd.turn()
    auth = {"Authorization": f"Bearer {svc.tokens.new_seat_token(seat)}"}
    httpx.put(f"{live.url}/api/seats/{seat}/hint", json={"on": True}, headers=auth).raise_for_status()
    start, answers = threading.Barrier(12), []

    def ask() -> None:
        with httpx.Client(timeout=60) as client:
            start.wait()
            answers.append(client.get(f"{live.url}/api/rounds/{rnd.id}/seats/{seat}/hint", headers=auth))

    askers = [threading.Thread(target=ask) for _ in range(12)]
    for t in askers:
        t.start()
    for t in askers:
        t.join()
    assert sorted({r.status_code for r in answers}) in ([200], [200, 409]) and searches == [seat]
    busy = [r.json() for r in answers if r.status_code == 409]
    assert all("being worked out" in b["detail"] and b["detail_zh"] for b in busy)
    later = httpx.get(f"{live.url}/api/rounds/{rnd.id}/seats/{seat}/hint", headers=auth).json()
    assert all(r.json() == later for r in answers if r.status_code == 200) and searches == [seat]


GAMES = sorted(game_names())
KINDS = [
    "play",
    "pass",
    "call",
    "pa",
    "pa_accept",
    "pa_refuse",
    "announce",
    "tiao",
    "baomen",
    "bid",
    "xuan",
    "expose",
    "declare",
    "bury",
    "liang",
    "ready",
]


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 2**32 - 1), steps=st.integers(10, 120))
def test_the_event_stream_never_names_a_card_still_hidden(tmp_path_factory, game, seed, steps):
    """Every game, whatever seats and the operator send (legal or not, any seat's cards, any field): no
    live event (display, voice) names a card that is in a hand and not shown by the public state."""
    rng = random.Random(seed)
    svc = TableService(tmp_path_factory.mktemp("ev"), SoftwareDealSource(seed=seed), bot_delay=0, seed=seed)
    try:
        rnd = svc.start_round(game=game, first_seat=0, bots=[])
        wait_for(lambda: rnd.phase in ("playing", "interrupted", "void"))
        if rnd.phase != "playing":
            return
        seen = 0
        for _ in range(steps):
            with rnd.lock:
                seats, turn = rnd.plan.seats, rnd.turn()
                legal = rnd.state.legal_actions(turn) if turn is not None else []
                every = [str(c) for h in rnd.hands for c in h] + [str(c) for c in rnd.bottom or []]
                shown_before = card_strings(rnd.public())
            if legal and rng.random() < 0.6:
                action = rng.choice(legal)
            else:
                action = {"seat": rng.randrange(seats), "action": rng.choice(KINDS)}
                field = rng.choice(["cards", "card", "target", "value", None])
                if field == "cards" and every:
                    action["cards"] = rng.sample(every, min(len(every), rng.randint(1, 3)))
                elif field == "card" and every:
                    action["card"] = rng.choice(every)
                elif field in ("target", "value"):
                    action[field] = rng.randrange(seats)
            try:
                svc.act(rnd.id, action)
            except ServiceError as exc:
                assert exc.status in (409, 422)
            with rnd.lock:
                if rnd.phase != "playing":
                    break
                public = rnd.public()
                hidden = {str(c) for h in rnd.hands for c in h} | {str(c) for c in rnd.bottom or []}
            hidden -= card_strings(public) | shown_before
            new = [e for e in svc.hub.since(seen)]
            seen = new[-1]["id"] if new else seen
            assert not card_strings(new) & hidden, (
                game,
                action,
                [e for e in new if card_strings(e) & hidden],
            )
    finally:
        svc.close()


def test_only_the_asked_seat_or_the_operator_confirms_a_camera_reading_and_only_once(service):
    """The table camera asks the seat to act about a reading it did not apply. Nobody else reads the ask
    or confirms it; a seat's own token on its own path cannot confirm another seat's reading; a
    confirmation replayed applies nothing twice."""
    rnd = _playing(service, "gongzhu")  # its first seat may play at once (♣2)
    watcher = TableWatcher(service, camera=None)
    service.table_camera = watcher
    seat, start = rnd.turn(), len(rnd.events)
    with rnd.lock:
        play = next(a for a in rnd.state.legal_actions(seat) if a["action"] == "play")
    picture = cv2.imdecode(np.frombuffer(_jpeg(6), np.uint8), cv2.IMREAD_COLOR)
    watcher._ask(
        rnd, seat, "illegal", Change("play", picture, picture), list(play["cards"]), _jpeg(6), [], []
    )
    other = (seat + 1) % 4
    tokens = {
        "none": None,
        "unknown": "not-a-token",
        "own": service.tokens.new_seat_token(seat),
        "other": service.tokens.new_seat_token(other),
        "operator": service.tokens.operator_token(),
    }
    auth = {k: {"Authorization": f"Bearer {t}"} if t else {} for k, t in tokens.items()}
    base = f"/api/rounds/{rnd.id}/seats"
    with TestClient(create_app(service)) as client:
        for who, code in (("none", 401), ("unknown", 403), ("other", 403)):
            assert client.get(f"{base}/{seat}/table_camera", headers=auth[who]).status_code == code
            assert client.post(f"{base}/{seat}/table_camera/confirm", headers=auth[who]).status_code == code
        assert client.get(f"{base}/{other}/table_camera", headers=auth["other"]).json() == {"ask": None}
        assert client.post(f"{base}/{other}/table_camera/confirm", headers=auth["other"]).status_code == 409
        ask = client.get(f"{base}/{seat}/table_camera", headers=auth["own"]).json()["ask"]
        assert ask["code"] == "illegal" and ask["cards"] == play["cards"] and not card_strings(ask["message"])
        # a reading is one of the seat's own plays: misread, it names cards still in the hand; the operator
        # hears the ask as the table does (no card) until the referee view, and may still confirm it
        told = client.get(f"{base}/{seat}/table_camera", headers=auth["operator"]).json()["ask"]
        assert told == {**ask, "cards": None}
        assert len(rnd.events) == start and rnd.turn() == seat  # nothing applied by any refused confirmation
        done = client.post(f"{base}/{seat}/table_camera/confirm", headers=auth["own"]).json()
        assert done["applied"] and [e.get("cards") for e in rnd.events[start:]] == [play["cards"]]
        for who in ("own", "operator"):  # replayed: the ask was answered
            assert client.post(f"{base}/{seat}/table_camera/confirm", headers=auth[who]).status_code == 409
        assert len(rnd.events) == start + 1
        rows = [r.data for r in service.journal.rows(rnd.id) if r.kind == KIND]
        assert [r["verdict"] for r in rows] == ["asked", "confirmed"] and rows[1]["seat"] == seat


def test_a_bot_time_that_never_ends_is_refused_in_one_line(tmp_path, monkeypatch):
    """A search runs until its budget is spent: with an infinite (or NaN, or 11-day) budget the bots and
    every hint ask would think forever. ``serve --bot-ms`` refuses it as it refuses a negative one."""
    monkeypatch.setattr(bots.SETTINGS, "budget_ms", 200.0)  # restored after, whatever happens
    for ms in ("inf", "nan", "1e9"):
        with pytest.raises(ValueError, match="ms"):
            bots.configure("careful", float(ms))
        assert bots.SETTINGS.budget_ms == 200.0
    env = {
        **os.environ,
        "HONGSI_DATA_DIR": str(tmp_path),
        "HONGSI_VOICE": "false",
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
    }
    env.pop("HONGSI_CONFIG", None)
    proc = subprocess.run(
        [sys.executable, "-m", "controller.cli", "serve", "--no-rig", "--port", "1", "--bot-ms", "inf"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1, proc.stderr
    assert "Traceback" not in proc.stderr and "ms" in proc.stderr


def _forced_and_free(game_name: str) -> tuple[object, object, object]:
    """Two moments of a 拱猪 hand played by bots: a seat offered one action only, and one offered several."""
    game = get_game(game_name)
    rules = game.settings()
    record = parse_record(game.bot_hand(random.Random(201), bot="greedy", settings=rules))
    state = game.new_state(record.hands, record.bottom, rules)
    forced = free = None
    for event in record.events:
        seat = state.current_player()
        if seat is not None:
            n = len(state.offered_actions(seat))
            if n == 1 and forced is None:
                forced = (copy.deepcopy(state), seat)
            elif n > 3 and free is None:
                free = (copy.deepcopy(state), seat)
        state.judge(event)
    assert forced is not None and free is not None
    return game, forced, free


def test_a_bot_with_one_move_takes_its_whole_think_all_the_same():
    """The table sees how long a bot takes: a bot offered one action only (one card of the suit led) played
    it at once (3 ms against 167 ms a move), telling everyone it is now void in that suit. Its move waits
    out the budget like any other; this is a lower bound, which the sleep guarantees on any box."""
    game, (forced, seat), (free, other) = _forced_and_free("gongzhu")
    budget = 150.0
    for state, who in ((forced, seat), (free, other)):
        legal = state.legal_actions(who)
        think = bots.plan_action(game, state, who, legal, random.Random(3), bot="careful", budget_ms=budget)
        began = time.monotonic()
        action = think()
        assert time.monotonic() - began >= budget / 1000
        assert action in state.offered_actions(who)


def test_a_confirmation_sent_twice_at_once_is_applied_once_and_refused_as_nothing(live):
    """A double tap (or a retry) of the seat page's Confirm: the copies were refereed too, after the play,
    and each became a refused action of that seat, told to the table by voice and journalled as its
    violation. A confirmation the play already answered hears 409 and is never refereed."""
    svc = live.svc
    rnd = _playing(svc, "gongzhu")
    watcher = TableWatcher(svc, camera=None)
    svc.table_camera = watcher
    picture = cv2.imdecode(np.frombuffer(_jpeg(8), np.uint8), cv2.IMREAD_COLOR)
    for _ in range(4):
        seat = rnd.turn()
        with rnd.lock:
            play = next(a for a in rnd.state.legal_actions(seat) if a["action"] == "play")
        auth = {"Authorization": f"Bearer {svc.tokens.new_seat_token(seat)}"}
        watcher._ask(
            rnd, seat, "illegal", Change("play", picture, picture), list(play["cards"]), _jpeg(8), [], []
        )
        start, answers = threading.Barrier(4), []

        def confirm(seat=seat, auth=auth, start=start, answers=answers) -> None:
            with httpx.Client(timeout=30) as client:
                start.wait()
                answers.append(
                    client.post(
                        f"{live.url}/api/rounds/{rnd.id}/seats/{seat}/table_camera/confirm", headers=auth
                    )
                )

        taps = [threading.Thread(target=confirm) for _ in range(4)]
        for t in taps:
            t.start()
        for t in taps:
            t.join()
        assert sorted(r.status_code for r in answers) == [200, 409, 409, 409]
        assert [r.json()["applied"] for r in answers if r.status_code == 200] == [True]
    assert not [e for e in svc.hub.since(0) if e.get("type") == "refused"]
    assert all(ok for ok in rnd.applied)


@pytest.mark.browser
@pytest.mark.skipif(not os.path.exists("/usr/bin/chromium"), reason="Debian chromium is not installed")
def test_a_double_tap_on_the_seat_page_sends_one_action(live):
    """A double tap of Play sent the play twice: the copy was refereed after it and became a refused
    action of the seat, told to the table by voice. The page sends one action at a time."""
    from playwright.sync_api import sync_playwright

    svc = live.svc
    rnd = svc.start_round(game="gongzhu", first_seat=0, bots=[])
    wait_for(lambda: rnd.phase == "playing")
    seat = rnd.turn()  # the ♣2's holder leads it
    token = svc.tokens.new_seat_token(seat)
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page(viewport={"width": 420, "height": 860})
            page.goto(f"{live.url}/seat#t={token}")
            page.wait_for_function("document.querySelectorAll('#hand .card').length === 13", timeout=10000)
            page.click('#hand .card[data-card="C2"]')
            page.dblclick("#btn-play")
            page.wait_for_selector("#msg.ok", timeout=5000)
            page.wait_for_timeout(300)  # a second POST, if one went, has landed by now
        finally:
            browser.close()
    assert [e.get("cards") for e in rnd.events] == [["C2"]] and rnd.applied == [True]
    assert not [e for e in svc.hub.since(0) if e.get("type") == "refused"]


def test_the_public_session_is_worked_out_once_per_journal_change(service, monkeypatch):
    """GET /api/session (anyone, no token) read and parsed the whole journal on every request: 1.3 s
    against 5 ms for /api/health at a year's 34,000 rows, so a few requests at once held the server's
    worker threads (the operator's e-stop waits for one). It is worked out again only when the journal grew."""
    worked = []
    real = table.session_of

    def counted(rows):  # the real ledger, counted
        worked.append(1)
        return real(rows)

    monkeypatch.setattr(table, "session_of", counted)
    op = _op(service)
    with TestClient(create_app(service)) as client:
        first = client.get("/api/session").json()
        assert [client.get("/api/session").json() for _ in range(5)] == [first] * 5 and len(worked) == 1
        first["games"]["tampered"] = {}  # an answer is a copy: nothing a caller does reaches the next
        assert client.post("/api/session", headers=op).status_code == 200  # the journal grew: a new session
        again = client.get("/api/session").json()
        assert again["since"] != first["since"] and "tampered" not in again["games"] and len(worked) >= 2


def test_the_emergency_stop_never_waits_for_a_busy_server(service, monkeypatch):
    """Every plain route runs in the server's shared worker threads; while they are all busy (asks that
    search, slow reads) the operator's e-stop waited in line behind them. It has threads of its own now:
    with one shared worker held by a hint's whole search, the e-stop answers first."""
    import anyio

    monkeypatch.setattr(bots.SETTINGS, "budget_ms", 1500.0)
    searching = threading.Event()
    real = table.plan_hint

    def announced(*args, **kw):  # the real search; the test learns it began
        searching.set()
        return real(*args, **kw)

    monkeypatch.setattr(table, "plan_hint", announced)
    rnd = _playing(service, "gongzhu")
    def plays() -> list[dict]:
        return [a for a in rnd.state.legal_actions(rnd.turn()) if a["action"] == "play"]

    # a few plays in, and on until the seat to act has choices to search (with one card it may play, the
    # search answers at once and the hint beat the e-stop in CI)
    for k in range(40):
        if k >= 5 and len(plays()) > 1:
            break
        service.act(rnd.id, plays()[0])
    assert len(plays()) > 1
    seat = rnd.turn()
    mine = {"Authorization": f"Bearer {service.tokens.new_seat_token(seat)}"}
    service.set_hint(seat, True)
    app, order = create_app(service), []

    async def main() -> None:
        anyio.to_thread.current_default_thread_limiter().total_tokens = 1  # one shared worker
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://table"
        ) as client:

            async def hint() -> None:
                r = await client.get(f"/api/rounds/{rnd.id}/seats/{seat}/hint", headers=mine)
                order.append(("hint", r.status_code))

            async def stop() -> None:
                while not searching.is_set():
                    await anyio.sleep(0.01)
                r = await client.post("/api/estop", headers=_op(service))
                order.append(("estop", r.status_code))

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(hint)
                tasks.start_soon(stop)

    anyio.run(main)
    assert order == [("estop", 200), ("hint", 200)] and service.estopped and rnd.paused


def test_a_seat_link_made_while_a_hand_is_live_is_told_to_the_table(service):
    """A new seat link reads that seat's hand: made between hands it is quiet, made while a hand is live the
    table hears it (voice, display) and the journal keeps it, so the operator cannot look at a hand unseen."""
    op = _op(service)
    with TestClient(create_app(service)) as client:
        quiet = client.post("/api/tokens", json={"seat": 1}, headers=op).json()
        assert quiet["table_told"] is False
        rnd = _playing(service)
        last = service.hub.since(0)[-1]["id"]
        made = client.post("/api/tokens", json={"seat": 2}, headers=op).json()
        assert made["table_told"] is True
        told = service.hub.since(last)
        assert {"type": "seat_link", "round": rnd.id, "seat": 2} in [
            {k: e.get(k) for k in ("type", "round", "seat")} for e in told
        ]
        said = [e for e in told if e["type"] == "voice" and "link" in e["text"]]  # the deal's own news may follow
        assert len(said) == 1 and "Seat 3" in said[0]["text"] and "三号位" in said[0]["text_zh"]
        assert [r.data for r in service.journal.rows(rnd.id) if r.kind == "seat_link"] == [{"seat": 2, "by": "operator"}]
        assert client.get("/api/health").status_code == 200


def test_a_seat_link_made_by_the_command_while_a_hand_is_live_is_told_before_it_is_used(service):
    """`hongsi token --seat` writes the token file from another process: the service tells the table of the
    new link as soon as it sees the file change, before that link reads the hand."""
    rnd = _playing(service)
    last = service.hub.since(0)[-1]["id"]
    env = {**os.environ, "HONGSI_DATA_DIR": str(service.data_dir)}
    out = subprocess.run([sys.executable, "-m", "controller.cli", "token", "--seat", "1"], capture_output=True,
                         text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    token = next(w for w in out.stdout.split() if len(w) >= 30 and "/" not in w)
    seen = service.tokens.identify(token)
    assert seen is not None and seen.seat == 1
    assert [e["seat"] for e in service.hub.since(last) if e["type"] == "seat_link"] == [1]
    assert [r.data["seat"] for r in service.journal.rows(rnd.id) if r.kind == "seat_link"] == [1]
