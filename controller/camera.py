"""Camera sources behind one small interface: grab N *fresh* frames.

- an MJPEG stream over HTTP (``http://…/stream.mjpg``; the virtual rig's camera, or an IP camera);
- a folder of images (one image a frame, in name order; for replays and tests);
- a video file or a capture device (``/dev/video0`` or ``0``), through ``cv2.VideoCapture``.

A frame is *fresh* when its exposure began after the call began, so a frame of the previous card is
never read as the next one. A camera's newest frame can be older than it looks: it was exposed, read
out and processed before it arrived (Camera Module 3 at 30 fps: ~55 ms). Sources that stamp their
frames with the sensor's exposure time — libcamera's ``SensorTimestamp`` (the Pi camera), an MJPEG
part's ``X-Sensor-Timestamp`` (the virtual rig) — are judged by that stamp; others by arrival. A
background thread keeps only the latest JPEG; decoding happens in the caller, only for the frames it
asked for.

>>> cam = open_camera("http://127.0.0.1:8081/stream.mjpg")          # doctest: +SKIP
>>> frames = cam.grab(3, timeout=2.0)                                # doctest: +SKIP
>>> frames[0].image.shape                                            # doctest: +SKIP
(480, 640, 3)
"""

from __future__ import annotations

import http.client
import threading
import time
import urllib.parse
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from controller.images import MAX_PIXELS, header_size

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


class CameraError(RuntimeError):
    """The camera gave no usable frame in time (a dropout), or cannot be opened."""


