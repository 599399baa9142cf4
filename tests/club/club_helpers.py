"""Helpers of the club tests: a software table (a real journal, outbox and publisher) and waits."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg

from controller.club.outbox import Outbox
from controller.club.publisher import ClubLink, Publisher
from controller.club.server import ClubServer
from controller.journal import Journal

ROOM = "room1"
USERS = {"club": "club-secret", "t1": "secret-one", "t2": "secret-two", "t3": "secret-three"}


def wait_for(pred: Callable[[], Any], timeout: float = 15.0, why: str = "") -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = pred()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {why or pred}")


def club_for(dsn: str, broker: Any) -> ClubServer:
    club = ClubServer(dsn, ClubLink.parse(broker.url("club"))).start()
    assert club.subscribed.wait(15), "the club did not subscribe to the room"
    return club


class SoftTable:
    """One table without a rig: a real journal it writes hands into, and a real publisher."""

    def __init__(self, folder: Path, broker: Any, name: str, **kw: Any):
        self.name = name
        self.journal = Journal(folder / name / "journal.db", durable=False)
        self.outbox_path = folder / name / "outbox.db"
        self.link = ClubLink.parse(broker.url(name))
        self.kw = kw
        self.pub = Publisher(self.link, Outbox(self.outbox_path), journal=self.journal.path, **kw)

    def start(self) -> SoftTable:
        self.pub.start()
        return self

    def restart(self) -> None:
        """The table's service restarted: a new publisher on the same outbox."""
        self.pub.close()
        self.pub = Publisher(self.link, Outbox(self.outbox_path), journal=self.journal.path, **self.kw).start()

    def hand(self, scores: tuple[int, ...] = (2, -1, -1, 0), cards: int = 4, image: bool = True) -> int:
        """Play one hand into the journal and the event stream (what the service does, in small)."""
        rnd = self.journal.new_round({"game": "hongsi"})
        self.pub.event({"type": "round", "round": rnd, "game": "hongsi", "phase": "dealing"})
        for i in range(cards):
            self.journal.append(rnd, "card_read", {"index": i, "label": "H4" if i == 0 else "S5"},
                                image=(f"jpeg-{self.name}-{rnd}-{i}".encode() if image else None))
            self.pub.event({"type": "deal", "round": rnd, "dealt": i + 1, "total": cards})
        self.journal.append(rnd, "deal_end", {"record": {"hands": "secret"}})
        self.pub.event({"type": "dealt", "round": rnd, "first_player": 0, "phase": "playing"})
        self.journal.append(rnd, "round_end", {"status": "done", "scores": list(scores)})
        self.pub.event({"type": "finished", "round": rnd, "ledger": list(scores)})
        return rnd

    def close(self, drain: float = 0.0) -> None:
        self.pub.close(drain)
        self.journal.close()


def count(dsn: str, sql: str, *args: Any) -> int:
    with psycopg.connect(dsn) as db:
        return int(db.execute(sql, args).fetchone()[0])


def flags(dsn: str, table: str) -> list[str]:
    with psycopg.connect(dsn) as db:
        return [r[0] for r in db.execute("SELECT reason FROM flag WHERE tbl=%s ORDER BY id", (table,))]


def raw_client(broker: Any, user: str, password: str | None = None) -> Any:
    """A bare paho client logged in as ``user`` (TLS, the broker's CA); None if the broker refused it."""
    import threading

    from controller.club.publisher import mqtt_client

    link = ClubLink.parse(broker.url(user) if user in USERS else broker.url("t1"))
    link = ClubLink(link.host, link.port, link.room, user, user, password or USERS.get(user), True, link.ca_file)
    client = mqtt_client(f"raw-{user}-{time.monotonic_ns()}", link)
    done, ok = threading.Event(), []
    client.on_connect = lambda c, u, f, rc, p: (ok.append(not rc.is_failure), done.set())
    client.connect(link.host, link.port)
    client.loop_start()
    done.wait(5)
    if not (ok and ok[0]):
        client.loop_stop()
        return None
    return client


def send(client: Any, table: str, kind: str, seq: int, body: dict, room: str = ROOM) -> None:
    from controller.club.messages import Envelope, topic

    client.publish(topic(room, table, kind), Envelope(table, seq, kind, body, time.time()).to_bytes(),
                   qos=1).wait_for_publish(5)


class LivePage:
    """The club's room page on a free loopback port (uvicorn in a thread), logged in as a staff member."""

    def __init__(self, club: Any, dsn: str):
        import uvicorn

        from controller.club.accounts import add_staff
        from controller.club.page import create_app

        add_staff(dsn, "staff", "staff password")
        self.server = uvicorn.Server(uvicorn.Config(create_app(club), host="127.0.0.1", port=0, log_level="warning"))
        import threading

        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> LivePage:
        import httpx

        self.thread.start()
        wait_for(lambda: self.server.started, timeout=10, why="the room page")
        self.url = f"http://127.0.0.1:{self.server.servers[0].sockets[0].getsockname()[1]}"
        self.http = httpx.Client(base_url=self.url, timeout=httpx.Timeout(5.0, read=60.0))
        self.http.post("/api/login", json={"name": "staff", "password": "staff password"}).raise_for_status()
        return self

    def events(self, stop: Callable[[dict], bool], out: list) -> None:
        """Read the live stream into ``out`` ((arrival time, event)) until ``stop(event)``."""
        import json as _json

        with self.http.stream("GET", "/api/events") as resp:
            for line in resp.iter_lines():
                if line.startswith("data: "):
                    ev = _json.loads(line[6:])
                    out.append((time.time(), ev))
                    if stop(ev):
                        return

    def stop(self) -> None:
        self.http.close()
        self.server.should_exit = True
        self.thread.join(timeout=10)
