"""The archive's checks straight on PostgreSQL (no broker): rows in any order link up; a row that does
not link to its held neighbours, or differs from its receipt, is flagged; a resend is stored once."""

from __future__ import annotations

import time

from club_helpers import count, flags

from controller.club.messages import Envelope, Receipt, row_to_body
from controller.club.store import Store, migrate
from controller.journal import Journal


def journal_rows(path, n: int = 6) -> list[dict]:
    j = Journal(path, durable=False)
    r = j.new_round({"game": "hongsi"})
    for i in range(n - 3):
        j.append(r, "card_read", {"index": i, "label": "H4"})
    j.append(r, "deal_end", {})
    j.append(r, "round_end", {"status": "done", "scores": [1, -1, 2, -2]})
    rows = [row_to_body(x) for x in j.rows()]
    j.close()
    return rows


def env(seq: int, kind: str, body: dict) -> tuple[str, Envelope]:
    return ("room1", Envelope("t1", seq, kind, body, time.time()))


def test_rows_in_any_order_link_up_and_a_resend_is_kept_once(tmp_path, dsn):
    migrate(dsn)
    rows = journal_rows(tmp_path / "j.db")
    store = Store(dsn)
    try:
        deal_end = rows[-2]
        store.ingest([env(1, "receipt", Receipt(1, deal_end["seq"], "deal_end", deal_end["hash"]).to_body())])
        store.ingest([env(3, "rows", {"round": 1, "rows": rows[3:]})])          # the later half first
        out = store.ingest([env(2, "rows", {"round": 1, "rows": rows[:3]}), env(2, "rows", {"round": 1, "rows": rows[:3]})])
        assert out.acks[("room1", "t1")] == 3 and out.stored == 1
        assert store.ingest([env(3, "rows", {"round": 1, "rows": rows[3:]})]).stored == 0   # a resend
        assert count(dsn, "SELECT count(*) FROM journal_row") == len(rows)
        assert count(dsn, "SELECT count(*) FROM ledger") == 4
        assert flags(dsn, "t1") == []
    finally:
        store.close()


def test_a_row_that_breaks_the_chain_or_its_receipt_is_flagged(tmp_path, dsn):
    migrate(dsn)
    rows = journal_rows(tmp_path / "a.db")
    other = journal_rows(tmp_path / "b.db")          # another history: same seqs, other hashes
    store = Store(dsn)
    try:
        store.ingest([env(1, "receipt", Receipt(1, 5, "deal_end", rows[4]["hash"]).to_body()),
                      env(2, "rows", {"round": 1, "rows": rows[:2] + rows[3:4]})])   # rows 1, 2 and 4 held
        store.ingest([env(3, "rows", {"round": 1, "rows": [other[2], other[4]]})])   # row 3 and 5 from elsewhere
        found = " | ".join(flags(dsn, "t1"))
        assert "row 3 does not link to row 2" in found
        assert "row 4 does not link to row 3" in found
        assert "row 5 does not match its receipt" in found
    finally:
        store.close()