@dataclass
class Frame:
    """One camera frame: the decoded image (BGR), the JPEG it came from (if any), its number in this
    session and the time it was received (``time.monotonic()``)."""

    image: np.ndarray
    jpeg: bytes | None
    seq: int
    t: float
    tag: int | None = None   # the source's own sequence header, if it sends one (X-Frame-Seq)
    exposed: float | None = None  # when the sensor began exposing it (time.monotonic() seconds), if known

    def to_jpeg(self, quality: int = 90) -> bytes:
        if self.jpeg is not None:
            return self.jpeg
        ok, buf = cv2.imencode(".jpg", self.image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        if not ok:
            raise CameraError("cannot encode a frame as JPEG")
        return buf.tobytes()


class Camera(ABC):
    """A source of frames."""

    @abstractmethod
    def grab(self, n: int = 1, *, timeout: float = 2.0, skip: int = 0, newer_than: int | None = None
             ) -> list[Frame]:
        """``n`` frames received after this call began (after dropping the first ``skip`` of them, which
        may have been in flight); with ``newer_than``, only frames whose source tag is greater (a source
        that tags its frames by scene changes, like the virtual rig). Raise :class:`CameraError` after
        ``timeout``."""

    def close(self) -> None:  # noqa: B027 - optional for sources without resources
        """Release the source."""

    def __enter__(self) -> Camera:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Latest:
    """The newest raw frame of a background reader, with a condition to wait on."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.data: bytes | np.ndarray | None = None
        self.seq = 0
        self.t = 0.0
        self.tag: int | None = None
        self.exposed: float | None = None
        self.error: str | None = None

    def put(self, data: bytes | np.ndarray, tag: int | None = None, exposed: float | None = None) -> None:
        """A new frame; ``tag`` is the source's own sequence header (the virtual rig's grows each time
        the hopper changes), kept as :attr:`tag`; ``exposed`` the sensor's exposure start
        (``time.monotonic()`` seconds) when the source stamps its frames; frames are told apart by a
        local counter."""
        with self.cond:
            self.data = data
            self.seq += 1
            self.tag = tag
            self.exposed = exposed
            self.t = time.monotonic()
            self.cond.notify_all()

    def take(self, n: int, timeout: float, newer_than: int | None = None
             ) -> list[tuple[bytes | np.ndarray, int, float, int | None, float | None]]:
        """``n`` distinct frames exposed (or, unstamped, arrived) after the call (and tagged after
        ``newer_than``)."""
        deadline = time.monotonic() + timeout
        out: list[tuple[bytes | np.ndarray, int, float, int | None, float | None]] = []
        with self.cond:
            since = time.monotonic()
            last_seq = None
            while len(out) < n:
                if newer_than is not None and self.tag is not None:   # the tag proves freshness
                    fresh = self.data is not None and self.tag > newer_than and self.seq != last_seq
                else:   # the sensor's stamp when there is one: a frame arriving now may be 55 ms old
                    when = self.exposed if self.exposed is not None else self.t
                    fresh = self.data is not None and when > since and self.seq != last_seq
                if fresh:
                    assert self.data is not None
                    out.append((self.data, self.seq, self.t, self.tag, self.exposed))
                    last_seq = self.seq
                    continue
                left = deadline - time.monotonic()
                if left <= 0:
                    why = f" ({self.error})" if self.error else ""
                    raise CameraError(f"camera: got {len(out)} of {n} fresh frames in {timeout:.1f} s{why}")
                self.cond.wait(left)
        return out


def _decode(data: bytes | np.ndarray, seq: int, t: float, tag: int | None = None,
            exposed: float | None = None) -> Frame:
    if isinstance(data, np.ndarray):
        return Frame(data, None, seq, t, tag, exposed)
    size = header_size(data)  # a frame's header is trusted no more than a file's: its size is checked first
    if size is not None and size[0] * size[1] > MAX_PIXELS:
        raise CameraError(f"camera: frame {seq} says it is {size[0]} × {size[1]} pixels, larger than any camera's")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise CameraError(f"camera: frame {seq} is not a readable JPEG")
    return Frame(image, data, seq, t, tag, exposed)


def sensor_stamp(headers: dict[str, str]) -> float | None:
    """An MJPEG part's exposure stamp (``X-Sensor-Timestamp``, ns of CLOCK_MONOTONIC) in
    ``time.monotonic()`` seconds; None without one."""
    value = headers.get("x-sensor-timestamp", "").strip()
    return int(value) / 1e9 if value.isdigit() else None


class MJPEGCamera(Camera):
    """An MJPEG (multipart/x-mixed-replace) stream over HTTP, read by a background thread that
    reconnects after a dropout. A part header whose name contains ``seq`` (e.g. ``X-Frame-Seq``) is
    kept as the latest frame's ``tag``."""

    def __init__(self, url: str, *, connect_timeout: float = 5.0):
        self.url = url
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise CameraError(f"camera: {url!r} is not an http:// URL")
        self._parts = parts
        self._timeout = connect_timeout
        self._latest = _Latest()
        self._stop = threading.Event()
        self._conn: http.client.HTTPConnection | None = None
        self._thread = threading.Thread(target=self._run, name="mjpeg", daemon=True)
        self._thread.start()

    def grab(self, n: int = 1, *, timeout: float = 2.0, skip: int = 0, newer_than: int | None = None
             ) -> list[Frame]:
        return [_decode(*item) for item in self._latest.take(n + skip, timeout, newer_than)[skip:]]

    def close(self) -> None:
        self._stop.set()
        conn = self._conn
        if conn is not None:
            try:
                if conn.sock is not None:
                    conn.sock.shutdown(2)
            except OSError:
                pass
            conn.close()
        self._thread.join(2.0)

    def _run(self) -> None:
        backoff = 0.05
        while not self._stop.is_set():
            try:
                self._stream()
                backoff = 0.05
            except (OSError, http.client.HTTPException, ValueError) as exc:
                self._latest.error = f"{type(exc).__name__}: {exc}"
            if self._stop.wait(backoff):
                return
            backoff = min(backoff * 2, 1.0)

    def _stream(self) -> None:
        p = self._parts
        cls = http.client.HTTPSConnection if p.scheme == "https" else http.client.HTTPConnection
        conn = cls(p.hostname, p.port, timeout=self._timeout)
        self._conn = conn
        try:
            path = p.path or "/"
            conn.request("GET", path + (f"?{p.query}" if p.query else ""))
            resp = conn.getresponse()
            if resp.status != 200:
                raise ValueError(f"HTTP {resp.status} from {self.url}")
            ctype = resp.getheader("Content-Type", "")
            if "multipart" not in ctype:  # a single image (a snapshot URL): poll it
                self._latest.put(resp.read(), None, sensor_stamp({k.lower(): v for k, v in resp.getheaders()}))
                return
            self._latest.error = None
            while not self._stop.is_set():
                headers = self._part_headers(resp)
                if headers is None:
                    return
                length = headers.get("content-length")
                if length is None:
                    raise ValueError("an MJPEG part without Content-Length")
                data = resp.read(int(length))
                if len(data) < int(length):
                    return
                tag = next((int(v) for k, v in headers.items() if "seq" in k and v.strip().isdigit()), None)
                self._latest.put(data, tag, sensor_stamp(headers))
        finally:
            conn.close()
            self._conn = None

    @staticmethod
    def _part_headers(resp: http.client.HTTPResponse) -> dict[str, str] | None:
        """Skip to the next boundary and return the part's headers (lower-case names)."""
        headers: dict[str, str] = {}
        started = False
        while True:
            line = resp.readline(4096)
            if not line:
                return None
            text = line.decode("latin-1").strip()
            if not started:
                if text.startswith("--"):
                    started = True
                elif ":" in text:  # some servers omit the boundary line before the first part
                    started = True
                    key, _, value = text.partition(":")
                    headers[key.strip().lower()] = value.strip()
                continue
            if not text:
                if headers:
                    return headers
                continue
            key, _, value = text.partition(":")
            headers[key.strip().lower()] = value.strip()


