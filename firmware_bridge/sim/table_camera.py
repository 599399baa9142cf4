"""The virtual rig's table camera: a camera looking down on the play area, as an MJPEG stream.

Virtual players throw their cards into the play area (:meth:`VirtualTable.throw`): a hand comes in over
the area for a few frames, the cards land (a fan or a heap, turned anyhow, over what lies there), and
the hand withdraws; sometimes it lingers a moment first, moving, or rests still on the cards
(:data:`RESTING`). :meth:`VirtualTable.clear` gathers a finished trick (the trick-taking games). Cards
are drawn with ``vision.pile_render`` in the deal's design.

``GET /SECRET/stream.mjpg`` and ``GET /SECRET/snapshot.jpg`` serve the frames, each with
``X-Frame-Seq`` and ``X-Frame-Time`` (seconds since the epoch when it was drawn). For a virtual rig
run as its own process (``hongsi simulate``), ``POST /SECRET/throw`` ``{"seat": 1, "cards": ["S3"]}`` and
``POST /SECRET/clear`` move the virtual players. The truth file gets one JSON line per play that really
landed (``{"seat", "cards", "t"}``) and per clear (``{"clear": true, "t"}``).
"""

from __future__ import annotations

import hmac
import json
import logging
import queue
import secrets
import threading
import time
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.labels import LABELS

log = logging.getLogger("hongsi.sim")

BOUNDARY = "hongsiframe"
SIZE = (640, 480)  # (width, height) of the table camera's frames
MOVE_FRAMES = (4, 8)  # frames a hand is over the area while throwing (its own motion: never still)
LINGER = 0.3  # how often the hand stays a moment after the cards landed
# How often a throw onto cards already there pushes one of the last play's cards a little (a few px, a
# degree or two), as a real hand does: a reader of the settled pictures sees an old card move too.
NUDGE = 0.15
NUDGE_PX, NUDGE_DEG = (2.0, 7.0), 2.5
# How often the hand rests still over the cards just thrown, for REST_S seconds, before it withdraws (a
# player's hand laid on the table; also what a starved worker thread looks like to the camera): a settled
# picture with a hand in it.
RESTING = 0.1
REST_S = (0.3, 1.2)


