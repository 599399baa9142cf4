"""Every camera source the config can select opens and reads frames: the virtual rig's MJPEG URL, a folder
of images, a video file written by OpenCV (MJPG in .avi), an RTSP URL's routing, and the Pi camera's
picamera2 source (imported only when used)."""

from __future__ import annotations

import subprocess
import sys
import time
import types

import cv2
import numpy as np
import pytest

from controller.camera import CameraError, FolderCamera, MJPEGCamera, VideoCamera, open_camera


def _frame(i: int, h: int = 120, w: int = 160) -> np.ndarray:
    img = np.zeros((h, w, 3), np.uint8)
    img[:, :] = (20 * i % 256, 100, 200)
    cv2.putText(img, str(i), (40, 80), cv2.FONT_HERSHEY_SIMPLEX, 2, (255, 255, 255), 3)
    return img


def test_the_virtual_rigs_mjpeg_url_gives_fresh_decoded_frames():
    from firmware_bridge.sim import VirtualRig

    with VirtualRig(seed=5, speed=20) as vr:
        with open_camera(vr.ends["camera"]) as cam:
            assert isinstance(cam, MJPEGCamera)
            began = time.monotonic()
            frames = cam.grab(2, timeout=10.0)
    assert len(frames) == 2 and frames[0].seq != frames[1].seq
    for f in frames:
        assert f.image.ndim == 3 and f.image.shape[2] == 3 and f.image.std() > 1.0  # a picture, not a blank
        assert f.jpeg is not None and f.jpeg[:2] == b"\xff\xd8"
        # the sensor's stamp came through: exposed after the grab began, and before the frame arrived
        assert f.exposed is not None and began < f.exposed < f.t and f.tag is None


def test_a_folder_of_images_replays_in_name_order_and_loops(tmp_path):
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"{i:03d}.png"), _frame(i))
    (tmp_path / "notes.txt").write_text("not an image")
    with open_camera(str(tmp_path)) as cam:
        assert isinstance(cam, FolderCamera)
        frames = cam.grab(4)
    means = [int(f.image[5, 5, 0]) for f in frames]
    assert means == [0, 20, 40, 0]


def test_an_empty_folder_is_a_clear_error(tmp_path):
    with pytest.raises(CameraError, match="no images"):
        open_camera(str(tmp_path))


def test_a_video_file_written_by_opencv_is_read_through_videocapture(tmp_path):
    path = tmp_path / "replay.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (160, 120))
    assert writer.isOpened()
    for i in range(300):  # long enough that the reader thread is still going when grab() starts
        writer.write(_frame(i))
    writer.release()
    assert path.stat().st_size > 1000
    cap = cv2.VideoCapture(str(path))
    ok, first = cap.read()
    cap.release()
    assert ok and first.shape == (120, 160, 3)
    with open_camera(str(path)) as cam:
        assert isinstance(cam, VideoCamera)
        frames = cam.grab(3, timeout=10.0)
    assert len(frames) == 3 and all(f.image.shape == (120, 160, 3) for f in frames)
    assert len({f.seq for f in frames}) == 3


def test_rtsp_urls_go_to_opencv_and_fail_clearly_when_nothing_answers():
    with pytest.raises(CameraError, match="cannot open 'rtsp://127.0.0.1:9/"):
        open_camera("rtsp://127.0.0.1:9/cam")


def test_an_unknown_source_names_what_is_accepted():
    with pytest.raises(CameraError, match="not a URL, a folder, a device or a video file"):
        open_camera("/nonexistent/camera")
    with pytest.raises(CameraError, match="picamera or picamera:N"):
        open_camera("picamera:left")


