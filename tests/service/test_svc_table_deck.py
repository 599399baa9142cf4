"""The table's own deck on the operator page (issue 28): the operator picks an enrolled deck and the next
deals read with it (the real dealer on the virtual rig, the real reader, the page in Debian's chromium); an
unknown deck, a choice mid-deal and a table without a camera are refused in one line and change nothing."""

from __future__ import annotations

import os

import httpx
import numpy as np
import pytest
from svc_helpers import LiveServer, rig_parts_missing, wait_for

from controller.service.app import create_app
from controller.service.deal import SoftwareDealSource
from controller.service.table import TableService

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]
DESIGN = "poker"  # the virtual deck's look, one design for every card (as a real deck)


def test_a_table_without_a_camera_takes_no_deck(tmp_path):
    svc = TableService(tmp_path / "data", SoftwareDealSource(card_delay=0.0, seed=4), seed=2)
    srv = LiveServer(create_app(svc), svc).start()
    try:
        op = {"Authorization": f"Bearer {svc.tokens.operator_token()}"}
        with httpx.Client(base_url=srv.url, timeout=10) as c:
            assert c.get("/api/decks").json() == {"reads": False, "current": None, "available": []}
            r = c.put("/api/deck", json={"name": "casino"}, headers=op)
            assert r.status_code == 409 and "without a camera" in r.json()["detail"]
            assert c.put("/api/deck", json={"name": "casino"}).status_code == 401
            assert c.put("/api/deck", json={"name": 3}, headers=op).status_code == 422
    finally:
        srv.stop()
        svc.close()


@pytest.fixture
def rig_table(tmp_path):
    if rig_parts_missing() is not None:
        pytest.skip(rig_parts_missing())
    from controller.config import load_config
    from controller.journal import Journal
    from controller.service.deal import RigDealSource
    from firmware_bridge.sim import VirtualRig
    from vision.enroll import Embedder, enrol
    from vision.labels import LABELS
    from vision.reader import MODEL_PATH
    from vision.render import render_window_frame

    data = tmp_path / "data"
    rng = np.random.default_rng(5)  # one window frame per card, as `hongsi vision enroll` takes them
    refs = enrol(Embedder(MODEL_PATH), [(render_window_frame(lab, rng, design=DESIGN), lab, lab) for lab in LABELS],
                 "window")
    refs.save(data, "club-poker")
    vr = VirtualRig(seed=5, speed=40, design=DESIGN)
    ends = vr.start()
    cfg = load_config(env={"HONGSI_SHUFFLE_PASSES": "1", "HONGSI_VOICE": "false", "HONGSI_DATA_DIR": str(data)})
    journal = Journal(tmp_path / "journal.db")
    source = RigDealSource.open(serial=ends["serial"], camera_url=ends["camera"], journal=journal, config=cfg,
                                load_deck=vr.board.load_deck)
    svc = TableService(tmp_path, source, journal=journal, seed=1)
    srv = LiveServer(create_app(svc), svc).start()
    yield srv, vr
    srv.stop()
    svc.close()
    vr.stop()


@pytest.mark.slow
def test_the_operator_picks_the_enrolled_deck_and_the_next_deal_reads_with_it(rig_table):
    srv, vr = rig_table
    svc, source = srv.svc, srv.svc.deal_source
    op = {"Authorization": f"Bearer {svc.tokens.operator_token()}"}
    with httpx.Client(base_url=srv.url, timeout=10) as c:
        assert c.get("/api/decks").json() == {"reads": True, "current": None, "available": ["club-poker"]}
        r = c.put("/api/deck", json={"name": "club-porker"}, headers=op)
        assert r.status_code == 404 and "club-poker" in r.json()["detail"]  # says which decks there are
        assert source.reader.deck is None and source.deck is None  # nothing changed
        assert c.put("/api/deck", json={"name": "club-poker"}).status_code == 401

        if os.path.exists(CHROMIUM):  # the page: the enrolled deck is offered, and picking it sends it
            from playwright.sync_api import sync_playwright

            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                page = browser.new_page()
                errors: list[str] = []
                page.on("pageerror", lambda exc: errors.append(str(exc)))
                page.goto(srv.url + f"/operator#t={svc.tokens.operator_token()}")
                page.wait_for_function("document.querySelectorAll('#table-deck option').length === 2")
                assert page.is_visible("#table-deck") and page.input_value("#table-deck") == ""
                page.select_option("#table-deck", "club-poker")
                wait_for(lambda: source.deck == "club-poker")
                page.wait_for_function("document.getElementById('msg').innerText.includes('club-poker')")
                browser.close()
                assert not errors
        else:
            assert c.put("/api/deck", json={"name": "club-poker"}, headers=op).status_code == 200
        assert c.get("/api/decks").json()["current"] == "club-poker" and source.reader.deck is not None

        rnd = svc.start_round(game="hongsi", bots="all")
        wait_for(lambda: rnd.phase == "dealing" and rnd.dealt >= 1, timeout=60)
        r = c.put("/api/deck", json={"name": None}, headers=op)
        assert r.status_code == 409 and source.deck == "club-poker"  # not mid-deal
        wait_for(lambda: rnd.phase in ("void", "interrupted", "playing", "finished"), timeout=180)
        assert rnd.phase in ("playing", "finished"), rnd.message
        truth = vr.truth()
        assert [sorted(str(x) for x in h) for h in rnd.hands] == [sorted(h) for h in truth["hands"]]
        chosen = [row.data for row in svc.journal.rows_of_kind("deck")]
        assert chosen == [{"name": "club-poker"}]
        assert [row.data for row in svc.journal.rows(rnd.id) if row.kind == "reader"] == [{"deck": "club-poker"}]
        assert svc.journal.verify().ok
