"""Helpers of the table-service tests: card detection, waiting, a live uvicorn server, an SSE reader."""

from __future__ import annotations

import importlib.util
import json
import random
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from controller.service.table import TableService

CARD = re.compile(r"^(?:[SHDC](?:10|[2-9JQKA])|BJ|RJ)$")
CARD_IN_TEXT = re.compile(r"(?<![A-Za-z0-9])(?:[SHDC](?:10|[2-9JQKA])|BJ|RJ)(?![A-Za-z0-9])")


def _card_words() -> tuple[re.Pattern[str], dict[str, str]]:
    """Every way the project's text table writes or speaks a card (♠5, 黑桃五, the 5 of spades, 大王),
    mapped back to its notation: a leak in people's words is a leak too."""
    from controller.text import card_en, card_sign, card_zh
    from engine.cards import DECKS

    words: dict[str, str] = {}
    for card in {str(c) for deck in DECKS.values() for c in deck.cards()}:
        for render in (card_sign, card_zh, card_en):
            words[render(card)] = card
    alternatives = sorted(words, key=len, reverse=True)
    return re.compile("|".join(re.escape(w) for w in alternatives)), words


CARD_WORDS, CARD_OF_WORD = _card_words()


def card_strings(obj: Any) -> set[str]:
    """Every string in a JSON value that is a card's notation."""
    out: set[str] = set()
    if isinstance(obj, str):
        if CARD.match(obj):
            out.add(obj)
        out |= set(CARD_IN_TEXT.findall(obj))  # a card named inside a message
        out |= {CARD_OF_WORD[w] for w in CARD_WORDS.findall(obj)}  # or in people's words
    elif isinstance(obj, dict):
        for k, v in obj.items():
            out |= card_strings(k) | card_strings(v)
    elif isinstance(obj, list):
        for v in obj:
            out |= card_strings(v)
    return out