class FolderCamera(Camera):
    """A folder of images, one frame each, in name order (looping). For replays and tests."""

    def __init__(self, folder: Path | str):
        self.files = sorted(p for p in Path(folder).iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise CameraError(f"camera: no images in {folder}")
        self._next = 0

    def grab(self, n: int = 1, *, timeout: float = 2.0, skip: int = 0, newer_than: int | None = None
             ) -> list[Frame]:
        out = []
        for _ in range(n):
            path = self.files[self._next % len(self.files)]
            self._next += 1
            data = path.read_bytes()
            out.append(_decode(data, self._next, time.monotonic()))
        return out


class ThreadedCamera(Camera):
    """A source read by a background thread that keeps the newest frames. Subclasses give
    :meth:`_capture` (one BGR image; raise with the reason on a dropout) and :meth:`_release`."""

    retry_s = 0.05

    def _start(self, name: str) -> None:
        self._latest = _Latest()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _capture(self) -> np.ndarray | tuple[np.ndarray, float]:
        """One BGR image, or (image, exposure start in ``time.monotonic()`` seconds) from a source that
        knows when its sensor exposed it."""
        raise NotImplementedError

    def _release(self) -> None:
        pass

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                image = self._capture()
                exposed = None
                if isinstance(image, tuple):
                    image, exposed = image
            except Exception as exc:  # noqa: BLE001 - keep the reason for the dropout message
                self._latest.error = str(exc) if isinstance(exc, CameraError) else f"{type(exc).__name__}: {exc}"
                if self._stop.wait(self.retry_s):
                    return
                continue
            self._latest.put(image, None, exposed)

    def grab(self, n: int = 1, *, timeout: float = 2.0, skip: int = 0, newer_than: int | None = None
             ) -> list[Frame]:
        return [_decode(*item) for item in self._latest.take(n + skip, timeout, newer_than)[skip:]]

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2.0)
        self._release()


class VideoCamera(ThreadedCamera):
    """A video file or a capture device through ``cv2.VideoCapture`` (a background reader thread)."""

    def __init__(self, source: str | int):
        self._cap = cv2.VideoCapture(source)
        if not self._cap.isOpened():
            raise CameraError(f"camera: cannot open {source!r}")
        self._start("video")

    def _capture(self) -> np.ndarray:
        ok, image = self._cap.read()
        if not ok:
            raise CameraError("end of video or device error")
        return image

    def _release(self) -> None:
        self._cap.release()


def open_camera(source: str, *, exposure_us: float = 0) -> Camera:
    """The camera for ``source``, with the calibrated exposure (µs) applied where it can be (0 = automatic)."""
    camera = _open_source(source)
    if exposure_us:
        set_exposure(camera, exposure_us)
    return camera


def set_exposure(camera: Camera, us: float) -> bool:
    """Set a camera's exposure time (µs; 0 = automatic). False when the source has no exposure control
    (an MJPEG stream, a folder). The Pi camera has ``set_exposure``; a UVC camera is set through V4L2."""
    if hasattr(camera, "set_exposure"):
        camera.set_exposure(us)
        return True
    cap = getattr(camera, "_cap", None)  # VideoCamera's cv2.VideoCapture
    if cap is None:
        return False
    if not us:
        return bool(cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, 3))  # V4L2: aperture priority (automatic)
    cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, 1)  # V4L2: manual
    return bool(cap.set(cv2.CAP_PROP_EXPOSURE, us / 100.0))  # V4L2 exposure_absolute is in 100 µs


def _open_source(source: str) -> Camera:
    """The camera for a source string: an http(s) URL, a folder, a device index or path, a video file,
    an ``rtsp://`` URL (through OpenCV), or ``picamera[:N][@CM]`` (the Pi camera focused at CM; picamera2
    imported only then)."""
    if source.startswith(("http://", "https://")):
        return MJPEGCamera(source)
    if source.startswith(("rtsp://", "rtsps://")):
        return VideoCamera(source)
    if source.split(":")[0].split("@")[0] == "picamera":
        from controller.camera_picamera import WINDOW_CM, PiCamera, parse_focus, parse_source

        index = parse_source(source)
        if index is None:
            raise CameraError(f"camera: {source!r}: write picamera or picamera:N (@CM: the focus)")
        try:
            focus = parse_focus(source)
        except ValueError as exc:
            raise CameraError(str(exc)) from None
        return PiCamera(index, focus_cm=WINDOW_CM if focus is None else focus)
    path = Path(source)
    if path.is_dir():
        return FolderCamera(path)
    if source.isdigit():
        return VideoCamera(int(source))
    if path.exists():
        return VideoCamera(str(path))
    raise CameraError(f"camera: {source!r} is not a URL, a folder, a device or a video file")
