"""The pile corner detector: where each card's corner index lies in a picture of the play area, which
way is up for it, and where its card's centre is.

Usage::

    detector = CornerDetector()              # vision/models/pile_corners.onnx, one onnxruntime thread
    for c in detector.detect(picture):       # Corner: .centre, .up, .height, .width, .card, .score
        crop = upright(picture, c)           # the index cut upright, as the corner models read it

The network (:mod:`vision.pile_detect_train`) learnt rendered piles of the training designs; it sees
the picture at :data:`INPUT` px and answers on a grid :data:`STRIDE` times coarser: at each cell how
likely an index's centre lies there and, at a centre, the index's geometry. An index is where the
heat peaks (3 x 3 cells) above a threshold.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.reader import MODEL_DIR

INPUT = 320  # the picture's long side, scaled, as the detector sees it
STRIDE = 4  # its maps are this many input pixels a cell
MODEL = MODEL_DIR / "pile_corners.onnx"
FLOOR = 0.15  # peaks weaker than this are no index at all
LOG_SIZE = 8.0  # an index's size, in input pixels, lies within e^-8 .. e^8 whatever the network says


@dataclass(frozen=True)
class Corner:
    centre: tuple[float, float]  # the index's centre, picture pixels
    up: tuple[float, float]  # unit: the card's "up" as this index shows it (upright index: (0, -1))
    height: float  # the index box's height and width, picture pixels
    width: float
    card: tuple[float, float]  # where its card's centre lies, picture pixels
    score: float  # the heat at the peak, 0..1


class CornerDetector:
    def __init__(self, model: str | Path = MODEL, threads: int = 1) -> None:
        import onnxruntime as ort

        if not Path(model).exists():
            raise FileNotFoundError(f"pile corner model not found: {model}")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"])

    def maps(self, image: np.ndarray) -> tuple[np.ndarray, float]:
        """The network's (9, h, w) maps for a BGR picture, and the scale it was read at."""
        scale = INPUT / max(image.shape[:2])
        small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        h, w = small.shape[:2]
        ph, pw = -h % 16, -w % 16  # the network halves the picture four times
        if ph or pw:
            small = cv2.copyMakeBorder(small, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
        x = small.astype(np.float32).transpose(2, 0, 1)[None]
        return self.session.run(None, {"image": x})[0][0], scale

    def detect(self, image: np.ndarray, floor: float = FLOOR) -> list[Corner]:
        """Every index whose peak heat is at least ``floor``, strongest first."""
        m, scale = self.maps(image)
        heat = 1.0 / (1.0 + np.exp(-m[0]))
        peaks = (heat >= floor) & (heat == cv2.dilate(heat, np.ones((3, 3), np.uint8)))
        out = []
        for y, x in zip(*np.nonzero(peaks), strict=True):
            up = m[1:3, y, x] / max(float(np.linalg.norm(m[1:3, y, x])), 1e-6)
            centre = (np.array([x, y]) + 0.5 + m[7:9, y, x]) * STRIDE / scale
            # sizes are learnt as logs; clipped so odd input cannot give an overflowing box (e^8: past the picture)
            h, w = (float(np.exp(np.clip(m[k, y, x], -LOG_SIZE, LOG_SIZE))) / scale for k in (3, 4))
            right = np.array([-up[1], up[0]])
            card = centre + h * (m[5, y, x] * right + m[6, y, x] * up)
            out.append(Corner(tuple(centre.tolist()), tuple(up.tolist()), h, w, tuple(card.tolist()),
                              float(heat[y, x])))
        return sorted(out, key=lambda c: -c.score)


def upright(image: np.ndarray, c: Corner, pad: float = 1.15, size: int = 32) -> np.ndarray:
    """The index cut out turned upright, ``pad`` times its box, ``size`` px square."""
    up = np.array(c.up)
    right = np.array([-up[1], up[0]])
    down = -up
    A = np.stack([right * c.width * pad / size, down * c.height * pad / size], 1)
    b = np.array(c.centre) - A @ np.array([size / 2, size / 2])
    M = np.hstack([A, b[:, None]]).astype(np.float32)
    return cv2.warpAffine(image, M, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)
