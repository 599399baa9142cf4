"""``hongsi club serve``: subscribe to the room, check and store what arrives, acknowledge, serve the page.

paho's network thread only parses and queues (a malformed message is logged and dropped there); one
worker stores batches in PostgreSQL, then acknowledges each table's stream and pushes the live events
to the room page. If PostgreSQL goes away, the worker keeps the batch and tries again: nothing is
acknowledged that is not stored, so the tables still hold it. The club's MQTT session is persistent
(clean session off): what arrives while the club is down waits in the broker, and in the tables' outboxes.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from typing import Any

import psycopg

from controller.club.messages import ACK, ONLINE, ROOT, Envelope, MessageError, parse_topic, topic
from controller.club.publisher import ClubLink, mqtt_client
from controller.club.store import Store, migrate
from controller.service.hub import EventHub

log = logging.getLogger("hongsi.club")
BATCH = 500


class ClubServer:
    def __init__(self, dsn: str, link: ClubLink, *, client_id: str | None = None):
        """``link``: the broker and the club's own credentials (``link.table`` is unused)."""
        self.dsn, self.link, self.room = dsn, link, link.room
        self.live = EventHub(history=5000)   # what the room page's SSE carries
        self.inbox: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.dropped = 0
        self.stored = 0
        self.received = 0
        self._stop = threading.Event()
        self._store: Store | None = None
        self.client = mqtt_client(client_id or f"hongsi-club-{self.room}", link, clean=False)
        self.client.on_connect = self._on_connect
        self.subscribed = threading.Event()  # the room's topics are ours: what tables send now is stored
        self.client.on_subscribe = lambda *_args: self.subscribed.set()
        self.client.on_message = self._on_message
        self._worker = threading.Thread(target=self._work, name="club-store", daemon=True)

    # ------------------------------------------------------------------ running
    def start(self) -> ClubServer:
        migrate(self.dsn)
        self._store = self._connect_store()
        self._worker.start()
        self.client.connect_async(self.link.host, self.link.port, keepalive=15)
        self.client.loop_start()
        return self

    def close(self) -> None:
        self._stop.set()
        self.client.disconnect()
        self.client.loop_stop()
        self._worker.join(timeout=5)
        if self._store is not None:
            self._store.close()

    def _connect_store(self) -> Store:
        while True:
            try:
                return Store(self.dsn)
            except psycopg.OperationalError as exc:
                if self._stop.is_set():
                    raise
                log.warning("club: PostgreSQL is not there (%s); trying again", str(exc).strip()[:120])
                time.sleep(0.5)

    def _on_connect(self, client: Any, _u: Any, _flags: Any, reason: Any, _p: Any) -> None:
        if getattr(reason, "is_failure", False):
            log.error("club: the broker refused the club: %s", reason)
            return
        client.subscribe(f"{ROOT}/{self.room}/+/+", qos=1)

    def _on_message(self, _c: Any, _u: Any, msg: Any) -> None:
        try:
            room, table, kind = parse_topic(msg.topic)
            if room != self.room or kind == ACK:
                return
            if kind == ONLINE:
                self.inbox.put(("online", (table, msg.payload == b"1")))
                return
            self.inbox.put(("env", Envelope.from_bytes(msg.payload, table=table, kind=kind)))
            self.received += 1
        except MessageError as exc:
            self.dropped += 1
            log.warning("club: a malformed message on %s dropped: %s", msg.topic, exc)

    # ------------------------------------------------------------------ storing
    def _take(self) -> list[tuple[str, Any]]:
        try:
            items = [self.inbox.get(timeout=0.2)]
        except queue.Empty:
            return []
        while len(items) < BATCH:
            try:
                items.append(self.inbox.get_nowait())
            except queue.Empty:
                break
        return items

    def _work(self) -> None:
        while not self._stop.is_set():
            items = self._take()
            while items and not self._stop.is_set():
                try:
                    self._handle(items)
                    items = []
                except (psycopg.OperationalError, psycopg.InterfaceError) as exc:  # PostgreSQL restarted: keep the batch, reconnect
                    log.warning("club: PostgreSQL failed (%s); storing again", str(exc).strip()[:120])
                    time.sleep(0.3)
                    self._reconnect()
                except Exception:   # a bug must not stop the club: drop this batch (the tables resend it)
                    log.exception("club: a batch could not be stored")
                    self._reconnect()
                    items = []

    def _reconnect(self) -> None:
        try:
            assert self._store is not None
            self._store.reconnect()
        except psycopg.OperationalError:
            pass

    def _handle(self, items: list[tuple[str, Any]]) -> None:
        assert self._store is not None
        batch = [(self.room, env) for what, env in items if what == "env"]
        for what, value in items:
            if what == "online":
                self._store.offline(self.room, value[0], value[1])
                self.live.publish({"type": "online", "table": value[0], "online": value[1]})
        if not batch:
            return
        out = self._store.ingest(batch)
        self.stored += out.stored
        self.dropped += out.dropped
        for (_room, table), seq in out.acks.items():
            self.client.publish(topic(self.room, table, ACK), json.dumps({"seq": seq}), qos=1)
        for item in out.live:
            self.live.publish(item)


def serve(dsn: str, link: ClubLink, *, host: str = "127.0.0.1", port: int = 8100) -> None:
    """Run the club and its room page until interrupted."""
    import uvicorn

    from controller.club.page import create_app

    club = ClubServer(dsn, link).start()
    try:
        uvicorn.run(create_app(club), host=host, port=port, log_level="warning", timeout_graceful_shutdown=2)
    finally:
        club.close()
