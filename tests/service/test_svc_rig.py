"""A whole hand through the API on the virtual rig with the real dealer: the firmware behind a pty, the
MJPEG camera on loopback, the ONNX card reader, the SQLite journal — the service in front of it all."""

from __future__ import annotations

import random
import time

import httpx
import pytest
from svc_helpers import (
    LiveServer,
    SSECollector,
    check_no_hidden_cards,
    play_hand,
    rig_parts_missing,
    rig_service,
    wait_for,
)

from controller.service.app import create_app
from controller.service.table import ServiceError

pytestmark = [pytest.mark.slow, pytest.mark.skipif(rig_parts_missing() is not None,
                                                   reason=rig_parts_missing() or "")]


@pytest.fixture
def rig_live(tmp_path):
    svc, vr = rig_service(tmp_path)
    srv = LiveServer(create_app(svc), svc).start()
    yield srv, vr
    srv.stop()
    svc.close()
    vr.stop()


def test_whole_hand_on_the_virtual_rig_through_the_api(rig_live):
    srv, vr = rig_live
    svc = srv.svc
    op = {"Authorization": f"Bearer {svc.tokens.operator_token()}"}
    seat_token = svc.tokens.new_seat_token(0)
    sse = SSECollector(srv.url).start()
    snapshots: list = []
    with httpx.Client(base_url=srv.url, timeout=10) as client:
        rid = client.post("/api/rounds", json={"game": "hongsi", "first_seat": 1, "fair_deal": True},
                          headers=op).json()["id"]
        play_hand(client, rid, seat_token, random.Random(4), snapshots, timeout=180,
                  operator=svc.tokens.operator_token())
        wait_for(lambda: any(ev["type"] == "finished" for _t, ev in sse.events))
        record = client.get(f"/api/rounds/{rid}/record").json()
        sse.stop(svc)
        # the hands the service refereed are the hands the rig really dealt, as the camera read them
        truth = vr.truth()
        assert [sorted(h) for h in record["hands"]] == [sorted(h) for h in truth["hands"]]
        check_no_hidden_cards(snapshots, sse.events, record, rid)
        assert any(p == f"/api/rounds/{rid}" and snap["phase"] == "dealing" and 0 < snap["dealt"] < 52
                   for p, snap in snapshots)
        verdict = record["verdict"]
        assert verdict["finished"] and sum(verdict["scores"]) == 0
        # the fair deal's proof is revealed once the hand is over
        assert record["deal"]["proof"]["commitment"] == record["deal"]["commitment"]
        # the dispute view: every card's camera crop, and the referee's verdict at every step
        view = client.get(f"/api/rounds/{rid}/replay").json()
        assert len(view["cards"]) >= 52 and all(c["image"] for c in view["cards"][:52])
        assert len(view["steps"]) == len(record["events"])
        assert view["steps"][-1]["verdict"]["scores"] == verdict["scores"]
        img = client.get(f"/api/images/{view['cards'][0]['image']}", headers=op)
        assert img.status_code == 200 and img.content[:2] == b"\xff\xd8"  # a JPEG
        assert client.get(f"/api/images/{view['cards'][0]['image']}").status_code == 401
        assert svc.journal.verify().ok


def test_estop_stops_the_rig_mid_deal_then_resume(rig_live):
    srv, vr = rig_live
    svc = srv.svc
    op = {"Authorization": f"Bearer {svc.tokens.operator_token()}"}
    with httpx.Client(base_url=srv.url, timeout=10) as client:
        rid = client.post("/api/rounds", json={"game": "hongsi", "bots": "all"}, headers=op).json()["id"]
        rnd = svc.get_round(rid)

        def resume_if_paused() -> None:
            # a slow machine may pause the deal for a person (the link or the camera was late): resume it,
            # as an operator would; the message says why it paused if it keeps failing
            if rnd.phase == "interrupted":
                client.post(f"/api/rounds/{rid}/resume", headers=op)

        def eight_dealt() -> bool:
            resume_if_paused()
            return rnd.dealt >= 8

        wait_for(eight_dealt, timeout=120, step=0.1, why=lambda: f"{rnd.phase}: {rnd.message} ({rnd.dealt} dealt)")
        assert client.post("/api/estop", headers=op).status_code == 200
        wait_for(lambda: rnd.phase == "interrupted", timeout=30)
        dealt = rnd.dealt
        time.sleep(1.0)
        assert rnd.dealt == dealt < 52  # the rig stopped
        assert client.post(f"/api/rounds/{rid}/resume", headers=op).status_code == 409  # clear first
        assert client.post("/api/clear", headers=op).status_code == 200
        assert client.post(f"/api/rounds/{rid}/resume", headers=op).status_code == 200

        def dealt_or_resumed() -> bool:
            resume_if_paused()
            return rnd.phase in ("playing", "finished")

        wait_for(dealt_or_resumed, timeout=180, step=0.1, why=lambda: f"{rnd.phase}: {rnd.message}")
        assert [sorted(str(c) for c in h) for h in rnd.hands] == [sorted(h) for h in vr.truth()["hands"]]


def test_a_wrong_deck_is_one_clear_line_and_the_virtual_operator_loads_the_right_one(rig_live):
    """The hopper holds one deck; 升级 deals two with jokers. A person who forgot to change decks is told so
    in one line (not 56 'missing' cards); the virtual rig's operator, like `hongsi serve --sim`'s, puts
    the game's deck in, and the 108 cards are dealt and read. A card that jams on
    the way (forced here; CI once met one by chance) pauses the deal, and the operator's clear and resume still
    end it exact."""
    srv, vr = rig_live
    svc = srv.svc
    source, load = svc.deal_source, svc.deal_source.load_deck
    source.load_deck = None  # nobody changes the deck
    rnd = svc.start_round(game="shengji", bots="all")
    wait_for(lambda: rnd.phase in ("void", "interrupted", "playing", "finished"), timeout=120)
    assert rnd.phase == "void", rnd.message
    assert "the hopper held 52 cards, but this deal needs 108, two decks with jokers" in rnd.message
    assert "missing" not in rnd.message and "两副牌（带大小王）" in rnd.message_zh
    source.load_deck = load  # the operator loads two decks with jokers
    rnd = svc.start_round(game="shengji", bots="all")
    pauses: list[str] = []
    wait_for(lambda: rnd.dealt >= 20 or rnd.phase != "dealing", timeout=120)
    vr.board.forced_jams = 3  # one card's three tries all slip: the fault latches and the deal pauses

    def dealt() -> bool:
        # a card the harsh rig jams (its three tries spent) pauses the deal: the operator clears the path and
        # resumes, as at a real table; the deal must still end exact
        if rnd.phase == "interrupted" and len(pauses) < 3:
            pauses.append(str(rnd.message))
            svc.clear_fault()
            try:
                svc.resume(rnd.id)
            except ServiceError:  # it went on by itself meanwhile
                pass
        return rnd.phase in ("void", "playing", "finished") or (rnd.phase == "interrupted" and len(pauses) >= 3)

    wait_for(dealt, timeout=240, step=0.1, why=lambda: f"{rnd.phase}: {rnd.message} (pauses: {pauses})")
    assert rnd.phase in ("playing", "finished"), f"{rnd.message} (pauses: {pauses})"
    assert pauses and "stuck" in pauses[0]  # the jam paused it, and the resumed deal is still exact:
    truth = vr.truth()
    assert [sorted(str(c) for c in h) for h in rnd.hands] == [sorted(h) for h in truth["hands"]]
    assert sorted(str(c) for c in rnd.bottom) == sorted(truth["bottom"]) and rnd.total == 108
