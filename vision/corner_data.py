"""Training samples for the corner classifier: rendered index crops, crops cut by the real localizer from
rendered frames, augmented real crops, and "no card" crops. Pure numpy/OpenCV (no torch), so the tests
and the benchmark can use it too.

Every sample is a square BGR uint8 crop of the input size (``MODEL_SIZE``, unless a training run
chose another with :func:`use_input_size`) and a class: 0..53 (``LABELS``) or ``NONE_CLASS`` (no card
index in the crop).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.labels import LABELS, RANKS, SUITS, split
from vision.localize import CORNER_H, CORNER_W, localize
from vision.render import (
    Face,
    _photometric,
    _texture,
    motion_blur,
    random_face,
    random_style,
    render_split_face,
    render_table_frame,
    render_window_frame,
)

MODEL_SIZE = 32  # the models' usual input: 32 x 32 pixels
NONE_CLASS = len(LABELS)  # 54: the crop shows no card index
_sample_size = MODEL_SIZE  # the size the sample makers below return
_sensor_codec = False  # whether a low-resolution camera's crop is also demosaiced and JPEG'd at that size


def use_input_size(size: int) -> None:
    """Make the sample makers of this module return ``size`` x ``size`` crops (a training run for a
    model that reads at another resolution; worker processes forked after this call inherit it)."""
    global _sample_size
    if not 16 <= size <= 128:
        raise ValueError(f"input size {size} is not between 16 and 128 pixels")
    _sample_size = size


def use_sensor_codec(on: bool = True) -> None:
    """Make a low-resolution camera's crops go, at that low resolution, through what such a camera
    really does to them: a Bayer colour filter and its demosaicing (colour fringes on every edge of a
    black pip), then JPEG with its 8 x 8 blocks and halved colour resolution (a training recipe,
    ``train.py --sensor-codec``; worker processes forked after this call inherit it). A downscaled
    crop alone is smoother than any real webcam's."""
    global _sensor_codec
    _sensor_codec = bool(on)


