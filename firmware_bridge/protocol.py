"""The serial protocol, loaded from the firmware's own file ``hardware/firmware/protocol.py``.

One definition for both ends: this module IS that file (executed from its path), not a copy, so the
message set, the framing and the CRC cannot drift apart. See that file for the frame layout.

>>> from firmware_bridge import protocol as P
>>> P.crc16(b"123456789") == 0x29B1
True
>>> P.decode(P.encode(P.CMD, 7, P.CMD_IDS["count"])[:-1])
(1, 7, 3, ())
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

FIRMWARE_DIR = Path(__file__).resolve().parent.parent / "hardware" / "firmware"
SOURCE = FIRMWARE_DIR / "protocol.py"


def _load():
    spec = importlib.util.spec_from_file_location("firmware_bridge._protocol", SOURCE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


_p = _load()
globals().update({k: v for k, v in vars(_p).items() if not k.startswith("__")})
FrameError = _p.FrameError
FrameDecoder = _p.FrameDecoder
encode = _p.encode
decode = _p.decode
crc16 = _p.crc16