def test_picamera2_is_imported_only_when_the_pi_camera_is_used():
    code = ("import sys, controller.camera, controller.camera_picamera, controller.calibrate, "
            "controller.selftest; print('picamera2' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_without_picamera2_the_pi_camera_names_the_debian_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import picamera2 -> ImportError
    with pytest.raises(CameraError, match="python3-picamera2"):
        open_camera("picamera")


class _Picamera2:
    """picamera2's documented surface (Picamera2(index), create_video_configuration, configure, start,
    capture_array, set_controls, stop, close), producing XBGR8888 frames like libcamera does."""

    instances: list[_Picamera2] = []

    def __init__(self, index: int = 0):
        self.index, self.controls, self.started, self.n = index, [], False, 0
        _Picamera2.instances.append(self)

    def create_video_configuration(self, main: dict) -> dict:
        return {"main": dict(main)}

    def configure(self, config: dict) -> None:
        self.size = config["main"]["size"]

    def start(self) -> None:
        self.started = True

    def capture_array(self, name: str = "main") -> np.ndarray:
        import time

        time.sleep(0.005)
        self.n += 1
        w, h = self.size
        img = np.zeros((h, w, 4), np.uint8)
        img[:, :, 0] = self.n % 256
        return img

    def set_controls(self, controls: dict) -> None:
        self.controls.append(dict(controls))

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        pass


def test_the_pi_camera_source_reads_bgr_frames_and_sets_exposure(monkeypatch):
    from controller.camera_picamera import PiCamera

    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=_Picamera2))
    _Picamera2.instances.clear()
    cam = open_camera("picamera:1")
    try:
        assert isinstance(cam, PiCamera)
        frames = cam.grab(2, timeout=5.0)
        assert [f.image.shape for f in frames] == [(480, 640, 3)] * 2
        assert frames[0].image[0, 0, 0] != frames[1].image[0, 0, 0]  # two different captures
        cam.set_exposure(8000)
        cam.set_exposure(0)
    finally:
        cam.close()
    dev = _Picamera2.instances[0]
    assert dev.index == 1 and not dev.started
    assert dev.controls == [{"AeEnable": False, "ExposureTime": 8000}, {"AeEnable": True}]


def test_open_camera_applies_the_calibrated_exposure(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=_Picamera2))
    _Picamera2.instances.clear()
    cam = open_camera("picamera", exposure_us=12000)
    cam.close()
    assert _Picamera2.instances[0].controls == [{"AeEnable": False, "ExposureTime": 12000}]
    # a source without exposure control (a folder of images) opens all the same
    cv2.imwrite(str(tmp_path / "a.jpg"), np.zeros((8, 8, 3), np.uint8))
    open_camera(str(tmp_path), exposure_us=12000).close()


def test_a_numpy_2_clash_in_picamera2_is_a_clear_camera_error(monkeypatch, tmp_path):
    """Bookworm: Debian's simplejpeg (built for numpy 1.x) under a venv's numpy 2 raises ValueError."""
    (tmp_path / "picamera2.py").write_text(
        "raise ValueError('numpy.dtype size changed, may indicate binary incompatibility')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "picamera2", raising=False)
    with pytest.raises(CameraError, match="numpy<2"):
        open_camera("picamera")


def test_the_pi_camera_focuses_on_the_window(monkeypatch):
    class _Autofocus(_Picamera2):
        camera_controls = {"AfMode": (0, 2, 0), "LensPosition": (0.0, 15.0, 1.0)}

    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=_Autofocus))
    _Picamera2.instances.clear()
    cam = open_camera("picamera")
    cam.close()
    focus = [c for c in _Picamera2.instances[0].controls if "AfMode" in c]
    assert focus == [{"AfMode": 0, "LensPosition": 100.0 / 12.0}]  # manual, 12 cm (8.3 dioptres)


class _Request:
    def __init__(self, cam, stamp_ns: int):
        self.cam, self.stamp_ns = cam, stamp_ns

    def make_array(self, name: str = "main"):
        return self.cam.capture_array(name)

    def get_metadata(self) -> dict:
        return {"SensorTimestamp": self.stamp_ns, "ExposureTime": 8000}

    def release(self) -> None:
        self.cam.released += 1


def test_the_pi_camera_stamps_frames_with_libcameras_sensor_timestamp(monkeypatch):
    """picamera2's capture_request() carries SensorTimestamp (ns of CLOCK_BOOTTIME, the exposure's
    start): the frame's ``exposed`` is that instant on time.monotonic()'s clock."""
    class WithRequests(_Picamera2):
        released = 0

        def capture_request(self):
            ago = 0.060   # exposed 60 ms before it is handed over
            return _Request(self, int((time.clock_gettime(time.CLOCK_BOOTTIME) - ago) * 1e9))

    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=WithRequests))
    cam = open_camera("picamera")
    try:
        frames = cam.grab(2, timeout=5.0)
    finally:
        cam.close()
    for f in frames:
        assert 0.055 < f.t - f.exposed < 0.5
    assert WithRequests.instances[-1].released >= 2
