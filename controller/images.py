"""Decoding a picture a person gives the CLI, with its memory bounded: the size is read from the file's
header before any pixel is decoded (PNG, JPEG, BMP, WebP, TIFF or GIF; other formats are refused). A JPEG
larger than :data:`MAX_PIXELS` is decoded scaled down by libjpeg (1/2, 1/4 or 1/8: it never holds the
whole), anything else that large is refused in one line. Without this a 30,000 × 30,000 PNG of a few
kilobytes asks OpenCV for 2.7 GB.

>>> header_size(b"\\x89PNG\\r\\n\\x1a\\n" + b"\\x00\\x00\\x00\\rIHDR" + (640).to_bytes(4, "big") + (480).to_bytes(4, "big"))
(640, 480)
"""

from __future__ import annotations

import os
import re
import struct
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

NOT_READABLE = "not a readable image"
MAX_PIXELS = 40_000_000  # a 40 MP phone photo is read whole; a card's corner needs far fewer
HEAD = 1 << 16  # the bytes read first: every header read here lies in them, but a JPEG's with a large EXIF
MAX_FILE = 256 << 20  # a photo of a card is never this large
_TOO_BIG = f"the file is over {MAX_FILE >> 20} MB: give a photo of a card, not a video"

# JPEG start-of-frame markers (baseline, progressive, …): they carry the picture's height and width
_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def header_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from the header of a PNG, JPEG, BMP, WebP, TIFF or GIF, or None (another format, or
    no size found)."""
    try:
        for magic, reader in _FORMATS:
            if data.startswith(magic):
                return reader(data)
    except (struct.error, IndexError):  # a header cut short
        return None
    return None


def _png_size(data: bytes) -> tuple[int, int] | None:
    return struct.unpack(">II", data[16:24]) if data[12:16] == b"IHDR" else None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    frame = jpeg_frame(data)
    return None if frame is None else frame[1:]


def jpeg_frame(data: bytes) -> tuple[int, int, int] | None:
    """(start-of-frame marker, width, height) of a JPEG, found as libjpeg finds it, or None."""
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:  # stray bytes between segments: libjpeg skips them too
            at += 1
            continue
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0x00, 0x01, 0xD8) or 0xD0 <= marker <= 0xD7:  # a stuffed zero, or a marker with no length
            at += 2
            continue
        (length,) = struct.unpack(">H", data[at + 2 : at + 4])
        if marker in _SOF:
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return marker, width, height
        if marker == 0xDA:  # the scan began with no frame
            return None
        at += 2 + length
    return None


def jpeg_cut_short(data: bytes) -> bool:
    """Whether a JPEG ends before its picture does: no end-of-image marker after its first scan. (A phone's
    motion photo or maker trailer follows the end marker: the picture is whole.)"""
    if data[:2] != b"\xff\xd8":
        return False
    scan = data.find(b"\xff\xda", _scan_search_start(data))
    return scan < 0 or data.find(b"\xff\xd9", scan) < 0


def _scan_search_start(data: bytes) -> int:
    """Where the main picture's segments end: past its frame header (an EXIF thumbnail, inside an APP
    segment, has a scan and an end marker of its own)."""
    at = 2
    while at + 4 <= len(data) and data[at] == 0xFF:
        marker = data[at + 1]
        if marker in _SOF or marker == 0xDA:
            return at
        if marker == 0xFF:
            at += 1
            continue
        at += 2 + struct.unpack(">H", data[at + 2 : at + 4])[0]
    return at


def _bmp_size(data: bytes) -> tuple[int, int]:
    if struct.unpack("<I", data[14:18])[0] == 12:  # the old OS/2 header: 16-bit sizes
        return struct.unpack("<HH", data[18:22])
    w, h = struct.unpack("<ii", data[18:26])
    return abs(w), abs(h)  # a negative height is a top-down bitmap


def _webp_size(data: bytes) -> tuple[int, int] | None:
    if data[8:12] != b"WEBP":
        return None
    chunk = data[12:16]
    if chunk == b"VP8 ":  # lossy: 14-bit sizes after the key frame's start code
        w, h = struct.unpack("<HH", data[26:30])
        return w & 0x3FFF, h & 0x3FFF
    if chunk == b"VP8L":  # lossless: 14-bit sizes minus one, packed
        (bits,) = struct.unpack("<I", data[21:25])
        return (bits & 0x3FFF) + 1, (bits >> 14 & 0x3FFF) + 1
    if chunk == b"VP8X":  # extended: 24-bit canvas sizes minus one
        return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1
    return None


def _tiff_size(data: bytes) -> tuple[int, int] | None:
    order = "<" if data[:2] == b"II" else ">"
    (at,) = struct.unpack(order + "I", data[4:8])
    (count,) = struct.unpack(order + "H", data[at : at + 2])
    size: dict[int, int] = {}
    for i in range(count):  # the first page's tags: ImageWidth (256), ImageLength (257)
        tag, kind = struct.unpack(order + "HH", data[at + 2 + 12 * i : at + 6 + 12 * i])
        if tag in (256, 257) and tag not in size:  # a tag listed twice: libtiff takes the first
            value = data[at + 10 + 12 * i : at + 14 + 12 * i]
            size[tag] = struct.unpack(order + ("H" if kind == 3 else "I"), value[: 2 if kind == 3 else 4])[0]
    return (size[256], size[257]) if len(size) == 2 else None


def _gif_size(data: bytes) -> tuple[int, int]:
    return struct.unpack("<HH", data[6:10])


_FORMATS = (
    (b"\x89PNG\r\n\x1a\n", _png_size),
    (b"\xff\xd8", _jpeg_size),
    (b"BM", _bmp_size),
    (b"RIFF", _webp_size),
    (b"II*\x00", _tiff_size),
    (b"MM\x00*", _tiff_size),
    (b"GIF87a", _gif_size),
    (b"GIF89a", _gif_size),
)


def decode(data: bytes, cv2: Any, alpha: bool = False) -> tuple[Any, str | None]:
    """(BGR image or None, why not). A large baseline JPEG comes back scaled down (at most
    :data:`MAX_PIXELS`). ``alpha``: a picture with an alpha channel comes back BGRA (not turned by EXIF)."""
    import numpy as np

    size = header_size(data)
    if size is None:  # a format whose size is not known before decoding could ask for any amount of memory
        return None, _unknown(data)
    flag = cv2.IMREAD_COLOR
    w, h = size
    if w * h > MAX_PIXELS:
        frame = jpeg_frame(data) if data[:2] == b"\xff\xd8" else None
        # libjpeg decodes a sequential JPEG scaled row by row; a progressive one holds the whole picture first
        if frame is None or frame[0] not in (0xC0, 0xC1) or w * h > 64 * MAX_PIXELS:
            return None, (f"the picture is {w} × {h} pixels ({w * h / 1e6:.0f} MP); give one of at most "
                          f"{MAX_PIXELS / 1e6:.0f} MP (scale it down)")
        scale = next(s for s in (2, 4, 8) if w * h <= MAX_PIXELS * s * s)
        flag = {2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4, 8: cv2.IMREAD_REDUCED_COLOR_8}[scale]
    buf = np.frombuffer(data, np.uint8)
    image = _with_alpha(buf, cv2) if alpha and flag == cv2.IMREAD_COLOR else None
    if image is None:
        image = cv2.imdecode(buf, flag)
    if image is not None and image.shape[0] * image.shape[1] > MAX_PIXELS:  # a header that lied
        return None, f"the picture is larger than {MAX_PIXELS / 1e6:.0f} MP: scale it down"
    return image, None if image is not None else NOT_READABLE


def _with_alpha(buf: Any, cv2: Any) -> Any:
    """The picture as BGRA when it has an alpha channel (8 bits), else None."""
    import numpy as np

    image = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
    if image is None or image.ndim != 3 or image.shape[2] != 4:
        return None
    if image.dtype == np.uint16:
        image = (image >> 8).astype(np.uint8)
    return image if image.dtype == np.uint8 else None


def _unknown(data: bytes) -> str:
    """Why a file of no format read here is refused."""
    if data[4:8] == b"ftyp" and data[8:12] in (b"heic", b"heix", b"hevc", b"mif1", b"msf1", b"avif", b"avis"):
        return "a HEIC or AVIF photo, which is not read here: export it as JPEG or PNG"
    return NOT_READABLE


# libjpeg's warnings for scan data that is not what was written (a copy with a garbled middle: the scan
# ends early, or late); "extraneous bytes" before a header's marker is common in cameras' files and harmless
_DAMAGED = re.compile(r"bad Huffman code|premature end of data segment|extraneous bytes before marker 0xd[0-9]")


@contextmanager
def _c_stderr() -> Iterator[list[str]]:
    """What C code writes to the process's standard error meanwhile, kept (``[text]`` once done) instead
    of shown: OpenCV's decoders print their own lines, which are not the CLI's."""
    said = [""]
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield said
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            said[0] = tmp.read().decode(errors="replace")


@dataclass
class Loaded:
    """A picture file as the CLI reads it: the image, or why not, and a warning."""

    image: Any
    why: str | None = None
    warning: str | None = None


def load(path: Path, cv2: Any, alpha: bool = False) -> Loaded:
    """A picture file, its header read before the rest: a file that is no picture read here, or too large
    a picture, is refused before it is read whole (a phone video given by mistake is gigabytes)."""
    if not path.exists():
        return Loaded(None, "no such file")
    if not path.is_file():
        return Loaded(None, "not a file (a folder?)")
    try:
        with path.open("rb") as f:
            if os.fstat(f.fileno()).st_size > MAX_FILE:
                return Loaded(None, _TOO_BIG)
            data = f.read(HEAD)
            size = header_size(data)
            known = any(data.startswith(magic) for magic, _ in _FORMATS)
            if known and (size is None or size[0] * size[1] <= 64 * MAX_PIXELS):
                data += f.read(MAX_FILE + 1 - len(data))  # a header past the first bytes is found in the whole
    except OSError as exc:
        return Loaded(None, f"cannot read it ({exc.strerror or exc})")
    if len(data) > MAX_FILE:  # it grew while read
        return Loaded(None, _TOO_BIG)
    with _c_stderr() as said:  # libjpeg's and libpng's own lines: said in ours, or not at all
        image, why = decode(data, cv2, alpha)
    cut_short = jpeg_cut_short(data)
    if image is not None and not cut_short and _DAMAGED.search(said[0]):
        return Loaded(image, None, "the JPEG data is damaged: part of the picture may be garbled")
    if image is None:
        if why != NOT_READABLE:  # too large, or a format said by name
            return Loaded(None, why)
        why = "the JPEG file is cut short (a partial copy?)" if cut_short else NOT_READABLE
        return Loaded(None, f"{why}: give a JPEG, PNG, BMP, TIFF, WebP or GIF file")
    return Loaded(image, None, "the JPEG file is cut short: part of the picture is missing" if cut_short else None)


__all__ = ["MAX_PIXELS", "NOT_READABLE", "Loaded", "decode", "header_size", "jpeg_cut_short", "load"]
