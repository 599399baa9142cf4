"""A picture's size is read from its header before decoding (controller.images): a huge one never reaches
OpenCV whole. Real OpenCV encoders make the files."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

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


def _jpeg(w: int = 64, h: int = 48, progressive: bool = False) -> bytes:
    ok, buf = cv2.imencode(".jpg", np.full((h, w, 3), 200, np.uint8), [cv2.IMWRITE_JPEG_PROGRESSIVE, int(progressive)])
    assert ok
    return buf.tobytes()


def _segments(data: bytes) -> tuple[bytes, list[bytes], bytes]:
    """A JPEG as its SOI, its header segments, and the scan to the end."""
    at, segs = 2, []
    while data[at + 1] != 0xDA:
        length = struct.unpack(">H", data[at + 2 : at + 4])[0]
        segs.append(data[at : at + 2 + length])
        at += 2 + length
    return data[:2], segs, data[at:]


def _with_frame_size(seg: bytes, w: int, h: int) -> bytes:
    return seg[:5] + struct.pack(">HH", h, w) + seg[9:]


def test_a_stuffed_zero_before_the_frame_does_not_hide_its_size():
    """(an outside audit: FF 00 read as a marker with a length jumped to a fake 100 x 100 frame in a comment,
    while libjpeg skips FF 00 and decoded the real 32,000 x 32,000: 6.1 GB)"""
    soi, segs, scan = _segments(_jpeg())
    i = next(k for k, s in enumerate(segs) if s[1] == 0xC0)
    real, fake = _with_frame_size(segs[i], 32_000, 32_000), _with_frame_size(segs[i], 100, 100)
    comment = b"\xff\xfe" + struct.pack(">H", 4 + len(fake)) + b"xx" + fake
    jump = 4 + len(real) + 4 + 2  # from the FF 00 to the fake frame's FF, were FF 00 a marker with a length
    data = soi + b"".join(segs[:i]) + b"\xff\x00" + struct.pack(">H", jump - 2) + real + comment
    data += b"".join(segs[i + 1 :]) + scan
    assert images.header_size(data) == (32_000, 32_000)


def test_a_large_progressive_jpeg_is_refused_not_decoded_scaled(monkeypatch):
    """libjpeg holds a progressive picture whole before scaling it (an audit's 542-byte 50,000² file: 7.5 GB)."""
    monkeypatch.setattr(images, "MAX_PIXELS", 100_000)
    got, why = images.decode(_jpeg(640, 480, progressive=True), cv2)
    assert got is None and "640 × 480" in why
    assert images.decode(_jpeg(640, 480), cv2)[0].shape == (240, 320, 3)  # the baseline one is read scaled


def test_a_tiff_size_tag_listed_twice_counts_once_as_libtiff_reads_it():
    entries = [(256, 4, 30_000), (257, 4, 30_000), (256, 4, 10), (257, 4, 10)]
    ifd = struct.pack("<H", len(entries)) + b"".join(struct.pack("<HHII", t, k, 1, v) for t, k, v in entries)
    assert images.header_size(b"II*\x00" + struct.pack("<I", 8) + ifd + b"\x00" * 4) == (30_000, 30_000)


def test_a_jpeg_is_cut_short_only_when_its_picture_is():
    whole = _jpeg()
    assert not images.jpeg_cut_short(whole)
    assert not images.jpeg_cut_short(whole + b"\x00\x00\x00\x18ftypmp42" + b"\x01" * 500)  # a motion photo's video
    assert images.jpeg_cut_short(whole[: len(whole) - 40])
    # an EXIF thumbnail (a whole JPEG inside APP1) does not make a cut main picture whole
    soi, segs, scan = _segments(whole)
    thumb = _jpeg(16, 12)
    app1 = b"\xff\xe1" + struct.pack(">H", 2 + 6 + len(thumb)) + b"Exif\x00\x00" + thumb
    cut = soi + app1 + b"".join(segs) + scan[:-40]
    assert images.jpeg_cut_short(cut) and not images.jpeg_cut_short(soi + app1 + b"".join(segs) + scan)


def test_a_file_that_is_no_picture_is_not_read_whole(tmp_path):
    """A phone video given by mistake (sparse files: nothing is really written) is refused after its first
    bytes, or by its size; a picture file larger than any photo is refused too."""
    video = tmp_path / "IMG_0001.MOV"
    with video.open("wb") as f:
        f.write(b"\x00\x00\x00\x14ftypqt  ")
        f.truncate(2 << 30)
    assert "over 256 MB" in images.load(video, cv2).why
    with video.open("r+b") as f:
        f.truncate(200 << 20)
    reads = []

    class Counted(io.BufferedReader):
        def read(self, n=-1):
            reads.append(n)
            return super().read(n)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Path, "open", lambda self, mode="r": Counted(io.FileIO(self, mode)))
        assert images.load(video, cv2).why.startswith(images.NOT_READABLE)
    assert reads == [images.HEAD]  # its first bytes only
    big = tmp_path / "big.png"
    with big.open("wb") as f:
        f.write(_png_header(640, 480))
        f.truncate(images.MAX_FILE + 10)
    assert "over 256 MB" in images.load(big, cv2).why
    heic = tmp_path / "photo.heic"
    heic.write_bytes(b"\x00\x00\x00\x18ftypheic" + b"\x00" * 100)
    assert "HEIC" in images.load(heic, cv2).why


def test_a_face_cut_out_on_a_transparent_canvas_keeps_its_alpha(tmp_path):
    rgba = np.zeros((70, 50, 4), np.uint8)
    rgba[5:65, 5:45] = (255, 255, 255, 255)
    path = tmp_path / "cutout.png"
    cv2.imwrite(str(path), rgba)
    got = images.load(path, cv2, alpha=True).image
    assert got.shape == (70, 50, 4) and got[0, 0, 3] == 0 and got[30, 30, 3] == 255
    assert images.load(path, cv2).image.shape == (70, 50, 3)  # the readers take colour only


def test_a_garbled_jpeg_is_said_and_the_decoders_own_lines_are_not_shown(tmp_path, capfd):
    """(an outside audit: a JPEG with 60 KB of its middle zeroed was read and enrolled silently, and
    libjpeg's "Corrupt JPEG data" reached the terminal)"""
    img = np.random.default_rng(3).integers(0, 255, (300, 400, 3), np.uint8)
    data = bytearray(cv2.imencode(".jpg", img)[1].tobytes())
    data[len(data) // 2 : len(data) // 2 + 4000] = bytes(4000)
    path = tmp_path / "zeroed.jpg"
    path.write_bytes(bytes(data))
    got = images.load(path, cv2)
    assert got.image is not None and "damaged" in got.warning
    assert images.load(tmp_path / "zeroed.jpg", cv2).warning == got.warning
    whole = tmp_path / "whole.jpg"
    whole.write_bytes(cv2.imencode(".jpg", img)[1].tobytes())
    assert images.load(whole, cv2).warning is None
    out, err = capfd.readouterr()
    assert "Corrupt" not in err and "Corrupt" not in out
