"""Helpers of the table-service tests: card detection, waiting, a live uvicorn server, an SSE reader."""

from __future__ import annotations

import json
import re
import threading
import time
from typing import Any

import httpx
import uvicorn

from controller.service.table import TableService

CARD = re.compile(r"^(?:[SHDC](?:10|[2-9JQKA])|BJ|RJ)$")


def card_strings(obj: Any) -> set[str]:
    """Every string in a JSON value that is a card's notation."""
    out: set[str] = set()
    if isinstance(obj, str):
        if CARD.match(obj):
            out.add(obj)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            out |= card_strings(k) | card_strings(v)
    elif isinstance(obj, list):
        for v in obj:
            out |= card_strings(v)
    return out


def wait_for(pred, timeout: float = 15.0, step: float = 0.02) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = pred()
        if value:
            return value
        time.sleep(step)
    raise AssertionError("timed out waiting")


class LiveServer:
    def __init__(self, app, svc: TableService):
        self.app, self.svc = app, svc
        self.config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
        self.server = uvicorn.Server(self.config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> LiveServer:
        self.thread.start()
        wait_for(lambda: self.server.started, timeout=10)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


class SSECollector:
    """Reads ``/api/events`` in a thread; ``events`` fills as they come."""

    def __init__(self, url: str):
        self.url, self.events, self.raw = url, [], []
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.connected = threading.Event()

    def _run(self) -> None:
        with httpx.Client(timeout=httpx.Timeout(5.0, read=60.0)) as client:
            with client.stream("GET", self.url + "/api/events") as resp:
                self.connected.set()
                for line in resp.iter_lines():
                    self.raw.append(line)
                    if line.startswith("data: "):
                        self.events.append((time.perf_counter(), json.loads(line[6:])))
                    if self._stop.is_set():
                        return

    def start(self) -> SSECollector:
        self.thread.start()
        self.connected.wait(5)
        return self

    def stop(self, svc: TableService) -> None:
        self._stop.set()
        svc.hub.publish({"type": "test_end"})  # wakes the reader so it sees the stop
        self.thread.join(timeout=10)