def sensor_codec(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A small BGR uint8 crop as a cheap colour sensor and its encoder leave it: sampled through a
    Bayer mosaic and demosaiced (half the time), then JPEG-compressed at quality 20-85 (same size).

    >>> out = sensor_codec(np.full((14, 14, 3), (40, 30, 200), np.uint8), np.random.default_rng(0))
    >>> out.shape, bool(out[7, 7, 2] > 150 > out[7, 7, 0])  # red stays red
    ((14, 14, 3), True)
    """
    h, w = img.shape[:2]
    if rng.random() < 0.5 and h >= 4 and w >= 4:
        raw = np.empty((h, w), np.uint8)  # B G / G R; OpenCV calls this layout "RG"
        raw[0::2, 0::2] = img[0::2, 0::2, 0]
        raw[0::2, 1::2] = img[0::2, 1::2, 1]
        raw[1::2, 0::2] = img[1::2, 0::2, 1]
        raw[1::2, 1::2] = img[1::2, 1::2, 2]
        img = cv2.cvtColor(raw, cv2.COLOR_BayerRG2BGR)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(20, 86))])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else img


def to_input(crop: np.ndarray, size: int | None = None) -> np.ndarray:
    """A crop of any size (BGR or grey) as a model's ``size`` x ``size`` BGR uint8 input (by default
    the size the sample makers return, ``MODEL_SIZE`` unless :func:`use_input_size` said otherwise)."""
    size = size or _sample_size
    if crop.ndim == 2:
        crop = cv2.cvtColor(crop, cv2.COLOR_GRAY2BGR)
    elif crop.shape[2] == 4:
        crop = cv2.cvtColor(crop, cv2.COLOR_BGRA2BGR)
    h, w = crop.shape[:2]
    interp = cv2.INTER_AREA if h > size or w > size else cv2.INTER_LINEAR
    return cv2.resize(crop, (size, size), interpolation=interp)


def _canvas(face, rng: np.random.Generator, pad: int) -> np.ndarray:
    """The face pasted on a background (a table, or another card underneath)."""
    H, W = face.bgr.shape[:2]
    canvas = _texture(rng, W + 2 * pad, H + 2 * pad).astype(np.float32)
    if rng.random() < 0.35:  # an overlapping card underneath
        other = random_face(LABELS[int(rng.integers(len(LABELS)))], rng)
        oh, ow = other.bgr.shape[:2]
        M = cv2.getRotationMatrix2D((ow / 2, oh / 2), float(rng.uniform(0, 360)), 1.0)
        M[:, 2] += rng.uniform(-0.5, 0.5, 2) * (W, H) + (pad + (W - ow) / 2, pad + (H - oh) / 2)
        size = (W + 2 * pad, H + 2 * pad)
        fg = cv2.warpAffine(other.bgr, M, size).astype(np.float32)
        a = cv2.warpAffine(other.alpha, M, size)[..., None]
        canvas = canvas * (1 - a) + fg * a
    a = face.alpha[..., None]
    canvas[pad:pad + H, pad:pad + W] = canvas[pad:pad + H, pad:pad + W] * (1 - a) + face.bgr * a
    if rng.random() < 0.2:  # another card lying over part of this one
        other = random_face(LABELS[int(rng.integers(len(LABELS)))], rng)
        M = cv2.getRotationMatrix2D((0, 0), float(rng.uniform(-25, 25)), 1.0)  # lies away from the index
        x0, y0, x1, y1 = face.index_box
        corner = np.array([x1 + pad, y1 + pad], np.float32) + rng.uniform(0.3, 1.2, 2) * (x1 - x0, y1 - y0)
        M[:, 2] += corner
        size = (W + 2 * pad, H + 2 * pad)
        fg = cv2.warpAffine(other.bgr, M, size).astype(np.float32)
        a = cv2.warpAffine(other.alpha, M, size)[..., None]
        canvas = canvas * (1 - a) + fg * a
    return canvas


def _rotated_box_crop(img: np.ndarray, box, rng: np.random.Generator, out: int, any_angle: float,
                      base: float = 0.0) -> np.ndarray:
    """An axis-aligned crop around ``box`` after turning the image about the box's centre: like a
    detector's box around a card index in a photo at any angle, with padding and aspect jitter."""
    x0, y0, x1, y1 = box
    c = np.array([(x0 + x1) / 2, (y0 + y1) / 2]) + rng.normal(0, 0.06, 2) * (x1 - x0, y1 - y0)
    hw, hh = (x1 - x0) / 2, (y1 - y0) / 2
    t = rng.uniform(0, 2 * np.pi) if rng.random() < any_angle else np.deg2rad(rng.normal(0, 8))
    if rng.random() < 0.25 and any_angle > 0:
        t = np.pi / 2 * int(rng.integers(4)) + np.deg2rad(rng.normal(0, 5))
    t += base
    ct, st = np.cos(t), np.sin(t)
    HW = abs(ct) * hw + abs(st) * hh  # half-sizes of the turned box's bounding box
    HH = abs(st) * hw + abs(ct) * hh
    pad = rng.uniform(1.05, 1.6, 2)
    HW, HH = HW * pad[0], HH * pad[1]
    # destination (u, v) -> turned frame point -> source point
    R_inv = np.array([[ct, st], [-st, ct]])
    S = np.array([[2 * HW / out, 0], [0, 2 * HH / out]])
    A = R_inv @ S
    b = c - A @ np.array([out / 2, out / 2])
    M = np.hstack([A, b[:, None]]).astype(np.float32)
    return cv2.warpAffine(img, M, (out, out), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REFLECT)


