"""The table's side of the club: queue what the table may tell the room, send it when the broker is there.

One hook joins a running table service: :func:`attach_publisher` subscribes to the service's public
event hub (the same events the display's SSE carries: never a hidden card) and reads the journal file
read-only. Three kinds of work, none of which the table ever waits for:

- each public event, and the service's health every few seconds, goes into the :class:`Outbox`;
- a journal tailer queues a :class:`Receipt` at every ``deal_end``/``reveal`` row, and once a round has
  its ``round_end`` row, that round's journal rows and camera crops (the hand is over: nothing is hidden);
- a sender publishes the outbox in order (paho-mqtt, QoS 1, TLS) and forgets what the club acknowledges.
  Without an acknowledgement for a while (broker or club restarted), it sends again from the last one.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.club.messages import (
    ACK,
    ONLINE,
    RECEIPT_KINDS,
    Envelope,
    MessageError,
    Receipt,
    check_name,
    row_to_body,
    topic,
)
from controller.club.outbox import Outbox

log = logging.getLogger("hongsi.club")

RESEND_AFTER_S = 5.0     # no acknowledgement for this long: send again from the last acknowledged
WINDOW = 2000            # at most this many messages sent ahead of the club's acknowledgement
HEALTH_S = 10.0
TAIL_S = 0.5


@dataclass(frozen=True)
class ClubLink:
    """Where and who: ``mqtt[s]://user:password@host:port/<room>/<table>?ca=/path/ca.crt``."""

    host: str
    port: int
    room: str
    table: str
    username: str | None = None
    password: str | None = None
    tls: bool = False
    ca_file: str | None = None

    @classmethod
    def parse(cls, url: str, *, password: str | None = None, club: bool = False) -> ClubLink:
        """``club``: the club server's own link, ``…/<room>`` (its table part is ``club``)."""
        u = urllib.parse.urlsplit(url)
        if u.scheme not in ("mqtt", "mqtts"):
            raise MessageError(f"club address {u.scheme}://…: use mqtt://… or mqtts://…")
        parts = [p for p in u.path.split("/") if p]
        if club and len(parts) == 1:
            parts.append("club")
        if len(parts) != 2:
            shape = "/<room>" if club else "/<room>/<table>"
            raise MessageError(f"club address {u.scheme}://{u.hostname}{u.path}: the path must be {shape}")
        room, table = check_name("room", parts[0]), check_name("table", parts[1])
        query = urllib.parse.parse_qs(u.query)
        tls = u.scheme == "mqtts"
        try:
            port = u.port or (8883 if tls else 1883)
        except ValueError as exc:
            raise MessageError(f"club url: {exc}") from None
        return cls(u.hostname or "127.0.0.1", port, room, table,
                   urllib.parse.unquote(u.username) if u.username else table,
                   urllib.parse.unquote(u.password) if u.password else password,
                   tls, (query.get("ca") or [None])[0])


def mqtt_client(client_id: str, link: ClubLink, *, clean: bool = True) -> Any:
    """A paho client with this link's credentials and TLS."""
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean,
                         protocol=mqtt.MQTTv311)
    if link.username:
        client.username_pw_set(link.username, link.password)
    if link.tls:
        client.tls_set(ca_certs=link.ca_file)
    client.reconnect_delay_set(0.2, 2.0)
    client.max_inflight_messages_set(200)
    client.max_queued_messages_set(0)
    return client


