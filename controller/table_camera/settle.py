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
# A settled picture that changed along the play area's edge has an arm reaching in: a hand resting on the
# cards just thrown hides some of them. Cards lie inside the area; on the virtual table an arm changed
# 5-40 edge pixels (of 560, small), the cards alone at most 1. A change along most of the edge is the
# light (a lamp, the sun, the exposure), not an arm.
EDGE_BAND = 2  # small pixels in from the edge
EDGE_PX = 4  # changed edge pixels (colour, more than MOVED) that make an arm
EDGE_MOST = 1 / 3  # ... up to this share of the edge's pixels


def small(image: np.ndarray, grey: bool = True) -> np.ndarray:
    if grey and image.ndim == 3:
        image = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return cv2.GaussianBlur(cv2.resize(image, SMALL, interpolation=cv2.INTER_AREA), (3, 3), 0).astype(np.float32)


def reaches_in(before: np.ndarray, after: np.ndarray) -> bool:
    """Whether ``after`` differs from ``before`` along part of the picture's edge (in colour: a hand on a
    cloth of its own grey is still another colour): something reaches into the play area from outside."""
    d = np.abs(small(before, grey=False) - small(after, grey=False))
    d = (d.max(axis=2) if d.ndim == 3 else d) > MOVED
    B, (H, W) = EDGE_BAND, d.shape
    edge = int(d[:B].any(0).sum() + d[-B:].any(0).sum() + d[:, :B].any(1).sum() + d[:, -B:].any(1).sum())
    return EDGE_PX <= edge <= EDGE_MOST * 2 * (H + W)


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

    @property
    def still(self) -> bool:
        """Whether the picture has not moved since the last settled one."""
        return self._run >= self.frames

    def reset(self) -> None:
        self._last, self._run = None, 0
