"""The auth matrix: no token, a seat's token, another seat's token, an unknown token, the operator's,
against every endpoint of the table service."""

from __future__ import annotations

import json
import os
import stat

import pytest
from fastapi.testclient import TestClient
from svc_helpers import wait_for

from controller.service.app import create_app
from controller.service.tokens import TokenStore

ANYONE, SEAT0, OPERATOR = "anyone", "seat0", "operator"


def _endpoints(rid: int) -> list[tuple[str, str, dict | None, str]]:
    return [
        ("GET", "/api/health", None, ANYONE),
        ("GET", "/api/rounds", None, ANYONE),
        ("GET", f"/api/rounds/{rid}", None, ANYONE),
        ("GET", "/api/ledger", None, ANYONE),
        ("GET", "/api/events?last_id=0&max_events=1", None, ANYONE),
        ("GET", f"/api/rounds/{rid}/seats/0", None, SEAT0),
        ("POST", f"/api/rounds/{rid}/events", {"seat": 0, "action": "pass"}, SEAT0),
        ("GET", f"/api/rounds/{rid}/record", None, OPERATOR),
        ("GET", f"/api/rounds/{rid}/replay", None, OPERATOR),
        ("GET", "/api/journal", None, OPERATOR),
        ("GET", "/api/tokens", None, OPERATOR),
        ("POST", "/api/tokens", {"seat": 3}, OPERATOR),
        ("GET", "/api/images/" + "0" * 64, None, OPERATOR),
        ("DELETE", "/api/tokens/3", None, OPERATOR),
        ("POST", f"/api/rounds/{rid}/void", None, OPERATOR),
        ("POST", f"/api/rounds/{rid}/resume", None, OPERATOR),
        ("POST", "/api/clear", None, OPERATOR),
        ("POST", "/api/estop", None, OPERATOR),
        ("POST", "/api/rounds", {"game": "hongsi", "first_seat": 0, "bots": []}, OPERATOR),
    ]


def test_auth_matrix_every_endpoint(service):
    app = create_app(service)
    op = service.tokens.operator_token()
    seat0 = service.tokens.new_seat_token(0)
    seat1 = service.tokens.new_seat_token(1)
    callers = {"none": None, "seat0": seat0, "seat1": seat1, "unknown": "not-a-token-at-all", "operator": op}
    with TestClient(app) as client:
        rnd = service.start_round(game="hongsi", first_seat=0, bots=[])
        wait_for(lambda: rnd.phase == "playing")
        checked = 0
        # the operator goes last on each endpoint, so that its void/estop/new round do not hide the others
        for method, path, body, who in _endpoints(rnd.id):
            for caller in ("none", "seat0", "seat1", "unknown", "operator"):
                token = callers[caller]
                headers = {"Authorization": f"Bearer {token}"} if token else {}
                resp = client.request(method, path, json=body, headers=headers)
                allowed = (who == ANYONE or caller == "operator" or (who == SEAT0 and caller == "seat0"))
                assert resp.status_code < 500, (method, path, caller, resp.text)
                if allowed:
                    assert resp.status_code not in (401, 403), (method, path, caller, resp.status_code, resp.text)
                elif caller == "none":
                    assert resp.status_code == 401, (method, path, caller, resp.status_code)
                    assert resp.headers.get("www-authenticate") == "Bearer"
                else:
                    assert resp.status_code == 403, (method, path, caller, resp.status_code)
                assert "detail" in resp.json() if resp.status_code >= 400 else True
                if resp.status_code in (401, 403):  # players see Chinese beside the English
                    assert resp.json().get("detail_zh"), (method, path, caller, resp.text)
                checked += 1
        assert checked == 5 * len(_endpoints(rnd.id))


def test_seat_token_reads_only_its_own_hand(service):
    app = create_app(service)
    tokens = [service.tokens.new_seat_token(s) for s in range(4)]
    with TestClient(app) as client:
        rnd = service.start_round(game="hongsi", first_seat=0, bots=[])
        wait_for(lambda: rnd.phase == "playing")
        for s, tok in enumerate(tokens):
            for other in range(4):
                resp = client.get(f"/api/rounds/{rnd.id}/seats/{other}", headers={"Authorization": f"Bearer {tok}"})
                if other == s:
                    assert resp.status_code == 200
                    assert sorted(resp.json()["hand"]) == sorted(str(c) for c in rnd.hands[s])
                else:
                    assert resp.status_code == 403 and "hand" not in resp.json()


