"""The one hook on a real table service: ``attach_publisher`` sends exactly the display's public events,
the health, and the hand's journal rows only once the hand is over; the room page shows it live."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import psycopg
from club_helpers import LivePage, club_for, count, flags, wait_for

from controller.club.publisher import attach_publisher
from controller.config import ClubConfig
from controller.service.deal import SoftwareDealSource
from controller.service.table import TableService


def test_a_real_table_joins_the_room_through_the_hook(tmp_path, broker, dsn):
    club = club_for(dsn, broker)
    page = LivePage(club, dsn).start()
    svc = TableService(tmp_path / "data", SoftwareDealSource(card_delay=0.0, seed=7), bot_delay=0.0, seed=3)
    config = SimpleNamespace(data_dir=tmp_path / "data", club=ClubConfig())
    pub = attach_publisher(svc, config, url=broker.url("t1"))
    live: list = []
    reader = threading.Thread(target=page.events, args=(lambda e: e.get("type") == "archived", live), daemon=True)
    reader.start()
    try:
        rid = svc.start_round(game="hongsi", first_seat=0, bots="all").id
        wait_for(lambda: svc.rounds[rid].phase == "finished", timeout=60, why="the bots' hand")
        wait_for(lambda: len(pub.outbox) == 0 and count(dsn, "SELECT count(*) FROM journal_row") ==
                 len(svc.journal.rows()), timeout=20, why="the hand archived")
        with psycopg.connect(dsn) as db:
            stored = [r[0] for r in db.execute("SELECT body FROM message WHERE kind='event' ORDER BY seq")]
            kinds = db.execute("SELECT seq, kind, body FROM message ORDER BY seq").fetchall()
        assert stored == svc.hub.since(0)        # exactly what the display's SSE carries, in order, once
        assert any(k == "health" for _s, k, _b in kinds)
        last_play = max(s for s, k, b in kinds if k == "event" and b["type"] == "action")
        rows_at = min(s for s, k, _b in kinds if k == "rows")
        assert rows_at > last_play               # the hands as dealt left the table only after the last play
        assert count(dsn, "SELECT count(*) FROM receipt WHERE tbl='t1'") >= 1
        assert count(dsn, "SELECT count(*) FROM ledger WHERE tbl='t1'") == 4
        assert flags(dsn, "t1") == []
        reader.join(timeout=20)
        seen = [e for _t, e in live if e.get("type") == "event"]
        assert [e["event"]["id"] for e in seen] == [e["id"] for e in svc.hub.since(0)]
        tables = page.http.get("/api/tables").json()["tables"]
        assert tables[0]["table"] == "t1" and tables[0]["state"]["phase"] == "finished"
        assert page.http.get("/api/ledger").json()["entries"] == 4
        assert page.http.get("/api/ledger.svg").text.count("<polyline") == 4
    finally:
        pub.close()
        svc.close()
        page.stop()
        club.close()
