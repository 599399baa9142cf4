"""Camera sources: a real MJPEG stream over loopback HTTP (fresh frames, dropout, reconnect), a folder."""

import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import cv2
import numpy as np
import pytest

from controller.camera import CameraError, FolderCamera, MJPEGCamera, open_camera


def _jpeg(n: int) -> bytes:
    img = np.zeros((60, 80, 3), np.uint8)
    img[:, :] = (n * 37 % 255, 90, 200)
    return cv2.imencode(".jpg", img)[1].tobytes()


class _Stream:
    """A small MJPEG server: frames numbered 1, 2, … every ``period`` seconds while ``on`` is set."""

    def __init__(self, period: float = 0.01):
        self.on = threading.Event()
        self.on.set()
        self.count = 0
        stream = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                if not stream.on.is_set():
                    self.send_error(503)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
                self.end_headers()
                try:
                    while stream.on.is_set():
                        stream.count += 1
                        data = _jpeg(stream.count)
                        self.wfile.write(b"--frame\r\nContent-Type: image/jpeg\r\n"
                                         + f"Content-Length: {len(data)}\r\nX-Frame-Seq: 7\r\n\r\n".encode()
                                         + data + b"\r\n")
                        time.sleep(period)
                except OSError:
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/stream.mjpg"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.on.clear()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def stream():
    s = _Stream()
    yield s
    s.close()


def test_mjpeg_gives_distinct_fresh_frames(stream):
    cam = open_camera(stream.url)
    assert isinstance(cam, MJPEGCamera)
    try:
        first = cam.grab(1, timeout=3)
        t_call = time.monotonic()
        frames = cam.grab(3, timeout=3, skip=1)
        assert len(frames) == 3 and len({f.seq for f in frames}) == 3
        assert all(f.t > t_call for f in frames) and frames[0].seq > first[0].seq + 1
        assert frames[0].image.shape == (60, 80, 3)
    finally:
        cam.close()


def test_mjpeg_dropout_raises_then_recovers(stream):
    cam = MJPEGCamera(stream.url)
    try:
        cam.grab(1, timeout=3)
        stream.on.clear()                     # the camera goes dark
        time.sleep(0.05)
        with pytest.raises(CameraError, match="fresh frames"):
            cam.grab(2, timeout=0.3)
        stream.on.set()                       # back: the reader reconnects by itself
        assert len(cam.grab(2, timeout=5)) == 2
    finally:
        cam.close()


def test_folder_camera_cycles_images(tmp_path):
    for i in range(3):
        (tmp_path / f"{i:02d}.jpg").write_bytes(_jpeg(i))
    cam = open_camera(str(tmp_path))
    assert isinstance(cam, FolderCamera)
    frames = cam.grab(4)
    assert [f.seq for f in frames] == [1, 2, 3, 4]
    assert np.array_equal(frames[3].image, frames[0].image)


def test_bad_sources_are_clear_errors(tmp_path):
    with pytest.raises(CameraError, match="not a URL"):
        open_camera(str(tmp_path / "nothing-here"))
    with pytest.raises(CameraError, match="no images"):
        open_camera(str(tmp_path))
    with socket.socket() as s:             # a port nobody listens on: grab times out with the reason
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cam = MJPEGCamera(f"http://127.0.0.1:{port}/stream.mjpg")
    try:
        with pytest.raises(CameraError, match="refused|0 of 1"):
            cam.grab(1, timeout=0.3)
    finally:
        cam.close()


def test_a_frame_claiming_a_huge_size_is_refused_before_decoding(tmp_path):
    """A frame's header is checked as a file's is: a few bytes saying 20,000 x 20,000 (1.2 GB decoded)."""
    import struct

    ok, buf = cv2.imencode(".jpg", np.full((48, 64, 3), 90, np.uint8))
    data = bytearray(buf.tobytes())
    at = data.index(b"\xff\xc0")  # the baseline start-of-frame: length, precision, height, width
    data[at + 5 : at + 9] = struct.pack(">HH", 20_000, 20_000)
    (tmp_path / "a.jpg").write_bytes(bytes(data))
    (tmp_path / "b.jpg").write_bytes(buf.tobytes())
    cam = FolderCamera(tmp_path)
    with pytest.raises(CameraError, match="20000 × 20000"):
        cam.grab()
    assert cam.grab()[0].image.shape == (48, 64, 3)  # the next good frame reads