def wait_for(pred, timeout: float = 15.0, step: float = 0.02, why: Callable[[], str] | None = None) -> Any:
    """Poll ``pred`` until it is true; on a timeout, ``why()`` (if given) says what the state was."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = pred()
        if value:
            return value
        time.sleep(step)
    raise AssertionError("timed out waiting" + (f": {why()}" if why is not None else ""))


class LiveServer:
    def __init__(self, app, svc: TableService):
        self.app, self.svc = app, svc
        self.config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on",
                                     timeout_graceful_shutdown=2)
        self.server = uvicorn.Server(self.config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> LiveServer:
        self.thread.start()
        wait_for(lambda: self.server.started, timeout=10)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


class SSECollector:
    """Reads ``/api/events`` in a thread; ``events`` fills as they come."""

    def __init__(self, url: str):
        self.url, self.events, self.raw = url, [], []
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.connected = threading.Event()

    def _run(self) -> None:
        with httpx.Client(timeout=httpx.Timeout(5.0, read=60.0)) as client:
            with client.stream("GET", self.url + "/api/events") as resp:
                self.connected.set()
                for line in resp.iter_lines():
                    self.raw.append(line)
                    if line.startswith("data: "):
                        self.events.append((time.perf_counter(), json.loads(line[6:])))
                    if self._stop.is_set():
                        return

    def start(self) -> SSECollector:
        self.thread.start()
        self.connected.wait(5)
        return self

    def stop(self, svc: TableService) -> None:
        self._stop.set()
        svc.hub.publish({"type": "test_end"})  # wakes the reader so it sees the stop
        self.thread.join(timeout=10)


def allowed_cards(public: dict) -> set[str]:
    """Cards a public snapshot may show: those of its applied plays, and the called card."""
    out = set()
    for a in public["actions"]:
        if a["applied"]:
            out |= set(a.get("cards") or [])
            if a["action"] == "call":
                out.add(a["card"])
    return out


def play_hand(client: httpx.Client, rid: int, seat_token: str, rng: random.Random, snapshots: list,
              timeout: float = 60, operator: str | None = None) -> None:
    """Seat 0 through the API (sometimes an illegal try first), the others bots; poll public views."""
    auth = {"Authorization": f"Bearer {seat_token}"}
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for path in (f"/api/rounds/{rid}", "/api/health", "/api/rounds", "/api/ledger"):
            resp = client.get(path)
            assert resp.status_code == 200
            snapshots.append((path, resp.json()))
        pub = snapshots[-4][1]
        if pub["phase"] == "finished":
            return
        if pub["phase"] == "interrupted" and operator:  # the rig paused for a person: the operator resumes
            client.post(f"/api/rounds/{rid}/resume", headers={"Authorization": f"Bearer {operator}"})
        view = client.get(f"/api/rounds/{rid}/seats/0", headers=auth).json()
        if pub["phase"] == "playing" and view["legal"] and pub["turn"] == 0:
            if rng.random() < 0.4 and len(view["hand"]) >= 2:  # an illegal try: two unmatched cards
                hand = view["hand"]
                bad = [hand[0], hand[-1]]
                if bad[0][1:] != bad[1][1:]:
                    r = client.post(f"/api/rounds/{rid}/events", json={"seat": 0, "action": "play", "cards": bad},
                                    headers=auth).json()
                    assert r["applied"] is False and r["violations"][0]["severity"] == "error"
            action = rng.choice([a for a in view["legal"] if a["action"] in ("play", "pass", "call")]
                                or view["legal"])
            r = client.post(f"/api/rounds/{rid}/events", json=action, headers=auth)
            assert r.status_code in (200, 409), r.text
        time.sleep(0.005)
    raise AssertionError("the hand did not finish")


def check_no_hidden_cards(snapshots: list, events: list, record: dict, rid: int) -> None:
    """No public snapshot or live event of a hand shows a card that was not played (or called) yet."""
    # every public snapshot taken during the hand shows no card beyond the ones played (or called) so far
    dealt = {c for h in record["hands"] for c in h}
    assert len(dealt) == 52
    in_hand = 0
    for path, snap in snapshots:
        if path != f"/api/rounds/{rid}":
            assert not card_strings(snap), snap
        elif snap["phase"] in ("dealing", "playing"):
            in_hand += 1
            low = [s for s, n in enumerate(snap["counts"] or []) if 0 < n <= 3]
            assert snap["low"] == low  # rule 8: counts of 3 or fewer are flagged for the display
            shown = card_strings(snap)
            assert shown <= allowed_cards(snap), shown - allowed_cards(snap)
            for a in snap["actions"]:  # and the public actions are the record's
                ev = record["events"][a["index"]]
                assert (ev["seat"], ev["action"]) == (a["seat"], a["action"])
                if a["applied"] and "cards" in a:
                    assert a["cards"] == ev["cards"]
    assert in_hand > 3
    # the live events, in order: a card appears only once its play (or call) was published
    public_so_far: set[str] = set()
    types = []
    for _t, ev in events:
        types.append(ev["type"])
        if ev["type"] == "finished":
            break
        if ev["type"] == "action" and ev.get("applied"):
            public_so_far |= set(ev.get("cards") or []) | ({ev["card"]} if ev.get("card") else set())
        leaked = card_strings(ev) - public_so_far
        assert not leaked, (ev, leaked)
    assert {"round", "deal", "dealt", "action", "finished"} <= set(types)
    assert types.count("deal") == 52


def rig_parts_missing() -> str | None:
    for module in ("firmware_bridge.sim", "vision.reader", "controller.deal"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed"
    from firmware_bridge import sim

    if not hasattr(sim, "VirtualRig"):
        return "firmware_bridge.sim.VirtualRig is missing"
    from vision.reader import MODEL_PATH

    if not MODEL_PATH.exists():
        return f"the card model {MODEL_PATH.name} is not committed yet"
    return None


def rig_service(tmp_path: Path, speed: float = 40, bot_delay: float = 0.0) -> tuple[TableService, Any]:
    """A service dealing on the virtual rig with the real dealer, camera and card reader."""
    from controller.config import load_config
    from controller.journal import Journal
    from controller.service.deal import RigDealSource
    from firmware_bridge.sim import VirtualRig

    vr = VirtualRig(seed=5, speed=speed)
    ends = vr.start()
    cfg = load_config(env={"HONGSI_SHUFFLE_PASSES": "1", "HONGSI_VOICE": "false"})
    journal = Journal(tmp_path / "journal.db")
    source = RigDealSource.open(serial=ends["serial"], camera_url=ends["camera"], journal=journal, config=cfg,
                                load_deck=vr.board.load_deck)  # as `hongsi serve --sim`: its operator loads decks
    return TableService(tmp_path, source, bot_delay=bot_delay, journal=journal, seed=1), vr