def poor_camera(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A cheap webcam in a dim room, held by hand: long motion blur, defocus, under-exposure with a
    colour cast, sensor noise and a stretched aspect (uint8 BGR in, uint8 BGR out, same size)."""
    h, w = img.shape[:2]
    out = img.astype(np.float32)
    if rng.random() < 0.7:  # motion blur along a random direction, up to a fifth of the crop
        k = int(rng.integers(3, max(4, w // 5))) | 1
        out = motion_blur(out, k, float(rng.uniform(0, 180)), border=cv2.BORDER_REFLECT)
    if rng.random() < 0.5:  # out of focus
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.8, 2.5))
    if rng.random() < 0.7:  # under-exposed, lifted blacks, a colour cast
        gain = rng.uniform(0.25, 0.75)
        cast = rng.uniform(0.7, 1.3, 3).astype(np.float32)
        out = out * gain * cast + rng.uniform(0, 40)
    out += rng.standard_normal(out.shape[:2] + (1,)).astype(np.float32) * rng.uniform(0, 10)
    if rng.random() < 0.5:  # the exporter stretched the frame
        sx, sy = rng.uniform(0.6, 1.0), rng.uniform(0.6, 1.0)
        small = cv2.resize(out, (max(4, int(w * sx)), max(4, int(h * sy))), interpolation=cv2.INTER_AREA)
        out = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    return np.clip(out, 0, 255).astype(np.uint8)


def _finish(img: np.ndarray, rng: np.random.Generator, strength: float = 1.0) -> np.ndarray:
    """Camera effects on a crop, then down to the model's size (sometimes via a much lower resolution)."""
    if rng.random() < 0.2 * strength:
        img = poor_camera(img, rng)
    out = _photometric(img.astype(np.float32), rng, strength)
    if rng.random() < 0.1:
        out = out[..., rng.permutation(3)]
    if rng.random() < 0.35:  # a low-resolution camera
        s = int(rng.integers(10, 26))
        out = cv2.resize(out, (s, s), interpolation=cv2.INTER_AREA)
        if _sensor_codec and rng.random() < 0.6:
            out = sensor_codec(out, rng)
    return to_input(out)


def index_crop_samples(rng: np.random.Generator, any_angle: float = 0.7) -> list[tuple[np.ndarray, int]]:
    """Two crops (both corners) of one random card in a random style."""
    label = int(rng.integers(len(LABELS)))
    face = random_face(LABELS[label], rng)
    H, W = face.bgr.shape[:2]
    x0, y0, x1, y1 = face.index_box
    cw, ch = min(W, int(x1 * 2.2)), min(H, int(y1 * 2.0))
    pad = 30
    out = []
    for turned in (False, True):  # the bottom-right index is the top-left one of the card turned 180°
        bgr, alpha = (face.bgr[::-1, ::-1], face.alpha[::-1, ::-1]) if turned else (face.bgr, face.alpha)
        corner = Face(np.ascontiguousarray(bgr[:ch, :cw]), np.ascontiguousarray(alpha[:ch, :cw]), face.index_box)
        canvas = _canvas(corner, rng, pad)
        box = (x0 + pad, y0 + pad, x1 + pad, y1 + pad)
        out.append((_finish(_rotated_box_crop(canvas, box, rng, 64, any_angle), rng), label))
    return out


def split_index_samples(rng: np.random.Generator) -> list[tuple[np.ndarray, int]]:
    """Four crops of one card whose rank and suit are printed apart (:func:`vision.render.render_split_face`):
    the rank alone and the suit alone, each as a tight crop at any angle and as the reader's other-diagonal
    corner (top-right; bottom-left turned 180°). A crop shows half the card, so its label is the card with a
    random other half: trained so, the card head learns an even split over the cards that half allows (the
    rank's four suits, the suit's thirteen ranks), and the two corners pooled (a product) name the card."""
    label = LABELS[int(rng.integers(52))]
    suit, rank = split(label)
    face, rbox, sbox = render_split_face(label, random_style(rng), white_on_colour=bool(rng.random() < 0.5))
    H, W = face.bgr.shape[:2]

    def rank_label() -> int:
        return LABELS.index(SUITS[int(rng.integers(4))] + rank)

    def suit_label() -> int:
        return LABELS.index(suit + RANKS[int(rng.integers(13))])

    turned = Face(np.ascontiguousarray(face.bgr[::-1, ::-1]), np.ascontiguousarray(face.alpha[::-1, ::-1]), face.index_box)
    sx0, sy0, sx1, sy1 = sbox
    pad = 30
    out = []
    for f, box, lab in ((face, rbox, rank_label), (turned, (W - sx1, H - sy1, W - sx0, H - sy0), suit_label)):
        canvas = _canvas(f, rng, pad)
        x0, y0, x1, y1 = box
        out.append((_finish(_rotated_box_crop(canvas, (x0 + pad, y0 + pad, x1 + pad, y1 + pad), rng, 64, 0.7), rng),
                    lab()))
    # as the localizer cuts them from an upright card, a few pixels and degrees off
    M = cv2.getRotationMatrix2D((W / 2, H / 2), float(rng.normal(0, 2)), float(rng.uniform(0.97, 1.03)))
    M[:, 2] += rng.normal(0, 0.015 * W, 2)
    bg = _texture(rng, W, H).astype(np.float32)
    a = cv2.warpAffine(face.alpha, M, (W, H))[..., None]
    card = (bg * (1 - a) + cv2.warpAffine(face.bgr, M, (W, H)).astype(np.float32) * a).astype(np.uint8)
    cw, ch = int(round(CORNER_W * W)), min(H // 2, int(round(CORNER_H * W)))
    out.append((_finish(np.ascontiguousarray(card[:ch, W - cw:]), rng), rank_label()))
    out.append((_finish(np.ascontiguousarray(card[H - ch:, :cw][::-1, ::-1]), rng), suit_label()))
    return out


def pipeline_samples(rng: np.random.Generator) -> list[tuple[np.ndarray, int]]:
    """Crops cut by the real localizer from a rendered dealer-window or table frame."""
    label = int(rng.integers(len(LABELS)))
    if rng.random() < 0.5:
        frame = render_window_frame(LABELS[label], rng)
    else:
        frame = render_table_frame(LABELS[label], rng)
    found = localize(frame)
    if found is None:
        return []
    return [(to_input(c), label) for c in found.corners]


def none_samples(rng: np.random.Generator) -> list[tuple[np.ndarray, int]]:
    """Crops without a card index: tables, empty hoppers, card middles, plain card edges."""
    r = rng.random()
    if r < 0.3:
        frame = render_window_frame(None, rng)
        found = localize(frame)
        if found is not None:
            return [(to_input(c), NONE_CLASS) for c in found.corners]
        h, w = frame.shape[:2]
        s = int(rng.integers(24, 120))
        y, x = int(rng.integers(0, h - s)), int(rng.integers(0, w - s))
        return [(to_input(frame[y:y + s, x:x + s]), NONE_CLASS)]
    if r < 0.5:
        return [(_finish(_texture(rng, 64, 64), rng), NONE_CLASS)]
    face = random_face(LABELS[int(rng.integers(len(LABELS)))], rng)
    H, W = face.bgr.shape[:2]
    x0, y0, x1, y1 = face.index_box
    # a window of the face away from both indices: the centre art, pips, or the blank side margin
    bw, bh = int((x1 - x0) * rng.uniform(0.8, 1.5)), int((y1 - y0) * rng.uniform(0.8, 1.5))
    bw, bh = min(bw, W // 2), min(bh, H // 2)  # a tall large-index design's index can be most of the card
    for _ in range(10):
        x, y = int(rng.integers(0, W - bw)), int(rng.integers(0, H - bh))
        if (x > x1 or y > y1) and (x + bw < W - x1 or y + bh < H - y1):
            break
    crop = face.bgr[y:y + bh, x:x + bw]
    crop = np.rot90(crop, int(rng.integers(4))) if rng.random() < 0.5 else crop
    return [(_finish(np.ascontiguousarray(crop), rng), NONE_CLASS)]


def augment_real(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A real corner crop turned, stretched, re-lit and re-compressed."""
    h, w = crop.shape[:2]
    big = cv2.resize(crop, (64, 64), interpolation=cv2.INTER_AREA if max(h, w) > 64 else cv2.INTER_LINEAR)
    t = rng.uniform(0, 360) if rng.random() < 0.5 else rng.normal(0, 8)
    scale = rng.uniform(0.85, 1.15)
    M = cv2.getRotationMatrix2D((32 + rng.normal(0, 2), 32 + rng.normal(0, 2)), float(t), scale)
    sx, sy = rng.uniform(0.8, 1.25, 2)
    M[0] *= sx
    M[1] *= sy
    M[:, 2] += (32 - 32 * sx, 32 - 32 * sy)
    big = cv2.warpAffine(big, M, (64, 64), borderMode=cv2.BORDER_REPLICATE)
    return _finish(big, rng, strength=0.6)
