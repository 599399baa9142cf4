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
@given(w=st.integers(1, 700), h=st.integers(1, 700), progressive=st.booleans(), ext=st.sampled_from([".png", ".jpg"]))
def test_the_header_says_the_size_opencv_decodes(w, h, progressive, ext):
    img = np.random.default_rng(w * 1000 + h).integers(0, 255, (h, w, 3), np.uint8)
    params = [cv2.IMWRITE_JPEG_PROGRESSIVE, int(progressive)] if ext == ".jpg" else []
    ok, buf = cv2.imencode(ext, img, params)
    assert ok
    assert images.header_size(buf.tobytes()) == (w, h)
    got, why = images.decode(buf.tobytes(), cv2)
    assert why is None and got.shape == (h, w, 3)


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
