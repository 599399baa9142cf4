"""Whole hands through the HTTP API: bots in empty seats, one seat played through the API, every public
response and every live event collected — and not one hidden card in any of them."""

from __future__ import annotations

import random
import time

import httpx
import pytest
from svc_helpers import SSECollector, card_strings, wait_for


def _allowed_cards(public: dict) -> set[str]:
    """Cards a public snapshot may show: those of its applied plays, and the called card."""
    out = set()
    for a in public["actions"]:
        if a["applied"]:
            out |= set(a.get("cards") or [])
            if a["action"] == "call":
                out.add(a["card"])
    return out


def _play_hand(live, client: httpx.Client, rid: int, seat_token: str, rng: random.Random, snapshots: list) -> None:
    """Seat 0 through the API (sometimes an illegal try first), the others bots; poll public views."""
    auth = {"Authorization": f"Bearer {seat_token}"}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for path in (f"/api/rounds/{rid}", "/api/health", "/api/rounds", "/api/ledger"):
            resp = client.get(path)
            assert resp.status_code == 200
            snapshots.append((path, resp.json()))
        pub = snapshots[-4][1]
        if pub["phase"] == "finished":
            return
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


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_whole_hands_never_show_a_hidden_card(live, seed):
    svc = live.svc
    rng = random.Random(seed)
    seat_token = svc.tokens.new_seat_token(0)
    op = {"Authorization": f"Bearer {svc.tokens.operator_token()}"}
    sse = SSECollector(live.url).start()
    snapshots: list[tuple[str, dict]] = []
    with httpx.Client(base_url=live.url, timeout=10) as client:
        rid = client.post("/api/rounds", json={"game": "hongsi", "first_seat": seed % 4}, headers=op).json()["id"]
        assert client.get(f"/api/rounds/{rid}").json()["bots"] == [1, 2, 3]  # empty seats: bots
        _play_hand(live, client, rid, seat_token, rng, snapshots)
        record = client.get(f"/api/rounds/{rid}/record").json()  # public now: the hand is over
    wait_for(lambda: any(ev["type"] == "finished" for _t, ev in sse.events))
    sse.stop(svc)
    # every public snapshot taken during the hand shows no card beyond the ones played (or called) so far
    dealt = {c for h in record["hands"] for c in h}
    assert len(dealt) == 52
    in_hand = 0
    for path, snap in snapshots:
        if path != f"/api/rounds/{rid}":
            assert not card_strings(snap), snap
        elif snap["phase"] in ("dealing", "playing"):
            in_hand += 1
            shown = card_strings(snap)
            assert shown <= _allowed_cards(snap), shown - _allowed_cards(snap)
            for a in snap["actions"]:  # and the public actions are the record's
                ev = record["events"][a["index"]]
                assert (ev["seat"], ev["action"]) == (a["seat"], a["action"])
                if a["applied"] and "cards" in a:
                    assert a["cards"] == ev["cards"]
    assert in_hand > 3
    # the live events, in order: a card appears only once its play (or call) was published
    public_so_far: set[str] = set()
    types = []
    for _t, ev in sse.events:
        types.append(ev["type"])
        if ev["type"] == "finished":
            break
        if ev["type"] == "action" and ev.get("applied"):
            public_so_far |= set(ev.get("cards") or []) | ({ev["card"]} if ev.get("card") else set())
        leaked = card_strings(ev) - public_so_far
        assert not leaked, (ev, leaked)
    assert {"round", "deal", "dealt", "action", "finished"} <= set(types)
    assert types.count("deal") == 52
    # the hand is refereed: a finished, zero-sum verdict, the ledger moved by the scores
    verdict = record["verdict"]
    assert verdict["finished"] and sum(verdict["scores"]) == 0
    assert svc.ledger_list() == verdict["scores"]
    refused = [i for i, ev in enumerate(record["events"])
               if any(v["event"] == i and v["severity"] == "error" for v in verdict["violations"])]
    assert all(record["events"][i]["seat"] == 0 for i in refused)  # only the human tried illegal plays


