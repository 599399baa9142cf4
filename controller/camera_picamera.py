"""The Raspberry Pi camera (CSI: Camera Module 2/3, HQ) through picamera2, as a :class:`Camera` source.

picamera2 comes from Raspberry Pi OS (``sudo apt install python3-picamera2``; the venv must be made with
``--system-site-packages``) and is imported only when this source is opened, so the rest of hongsi runs
anywhere. ``camera_url = "picamera"`` selects camera 0; ``"picamera:1"`` the second camera; ``@CM`` after
either fixes the focus at CM centimetres (``picamera@12.4``: what ``hongsi calibrate`` found sharpest).

>>> cam = open_camera("picamera")                     # doctest: +SKIP
>>> cam.set_exposure(8000)                            # doctest: +SKIP
>>> cam.grab(1)[0].image.shape                        # doctest: +SKIP
(480, 640, 3)
"""

from __future__ import annotations

import time
from typing import Any

from controller.camera import CameraError, ThreadedCamera

SCHEME = "picamera"
WINDOW_CM = 12.0  # lens to the hopper window (hardware/mechanics.md)
MIN_FOCUS_CM = 10.0  # Camera Module 3's closest focus
AF_MANUAL = 0  # libcamera controls.AfModeEnum.Manual


def parse_source(source: str) -> int | None:
    """The camera index of a ``picamera[:N][@CM]`` source string, or None when it is not one."""
    source = source.partition("@")[0]
    if source == SCHEME:
        return 0
    head, sep, tail = source.partition(":")
    if head == SCHEME and sep and tail.isdigit():
        return int(tail)
    return None


def parse_focus(source: str) -> float | None:
    """The focus distance (cm) of a ``picamera...@CM`` source; None: the window's (``WINDOW_CM``).
    ValueError for a distance that is no number or nearer than the lens can focus."""
    _, sep, cm = source.partition("@")
    if not sep:
        return None
    try:
        value = float(cm)
    except ValueError:
        raise ValueError(f"camera: {source!r}: the focus after @ is centimetres, like picamera@12.4") from None
    if not MIN_FOCUS_CM <= value <= 100:
        raise ValueError(f"camera: {source!r}: focus {value:g} cm (Camera Module 3 focuses from {MIN_FOCUS_CM:g} cm)")
    return value


def with_focus(source: str, cm: float) -> str:
    """``source`` with its focus set to ``cm`` (``picamera:1@12.5``)."""
    return f"{source.partition('@')[0]}@{cm:g}"


def sharpness(image: Any) -> float:
    """How sharp a frame is: the variance of its Laplacian (edges blur away out of focus)."""
    import cv2

    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    return float(cv2.Laplacian(grey, cv2.CV_64F).var())


class PiCamera(ThreadedCamera):
    """A Pi camera: a background thread keeps the newest frame (BGR, which picamera2 calls
    ``RGB888``); :meth:`set_exposure` fixes the exposure time (the calibration wizard tunes it)."""

    def __init__(self, index: int = 0, *, size: tuple[int, int] = (640, 480), exposure_us: float = 0.0,
                 focus_cm: float = WINDOW_CM, picamera2_module: Any = None):
        module = picamera2_module
        if module is None:
            try:
                import picamera2 as module
            except ImportError:
                raise CameraError("camera: picamera2 is not installed: sudo apt install python3-picamera2 "
                                  "(and a venv made with --system-site-packages)") from None
            except ValueError as exc:  # Debian's simplejpeg built for numpy 1.x meets a venv's numpy 2
                raise CameraError(f"camera: picamera2 cannot load ({exc}): the venv's numpy must be Debian's "
                                  "1.x — pip install 'numpy<2' in the venv (hongsi pins it on the Pi)") from None
        try:
            self._cam = module.Picamera2(index)
            config = self._cam.create_video_configuration(main={"size": tuple(size), "format": "RGB888"})
            self._cam.configure(config)
            self._cam.start()
        except Exception as exc:  # noqa: BLE001 - libcamera raises many kinds; one clear message
            raise CameraError(f"camera: cannot open Pi camera {index}: {exc}") from None
        self.exposure_us = 0.0
        self.focus_cm = 0.0
        if exposure_us:
            self.set_exposure(exposure_us)
        self.set_focus(focus_cm)
        self._start("picamera")

    def set_focus(self, cm: float) -> None:
        """Fix the focus at ``cm`` (Camera Module 3 focuses from 10 cm; the window is 12 cm from the lens).
        A fixed-focus camera has no AfMode: nothing to do."""
        controls = getattr(self._cam, "camera_controls", {}) or {}
        if "AfMode" not in controls:
            return
        cm = max(MIN_FOCUS_CM, float(cm))
        self._cam.set_controls({"AfMode": AF_MANUAL, "LensPosition": 100.0 / cm})  # dioptres
        self.focus_cm = cm

    def set_exposure(self, us: float) -> None:
        """A fixed exposure time in microseconds; 0 returns to automatic exposure."""
        if us and us > 0:
            self._cam.set_controls({"AeEnable": False, "ExposureTime": int(us)})
        else:
            self._cam.set_controls({"AeEnable": True})
        self.exposure_us = float(us or 0.0)

    def _capture(self) -> Any:
        """(BGR image, exposure start) through a request, whose metadata carries libcamera's
        ``SensorTimestamp``: when the first row began its exposure, in ns of CLOCK_BOOTTIME. Freshness
        is judged by it, not by arrival (a frame reaches us ~55 ms after its exposure began)."""
        if not hasattr(self._cam, "capture_request"):  # an older picamera2: no metadata, arrival only
            return _bgr(self._cam.capture_array("main"))
        request = self._cam.capture_request()
        try:
            image = _bgr(request.make_array("main"))
            stamp = (request.get_metadata() or {}).get("SensorTimestamp")
        finally:
            request.release()
        return image if stamp is None else (image, boottime_to_monotonic(stamp))

    retry_s = 0.1

    def _release(self) -> None:
        try:
            self._cam.stop()
            self._cam.close()
        except Exception:  # noqa: BLE001 - closing a camera that already failed
            pass


def _bgr(image: Any) -> Any:
    if image is not None and image.ndim == 3 and image.shape[2] == 4:
        image = image[:, :, :3]  # XBGR8888 → BGR
    return image


def boottime_to_monotonic(ns: int) -> float:
    """A CLOCK_BOOTTIME stamp in ns as ``time.monotonic()`` seconds (they differ by the time suspended)."""
    offset = time.clock_gettime(time.CLOCK_BOOTTIME) - time.monotonic()
    return ns / 1e9 - offset