def test_record_is_public_once_the_hand_is_over(service):
    app = create_app(service)
    with TestClient(app) as client:
        rnd = service.start_round(game="hongsi", first_seat=1, bots="all")
        assert client.get(f"/api/rounds/{rnd.id}/record").status_code in (200, 401)
        wait_for(lambda: rnd.phase == "finished")
        rec = client.get(f"/api/rounds/{rnd.id}/record")
        assert rec.status_code == 200
        body = rec.json()
        assert body["verdict"]["finished"] is True and sum(body["verdict"]["scores"]) == 0
        assert [len(h) for h in body["hands"]] == [13, 13, 13, 13]


def test_tokens_are_stored_hashed_and_shared_with_the_command(tmp_path):
    store = TokenStore(tmp_path)
    op = store.operator_token()
    seat = store.new_seat_token(2)
    text = (tmp_path / "tokens.json").read_text()
    assert op not in text and seat not in text
    assert json.loads(text)["operator"] != op and len(json.loads(text)["operator"]) == 64
    assert stat.S_IMODE(os.stat(tmp_path / "operator.token").st_mode) == 0o600
    assert stat.S_IMODE(os.stat(tmp_path / "tokens.json").st_mode) == 0o600
    other = TokenStore(tmp_path)  # as `hongsi token` does, while the server runs
    assert other.operator_token() == op
    late = other.new_seat_token(1)
    assert store.identify(late).seat == 1  # the server's store sees the command's new token
    assert store.identify(op).is_operator and store.identify(seat).seat == 2
    assert store.identify("x" * 32) is None and store.identify("") is None
    assert store.identify(seat[:-1] + ("A" if seat[-1] != "A" else "B")) is None
    assert store.revoke_seat(2) == 1 and store.identify(seat) is None


def test_token_command_prints_operator_token_and_a_seat_qr(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from controller.cli import app

    monkeypatch.setenv("HONGSI_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("HONGSI_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    first = runner.invoke(app, ["token"])
    assert first.exit_code == 0
    op = first.output.strip()
    assert TokenStore(tmp_path).identify(op).is_operator
    assert runner.invoke(app, ["token"]).output.strip() == op  # created once, then printed again
    seat = runner.invoke(app, ["token", "--seat", "2"])
    assert seat.exit_code == 0
    lines = seat.output.splitlines()
    assert TokenStore(tmp_path).identify(lines[0]).seat == 2
    assert lines[1].endswith("/seat#t=" + lines[0])
    assert any("█" in ln or "▀" in ln for ln in lines[2:])  # the QR code
    bad = runner.invoke(app, ["token", "--seat", "9"])
    assert bad.exit_code == 2


@pytest.mark.parametrize("header", ["Bearer", "Basic abc", "Bearer  ", "Token x"])
def test_malformed_authorization_is_refused_not_crashed(service, header):
    with TestClient(create_app(service)) as client:
        resp = client.post("/api/estop", headers={"Authorization": header})
        assert resp.status_code in (401, 403)
        assert not service.estopped


@pytest.mark.parametrize("body", [b"{not json", b'{"game": 5}', b'{"first_seat": "1"}', b"[]"])
def test_who_may_not_act_hears_so_before_what_was_wrong_with_the_request(service, body):
    """A change without a token is 401 (an unknown token 403) even when its body is bad too: the body's
    faults are told only to someone who may act (the audit saw a 422 for a tokenless bad body)."""
    with TestClient(create_app(service)) as client:
        for path in ("/api/rounds", "/api/rounds/1/events", "/api/tokens"):
            post = {"content": body, "headers": {"Content-Type": "application/json"}}
            assert client.post(path, **post).status_code == 401, path
            bad = {**post["headers"], "Authorization": "Bearer not-a-token"}
            assert client.post(path, content=body, headers=bad).status_code == 403, path
            op = {**post["headers"], "Authorization": f"Bearer {service.tokens.operator_token()}"}
            assert client.post(path, content=body, headers=op).status_code == 422, path
