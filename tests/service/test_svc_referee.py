"""Issue 31, finding 3 and 10b: the operator sees a live hand's hidden cards only through a referee view
the whole table is told about and the journal records; a seat hammering the referee cannot grow the
public state without bound."""

from __future__ import annotations

from fastapi.testclient import TestClient
from svc_helpers import card_strings, wait_for

from controller.fair_deal import new_seed
from controller.plan import make_plan
from controller.service.app import create_app
from controller.service.rounds import KEEP_REFUSED

JPEG = b"\xff\xd8\xff\xe0 a crop of the ace of hearts \xff\xd9"


def _playing(service, **kw):
    rnd = service.start_round(game="hongsi", first_seat=0, bots=[], **kw)
    wait_for(lambda: rnd.phase == "playing")
    return rnd


def _rig_rows(service, rid):
    """What a rig's deal journals: the plan (seed and order) and the camera's reads with their crops."""
    plan = make_plan("hongsi", first_seat=0, fair=True, seed=new_seed())
    service.journal.append(rid, "deal_plan", {"plan": plan.to_json(), "commitment": plan.commitment})
    row = service.journal.append(rid, "card_read", {"index": 0, "label": "HA", "confidence": 0.99,
                                                    "probs": {"HA": 0.99}}, image=JPEG)
    service.journal.append(rid, "eject_done", {"index": 0, "seat": plan.order[0], "pulse_ms": 20.0,
                                               "inferred": False, "double": False})
    return row.image


def _events(service, kind):
    return [ev for ev in service.hub.since(0) if ev.get("type") == kind]


def test_a_live_hand_is_hidden_from_the_operator_until_the_table_is_told(service):
    op = {"Authorization": f"Bearer {service.tokens.operator_token()}"}
    rnd = _playing(service)
    digest = _rig_rows(service, rnd.id)
    with TestClient(create_app(service)) as client:
        rows = client.get(f"/api/journal?round={rnd.id}", headers=op).json()["rows"]
        shown = [r["data"] for r in rows]
        assert not card_strings(shown), card_strings(shown)          # no card_read label, no dealt hand
        assert not any("seed" in str(d) or "order" in d.get("plan", {}) for d in shown)
        assert all(r["image"] is None and r["redacted"] for r in rows)
        assert client.get(f"/api/images/{digest}", headers=op).status_code == 409
        assert client.get("/api/journal", headers=op).json()["rows"][-1].get("redacted")
        assert not _events(service, "referee_view")
        # reading a seat's hand is the operator's right (the spec), but only in front of the table
        hand = client.get(f"/api/rounds/{rnd.id}/seats/2", headers=op)
        assert hand.status_code == 200 and len(hand.json()["hand"]) == 13
        said = _events(service, "referee_view")
        assert len(said) == 1 and said[0]["seat"] == 2 and "Seat 3" in said[0]["message"]
        assert "三号" in said[0]["message_zh"] and not card_strings(said)
        voice = _events(service, "voice")[-1]
        assert "裁判" in voice["text_zh"] and "Referee view" in voice["text"]
        assert [r.kind for r in service.journal.rows(rnd.id)].count("referee_view") == 1
        # now, and only now, the operator sees the hand whole
        rows = client.get(f"/api/journal?round={rnd.id}", headers=op).json()["rows"]
        assert any(r["data"].get("label") == "HA" for r in rows)
        assert any(r["data"].get("plan", {}).get("seed") for r in rows)
        assert client.get(f"/api/images/{digest}", headers=op).content == JPEG
        client.get(f"/api/rounds/{rnd.id}/seats/1", headers=op)      # already open: told once
        assert len(_events(service, "referee_view")) == 1


