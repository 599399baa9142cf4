"""The live-event hub behind ``GET /api/events`` (server-sent events).

Anything in the service (the dealer's thread, a request, a bot) calls :meth:`EventHub.publish` with a
*public* event dict; every connected client gets it, in order, with a sequence number as the SSE id.
A client that reconnects with ``Last-Event-ID`` first gets what it missed (from a bounded history).

Each client's queue is bounded. While a client is well behind, a newer state event (the deal's progress, a
seat's count) replaces the older one still waiting for it; a client that falls ``max_queue`` events
behind all the same is dropped (its stream ends), and its browser reconnects with ``Last-Event-ID`` and
catches up from the history (or, if it was gone too long, gets a ``resync`` event: reload the state).
Each event is encoded once, and a client's waiting events go out in one write.

>>> hub = EventHub()
>>> hub.publish({"type": "deal", "round": 1, "dealt": 3, "total": 52})["id"]
1

Only public information may be published: the hub is read by anyone.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import deque
from collections.abc import AsyncIterator
from typing import Any

HEARTBEAT_S = 15.0
MAX_QUEUE = 1000  # events waiting for one client before it is dropped (about 3 s at 120 writes/s)
COALESCE_AFTER = 100  # a client this far behind gets only the newest of each state event
# state events: a newer one of the same key says all an older one said
COALESCE = {"deal": ("round",), "deal_status": ("round",), "count": ("round", "seat")}


def coalesce_key(event: dict[str, Any]) -> tuple[Any, ...] | None:
    fields = COALESCE.get(event.get("type"))  # type: ignore[arg-type]
    return None if fields is None else (event["type"], *(event.get(f) for f in fields))


class _Client:
    """One SSE connection: its waiting events (``[key, text]`` entries; text None once superseded)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, max_queue: int, coalesce_after: int):
        self.loop, self.max_queue, self.coalesce_after = loop, max_queue, coalesce_after
        self.wake = asyncio.Event()
        self.pending: deque[list[Any]] = deque()
        self.by_key: dict[tuple[Any, ...], list[Any]] = {}
        self.live = 0            # entries in pending not superseded
        self.signalled = False
        self.dropped = False

    def offer(self, key: tuple[Any, ...] | None, text: str) -> bool:
        """Queue one event (under the hub's lock); True if the client's loop must be woken."""
        if self.dropped:
            return False
        if key is not None and key in self.by_key and self.live >= self.coalesce_after:
            self.by_key[key][1] = None          # superseded: never sent
            self.live -= 1
        entry = [key, text]
        self.pending.append(entry)
        self.live += 1
        if key is not None:
            self.by_key[key] = entry
        if self.live > self.max_queue:
            self.dropped = True
            self.pending.clear()
            self.by_key.clear()
        if self.signalled:
            return False
        self.signalled = True
        return True

    def take(self) -> list[str]:
        """Everything waiting (under the hub's lock)."""
        out = [text for _key, text in self.pending if text is not None]
        self.pending.clear()
        self.by_key.clear()
        self.live = 0
        self.signalled = False
        self.wake.clear()
        return out


class EventHub:
    """Fan-out of public events to SSE clients; thread-safe ``publish``."""

    def __init__(self, history: int = 2000, max_queue: int = MAX_QUEUE, coalesce_after: int = COALESCE_AFTER):
        self._lock = threading.Lock()
        self._seq = 0
        self._history: deque[tuple[dict[str, Any], str]] = deque(maxlen=history)
        self._clients: set[_Client] = set()
        self._listeners: list[Any] = []
        self._relayed: set[int] = set()
        self.max_queue, self.coalesce_after = max_queue, coalesce_after
        self.dropped = 0         # clients dropped for falling behind, since start

    def publish(self, event: dict[str, Any]) -> dict[str, Any]:
        """Stamp ``event`` with ``id`` and ``ts`` and send it to every client; return it."""
        with self._lock:
            self._seq += 1
            event = {**event, "id": self._seq, "ts": round(time.time(), 3)}
            text = format_sse(event)
            self._history.append((event, text))
            key = coalesce_key(event)
            wake = [c for c in self._clients if c.offer(key, text)]
            listeners = list(self._listeners)
        for client in wake:
            try:
                client.loop.call_soon_threadsafe(client.wake.set)
            except RuntimeError:  # that client's loop is closed
                pass
        for listener in listeners:
            listener(event)
        return event

    def add_listener(self, fn: Any) -> None:
        """Call ``fn(event)`` (in the publisher's thread) for every event; for in-process consumers."""
        with self._lock:
            self._listeners.append(fn)

    def relay_receipts(self, journal: Any) -> None:
        """Publish every receipt ``journal`` signs as a public ``receipt`` event (once per journal)."""
        with self._lock:
            if id(journal) in self._relayed:
                return
            self._relayed.add(id(journal))
        journal.on_receipt(lambda receipt: self.publish({"type": "receipt", **receipt}))

    def since(self, last_id: int) -> list[dict[str, Any]]:
        with self._lock:
            return [e for e, _ in self._history if e["id"] > last_id]

    @property
    def last_id(self) -> int:
        return self._seq

    @property
    def client_count(self) -> int:
        return len(self._clients)

    def _backlog(self, last_id: int | None) -> list[str]:
        """What a client reconnecting after ``last_id`` missed; a ``resync`` if the history lost some."""
        if last_id is None or last_id >= self._seq:
            return []
        oldest = self._history[0][0]["id"] if self._history else self._seq + 1
        out = [text for e, text in self._history if e["id"] > last_id]
        if oldest > last_id + 1:
            resync = {"type": "resync", "id": oldest - 1, "ts": round(time.time(), 3),
                      "message": "events were missed: reload the state", "message_zh": "有消息遗漏，请重新载入"}
            out.insert(0, format_sse(resync))
        return out

    async def stream(self, last_id: int | None = None, max_events: int | None = None,
                     heartbeat: float = HEARTBEAT_S) -> AsyncIterator[str]:
        """SSE text for one client: missed events after ``last_id``, then live ones (batched)."""
        client = _Client(asyncio.get_running_loop(), self.max_queue, self.coalesce_after)
        with self._lock:
            backlog = self._backlog(last_id)
            self._clients.add(client)
        left = max_events
        try:
            yield "retry: 2000\n\n"
            while True:
                if backlog:
                    batch = backlog if left is None else backlog[:left]
                    backlog = []  # sent: a keep-alive that follows must not send it again
                    yield "".join(batch)
                    if left is not None:
                        left -= len(batch)
                        if left <= 0:
                            return
                try:
                    await asyncio.wait_for(client.wake.wait(), timeout=heartbeat)
                except TimeoutError:
                    yield ": keep-alive\n\n"
                    continue
                with self._lock:
                    dropped = client.dropped
                    backlog = client.take()
                if dropped:   # too far behind: end the stream; the browser reconnects and catches up
                    with self._lock:
                        self.dropped += 1
                    return
        finally:
            with self._lock:
                self._clients.discard(client)


def format_sse(event: dict[str, Any]) -> str:
    data = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
    return f"id: {event['id']}\ndata: {data}\n\n"


def public_receipts(journal: Any, round_: int | None = None, limit: int = 20) -> dict[str, Any]:
    """``GET /api/receipts``: the receipts of a round (else the latest), and the rig's public key."""
    from controller import keys

    found = journal.receipts(round_, limit)
    return {"receipts": found, "public_key": keys.public_key_of(journal.path.parent)}
