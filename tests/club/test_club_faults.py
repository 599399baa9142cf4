"""Faults, with nothing lost and nothing stored twice: the broker killed mid-hand, the club killed,
a table offline that catches up in order, PostgreSQL restarted."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import psycopg
from club_helpers import SoftTable, club_for, count, flags, wait_for

from controller.club.local import free_port


def everything_arrived(dsn: str, table: SoftTable) -> bool:
    """The club holds every message the table queued (the outbox is empty) and every journal row."""
    return (len(table.pub.outbox) == 0 and table.pub.outbox.acked > 0
            and count(dsn, "SELECT count(*) FROM journal_row WHERE tbl=%s", table.name) == len(table.journal.rows()))


def assert_exactly_once(dsn: str, table: SoftTable) -> None:
    acked = table.pub.outbox.acked
    assert count(dsn, "SELECT count(*) FROM message WHERE tbl=%s", table.name) == acked
    assert count(dsn, "SELECT acked FROM club_table WHERE tbl=%s", table.name) == acked
    assert count(dsn, "SELECT count(DISTINCT seq) FROM journal_row WHERE tbl=%s", table.name) == len(table.journal.rows())
    assert flags(dsn, table.name) == []


def test_the_broker_killed_and_restarted_mid_hand(tmp_path, broker, dsn):
    club = club_for(dsn, broker)
    table = SoftTable(tmp_path, broker, "t1", resend_after=1.0).start()
    try:
        table.hand()
        table.pub.event({"type": "round", "round": 2, "phase": "dealing"})
        broker.kill()                        # mid-hand, as a power cut would
        table.hand()                         # the table goes on: it never waits for the club
        time.sleep(0.3)
        broker.start()
        wait_for(lambda: everything_arrived(dsn, table), timeout=30, why="everything after the broker came back")
        assert_exactly_once(dsn, table)
    finally:
        table.close()
        club.close()


def test_the_club_killed_and_restarted(tmp_path, broker, dsn):
    env = {**os.environ, "HONGSI_CLUB_BROKER": broker.url("club").replace("/room1/club", "/room1"),
           "HONGSI_CLUB_DATABASE": dsn}
    cmd = [sys.executable, "-m", "controller.cli", "club", "serve", "--port", str(free_port())]

    def start() -> subprocess.Popen:
        return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    table = SoftTable(tmp_path, broker, "t1", resend_after=1.0).start()
    club = start()
    try:
        table.hand()
        wait_for(lambda: everything_arrived(dsn, table), timeout=30, why="the first hand")
        club.send_signal(signal.SIGKILL)
        club.wait()
        table.hand()
        table.hand()
        time.sleep(0.3)
        club = start()
        wait_for(lambda: everything_arrived(dsn, table), timeout=30, why="the hands played while the club was down")
        assert_exactly_once(dsn, table)
    finally:
        club.kill()
        club.wait()
        table.close()


def test_a_table_offline_catches_up_in_order(tmp_path, broker, dsn):
    club = club_for(dsn, broker)
    broker.stop()
    table = SoftTable(tmp_path, broker, "t1").start()   # starts offline: the broker is down
    try:
        for _ in range(5):
            table.hand()
        wait_for(lambda: len(table.pub.outbox) == 5 * 14,
                 why="5 hands queued (7 events, the deal's and the hand's receipts, 4 crops, rows)")
        assert table.pub.outbox.acked == 0
        broker.start()
        wait_for(lambda: everything_arrived(dsn, table), timeout=30, why="the catch-up")
        assert_exactly_once(dsn, table)
        with psycopg.connect(dsn) as db:   # stored in the order the table queued them
            order = [r[0] for r in db.execute("SELECT seq FROM message WHERE tbl='t1' ORDER BY stored, seq")]
        assert order == sorted(order)
    finally:
        table.close()
        club.close()


def test_postgresql_restarted_mid_hand(tmp_path, broker, dsn, pg_cluster):
    club = club_for(dsn, broker)
    table = SoftTable(tmp_path, broker, "t1", resend_after=1.0).start()
    try:
        table.hand()
        wait_for(lambda: everything_arrived(dsn, table), timeout=30, why="the first hand")
        pg_cluster.stop("immediate")         # a crash, not a clean shutdown
        table.hand()
        time.sleep(1.0)                      # the club tries, fails, keeps the batch
        pg_cluster.start()
        table.hand()
        wait_for(lambda: everything_arrived(dsn, table), timeout=30, why="the hands after PostgreSQL came back")
        assert_exactly_once(dsn, table)
    finally:
        table.close()
        club.close()
