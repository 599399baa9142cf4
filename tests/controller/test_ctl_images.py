"""A picture's size is read from its header before decoding (controller.images): a huge one never reaches
OpenCV whole. Real OpenCV encoders make the files."""

from __future__ import annotations

import struct
import zlib

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller import images


def _png_header(w: int, h: int) -> bytes:
    """A PNG that says it is ``w`` × ``h`` (its pixels are not there: only the header is read)."""
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk))


@settings(max_examples=25, deadline=None)
@given(
    w=st.integers(1, 700),
    h=st.integers(1, 700),
    progressive=st.booleans(),
    ext=st.sampled_from([".png", ".jpg", ".bmp", ".webp", ".tiff", ".gif"]),
)
def test_the_header_says_the_size_opencv_decodes(w, h, progressive, ext):
    img = np.random.default_rng(w * 1000 + h).integers(0, 255, (h, w, 3), np.uint8)
    # the variant: a progressive JPEG, a lossy WebP (VP8; lossless is VP8L)
    params = {".jpg": [cv2.IMWRITE_JPEG_PROGRESSIVE, int(progressive)],
              ".webp": [cv2.IMWRITE_WEBP_QUALITY, 80 if progressive else 101]}.get(ext, [])
    ok, buf = cv2.imencode(ext, img, params)
    assert ok
    assert images.header_size(buf.tobytes()) == (w, h)
    got, why = images.decode(buf.tobytes(), cv2)
    assert why is None and got.shape == (h, w, 3)


def _headers(w: int, h: int) -> dict[str, bytes]:
    """Files of other formats that say they are ``w`` × ``h``, their pixels missing."""
    tiff_be = b"MM\x00*" + struct.pack(">I", 8) + struct.pack(">H", 2)
    tiff_be += struct.pack(">HHI", 256, 4, 1) + struct.pack(">I", w) + struct.pack(">HHI", 257, 3, 1)
    tiff_be += struct.pack(">H", h) + b"\x00\x00" + b"\x00" * 4
    return {
        "bmp": b"BM" + b"\x00" * 12 + struct.pack("<Iii", 40, w, -h) + b"\x00" * 28,
        "webp lossy": b"RIFF\x00\x00\x00\x00WEBPVP8 " + b"\x00" * 7 + b"\x9d\x01\x2a" + struct.pack("<HH", w, h),
        "webp extended": b"RIFF\x00\x00\x00\x00WEBPVP8X" + b"\x00" * 8
        + (w - 1).to_bytes(3, "little") + (h - 1).to_bytes(3, "little"),
        "tiff big-endian": tiff_be,
        "gif": b"GIF89a" + struct.pack("<HH", w, h) + b"\x00" * 3,
    }


@pytest.mark.parametrize("kind", list(_headers(1, 1)))
def test_other_formats_say_their_size_and_a_huge_one_is_refused(kind):
    assert images.header_size(_headers(300, 200)[kind]) == (300, 200)
    huge = _headers(16_000, 16_000)[kind]
    got, why = images.decode(huge, cv2)
    assert got is None and "16000 × 16000" in why and "\n" not in why


def test_a_format_whose_size_is_not_read_first_is_refused():
    ok, buf = cv2.imencode(".ppm", np.zeros((8, 8, 3), np.uint8))  # OpenCV decodes it; its header is not read
    assert ok and images.decode(buf.tobytes(), cv2) == (None, images.NOT_READABLE)


def test_a_huge_png_is_refused_in_one_line_before_decoding():
    got, why = images.decode(_png_header(30_000, 30_000), cv2)
    assert got is None and "30000 × 30000" in why and "900 MP" in why and "\n" not in why


def test_a_large_jpeg_is_decoded_scaled_down(monkeypatch):
    monkeypatch.setattr(images, "MAX_PIXELS", 100_000)
    ok, buf = cv2.imencode(".jpg", np.full((480, 640, 3), 128, np.uint8))
    got, why = images.decode(buf.tobytes(), cv2)
    assert why is None and got.shape == (240, 320, 3)  # 1/2: the first scale within the limit
    monkeypatch.setattr(images, "MAX_PIXELS", 4_000)
    assert images.decode(buf.tobytes(), cv2)[0] is None  # beyond 1/8 of it: refused


@pytest.mark.parametrize("data", [b"", b"not a picture", b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n"])
def test_no_header_or_no_picture_is_not_readable(data):
    assert images.decode(data, cv2) == (None, images.NOT_READABLE)