class VirtualTable:
    """The play area and the virtual players' hands over it. ``fps``: frames a second of the stream
    (the picture changes only at frame times); ``design``: the deck's look (``vision.render.face_for``)."""

    def __init__(self, *, seed: int | None = None, design: str | None = None, fps: float = 12.0,
                 truth_path: str | Path | None = None, size: tuple[int, int] = SIZE, hand_rate: float = LINGER,
                 nudge: float = NUDGE, resting: float = RESTING):
        from vision.pile_render import _texture

        self.rng = np.random.default_rng(seed)  # the layout: the worker's alone, so a seed repeats a table
        self.noise = np.random.default_rng()  # the sensor's noise, drawn by whichever thread serves a frame
        self.design, self.fps, self.size, self.hand_rate, self.nudge = design, fps, size, hand_rate, nudge
        self.resting, self.rest_s = resting, REST_S  # how often a hand rests still on its throw, how long (s)
        self.rested = 0  # throws after which the hand rested still over the cards
        self.truth_path = Path(truth_path) if truth_path else None
        W, H = size
        self.cloth = _texture(self.rng, W, H, blobs=0).astype(np.float32)  # the table, as the camera sees it
        g = self.rng.uniform(0.8, 1.1, (2, 2)).astype(np.float32)  # fixed light and white balance
        self.light = cv2.resize(g, (W, H), interpolation=cv2.INTER_LINEAR)[..., None]
        self.wb = self.rng.uniform(0.92, 1.08, 3).astype(np.float32)
        self.long_side = min(W, H) * self.rng.uniform(0.36, 0.44)
        self.lock = threading.Condition()
        self.base = self.cloth.copy()  # the cards lying there, without a hand
        self.lying: list[list[tuple]] = []  # the plays lying there, each card's (face, placement, shadow)
        self.nudged = 0  # throws that pushed an older card
        self.hand: np.ndarray | None = None  # what a hand over the area looks like now (drawn over base)
        self.seq = 0
        self._jpeg: tuple[int, bytes, float] | None = None
        self._todo: queue.Queue = queue.Queue()
        self.landed: list[dict[str, Any]] = []  # the truth: every play that landed, every clear
        self.secret = secrets.token_urlsafe(18)
        self.httpd: ThreadingHTTPServer | None = None
        self.stopped = threading.Event()
        self.frozen = False  # a camera that stops (tests of the service's message)
        self.rest = 0.6  # a virtual player waits this long after the last move before the next (s)
        self._still_since = 0.0
        self._worker = threading.Thread(target=self._work, name="virtual-table", daemon=True)
        self._worker.start()

    # ------------------------------------------------------------------ the virtual players
    def throw(self, seat: int, cards: Sequence[str]) -> None:
        """``seat`` throws ``cards`` into the play area (in the background, frame by frame)."""
        self._todo.put(("throw", int(seat), [str(c) for c in cards]))

    def clear(self) -> None:
        """A hand gathers every card from the play area (a finished trick, or a new hand)."""
        self._todo.put(("clear", None, []))

    def idle(self, timeout: float = 10.0) -> bool:
        """Wait until every throw and clear so far has landed and the hand is gone."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self._todo.unfinished_tasks == 0:
                return True
            time.sleep(0.02)
        return False

    def moving(self) -> bool:
        """Whether a throw or a clear is still to land, or landed too recently for the next one."""
        return self._todo.unfinished_tasks > 0 or time.monotonic() - self._still_since < self.rest

    def _work(self) -> None:
        while not self.stopped.is_set():
            try:
                kind, seat, cards = self._todo.get(timeout=0.2)
            except queue.Empty:
                continue
            try:
                self._move(kind, seat, cards)
            except Exception as exc:  # one bad throw must not end the table: later ones still land
                log.warning("virtual table: %s %s not done: %s", kind, cards, exc)
            finally:
                self._still_since = time.monotonic()
                self._todo.task_done()

    def _move(self, kind: str, seat: int | None, cards: list[str]) -> None:
        tick = 1.0 / self.fps
        for _ in range(int(self.rng.integers(*MOVE_FRAMES))):  # the hand comes in, moving
            self._show_hand()
            time.sleep(tick)
        if self.stopped.is_set():  # stopped while the hand came in: nothing lands
            return
        with self.lock:
            if kind == "clear":
                self.base = self.cloth.copy()
                self.lying = []
                entry: dict[str, Any] = {"clear": True}
            else:
                self.land(cards)
                entry = {"seat": seat, "cards": cards}
            entry["t"] = round(time.time(), 3)
            self.landed.append(entry)
            self._write_truth(entry)
        if self.rng.random() < self.hand_rate:  # the hand stays over the cards a moment, still moving a little
            for _ in range(int(self.rng.integers(2, 5))):
                self._show_hand()
                time.sleep(tick)
        if kind == "throw" and self.rng.random() < self.resting:  # ... or rests there, still
            self.rested += 1
            time.sleep(float(self.rng.uniform(*self.rest_s)))
        with self.lock:
            self.hand = None
            self._changed()
        time.sleep(tick)

    def _show_hand(self) -> None:
        from vision.pile_render import _hand

        W, H = self.size
        layer = np.zeros((H, W, 3), np.float32)
        mask = _hand(layer, self.rng, self.long_side * self.rng.uniform(0.7, 1.0))
        with self.lock:
            a = np.dstack([mask] * 3)
            self.hand = a, layer / np.maximum(a, 1e-3)  # the hand's own colours, blended over the cards later
            self._changed()

    def land(self, cards: list[str]) -> None:
        """``cards`` land as one play over what lies there; now and then the throw pushes a card of the
        last play a little (:data:`NUDGE`). Call with the lock held (or from the one thread using it)."""
        if self.lying and self.rng.random() < self.nudge:
            self._nudge(self.lying[-1])
        self.lying.append(self._placed(cards))
        self.base = self._draw(self.lying)

    def _nudge(self, play: list[tuple]) -> None:
        """Push one card of ``play``: shifted a few pixels and turned a degree or two about its centre."""
        k = int(self.rng.integers(len(play)))
        face, (M, quad), shadow = play[k]
        centre = quad.mean(axis=0)
        step = self.rng.uniform(*NUDGE_PX) * np.array([np.cos(a := self.rng.uniform(0, 2 * np.pi)), np.sin(a)])
        R = cv2.getRotationMatrix2D(tuple(float(v) for v in centre), float(self.rng.uniform(-NUDGE_DEG, NUDGE_DEG)), 1.0)
        R[:, 2] += step
        T = np.vstack([R, [0, 0, 1]]).astype(np.float64)
        play[k] = (face, (T @ M, cv2.transform(quad[None].astype(np.float64), R)[0].astype(np.float32)), shadow)
        self.nudged += 1

    def _draw(self, plays: list[list[tuple]]) -> np.ndarray:
        from vision.pile_render import _composite

        out = self.cloth.copy()
        for play in plays:
            for face, (M, _), shadow in play:
                out = _composite(out, face, M, shadow=shadow)
        return out

    def _lay(self, base: np.ndarray, cards: list[str]) -> np.ndarray:
        """``cards`` thrown as one play onto ``base``: a fan or a heap near the middle, over what lies there."""
        from vision.pile_render import _composite

        out = base
        for face, (M, _), shadow in self._placed(cards):
            out = _composite(out, face, M, shadow=shadow)
        return out

    def _placed(self, cards: list[str]) -> list[tuple]:
        """Where ``cards`` thrown as one play land: a fan or a heap near the middle, in the picture."""
        from vision.pile_render import _poses, place
        from vision.render import face_for

        W, H = self.size
        faces = [face_for(c, self.rng, self.design) for c in cards]
        aspect = faces[0].bgr.shape[1] / faces[0].bgr.shape[0]
        for _ in range(50):
            centre = np.array([W / 2, H / 2]) + self.rng.normal(0, 0.08, 2) * (W, H)
            poses = _poses(len(faces), centre, self.long_side, aspect, self.rng)
            placed = [place(f, c, self.long_side * self.rng.uniform(0.97, 1.03), a) for f, (c, a) in zip(faces, poses, strict=True)]
            if all(q[:, 0].min() > 4 and q[:, 1].min() > 4 and q[:, 0].max() < W - 4 and q[:, 1].max() < H - 4
                   for _, q in placed):
                break
        return [(face, pq, float(self.rng.uniform(0.1, 0.25))) for face, pq in zip(faces, placed, strict=True)]

    def _write_truth(self, entry: dict[str, Any]) -> None:
        if self.truth_path is not None:
            with open(self.truth_path, "a") as f:
                f.write(json.dumps(entry) + "\n")

    # ------------------------------------------------------------------ the camera
    def _changed(self) -> None:
        self.seq += 1
        self._jpeg = None
        self.lock.notify_all()

    def picture(self) -> np.ndarray:
        """The play area now, as the camera sees it (BGR uint8; a little sensor noise each frame)."""
        with self.lock:
            img = self.base
            if self.hand is not None:
                a, layer = self.hand
                img = img * (1 - a) + layer * a
            img = img * self.light * self.wb
        noise = self.noise.standard_normal(img.shape[:2] + (1,), dtype=np.float32) * np.float32(1.5)
        return np.clip(img + noise, 0, 255).astype(np.uint8)

    def frame(self) -> tuple[int, bytes, float]:
        """(frame seq, JPEG, time drawn)."""
        ok, jpg = cv2.imencode(".jpg", self.picture(), [cv2.IMWRITE_JPEG_QUALITY, 88])
        return self.seq, jpg.tobytes(), time.time()

    def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        """Serve the stream; return its URL (with the secret path)."""
        table = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _mine(self) -> str | None:
                prefix, _, path = self.path.split("?")[0].lstrip("/").partition("/")
                if not hmac.compare_digest(prefix, table.secret):
                    self.send_error(404, "no such camera")
                    return None
                return path

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                path = self._mine()
                if path is None:
                    return
                if path in ("snapshot.jpg", "frame.jpg"):
                    seq, jpg, t = table.frame()
                    self.send_response(200)
                    self.send_header("Content-Type", "image/jpeg")
                    self.send_header("Content-Length", str(len(jpg)))
                    self.send_header("X-Frame-Seq", str(seq))
                    self.send_header("X-Frame-Time", f"{t:.3f}")
                    self.end_headers()
                    self.wfile.write(jpg)
                elif path in ("stream.mjpg", ""):
                    self._stream()
                else:
                    self.send_error(404, "try stream.mjpg or snapshot.jpg")

            def do_POST(self) -> None:  # noqa: N802
                path = self._mine()
                if path is None:
                    return
                try:
                    body = json.loads(self.rfile.read(min(int(self.headers.get("Content-Length") or 0), 4096)) or b"{}")
                    if path == "throw":
                        cards = body["cards"]
                        if not isinstance(cards, list) or not cards or not all(isinstance(c, str) for c in cards):
                            raise ValueError("cards: a list of card names")
                        if unknown := [c for c in cards if c not in LABELS]:
                            raise ValueError(f"no such card: {unknown[0]!r}")
                        table.throw(int(body["seat"]), cards)
                    elif path == "clear":
                        table.clear()
                    else:
                        self.send_error(404, "try throw or clear")
                        return
                except (ValueError, KeyError, TypeError) as exc:
                    self.send_error(422, f"bad request: {exc}")
                    return
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def _stream(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", f"multipart/x-mixed-replace; boundary={BOUNDARY}")
                self.send_header("Cache-Control", "no-store")
                self.send_header("Connection", "close")
                self.end_headers()
                try:
                    while table.httpd is not None:
                        time.sleep(1.0 / table.fps)
                        if table.frozen:
                            continue
                        seq, jpg, t = table.frame()
                        head = (f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(jpg)}\r\n"
                                f"X-Frame-Seq: {seq}\r\nX-Frame-Time: {t:.3f}\r\n\r\n").encode()
                        self.wfile.write(head + jpg + b"\r\n")
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError, OSError):
                    return

        self.httpd = ThreadingHTTPServer((host, port), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, name="virtual-table-camera", daemon=True).start()
        return f"http://{host}:{self.httpd.server_address[1]}/{self.secret}/stream.mjpg"

    def stop(self) -> None:
        """Stop serving and throwing; a throw in flight is not landed (its truth file may be gone)."""
        self.stopped.set()
        if self._worker is not threading.current_thread():
            self._worker.join(timeout=5.0)
        httpd, self.httpd = self.httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