def test_the_referee_view_is_opened_on_purpose_and_the_record_opens_it_too(service):
    op = {"Authorization": f"Bearer {service.tokens.operator_token()}"}
    seat = {"Authorization": f"Bearer {service.tokens.new_seat_token(0)}"}
    with TestClient(create_app(service)) as client:
        rnd = _playing(service)
        assert client.post(f"/api/rounds/{rnd.id}/referee_view", headers=seat).status_code == 403
        assert client.post(f"/api/rounds/{rnd.id}/referee_view", json={"reason": ""},
                           headers=op).status_code == 422
        got = client.post(f"/api/rounds/{rnd.id}/referee_view", json={"reason": "seat 2 says 4 cards"},
                          headers=op).json()
        assert got == {"round": rnd.id, "open": True, "announced": True}
        assert _events(service, "referee_view")[-1]["message"].endswith("(seat 2 says 4 cards).")
        assert client.post(f"/api/rounds/{rnd.id}/referee_view", headers=op).json()["announced"] is False
        row = [r for r in service.journal.rows(rnd.id) if r.kind == "referee_view"]
        assert len(row) == 1 and row[0].data["reason"] == "seat 2 says 4 cards"
        # the record of a live hand, for the operator, opens the next hand's view as well
        nxt = _playing(service)
        assert client.get(f"/api/rounds/{nxt.id}/record", headers=op).status_code == 200
        assert [r.kind for r in service.journal.rows(nxt.id)].count("referee_view") == 1


def test_refused_actions_do_not_pile_up_in_the_public_state(service):
    rnd = _playing(service)
    wrong = next(s for s in range(4) if s != rnd.turn())
    for _ in range(KEEP_REFUSED + 40):
        assert service.act(rnd.id, {"seat": wrong, "action": "pass"})["applied"] is False
    with TestClient(create_app(service)) as client:
        pub = client.get(f"/api/rounds/{rnd.id}").json()
    refused = [a for a in pub["actions"] if not a["applied"]]
    assert len(refused) == KEEP_REFUSED and pub["refused_hidden"] == 40
    assert refused[-1]["index"] == KEEP_REFUSED + 39                   # the newest are the ones kept
    assert sum(r.kind == "action" for r in service.journal.rows(rnd.id)) == KEEP_REFUSED + 40  # all journalled


def test_seats_contribute_to_the_next_deal_against_its_commitment(service):
    import secrets

    op = {"Authorization": f"Bearer {service.tokens.operator_token()}"}
    seat1 = {"Authorization": f"Bearer {service.tokens.new_seat_token(1)}"}
    with TestClient(create_app(service)) as client:
        nxt = client.get("/api/deal/next").json()
        assert nxt["contributed"] == [] and len(nxt["commitment"]) == 64
        share = secrets.token_hex(32)
        body = {"value": share, "commitment": nxt["commitment"]}
        assert client.post("/api/seats/1/contribution", json=body).status_code == 401
        assert client.post("/api/seats/2/contribution", json=body, headers=seat1).status_code == 403
        bad = client.post("/api/seats/1/contribution", json={**body, "value": "zz" * 20}, headers=seat1)
        assert bad.status_code == 422 and "hex" in bad.json()["detail"]
        assert client.post("/api/seats/1/contribution", json=body, headers=seat1).json()["contributed"] == [1]
        assert client.post("/api/seats/1/contribution", json=body, headers=seat1).status_code == 409  # once
        assert client.get("/api/deal/next").json()["contributed"] == [1]
        told = _events(service, "contribution")[-1]
        assert told["seat"] == 1 and told["commitment"] == nxt["commitment"]
        rid = client.post("/api/rounds", json={"game": "hongsi", "bots": "all"}, headers=op).json()["id"]
        # the round is dealt on the committed seed; the next deal has a fresh one, and old shares are refused
        start = service.journal.rows(rid)[0]
        assert start.kind == "round_start" and start.data["commitment"] == nxt["commitment"]
        after = client.get("/api/deal/next").json()
        assert after["commitment"] != nxt["commitment"] and after["contributed"] == []
        late = client.post("/api/seats/1/contribution", json=body, headers=seat1)
        assert late.status_code == 409 and "started" in late.json()["detail"]
        assert share not in str(_events(service, "contribution"))   # the value is not broadcast
