"""The dealer camera of the virtual rig: an MJPEG stream over HTTP on loopback showing the hopper's
bottom card (``vision.render.render_window_frame`` when available, else the card's name on a plain frame).

``GET /SECRET/stream.mjpg`` — multipart/x-mixed-replace; a new part as soon as the hopper changes, and at
``fps`` otherwise. ``GET /SECRET/snapshot.jpg`` — one fresh frame. ``SECRET`` is a random path made at
start and given only in the URL :meth:`CameraServer.start` returns: the frames show the cards being dealt. Every frame carries ``X-Frame-Seq`` (grows
each time the hopper changes: an eject's DONE is sent after the change) and ``X-Hopper-Cards``.
``--camera-dropout P``: a frame is lost with chance P (a snapshot answers 503, the stream skips it).
"""

from __future__ import annotations

import hmac
import random
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import cv2
import numpy as np

BOUNDARY = "hongsiframe"


def render_frame(label: str | None, rng: np.random.Generator, design: str | None = None) -> np.ndarray:
    """What the camera sees through the hopper window (BGR uint8); ``design``: the deck's look, a
    procedural design or a real one (``vision.card_art``); a random style per card when None."""
    try:
        from vision.render import render_window_frame
    except ImportError:
        render_window_frame = None
    if render_window_frame is not None:
        return render_window_frame(label, rng, design=design)
    img = np.full((240, 320, 3), (40, 140, 50), np.uint8)
    if label is not None:
        cv2.rectangle(img, (60, 30), (260, 210), (245, 245, 245), -1)
        color = (0, 0, 200) if label[0] in "HD" or label == "RJ" else (20, 20, 20)
        cv2.putText(img, label, (95, 140), cv2.FONT_HERSHEY_SIMPLEX, 2.0, color, 4, cv2.LINE_AA)
    return cv2.add(img, rng.integers(0, 12, img.shape, dtype=np.uint8))  # sensor noise


class CameraServer:
    def __init__(self, board: Any, *, dropout: float = 0.0, seed: int | None = None, fps: float = 15.0,
                 design: str | None = None):
        self.board, self.dropout, self.fps, self.design = board, dropout, fps, design
        # the frames show the cards as they are dealt, secret until each hand is over: served only under an
        # unguessable path, which only the process that started the rig is told (like a capability URL)
        self.secret = secrets.token_urlsafe(18)
        self.rng = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        self._lock = threading.Lock()
        self._cache: tuple[int, list[bytes], int] | None = None
        self._turn = 0
        self.variants = 3
        self.frames_served = self.frames_dropped = 0
        self.httpd: ThreadingHTTPServer | None = None

    def frame(self) -> tuple[int, bytes, int]:
        """(frame seq, JPEG bytes, cards in the hopper) of the hopper as it is now. Successive frames of
        one hopper state differ a little (pose, light, noise) like a real camera's: up to ``variants``
        renderings per state, rendered on demand and then reused in turn."""
        seq, label, left = self.board.bottom_card()
        with self._lock:
            if self._cache is None or self._cache[0] != seq:
                self._cache = (seq, [], left)
                self._turn = 0
            frames = self._cache[1]
            i = self._turn % self.variants
            self._turn += 1
            if i >= len(frames):
                img = render_frame(label, self.np_rng, self.design)
                ok, jpg = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 85])
                frames.append(jpg.tobytes())
            return seq, frames[min(i, len(frames) - 1)], left

    def dropped(self) -> bool:
        with self._lock:
            lost = self.dropout > 0 and self.rng.random() < self.dropout
            if lost:
                self.frames_dropped += 1
            return lost

    def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                prefix, _, path = self.path.split("?")[0].lstrip("/").partition("/")
                if not hmac.compare_digest(prefix, server.secret):
                    self.send_error(404, "no such camera")
                elif path in ("snapshot.jpg", "frame.jpg"):
                    self._snapshot()
                elif path in ("stream.mjpg", ""):
                    self._stream()
                else:
                    self.send_error(404, "try stream.mjpg or snapshot.jpg")

            def _snapshot(self) -> None:
                if server.dropped():
                    self.send_response(503)
                    self.send_header("Content-Length", "0")
                    self.send_header("X-Dropout", "1")
                    self.end_headers()
                    return
                seq, jpg, left = server.frame()
                server.frames_served += 1
                self.send_response(200)
                self.send_header("Content-Type", "image/jpeg")
                self.send_header("Content-Length", str(len(jpg)))
                self.send_header("X-Frame-Seq", str(seq))
                self.send_header("X-Hopper-Cards", str(left))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(jpg)

            def _stream(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", f"multipart/x-mixed-replace; boundary={BOUNDARY}")
                self.send_header("Cache-Control", "no-store")
                self.send_header("Connection", "close")
                self.end_headers()
                board = server.board
                last = -1
                try:
                    while server.httpd is not None:
                        with board.changed:
                            if board.frame_seq == last:
                                board.changed.wait(1.0 / server.fps)
                        if server.dropped():
                            time.sleep(1.0 / server.fps)
                            continue
                        seq, jpg, left = server.frame()
                        last = seq
                        server.frames_served += 1
                        head = (f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(jpg)}\r\n"
                                f"X-Frame-Seq: {seq}\r\nX-Hopper-Cards: {left}\r\n\r\n").encode()
                        self.wfile.write(head + jpg + b"\r\n")
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError, OSError):
                    return

        self.httpd = ThreadingHTTPServer((host, port), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, name="virtual-camera", daemon=True).start()
        return f"http://{host}:{self.httpd.server_address[1]}/{self.secret}/stream.mjpg"

    def stop(self) -> None:
        httpd, self.httpd = self.httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
