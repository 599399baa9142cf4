"""Link soak: 10,000 commands through a pty that flips 1% of the bytes and drops 0.5% of them."""

from __future__ import annotations

import time

N = 10_000


def test_every_command_executes_exactly_once_through_a_noisy_pty(make_rig):
    vr, rig = make_rig(connect=False, speed=1, noise=(0.01, 0.005))
    rig.timeout = 5.0
    rig.connect()
    start = time.monotonic()
    answers = [rig.count() for _ in range(N)]
    elapsed = time.monotonic() - start
    # Every command ran once, in order: the firmware's counter answered 1..N and stands at N.
    assert answers == list(range(1, N + 1))
    fw = vr.mcu.fw
    assert fw.count == N
    # The noise really happened and the link really recovered from it.
    assert vr.port.flipped > 500 and vr.port.dropped > 250
    stats = rig.link.stats()
    assert stats["retransmits"] > 100
    assert stats["crc_errors"] + fw.decoder.errors > 100
    assert elapsed < 300  # nothing hung (a generous bound, not a speed target)
