"""A table's hand reaches the club whole: events, receipts, journal rows and crops, each once, and
acknowledged (the outbox empties)."""

from __future__ import annotations

from club_helpers import SoftTable, club_for, count, flags, wait_for


def test_a_hand_arrives_once_and_is_acknowledged(tmp_path, broker, dsn):
    club = club_for(dsn, broker)
    table = SoftTable(tmp_path, broker, "t1").start()
    try:
        rnd = table.hand()
        wait_for(lambda: len(table.pub.outbox) == 0 and table.pub.outbox.acked >= 9, why="acknowledged")
        assert count(dsn, "SELECT count(*) FROM message WHERE tbl='t1' AND kind='event'") == 7
        assert count(dsn, "SELECT count(*) FROM journal_row WHERE tbl='t1' AND round=%s", rnd) == len(
            table.journal.rows(rnd))  # the hand's rows, its signed receipt rows among them
        assert count(dsn, "SELECT count(*) FROM crop WHERE tbl='t1'") == 4
        assert count(dsn, "SELECT count(*) FROM receipt WHERE tbl='t1'") == len(
            [r for r in table.journal.rows(rnd) if r.kind == "receipt"])  # the deal's end and the hand's
        assert count(dsn, "SELECT count(*) FROM ledger WHERE tbl='t1'") == 4
        acked = count(dsn, "SELECT acked FROM club_table WHERE tbl='t1'")
        assert acked == count(dsn, "SELECT max(seq) FROM message WHERE tbl='t1'")
        assert flags(dsn, "t1") == []
    finally:
        table.close()
        club.close()
