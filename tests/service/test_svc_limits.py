"""Limits of the service: a too-large body is refused (413) before it is read or parsed, declared or
streamed; a round number past SQLite's integers is a 422, not a 500; each SSE client's queue is
bounded (state events coalesce, a client that cannot keep up is dropped and catches up on reconnect);
every receipt the journal signs is a public event and in ``GET /api/receipts``."""

from __future__ import annotations

import asyncio
import json
import socket
import time

import httpx
from fastapi.testclient import TestClient
from svc_helpers import wait_for

from controller import receipts
from controller.service.app import create_app
from controller.service.hub import EventHub
from controller.service.limits import MAX_BODY


def test_journal_round_past_sqlite_integers_is_422(service):
    op = {"Authorization": f"Bearer {service.tokens.operator_token()}"}
    with TestClient(create_app(service)) as client:
        r = client.get("/api/journal", params={"round": 9223372036854775808}, headers=op)
        assert r.status_code == 422 and "round" in r.json()["detail"]
        assert client.get("/api/journal", params={"round": 1}, headers=op).status_code == 200


def _raw_post(url: str, headers: str, body: bytes = b"") -> tuple[bytes, float]:
    host, port = url.removeprefix("http://").split(":")
    t0 = time.perf_counter()
    with socket.create_connection((host, int(port)), timeout=5) as s:
        s.sendall(headers.encode() + body)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    return data, time.perf_counter() - t0


def test_a_50_mb_post_is_refused_before_its_body_is_sent(live):
    """Only the headers and 1 KB are sent: the answer comes at once, without waiting for 50 MB."""
    head = ("POST /api/rounds HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {50 * 1024 * 1024}\r\n\r\n")
    data, took = _raw_post(live.url, head, b"[" * 1024)
    assert data.startswith(b"HTTP/1.1 413"), data[:200]
    assert took < 2.0


def test_a_streamed_body_is_counted_and_refused_past_the_cap(live):
    sent = []

    def chunks():
        for _ in range(64):
            sent.append(1)
            yield b" " * 16384                       # 1 MB in all, chunked: no Content-Length

    with httpx.Client(base_url=live.url, timeout=10) as client:
        try:
            r = client.post("/api/rounds", content=chunks(), headers={"Content-Type": "application/json"})
            status = r.status_code
            assert r.json()["detail"].startswith("the request body is larger than")
        except httpx.HTTPError:                       # the server may close before the client sent all
            status = 413
        assert status == 413
        # a body under the cap goes through to the usual checks (401: no token)
        ok = client.post("/api/rounds", content=b" " * (MAX_BODY - 10) + b"{}",
                         headers={"Content-Type": "application/json"})
        assert ok.status_code == 401
        op = {"Authorization": f"Bearer {live.svc.tokens.operator_token()}"}
        assert client.post("/api/rounds", json={"game": "hongsi", "bots": "all"}, headers=op).status_code == 200


# ------------------------------------------------------------------------------- the SSE hub
def _ids(text: str) -> list[dict]:
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


def test_a_slow_client_gets_coalesced_state_then_is_dropped_and_catches_up():
    async def scenario():
        hub = EventHub(history=2000, max_queue=50, coalesce_after=5)
        stream = hub.stream(heartbeat=5)
        assert await stream.__anext__() == "retry: 2000\n\n"
        waiting = asyncio.ensure_future(stream.__anext__())
        await asyncio.sleep(0)                       # the client is connected and waits
        for dealt in range(1, 31):                   # 30 progress events while the client is busy
            hub.publish({"type": "deal", "round": 1, "dealt": dealt, "total": 52})
        hub.publish({"type": "action", "round": 1, "seat": 0, "action": "pass"})
        got = _ids(await waiting)
        # the first 5 wait as they came; past them only the newest progress is kept, then the action
        deals = [e["dealt"] for e in got if e["type"] == "deal"]
        assert deals == [1, 2, 3, 4, 30] and got[-1]["type"] == "action"
        last_seen = got[-1]["id"]
        # now it stops reading: 60 actions (never coalesced) pass its bound of 50: it is dropped
        for i in range(60):
            hub.publish({"type": "action", "round": 1, "seat": i % 4, "action": "pass"})
        rest = [chunk async for chunk in stream]     # the stream ends instead of growing
        assert rest == [] and hub.dropped == 1 and hub.client_count == 0
        # the browser reconnects with Last-Event-ID and gets exactly what it missed, in order
        again = hub.stream(last_id=last_seen, heartbeat=5)
        await again.__anext__()
        caught = _ids(await again.__anext__())
        assert [e["id"] for e in caught] == list(range(last_seen + 1, hub.last_id + 1))
        await again.aclose()

    asyncio.run(scenario())


def test_a_client_gone_longer_than_the_history_is_told_to_resync():
    async def scenario():
        hub = EventHub(history=10)
        for i in range(30):
            hub.publish({"type": "action", "round": 1, "seat": 0, "n": i})
        stream = hub.stream(last_id=3, heartbeat=5)
        await stream.__anext__()
        got = _ids(await stream.__anext__())
        assert got[0]["type"] == "resync" and [e["id"] for e in got[1:]] == list(range(21, 31))
        await stream.aclose()

    asyncio.run(scenario())


def test_events_are_sent_once_with_keep_alives_between():
    """A quiet table sends keep-alives; the events before them are not sent again after each (a page
    re-fetched everything, and a display counting deal events counted cards that were never dealt)."""
    async def scenario():
        hub = EventHub()
        stream = hub.stream(last_id=0, heartbeat=0.05)
        hub.publish({"type": "deal", "round": 1, "seat": 2, "dealt": 1, "total": 52})
        assert await stream.__anext__() == "retry: 2000\n\n"
        chunks = [await stream.__anext__() for _ in range(4)]
        hub.publish({"type": "action", "round": 1, "seat": 0, "action": "pass"})
        chunks += [await stream.__anext__() for _ in range(3)]
        await stream.aclose()
        sent = [e["id"] for c in chunks for e in _ids(c)]
        assert sent == [1, 2] and ": keep-alive\n\n" in chunks

    asyncio.run(scenario())


def test_receipts_are_public_events_and_in_the_api(service):
    with TestClient(create_app(service)) as client:
        rnd = service.start_round(game="hongsi", bots="all")

        def receipt_events():
            return [e for e in service.hub.since(0) if e["type"] == "receipt" and e["round"] == rnd.id]

        wait_for(lambda: len(receipt_events()) == 2, timeout=60)   # the hand dealt, then ended
        events = receipt_events()
        assert [e["at"] for e in events] == ["service_dealt", "round_end"]
        listed = client.get("/api/receipts", params={"round": rnd.id}).json()   # no token: public
        assert [r["receipt"] for r in listed["receipts"]] == [e["receipt"] for e in events]
        assert all(receipts.verify_receipt(r, listed["public_key"]) for r in listed["receipts"])
        assert client.get("/api/receipts", params={"round": 2**63}).status_code == 422
