"""The one protocol definition: CRC, COBS framing, shared test vectors for both ends, decoder fuzz."""

from __future__ import annotations

import json
import struct
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import protocol as P
from firmware_bridge.sim.clock import ManualClock
from firmware_bridge.sim.fakes import FIRMWARE_DIR, load_firmware
from firmware_bridge.sim.mcu import MemoryPort
from firmware_bridge.sim.model import Board

VECTORS = json.loads((FIRMWARE_DIR / "vectors.json").read_text())


def test_host_protocol_is_the_firmware_file_itself():
    assert Path(P._p.__file__).resolve() == (FIRMWARE_DIR / "protocol.py").resolve()


def test_crc16_ccitt_check_value():
    assert P.crc16(b"123456789") == 0x29B1
    assert P.crc16(b"") == 0xFFFF


def _firmware_protocol():
    return load_firmware(Board(ManualClock(), seed=0))["protocol"]


def test_shared_vectors_encode_alike_on_both_ends():
    fw = _firmware_protocol()  # the firmware's copy, executed under the MicroPython-only loader
    assert fw is not P._p and fw.PROTOCOL_HASH == P.PROTOCOL_HASH
    assert len(VECTORS) >= 8
    for v in VECTORS:
        kind, msg = getattr(P, v["kind"]), v["msg"]
        wire = bytes.fromhex(v["hex"])
        assert P.encode(kind, v["seq"], msg, tuple(v["values"])) == wire, v
        assert fw.encode(getattr(fw, v["kind"]), v["seq"], msg, tuple(v["values"])) == wire, v
        assert P.decode(wire[:-1]) == (kind, v["seq"], msg, tuple(v["values"]))
        assert b"\x00" not in wire[:-1] and wire[-1:] == b"\x00"


def test_running_firmware_answers_with_vector_bytes():
    """The firmware's real reply to HELLO then COUNT is the vector frame for 'count reply 1'."""
    board = Board(ManualClock(), seed=0)
    port = MemoryPort()
    fw = load_firmware(board)["firmware"].Firmware(port)
    port.inbox += P.encode(P.CMD, 41, P.CMD_IDS["hello"], (1,)) + P.encode(P.CMD, 42, P.CMD_IDS["count"])
    fw.step()
    want = next(v for v in VECTORS if v["name"] == "count reply 1")
    assert bytes.fromhex(want["hex"]) in bytes(port.sent)


def test_cobs_removes_every_zero():
    for data in (b"", b"\x00", b"\x00\x00", bytes(range(256)), b"\x01" * 300):
        enc = P.cobs_encode(data)
        assert 0 not in enc
        assert P.cobs_decode(enc) == data


def _values(fmt: str, draw):
    out = []
    for ch in fmt[1:]:
        bits = struct.calcsize("<" + ch) * 8
        out.append(draw(st.integers(0, 2 ** bits - 1)))
    return tuple(out)


@st.composite
def messages(draw):
    kind = draw(st.sampled_from([P.CMD, P.EVENT, P.REPLY, P.ACK, P.NAK]))
    seq = draw(st.integers(0, 0xFFFF))
    if kind == P.CMD:
        msg = draw(st.sampled_from(sorted(P.COMMANDS)))
        fmt = P.COMMANDS[msg][1]
    elif kind == P.REPLY:
        msg = draw(st.sampled_from(sorted(P.COMMANDS)))
        fmt = "<B" + P.COMMANDS[msg][3][1:]
    elif kind == P.EVENT:
        msg = draw(st.sampled_from(sorted(P.EVENTS)))
        fmt = P.EVENTS[msg][1]
    else:
        msg, fmt = 0, "<"
    return kind, seq, msg, _values(fmt, draw)


