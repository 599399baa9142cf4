"""Decoding a picture a person gives the CLI, with its memory bounded: the size is read from the file's
header before any pixel is decoded. A JPEG larger than :data:`MAX_PIXELS` is decoded scaled down by libjpeg
(1/2, 1/4 or 1/8: it never holds the whole), anything else that large is refused in one line. Without
this a 30,000 × 30,000 PNG of a few kilobytes asks OpenCV for 2.7 GB.

>>> header_size(b"\\x89PNG\\r\\n\\x1a\\n" + b"\\x00\\x00\\x00\\rIHDR" + (640).to_bytes(4, "big") + (480).to_bytes(4, "big"))
(640, 480)
"""

from __future__ import annotations

import struct
from typing import Any

NOT_READABLE = "not a readable image"
MAX_PIXELS = 40_000_000  # a 40 MP phone photo is read whole; a card's corner needs far fewer

# JPEG start-of-frame markers (baseline, progressive, …): they carry the picture's height and width
_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def header_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG's or JPEG's header, or None (another format, or no header found)."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR" and len(data) >= 24:
        return struct.unpack(">II", data[16:24])
    if data[:2] == b"\xff\xd8":
        return _jpeg_size(data)
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # markers with no length
            at += 2
            continue
        (length,) = struct.unpack(">H", data[at + 2 : at + 4])
        if marker in _SOF and at + 9 <= len(data):
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return width, height
        at += 2 + length
    return None


def decode(data: bytes, cv2: Any) -> tuple[Any, str | None]:
    """(BGR image or None, why not). A large JPEG comes back scaled down (at most :data:`MAX_PIXELS`)."""
    import numpy as np

    if not data:
        return None, NOT_READABLE
    size = header_size(data)
    flag = cv2.IMREAD_COLOR
    if size is not None and size[0] * size[1] > MAX_PIXELS:
        w, h = size
        if data[:2] != b"\xff\xd8" or w * h > 64 * MAX_PIXELS:
            return None, (f"the picture is {w} × {h} pixels ({w * h / 1e6:.0f} MP); give one of at most "
                          f"{MAX_PIXELS / 1e6:.0f} MP (scale it down)")
        scale = next(s for s in (2, 4, 8) if w * h <= MAX_PIXELS * s * s)
        flag = {2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4, 8: cv2.IMREAD_REDUCED_COLOR_8}[scale]
    image = cv2.imdecode(np.frombuffer(data, np.uint8), flag)
    if image is not None and image.shape[0] * image.shape[1] > MAX_PIXELS:  # a header that lied
        return None, f"the picture is larger than {MAX_PIXELS / 1e6:.0f} MP: scale it down"
    return image, None if image is not None else NOT_READABLE


__all__ = ["MAX_PIXELS", "NOT_READABLE", "decode", "header_size"]
