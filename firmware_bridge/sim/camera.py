"""The dealer camera of the virtual rig: an MJPEG stream over HTTP on loopback showing the hopper's
bottom card (``vision.render.render_window_frame`` when available, else the card's name on a plain frame).

``GET /SECRET/stream.mjpg`` — multipart/x-mixed-replace; ``GET /SECRET/snapshot.jpg`` — the newest frame.
``SECRET`` is a random path made at start and given only in the URL :meth:`CameraServer.start` returns:
the frames show the cards being dealt.

The camera is a sensor on the rig's clock, with the chosen camera's timing (:class:`Sensor`, from
hardware/parts.py): a frame every ``frame_ms``, each showing the scene as it was when its exposure
began, and reaching the application ``exposure + readout + ISP`` later — so the newest frame to arrive
can show a card that has already gone. Each frame carries ``X-Sensor-Timestamp``: the instant its
exposure began, in ns of the host's CLOCK_MONOTONIC (as libcamera's ``SensorTimestamp``); the host
judges freshness by it, not by arrival. ``X-Hopper-Cards`` tells the cards left. No scene tag: a real
camera does not know when the scene changed (``scene_tags=True`` adds the old ``X-Frame-Seq``).
``--camera-dropout P``: a frame is lost with chance P (a snapshot answers 503, the stream skips it).
"""

from __future__ import annotations

import hmac
import math
import random
import secrets
import threading
import time
from dataclasses import dataclass, field
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


@dataclass
class Sensor:
    """The camera's timing in sim ms, defaults from the parts (the firmware config's figures)."""

    frame_ms: float = field(default_factory=lambda: float(_cfg("FRAME_MS")))
    exposure_ms: float = field(default_factory=lambda: float(_cfg("CAM_EXPOSURE_MS")))
    readout_ms: float = field(default_factory=lambda: float(_cfg("CAM_READOUT_MS")))
    isp_ms: float = field(default_factory=lambda: float(_cfg("CAM_ISP_MS")))

    def latency_ms(self) -> float:
        """Exposure start to the frame in the application's hands."""
        return self.exposure_ms + self.readout_ms + self.isp_ms

    def newest(self, now_ms: float) -> int:
        """The number of the newest frame delivered by ``now_ms`` (frame i's exposure begins at
        i × frame_ms)."""
        return math.floor((now_ms - self.latency_ms()) / self.frame_ms)

    def delivered_at(self, i: int) -> float:
        return i * self.frame_ms + self.latency_ms()


def _cfg(name: str) -> Any:
    from firmware_bridge.sim.fakes import load_config

    return getattr(load_config(), name)


class CameraServer:
    MAX_FPS = 120.0  # wall frames a second a stream sends at most (a sped-up sensor would flood it)

    def __init__(self, board: Any, *, dropout: float = 0.0, seed: int | None = None, fps: float | None = None,
                 design: str | None = None, sensor: Sensor | None = None, scene_tags: bool = False):
        """``fps``: the frames a second (wall) the stream sends, by default the sensor's own rate at the
        rig's speed (at most MAX_FPS); a new scene goes out as soon as its first frame is delivered."""
        self.sensor = sensor or Sensor()
        if fps is None:
            fps = min(self.MAX_FPS, 1000.0 / self.sensor.frame_ms * board.clock.speed)
        self.board, self.dropout, self.fps, self.design = board, dropout, fps, design
        self.scene_tags = scene_tags
        self.looks: dict[bytes, int] = {}  # JPEG -> the scene it shows (the last few scenes), for tests
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

    def frame(self) -> tuple[int, bytes, int, int]:
        """(frame seq, JPEG bytes, cards in the hopper, exposure start in ns of CLOCK_MONOTONIC) of the
        newest frame the sensor has delivered: the hopper as it was when that frame's exposure began.
        Successive frames of one scene differ a little (pose, light, noise) like a real camera's: up to
        ``variants`` renderings per scene, rendered on demand and then reused in turn."""
        clock = self.board.clock
        now = clock.now_ms()
        exposed = self.sensor.newest(now) * self.sensor.frame_ms
        seq, label, left = self.board.scene_at(exposed)
        # the exposure's instant on the host's monotonic clock, through the clock's own history: a starved
        # ticked clock lags the wall, and "now minus the sim latency" would then stamp an old frame as new
        stamp = int(clock.monotonic_at(exposed) * 1e9)
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
                self.looks[frames[-1]] = seq
                while len(self.looks) > 8 * self.variants:
                    del self.looks[next(iter(self.looks))]
            return seq, frames[min(i, len(frames) - 1)], left, stamp

    def _headers(self, seq: int, left: int, stamp: int) -> list[tuple[str, str]]:
        out = [("X-Sensor-Timestamp", str(stamp)), ("X-Hopper-Cards", str(left))]
        return out + [("X-Frame-Seq", str(seq))] if self.scene_tags else out

    def _wait_next(self, last_scene: int, last_sent: float) -> None:
        """Until the next frame worth sending: the first frame of a new scene as soon as the sensor
        delivers it, else the next frame after 1/fps of wall time."""
        board, sensor, clock = self.board, self.sensor, self.board.clock
        with board.changed:
            while self.httpd is not None:
                now = clock.now_ms()
                newest = sensor.newest(now)
                if board.scene_at(newest * sensor.frame_ms)[0] != last_scene:
                    return
                if time.monotonic() - last_sent >= 1.0 / self.fps:
                    return
                wait = 1.0 / self.fps - (time.monotonic() - last_sent)
                if board.frame_seq != last_scene:  # a new scene, its first frame not delivered yet
                    first = math.ceil(board.scenes[-1][0] / sensor.frame_ms)
                    wait = min(wait, max(0.0005, (sensor.delivered_at(first) - now) / 1000.0 / clock.speed))
                board.changed.wait(max(0.0005, wait))

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
                seq, jpg, left, stamp = server.frame()
                server.frames_served += 1
                self.send_response(200)
                self.send_header("Content-Type", "image/jpeg")
                self.send_header("Content-Length", str(len(jpg)))
                for key, value in server._headers(seq, left, stamp):
                    self.send_header(key, value)
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(jpg)

            def _stream(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", f"multipart/x-mixed-replace; boundary={BOUNDARY}")
                self.send_header("Cache-Control", "no-store")
                self.send_header("Connection", "close")
                self.end_headers()
                scene, sent = -1, 0.0
                try:
                    while server.httpd is not None:
                        server._wait_next(scene, sent)
                        sent = time.monotonic()
                        if server.dropped():
                            time.sleep(1.0 / server.fps)
                            continue
                        seq, jpg, left, stamp = server.frame()
                        scene = seq
                        server.frames_served += 1
                        extra = "".join(f"{k}: {v}\r\n" for k, v in server._headers(seq, left, stamp))
                        head = (f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(jpg)}\r\n"
                                f"{extra}\r\n").encode()
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