@given(messages())
def test_every_message_round_trips(m):
    wire = P.encode(*m)
    assert P.decode(wire[:-1]) == m
    assert P.FrameDecoder().feed(wire) == [m]


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=200))
def test_decoder_fuzz_raises_only_its_own_error(data):
    dec = P.FrameDecoder()
    for item in dec.feed(data):
        assert isinstance(item, (tuple, P.FrameError))
    try:
        P.decode(data)
    except P.FrameError:
        pass


@settings(max_examples=300, deadline=None)  # pure decoding: a loaded CI box is no failure
@given(messages(), st.integers(0, 40), st.integers(0, 7), st.binary(max_size=8))
def test_a_damaged_frame_never_decodes_as_another_message(m, pos, bit, junk):
    wire = bytearray(P.encode(*m))
    pos %= len(wire) - 1
    wire[pos] ^= 1 << bit
    dec = P.FrameDecoder()
    items = dec.feed(bytes(wire) + junk + b"\x00" + P.encode(*m))
    good = [i for i in items if isinstance(i, tuple)]
    assert good and good[-1] == m  # the next good frame still comes through
    assert all(g == m for g in good)  # the damaged one never turns into something else


def test_no_host_frame_and_no_ack_carries_ctrl_c():
    """A 0x03 byte reaching a Pico before main.py's first statement stops it in the REPL: the host's
    command frames skip such sequence numbers, and so do the firmware's events (whose ACKs the host sends)."""
    from firmware_bridge import protocol as P
    from firmware_bridge.sim.clock import ManualClock
    from firmware_bridge.sim.fakes import load_firmware
    from firmware_bridge.sim.mcu import MemoryPort
    from firmware_bridge.sim.model import Board

    board = Board(ManualClock())
    fw = load_firmware(board)["firmware"].Firmware(MemoryPort())
    for i in range(600):
        fw.queue_event("card_passed", (i, i))
        fw.events = fw.events[-2:]
    seqs = list(range(1, fw.ev_seq + 1))
    used = [s for s in seqs if 3 not in P.encode(P.ACK, s)]
    assert fw.ev_seq > 600 and all(3 not in P.encode(P.ACK, e[0]) for e in fw.events)
    assert len(used) < len(seqs)  # some numbers really were skipped


def test_a_port_that_appears_just_after_a_failed_open_is_opened(tmp_path, make_rig, monkeypatch):
    """The race a loaded machine hit: the open fails ("no such file"), then the port appears before
    the link looks again. That failure means "not there yet", not "there and broken"."""
    import os

    import serial

    from firmware_bridge import protocol as P
    from firmware_bridge.link import Link

    vr, _rig = make_rig(connect=False)
    path = tmp_path / "hongsi-mcu"
    real = serial.serial_for_url
    calls = []

    def open_then_appear(url, *args, **kwargs):
        calls.append(url)
        if len(calls) == 1:
            try:
                return real(url, *args, **kwargs)  # not there yet: pyserial's own ENOENT
            finally:
                os.symlink(vr.ends["serial"], path)  # ... and there now
        return real(url, *args, **kwargs)

    monkeypatch.setattr(serial, "serial_for_url", open_then_appear)
    link = Link(str(path), open_wait=5.0)
    try:
        assert len(calls) == 2
        assert link.command("ping")[0] == P.NOT_CONNECTED
    finally:
        link.close()


def test_a_reconnect_waits_for_the_port_to_come_back(tmp_path, make_rig):
    """A reset Pico re-enumerates its USB: the port is gone for a while; the link waits for it."""
    import os
    import threading
    import time

    from firmware_bridge import protocol as P
    from firmware_bridge.link import Link

    vr, _rig = make_rig(connect=False)
    path = tmp_path / "hongsi-mcu"
    threading.Timer(0.6, lambda: os.symlink(vr.ends["serial"], path)).start()
    t0 = time.monotonic()
    link = Link(str(path), open_wait=5.0)
    try:
        assert time.monotonic() - t0 >= 0.5
        assert link.command("ping")[0] == P.NOT_CONNECTED  # the firmware answers on the port that came back
    finally:
        link.close()