class Publisher:
    """Sends one table's outbox to the club; ``event``/``health`` are safe to call from any thread."""

    def __init__(self, link: ClubLink, outbox: Outbox, *, journal: Path | None = None,
                 status: Callable[[], dict[str, Any]] | None = None, signer: Any = None,
                 signs_itself: bool = True, resend_after: float = RESEND_AFTER_S, health_s: float = HEALTH_S):
        self.link, self.outbox, self.journal_path = link, outbox, journal
        self.status, self.signer = status, signer
        self.signs_itself = signs_itself and signer is None  # the journal writes signed receipt rows
        self.resend_after, self.health_s = resend_after, health_s
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._connected = threading.Event()
        self._next = outbox.acked          # the last seq handed to paho
        self._progress = time.monotonic()  # when the club last acknowledged something
        self._resent = 0.0                 # when we last went back to the acknowledged
        self._gap = False                  # the club's answer shows a message lost on the way
        self.resends = 0
        self.client = mqtt_client(f"hongsi-{link.room}-{link.table}", link)
        self.client.will_set(self._topic(ONLINE), b"0", qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_ack
        self._threads = [threading.Thread(target=self._send_loop, name="club-send", daemon=True),
                         threading.Thread(target=self._tail_loop, name="club-tail", daemon=True)]

    def _topic(self, kind: str) -> str:
        return topic(self.link.room, self.link.table, kind)

    # ------------------------------------------------------------------ what the table calls
    def event(self, event: dict[str, Any]) -> None:
        """A public event of the table's hub (a hub listener: never raises into the table)."""
        self._queue("event", event)

    def health(self, status: dict[str, Any]) -> None:
        self._queue("health", status)

    def _queue(self, kind: str, body: dict[str, Any], mark: str | None = None) -> None:
        if self._stop.is_set():
            return
        try:
            self.outbox.put(kind, body, mark)
            self._wake.set()
        except Exception as exc:  # a full disk must not stop the deal; the journal still has it all
            log.warning("club: cannot queue a %s message: %s", kind, exc)

    # ------------------------------------------------------------------ running
    def start(self) -> Publisher:
        self.client.connect_async(self.link.host, self.link.port, keepalive=15)
        self.client.loop_start()
        for t in self._threads:
            t.start()
        return self

    def close(self, drain: float = 0.0) -> None:
        """Stop; with ``drain``, first wait up to that many seconds for the club to acknowledge all."""
        end = time.monotonic() + drain
        while drain and len(self.outbox) and time.monotonic() < end:
            time.sleep(0.05)
        self._stop.set()
        self._wake.set()
        for t in self._threads:
            if t.is_alive():
                t.join(timeout=5)
        try:
            if self._connected.is_set():
                self.client.publish(self._topic(ONLINE), b"0", qos=1, retain=True).wait_for_publish(1)
        except (RuntimeError, ValueError):
            pass
        self.client.disconnect()
        self.client.loop_stop()
        self.outbox.close()

    def _on_connect(self, client: Any, _u: Any, _flags: Any, reason: Any, _p: Any) -> None:
        if getattr(reason, "is_failure", False):
            log.warning("club: the broker refused this table: %s", reason)
            return
        client.subscribe(self._topic(ACK), qos=1)
        client.publish(self._topic(ONLINE), b"1", qos=1, retain=True)
        self._next = self.outbox.acked   # what paho held for the old connection may be gone: resend
        self._progress = time.monotonic()
        self._connected.set()
        self._wake.set()

    def _on_disconnect(self, *_args: Any) -> None:
        self._connected.clear()

    def _on_ack(self, _c: Any, _u: Any, msg: Any) -> None:
        try:
            seq = int(json.loads(msg.payload)["seq"])
        except (ValueError, KeyError, TypeError):
            log.warning("club: a malformed acknowledgement dropped")
            return
        if seq > self.outbox.acked:
            self.outbox.ack(seq)
            self._progress = time.monotonic()
            self._wake.set()
        elif seq == self.outbox.acked < self._next and time.monotonic() - self._resent > self.resend_after:
            # the club stored a batch of ours without the next message: it was lost on the way
            # (one connection keeps our order), so send again from there at once
            self._gap = True

    def _send_loop(self) -> None:
        while not self._stop.is_set():
            try:
                self._send_some()
            except Exception as exc:  # never let the sender die: log and go on
                log.warning("club: sending failed: %s", exc)
                time.sleep(0.5)

    def _send_some(self) -> None:
        if not self._connected.wait(0.2):
            return
        acked, now = self.outbox.acked, time.monotonic()
        stalled = now - max(self._progress, self._resent) > self.resend_after
        if self._next > acked and (self._gap or stalled):
            self._next, self._resent, self._gap = acked, now, False   # lost on the way: again from there
            self.resends += 1
        batch = self.outbox.pending(self._next, 200) if self._next - acked < WINDOW else []
        if not batch:
            self._wake.wait(0.2)
            self._wake.clear()
            return
        for seq, kind, body, t in batch:
            env = Envelope(self.link.table, seq, kind, body, t)
            info = self.client.publish(self._topic(kind), env.to_bytes(), qos=1)
            if info.rc != 0:   # not connected: on_connect starts again from the acknowledged
                return
            self._next = seq

    # ------------------------------------------------------------------ the journal
    def _tail_loop(self) -> None:
        last_health = 0.0
        while not self._stop.is_set():
            try:
                if self.journal_path is not None and self.journal_path.exists():
                    self.tail_journal()
                if self.status is not None and time.monotonic() - last_health >= self.health_s:
                    last_health = time.monotonic()
                    self.health(self.status())
            except Exception as exc:
                log.warning("club: reading the journal failed: %s", exc)
            self._stop.wait(TAIL_S)

    def tail_journal(self) -> None:
        """Queue receipts and ended rounds from journal rows not looked at yet (read-only)."""
        assert self.journal_path is not None
        uri = f"file:{urllib.parse.quote(str(self.journal_path.resolve()))}?mode=ro"
        db = sqlite3.connect(uri, uri=True, timeout=10)
        try:
            seen = self.outbox.mark("journal_seen")
            new = db.execute("SELECT seq, round, kind, hash, data FROM journal WHERE seq>? ORDER BY seq",
                             (seen,)).fetchall()
            for seq, rnd, kind, head, data in new:
                receipt = self._receipt(seq, rnd, kind, head, data)
                if receipt is not None and not self.outbox.is_queued(f"receipt:{receipt.row_seq}"):
                    self._queue("receipt", receipt.to_body(), f"receipt:{receipt.row_seq}")
                if kind == "round_end" and not self.outbox.is_queued(f"rows:{rnd}"):
                    self._queue_round(db, rnd)
            if new:
                self.outbox.set_mark("journal_seen", new[-1][0])
        finally:
            db.close()

    def _receipt(self, seq: int, rnd: int, kind: str, head: str, data: str) -> Receipt | None:
        """The receipt a journal row gives: the journal's own signed ``receipt`` rows as they are; a
        journal without them (older ones) vouches for its deal and hand ends unsigned, or signed by
        ``signer``."""
        if kind == "receipt":
            d = json.loads(data)
            return Receipt(rnd, int(d["of"]), str(d.get("at")), str(d["hash"]), d.get("signature"),
                           d.get("public_key"))
        if kind not in RECEIPT_KINDS or self.signs_itself:
            return None
        receipt = Receipt(rnd, seq, kind, head)
        return self.signer(receipt) if self.signer is not None else receipt

    def _queue_round(self, db: sqlite3.Connection, rnd: int) -> None:
        from controller.journal import Row

        rows = [Row(s, r, k, t, json.loads(d), i, p, h) for s, r, k, t, d, i, p, h in
                db.execute("SELECT * FROM journal WHERE round=? ORDER BY seq", (rnd,))]
        assert self.journal_path is not None
        images = self.journal_path.parent / "images"
        for digest in dict.fromkeys(r.image for r in rows if r.image):
            path = images / digest[:2] / f"{digest}.jpg"
            if path.exists():
                self._queue("crop", {"sha256": digest, "jpeg": base64.b64encode(path.read_bytes()).decode()})
        self._queue("rows", {"round": rnd, "rows": [row_to_body(r) for r in rows]}, f"rows:{rnd}")


def attach_publisher(service: Any, config: Any, url: str | None = None) -> Publisher | None:
    """Join the table ``service`` to the club of ``config.club`` (or ``url``): the one hook. Subscribes a
    listener to ``service.hub`` (its public events) and tails ``service.journal``'s file read-only.
    Returns the running publisher (``close()`` it at shutdown), or None when no club is configured."""
    club = getattr(config, "club", None)
    url = url or (club.broker if club is not None else "")
    if not url:
        return None
    password = (club.password if club is not None else "") or os.environ.get("HONGSI_CLUB_PASSWORD")
    link = ClubLink.parse(url, password=password or None)
    if link.ca_file is None and club is not None and club.ca_file:
        link = ClubLink(**{**link.__dict__, "ca_file": str(club.ca_file)})
    data_dir = Path(config.data_dir).expanduser()
    pub = Publisher(link, Outbox(data_dir / "club-outbox.db"), journal=Path(service.journal.path),
                    status=service.status)
    service.hub.add_listener(pub.event)
    return pub.start()
