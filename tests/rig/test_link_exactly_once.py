"""Exactly-once as a property: whatever mix of new commands, retransmissions, line garbage and damaged
frames reaches the firmware, each sequence number acts once; and firmware events reach subscribers."""

from __future__ import annotations

import struct
import threading

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import protocol as P
from firmware_bridge.sim.clock import ManualClock
from firmware_bridge.sim.mcu import Mcu, MemoryPort
from firmware_bridge.sim.model import Board

COUNT = P.CMD_IDS["count"]


def _damaged(seq: int) -> bytes:
    body = struct.pack("<BHB", P.CMD, seq, COUNT)
    bad = P.crc16(body) ^ 0x0101
    return P.cobs_encode(body + bytes((bad >> 8, bad & 0xFF))) + b"\x00"


ops = st.lists(st.tuples(st.sampled_from(["new", "again", "garbage", "damaged", "tick"]),
                         st.binary(min_size=1, max_size=6)), max_size=60)


@settings(max_examples=60, deadline=None)
@given(ops)
def test_each_sequence_number_acts_exactly_once(plan):
    clock = ManualClock()
    port = MemoryPort()
    mcu = Mcu(Board(clock, seed=0), port)
    mcu.step()
    port.inbox += P.encode(P.CMD, 1, P.CMD_IDS["hello"], (0,))
    seq, distinct = 1, 0
    for op, junk in plan:
        if op == "new":
            seq += 1
            distinct += 1
            port.inbox += P.encode(P.CMD, seq, COUNT)
        elif op == "again" and distinct:
            port.inbox += P.encode(P.CMD, seq, COUNT)
        elif op == "garbage":
            port.inbox += junk + b"\x00"
        elif op == "damaged":
            port.inbox += _damaged(seq + 1)
        else:
            clock.advance(3)
        mcu.step()
    assert mcu.fw.count == distinct
    replies = {}
    for item in P.FrameDecoder().feed(bytes(port.sent)):
        if isinstance(item, tuple) and item[0] == P.REPLY and item[2] == COUNT:
            replies.setdefault(item[1], set()).add(item[3][1])
    # every answer to one seq is the same count, and the counts are 1..distinct in seq order
    assert all(len(v) == 1 for v in replies.values())
    assert [next(iter(replies[s])) for s in sorted(replies)] == list(range(1, distinct + 1))


def test_subscribers_get_card_passed_and_heartbeat_events(make_rig):
    vr, rig = make_rig()
    seen: list[str] = []
    got = threading.Event()

    def on(ev):
        seen.append(ev.name)
        if "card_passed" in seen and "heartbeat" in seen:
            got.set()

    rig.on_event(on)
    rig.home()
    rig.rotate_to(3)
    ev = rig.eject()
    assert got.wait(5)
    assert "done" in seen
    assert seen.count("card_passed") == 1 and rig.status()["ejects"] == 1  # one card, counted once
    freq, duty = vr.board.pwms[vr.board.P.PIN_SERVO]
    assert freq == 50 and abs(duty / 65535 * 20_000 - (500 + 2000 * 270 / 270)) < 10  # 270° = 2500 µs
    assert ev.seat == 3 and vr.truth()["hands"][3]
