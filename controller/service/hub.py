"""The live-event hub behind ``GET /api/events`` (server-sent events).

Anything in the service (the dealer's thread, a request, a bot) calls :meth:`EventHub.publish` with a
*public* event dict; every connected client gets it, in order, with a sequence number as the SSE id.
A client that reconnects with ``Last-Event-ID`` first gets what it missed (from a bounded history).

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


class EventHub:
    """Fan-out of public events to SSE clients; thread-safe ``publish``."""

    def __init__(self, history: int = 2000):
        self._lock = threading.Lock()
        self._seq = 0
        self._history: deque[dict[str, Any]] = deque(maxlen=history)
        self._clients: set[tuple[asyncio.AbstractEventLoop, asyncio.Queue]] = set()
        self._listeners: list[Any] = []

    def publish(self, event: dict[str, Any]) -> dict[str, Any]:
        """Stamp ``event`` with ``id`` and ``ts`` and send it to every client; return it."""
        with self._lock:
            self._seq += 1
            event = {**event, "id": self._seq, "ts": round(time.time(), 3)}
            self._history.append(event)
            clients = list(self._clients)
            listeners = list(self._listeners)
        for loop, queue in clients:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, event)
            except RuntimeError:  # that client's loop is closed
                pass
        for listener in listeners:
            listener(event)
        return event

    def add_listener(self, fn: Any) -> None:
        """Call ``fn(event)`` (in the publisher's thread) for every event; for in-process consumers."""
        with self._lock:
            self._listeners.append(fn)

    def since(self, last_id: int) -> list[dict[str, Any]]:
        with self._lock:
            return [e for e in self._history if e["id"] > last_id]

    @property
    def last_id(self) -> int:
        return self._seq

    @property
    def client_count(self) -> int:
        return len(self._clients)

    async def stream(self, last_id: int | None = None, max_events: int | None = None,
                     heartbeat: float = HEARTBEAT_S) -> AsyncIterator[str]:
        """SSE text for one client: missed events after ``last_id``, then live ones."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()
        entry = (loop, queue)
        with self._lock:
            backlog = [e for e in self._history if last_id is not None and e["id"] > last_id]
            self._clients.add(entry)
        sent = 0
        try:
            yield "retry: 2000\n\n"
            for event in backlog:
                yield format_sse(event)
                sent += 1
                if max_events is not None and sent >= max_events:
                    return
            while True:
                try:
                    event = await asyncio.wait_for(queue.get(), timeout=heartbeat)
                except TimeoutError:
                    yield ": keep-alive\n\n"
                    continue
                if last_id is not None and event["id"] <= last_id:
                    continue
                yield format_sse(event)
                sent += 1
                if max_events is not None and sent >= max_events:
                    return
        finally:
            with self._lock:
                self._clients.discard(entry)


def format_sse(event: dict[str, Any]) -> str:
    data = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
    return f"id: {event['id']}\ndata: {data}\n\n"
