"""Bad input: the broker refuses a table writing under another's topic; a forged receipt or a changed
history is flagged (and shows on the room page); a malformed message is logged and dropped."""

from __future__ import annotations

import logging

from club_helpers import SoftTable, club_for, count, flags, raw_client, send, wait_for
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi.testclient import TestClient

from controller.club.accounts import add_staff
from controller.club.messages import Receipt, sign
from controller.club.page import create_app


def test_a_table_cannot_publish_under_another_tables_topic(broker, dsn):
    club = club_for(dsn, broker)
    t1 = raw_client(broker, "t1")
    try:
        send(t1, "t2", "event", 1, {"type": "estop", "reason": "forged by t1"})   # t2's topic: denied
        send(t1, "t1", "event", 1, {"type": "round", "round": 1})                # its own: delivered
        wait_for(lambda: count(dsn, "SELECT count(*) FROM message WHERE tbl='t1'") == 1, why="t1's own event")
        assert count(dsn, "SELECT count(*) FROM message WHERE tbl='t2'") == 0
        assert count(dsn, "SELECT count(*) FROM club_table WHERE tbl='t2'") == 0
        assert raw_client(broker, "t1", password="wrong password") is None      # no table without its password
        assert raw_client(broker, "intruder", password="x") is None
    finally:
        t1.disconnect()
        t1.loop_stop()
        club.close()


def test_a_forged_receipt_and_a_changed_history_are_flagged_on_the_room_page(tmp_path, broker, dsn):
    club = club_for(dsn, broker)
    key = Ed25519PrivateKey.generate()
    table = SoftTable(tmp_path, broker, "t1", signer=lambda r: sign(r, key)).start()
    try:
        table.hand()
        wait_for(lambda: len(table.pub.outbox) == 0 and count(dsn, "SELECT count(*) FROM journal_row") == len(
                 table.journal.rows()),
                 why="the first hand archived")
        assert flags(dsn, "t1") == []
        rows = [r for r in table.journal.rows()]
        deal_end = next(r for r in rows if r.kind == "deal_end")
        # a receipt with a bad signature, then one signed by another key, then one naming another head
        bad = sign(Receipt(1, 99, "reveal", "c" * 64), key)
        table.pub._queue("receipt", {**bad.to_body(), "signature": "00" * 64})
        table.pub._queue("receipt", sign(Receipt(1, 98, "reveal", "d" * 64), Ed25519PrivateKey.generate()).to_body())
        table.pub._queue("receipt", sign(Receipt(1, deal_end.seq, "deal_end", "e" * 64), key).to_body())
        # the table's history rewritten: its card_read row says another card, with a fresh hash chain
        from controller.club.messages import row_to_body
        from controller.journal import Journal

        forged = Journal(tmp_path / "forged.db", durable=False)
        r = forged.new_round({"game": "hongsi"})
        forged.append(r, "card_read", {"index": 0, "label": "SA"})
        table.pub._queue("rows", {"round": 1, "rows": [row_to_body(x) for x in forged.rows()]})
        forged.close()
        wait_for(lambda: len(flags(dsn, "t1")) >= 5, why="five flags")
        text = " | ".join(flags(dsn, "t1"))
        assert "bad signature" in text and "another key" in text and "two receipts" in text
        assert "history was rewritten" in text
        add_staff(dsn, "anna", "a long password")
        with TestClient(create_app(club), base_url="http://club.example") as http:
            assert http.get("/api/tables").status_code == 401
            assert http.post("/api/login", json={"name": "anna", "password": "wrong one"}).status_code == 401
            assert http.post("/api/login", json={"name": "anna"}).status_code == 422
            assert http.post("/api/login", json={"name": "anna", "password": "a long password"}).status_code == 200
            got = http.get("/api/tables")
            assert got.status_code == 200, got.text
            t1 = next(t for t in got.json()["tables"] if t["table"] == "t1")
            assert len(t1["flags"]) >= 5 and any("bad signature" in f["reason"] for f in t1["flags"])
            past = http.get("/api/tables/t1/rounds/1").json()
            assert [x["seq"] for x in past["rows"]] == [x.seq for x in rows]
            assert http.get("/api/tables/t1/rounds/7").status_code == 404
            assert http.get("/api/tables/NOT%20A%20TABLE/rounds/1").status_code == 422
            assert http.get("/api/tables/t1/rounds/0").status_code == 422
    finally:
        table.close()
        club.close()


def test_a_malformed_message_is_logged_and_dropped_and_the_club_goes_on(broker, dsn, caplog):
    club = club_for(dsn, broker)
    t1 = raw_client(broker, "t1")
    caplog.set_level(logging.WARNING, logger="hongsi.club")
    try:
        topic = "hongsi/room1/t1/event"
        for payload in (b"\xff\xfe not json", b"[]", b'{"table":"t2","seq":1,"kind":"event","body":{},"sent":0}',
                        b'{"table":"t1","seq":-4,"kind":"event","body":{},"sent":0}', b"{" * 100000):
            t1.publish(topic, payload, qos=1).wait_for_publish(5)
        send(t1, "t1", "receipt", 1, {"round": "x"})               # a well-formed envelope, a bad receipt
        send(t1, "t1", "event", 2, {"type": "round", "round": 1})
        wait_for(lambda: count(dsn, "SELECT count(*) FROM message WHERE tbl='t1'") == 2, why="the good ones")
        assert club.dropped == 6
        assert count(dsn, "SELECT acked FROM club_table WHERE tbl='t1'") == 2   # the stream is not stuck
        assert sum("dropped" in r.getMessage() for r in caplog.records) == 6
    finally:
        t1.disconnect()
        t1.loop_stop()
        club.close()
