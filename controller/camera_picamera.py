"""The Raspberry Pi camera (CSI: Camera Module 2/3, HQ) through picamera2, as a :class:`Camera` source.

picamera2 comes from Raspberry Pi OS (``sudo apt install python3-picamera2``; the venv must be made with
``--system-site-packages``) and is imported only when this source is opened, so the rest of hongsi runs
anywhere. ``camera_url = "picamera"`` selects camera 0; ``"picamera:1"`` the second camera.

>>> cam = open_camera("picamera")                     # doctest: +SKIP
>>> cam.set_exposure(8000)                            # doctest: +SKIP
>>> cam.grab(1)[0].image.shape                        # doctest: +SKIP
(480, 640, 3)
"""

from __future__ import annotations

import threading
from typing import Any

from controller.camera import Camera, CameraError, Frame, _decode, _Latest

SCHEME = "picamera"


def parse_source(source: str) -> int | None:
    """The camera index of a ``picamera[:N]`` source string, or None when it is not one."""
    if source == SCHEME:
        return 0
    head, sep, tail = source.partition(":")
    if head == SCHEME and sep and tail.isdigit():
        return int(tail)
    return None


class PiCamera(Camera):
    """A Pi camera: a background thread keeps the newest frame (BGR, which picamera2 calls
    ``RGB888``); :meth:`set_exposure` fixes the exposure time (the calibration wizard tunes it)."""

    def __init__(self, index: int = 0, *, size: tuple[int, int] = (640, 480), exposure_us: float = 0.0,
                 picamera2_module: Any = None):
        module = picamera2_module
        if module is None:
            try:
                import picamera2 as module
            except ImportError:
                raise CameraError("camera: picamera2 is not installed: sudo apt install python3-picamera2 "
                                  "(and a venv made with --system-site-packages)") from None
        try:
            self._cam = module.Picamera2(index)
            config = self._cam.create_video_configuration(main={"size": tuple(size), "format": "RGB888"})
            self._cam.configure(config)
            self._cam.start()
        except Exception as exc:  # noqa: BLE001 - libcamera raises many kinds; one clear message
            raise CameraError(f"camera: cannot open Pi camera {index}: {exc}") from None
        self.exposure_us = 0.0
        if exposure_us:
            self.set_exposure(exposure_us)
        self._latest = _Latest()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="picamera", daemon=True)
        self._thread.start()

    def set_exposure(self, us: float) -> None:
        """A fixed exposure time in microseconds; 0 returns to automatic exposure."""
        if us and us > 0:
            self._cam.set_controls({"AeEnable": False, "ExposureTime": int(us)})
        else:
            self._cam.set_controls({"AeEnable": True})
        self.exposure_us = float(us or 0.0)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                image = self._cam.capture_array("main")
            except Exception as exc:  # noqa: BLE001 - keep the reason for the dropout message
                self._latest.error = f"{type(exc).__name__}: {exc}"
                if self._stop.wait(0.1):
                    return
                continue
            if image is not None and image.ndim == 3 and image.shape[2] == 4:
                image = image[:, :, :3]  # XBGR8888 → BGR
            self._latest.put(image)

    def grab(self, n: int = 1, *, timeout: float = 2.0, skip: int = 0, newer_than: int | None = None
             ) -> list[Frame]:
        return [_decode(*item) for item in self._latest.take(n + skip, timeout, newer_than)[skip:]]

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2.0)
        try:
            self._cam.stop()
            self._cam.close()
        except Exception:  # noqa: BLE001 - closing a camera that already failed
            pass
