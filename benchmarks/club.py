"""Benchmark the card room (prints figures; no assertions): N software tables publishing to one club.

Each table is a real journal, outbox and publisher (paho-mqtt, TLS, QoS 1) that replays hands at speed:
52 deal events with a card crop each, the deal's end (a receipt), 52 public plays, the hand's end with
its journal rows. All tables run in one child process; the club (``hongsi club serve``) in another, on
a real mosquitto and a real PostgreSQL (fsync on). This process reads the room page's live stream.

Figures: every event and journal row arrived exactly once (counted in PostgreSQL and on the page's
stream); the latency of an event from the table queueing it to the room page's stream (median, p95);
the CPU of the club, the broker and PostgreSQL, per table.

Run: ``.venv/bin/python benchmarks/club.py [--tables 20] [--hands 3] [--rate 20]``  (``--quick``: 3 tables).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import psycopg
from rich.progress import Progress

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller.club.accounts import add_staff  # noqa: E402
from controller.club.local import LocalBroker, LocalPostgres, free_port, wait_port  # noqa: E402
from controller.club.outbox import Outbox  # noqa: E402
from controller.club.publisher import ClubLink, Publisher  # noqa: E402
from controller.club.store import migrate  # noqa: E402
from controller.journal import Journal  # noqa: E402

ROOM = "bench"
CARDS = 52


def replay_hand(journal: Journal, pub: Publisher, rng: random.Random, pause: float) -> int:
    """One hand, as the service would journal and publish it (public events only)."""
    rnd = journal.new_round({"game": "hongsi"})
    pub.event({"type": "round", "round": rnd, "game": "hongsi", "phase": "dealing"})
    for i in range(CARDS):
        journal.append(rnd, "card_read", {"index": i, "label": "H4"}, image=rng.randbytes(1500))
        pub.event({"type": "deal", "round": rnd, "dealt": i + 1, "total": CARDS})
        time.sleep(pause)
    journal.append(rnd, "deal_end", {"record": {"hands": "as dealt"}})
    pub.event({"type": "dealt", "round": rnd, "first_player": 0, "phase": "playing"})
    for i in range(CARDS):
        journal.append(rnd, "action", {"index": i, "seat": i % 4})
        pub.event({"type": "action", "round": rnd, "seat": i % 4, "applied": True, "cards": ["S5"]})
        time.sleep(pause)
    scores = [rng.randint(-3, 3) for _ in range(3)]
    journal.append(rnd, "round_end", {"status": "done", "scores": [*scores, -sum(scores)]})
    pub.event({"type": "finished", "round": rnd, "ledger": [*scores, -sum(scores)]})
    return rnd


def run_tables(folder: str, urls: dict[str, str], hands: int, rate: float, done: Any) -> None:
    """The child process: every table in its own thread, replaying ``hands`` hands; then wait for acks."""
    tables = {}
    for name, url in urls.items():
        journal = Journal(Path(folder) / name / "journal.db", durable=False)
        pub = Publisher(ClubLink.parse(url), Outbox(Path(folder) / name / "outbox.db"), journal=journal.path,
                        health_s=5.0).start()
        tables[name] = (journal, pub)

    def play(name: str) -> None:
        journal, pub = tables[name]
        rng = random.Random(name)
        for _ in range(hands):
            replay_hand(journal, pub, rng, 1.0 / rate)

    threads = [threading.Thread(target=play, args=(n,)) for n in tables]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    end = time.monotonic() + 120
    while time.monotonic() < end and any(len(p.outbox) for _j, p in tables.values()):
        time.sleep(0.2)
    summary = {n: {"rows": len(j.rows()), "sent": p.outbox.acked, "left": len(p.outbox), "resends": p.resends}
               for n, (j, p) in tables.items()}
    for journal, pub in tables.values():
        pub.close()
        journal.close()
    summary["cpu"] = time.process_time()
    done.put(summary)


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])     # utime + stime
        except (OSError, IndexError):
            pass
    return total / os.sysconf("SC_CLK_TCK")


def children(parent: int) -> list[int]:
    out = [parent]
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == parent:
                out.append(int(stat.parent.name))
        except (OSError, IndexError, ValueError):
            pass
    return out


def cookies(port: int) -> Any:
    got = httpx.post(f"http://127.0.0.1:{port}/api/login", json={"name": "bench", "password": "bench password"})
    return got.cookies


def read_stream(url: str, got: list, stop: threading.Event) -> None:
    with httpx.Client(base_url=url, timeout=httpx.Timeout(5.0, read=None)) as http:
        http.post("/api/login", json={"name": "bench", "password": "bench password"}).raise_for_status()
        try:
            with http.stream("GET", "/api/events") as resp:
                for line in resp.iter_lines():
                    if line.startswith("data: "):
                        got.append((time.time(), json.loads(line[6:])))
                    if stop.is_set():
                        return
        except httpx.HTTPError:   # the club stopped at the end of the run
            return


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--hands", type=int, default=3)
    ap.add_argument("--rate", type=float, default=20.0, help="events per second per table")
    ap.add_argument("--quick", action="store_true", help="3 tables, 1 hand")
    ap.add_argument("--offline", type=int, default=0, metavar="HANDS",
                    help="instead: one table offline for HANDS hands, then its catch-up")
    args = ap.parse_args()
    if args.offline:
        offline_catch_up(args.offline)
        return
    if args.quick:
        args.tables, args.hands = 3, 1
    names = [f"t{i:02d}" for i in range(1, args.tables + 1)]
    work = Path(tempfile.mkdtemp(prefix="hongsi-clubbench-"))
    work.chmod(0o755)
    users = {"club": "club password", **{n: f"pw-{n}" for n in names}}
    pg = LocalPostgres(work / "pg").start()
    broker = LocalBroker(work / "mqtt", ROOM, users).start()
    migrate(pg.dsn)
    add_staff(pg.dsn, "bench", "bench password")
    port = free_port()
    env = {**os.environ, "HONGSI_CLUB_BROKER": broker.url("club").replace(f"/{ROOM}/club", f"/{ROOM}"),
           "HONGSI_CLUB_DATABASE": pg.dsn}
    club = subprocess.Popen([sys.executable, "-m", "controller.cli", "club", "serve", "--port", str(port)],
                            env=env, stderr=subprocess.DEVNULL)
    got: list = []
    stop = threading.Event()
    try:
        wait_port(port, 30)
        reader = threading.Thread(target=read_stream, args=(f"http://127.0.0.1:{port}", got, stop), daemon=True)
        reader.start()
        time.sleep(0.5)
        pg_pid = int((pg.data / "postmaster.pid").read_text().split()[0])
        assert broker.proc is not None
        procs = {"club": [club.pid], "broker": [broker.proc.pid], "postgres": children(pg_pid)}
        cpu0 = {k: cpu_seconds(v) for k, v in procs.items()}
        t0 = time.monotonic()
        ctx = multiprocessing.get_context("spawn")
        done = ctx.Queue()
        tables = ctx.Process(target=run_tables, args=(str(work / "tables"), {n: broker.url(n) for n in names},
                                                     args.hands, args.rate, done))
        tables.start()
        expected = args.tables * args.hands * (2 * CARDS + 3)
        with Progress() as bar:
            task = bar.add_task(f"{args.tables} tables x {args.hands} hands", total=expected)
            while tables.is_alive() and done.empty():
                bar.update(task, completed=sum(1 for _t, e in got if e.get("type") == "event"))
                time.sleep(0.3)
            bar.update(task, completed=sum(1 for _t, e in got if e.get("type") == "event"))
        summary = done.get(timeout=180)
        wall = time.monotonic() - t0
        tables_cpu = summary.pop("cpu")
        procs["postgres"] = children(pg_pid)
        cpu = {k: cpu_seconds(v) - cpu0[k] for k, v in procs.items()}
        tables.join()
        time.sleep(1.0)
        stop.set()
        club_counts = httpx.get(f"http://127.0.0.1:{port}/api/tables", cookies=cookies(port)).json()
        print(f"the club received {club_counts['received']} envelopes, stored {club_counts['stored']}; "
              f"the tables went back to resend {sum(s['resends'] for s in summary.values())} times")
        report(pg.dsn, names, summary, got, expected, wall, cpu, args)
        print(f"CPU of the {args.tables} software tables (one process): {tables_cpu:.1f} s = "
              f"{100 * tables_cpu / wall:.0f}% of one core; load average now {os.getloadavg()[0]:.1f} on "
              f"{os.cpu_count()} cores")
    finally:
        club.send_signal(signal.SIGTERM)
        try:
            club.wait(10)
        except subprocess.TimeoutExpired:
            club.kill()
        broker.stop()
        pg.stop("immediate")
        shutil.rmtree(work, ignore_errors=True)


def offline_catch_up(hands: int) -> None:
    """One table offline for ``hands`` hands (a real table plays ~1 a minute: 10 = ten minutes), then
    the broker comes back: how long the catch-up takes, and whether it arrived whole and in order."""
    work = Path(tempfile.mkdtemp(prefix="hongsi-clubbench-"))
    work.chmod(0o755)
    pg = LocalPostgres(work / "pg").start()
    broker = LocalBroker(work / "mqtt", ROOM, {"club": "club password", "t01": "pw"})
    from controller.club.server import ClubServer

    try:
        club = ClubServer(pg.dsn, ClubLink.parse(broker.url("club"))).start()
        journal = Journal(work / "t01" / "journal.db", durable=False)
        pub = Publisher(ClubLink.parse(broker.url("t01")), Outbox(work / "t01" / "outbox.db"),
                        journal=journal.path).start()
        rng = random.Random(1)
        for _ in range(hands):
            replay_hand(journal, pub, rng, 0.0)
        while len(pub.outbox) < hands * (2 * CARDS + 3 + CARDS + 2):
            time.sleep(0.1)      # the tailer queues the receipts, rows and crops
        queued = len(pub.outbox)
        size = sum(f.stat().st_size for f in (work / "t01").glob("outbox.db*"))
        broker.start()
        t0 = time.monotonic()
        while len(pub.outbox):
            time.sleep(0.05)
        took = time.monotonic() - t0
        with psycopg.connect(pg.dsn) as db:
            order = [r[0] for r in db.execute("SELECT seq FROM message ORDER BY stored, seq")]
            rows = db.execute("SELECT count(*) FROM journal_row").fetchone()[0]
        print(f"offline for {hands} hands: {queued} messages queued ({size / 1e6:.1f} MB on disk); caught up in "
              f"{took:.1f} s after the broker came back; all {len(order)} stored, in order: {order == sorted(order)}; "
              f"journal rows {rows} of {len(journal.rows())}")
        pub.close()
        club.close()
        journal.close()
    finally:
        broker.stop()
        pg.stop("immediate")
        shutil.rmtree(work, ignore_errors=True)


def report(dsn: str, names: list[str], summary: dict, got: list, expected: int, wall: float, cpu: dict,
           args: Any) -> None:
    with psycopg.connect(dsn) as db:
        msgs = dict(db.execute("SELECT tbl, count(*) FROM message GROUP BY tbl").fetchall())
        events = dict(db.execute("SELECT tbl, count(*) FROM message WHERE kind='event' GROUP BY tbl").fetchall())
        rows = dict(db.execute("SELECT tbl, count(*) FROM journal_row GROUP BY tbl").fetchall())
        flags = db.execute("SELECT count(*) FROM flag").fetchone()[0]
    seen: dict[tuple[str, int], int] = {}
    latency = []
    for at, e in got:
        if e.get("type") == "event":
            key = (e["table"], e["seq"])
            seen[key] = seen.get(key, 0) + 1
            latency.append(at - e["sent"])
    once_db = all(msgs.get(n, 0) == summary[n]["sent"] and rows.get(n, 0) == summary[n]["rows"]
                  and summary[n]["left"] == 0 for n in names)
    once_page = sum(events.values()) == expected == len(seen) and all(v == 1 for v in seen.values())
    latency.sort()
    print(f"tables {args.tables}, hands each {args.hands}, {args.rate:g} events/s per table, wall {wall:.1f} s")
    print(f"events stored {sum(events.values())} (expected {expected}); journal rows stored {sum(rows.values())} "
          f"(tables hold {sum(s['rows'] for s in summary.values())}); messages {sum(msgs.values())}; flags {flags}")
    print(f"exactly once in PostgreSQL: {once_db}; every event once on the room page's stream: {once_page}")
    print(f"event latency table -> room page: median {statistics.median(latency) * 1000:.1f} ms, "
          f"p95 {latency[int(0.95 * (len(latency) - 1))] * 1000:.1f} ms, max {latency[-1] * 1000:.1f} ms "
          f"({len(latency)} events)")
    for k, v in cpu.items():
        print(f"CPU {k}: {v:.2f} s = {100 * v / wall:.1f}% of one core; per table {100 * v / wall / args.tables:.2f}%")


if __name__ == "__main__":
    main()