def test_counts_are_announced_into_the_record_and_the_display(service):
    rnd = service.start_round(game="hongsi", first_seat=0, bots="all")
    wait_for(lambda: rnd.phase == "finished", timeout=30)
    rec = rnd.record()
    announces = [e for e in rec["events"] if e["action"] == "announce"]
    assert announces and all(1 <= e["count"] <= 3 for e in announces)
    verdict = rnd.result()
    assert not [v for v in verdict["violations"] if v["rule"] == "count"]  # the service announced each in time
    wait_for(lambda: any("本局结束" in e["text_zh"] for e in service.voice.said))
    said = [e["text_zh"] for e in service.voice.said]
    assert any("剩" in t for t in said) and any("先出" in t for t in said) and any("本局结束" in t for t in said)


def test_estop_pauses_the_round_and_clear_resumes(service):
    from fastapi.testclient import TestClient

    from controller.service.app import create_app

    op = {"Authorization": f"Bearer {service.tokens.operator_token()}"}
    tok = {"Authorization": f"Bearer {service.tokens.new_seat_token(0)}"}
    with TestClient(create_app(service)) as client:
        rnd = service.start_round(game="hongsi", first_seat=0, bots=[1, 2, 3])
        wait_for(lambda: rnd.phase == "playing")
        assert client.post("/api/estop", headers=op).json()["estop"] is True
        assert client.get(f"/api/rounds/{rnd.id}").json()["paused"] is True
        before = len(rnd.events)
        resp = client.post(f"/api/rounds/{rnd.id}/events", json={"seat": 0, "action": "pass"}, headers=tok)
        assert resp.status_code == 409 and "paused" in resp.json()["detail"]
        time.sleep(0.2)
        assert len(rnd.events) == before  # bots wait too
        assert client.post("/api/rounds", json={}, headers=op).status_code == 409
        client.post("/api/clear", headers=op)
        assert client.get(f"/api/rounds/{rnd.id}").json()["paused"] is False


def test_estop_during_the_deal_interrupts_it_then_resume_or_void(tmp_path):
    from controller.service.deal import SoftwareDealSource
    from controller.service.table import ServiceError, TableService

    svc = TableService(tmp_path, SoftwareDealSource(card_delay=0.01, seed=1), bot_delay=0)
    try:
        rnd = svc.start_round(bots=[])
        wait_for(lambda: rnd.dealt >= 5)
        svc.estop()
        wait_for(lambda: rnd.phase == "interrupted")
        dealt = rnd.dealt
        time.sleep(0.1)
        assert rnd.dealt == dealt < 52  # motors off: no more cards
        with pytest.raises(ServiceError):
            svc.resume(rnd.id)  # the e-stop must be cleared first
        svc.clear_fault()
        svc.resume(rnd.id)
        wait_for(lambda: rnd.phase == "playing")
        assert sorted(len(h) for h in rnd.hands) == [13, 13, 13, 13]
        # a second deal, voided while interrupted
        svc.void(rnd.id)
        r2 = svc.start_round(bots=[])
        wait_for(lambda: r2.dealt >= 3)
        svc.estop()
        wait_for(lambda: r2.phase == "interrupted")
        svc.clear_fault()
        svc.void(r2.id)
        wait_for(lambda: r2.phase == "void")
        wait_for(lambda: svc.journal.status(r2.id) == "void")
        assert svc.start_round(bots=[]).id == r2.id + 1
    finally:
        svc.close()


def test_other_games_run_generically_through_the_service(service):
    from engine.registry import get_game

    try:
        get_game("wakeng")
    except ImportError:
        pytest.skip("wakeng engine not installed")
    rnd = service.start_round(game="wakeng", first_seat=0, bots="all")
    wait_for(lambda: rnd.phase in ("finished", "interrupted"), timeout=30)
    assert rnd.phase == "finished", rnd.message
    assert rnd.plan.seats == 3 and sum(rnd.result()["scores"]) == 0
