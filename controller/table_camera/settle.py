"""Wait for the picture to settle: no motion for ``frames`` frames in a row.

A hand over the play area moves from frame to frame; cards lying on the table do not. Each frame is
compared, small and grey, with the one before it; a run of ``frames`` still frames is a settled
picture, given once per run.
"""

from __future__ import annotations

import cv2
import numpy as np

SMALL = (160, 120)  # pictures are compared at this size: sensor noise averages out
STILL = 2.5  # mean grey levels two frames may differ by and still be the same picture
MOVED = 10.0  # ... a pixel changing by more than this counts as motion
MOVED_SHARE = 0.002  # ... and a picture with this share of moved pixels is not still


def small(image: np.ndarray) -> np.ndarray:
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    return cv2.GaussianBlur(cv2.resize(grey, SMALL, interpolation=cv2.INTER_AREA), (3, 3), 0).astype(np.float32)


def moved(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two small pictures differ by more than noise."""
    d = np.abs(a - b)
    return float(d.mean()) > STILL or float((d > MOVED).mean()) > MOVED_SHARE


class Settler:
    """Feed it frames; :meth:`feed` answers True on the frame that completes a still run."""

    def __init__(self, frames: int = 4):
        self.frames = max(2, frames)
        self._last: np.ndarray | None = None
        self._run = 0

    def feed(self, image: np.ndarray) -> bool:
        s = small(image)
        still = self._last is not None and not moved(s, self._last)
        self._last = s
        self._run = self._run + 1 if still else 1
        return self._run == self.frames

    def reset(self) -> None:
        self._last, self._run = None, 0
