"""The operator picks the empty seats' bot style (one line each, English and Chinese); a seat may turn on a
beginner's hint, which nobody else can read or switch, and which is off until that seat turns it on."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from svc_helpers import wait_for

from controller.service import bots
from controller.service.app import create_app


@pytest.fixture
def client(service):
    with TestClient(create_app(service)) as c:
        yield c


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_the_operator_picks_the_bot_style(service, client, monkeypatch):
    monkeypatch.setattr(bots.SETTINGS, "bot", "greedy")
    monkeypatch.setattr(bots.SETTINGS, "budget_ms", 25.0)
    got = client.get("/api/bots").json()
    assert got["bot"] == "greedy" and got["budget_ms"] == 25.0
    styles = {s["name"]: s for s in got["styles"]}
    assert set(styles) == {"careful", "bold", "greedy"}
    assert all(s["text"] and s["text_zh"] and s["text"] != s["text_zh"] for s in styles.values())
    op = _auth(service.tokens.operator_token())
    seat = _auth(service.tokens.new_seat_token(1))
    assert client.put("/api/bots", json={"bot": "bold"}).status_code == 401
    assert client.put("/api/bots", json={"bot": "bold"}, headers=seat).status_code == 403
    bad = client.put("/api/bots", json={"bot": "reckless"}, headers=op)
    assert bad.status_code == 422 and "reckless" in bad.json()["detail"] and bad.json()["detail_zh"]
    assert client.put("/api/bots", json={"bot": "bold", "budget_ms": -3}, headers=op).status_code == 422
    assert bots.SETTINGS.bot == "greedy"  # nothing changed by a refused request
    ok = client.put("/api/bots", json={"bot": "bold", "budget_ms": 30}, headers=op).json()
    assert ok["bot"] == "bold" and bots.SETTINGS.bot == "bold" and bots.SETTINGS.budget_ms == 30.0


def test_a_hint_only_when_the_seat_turned_it_on_and_only_for_that_seat(service, client, monkeypatch):
    monkeypatch.setattr(bots.SETTINGS, "budget_ms", 25.0)
    mine, other = service.tokens.new_seat_token(0), service.tokens.new_seat_token(1)
    op = _auth(service.tokens.operator_token())
    rnd = service.start_round(game="hongsi", first_seat=0, bots=[])  # no bot moves the hand on meanwhile
    wait_for(lambda: rnd.phase == "playing")
    url = f"/api/rounds/{rnd.id}/seats/0/hint"
    off = client.get(url, headers=_auth(mine))
    assert off.status_code == 409 and off.json()["detail_zh"]  # off by default
    assert client.put("/api/seats/0/hint", json={"on": True}, headers=_auth(other)).status_code == 403
    assert client.put("/api/seats/0/hint", json={"on": True}, headers=op).status_code == 403
    assert client.get(url, headers=_auth(mine)).status_code == 409  # still off: nobody else may turn it on
    assert client.put("/api/seats/0/hint", json={"on": "yes"}, headers=_auth(mine)).status_code == 422
    assert client.put("/api/seats/0/hint", json={"on": True}, headers=_auth(mine)).json() == {"seat": 0, "hint": True}
    hint = client.get(url, headers=_auth(mine)).json()
    assert hint["seat"] == 0 and hint["text"] and hint["text_zh"]
    with rnd.lock:
        offered = rnd.state.offered_actions(0)
    assert hint["version"] == len(rnd.events) == 0
    # a seat not to act may be told to wait (no action) rather than to declare what it is offered
    assert hint["action"] is None if not offered else hint["action"] is None or hint["action"] in offered
    for who in (_auth(other), op):  # the hint is worked out from seat 0's hand: no one else reads it
        assert client.get(url, headers=who).status_code == 403
    assert client.get(f"/api/rounds/{rnd.id}/seats/1/hint", headers=_auth(other)).status_code == 409  # seat 1's is off
    client.put("/api/seats/0/hint", json={"on": False}, headers=_auth(mine))
    assert client.get(url, headers=_auth(mine)).status_code == 409
