"""The firmware alone on the model, on a manual clock: host-silence failsafe, heartbeats, the watchdog."""

from __future__ import annotations

from firmware_bridge import protocol as P
from firmware_bridge.sim.clock import ManualClock
from firmware_bridge.sim.mcu import Mcu, MemoryPort
from firmware_bridge.sim.model import Board, Mechanics

TICK = 5.0  # ms of simulated time per main-loop pass


def _rig(riffle_ms: float = 60_000.0):
    clock = ManualClock()
    board = Board(clock, seed=1, mechanics=Mechanics(riffle_ms=riffle_ms))
    port = MemoryPort()
    mcu = Mcu(board, port)
    mcu.step()  # boots
    return clock, board, port, mcu


def _send(port, seq, name, *args):
    port.inbox += P.encode(P.CMD, seq, P.CMD_IDS[name], args)


def _events(port):
    items = P.FrameDecoder().feed(bytes(port.sent))
    return [(i[1], P.EVENTS[i[2]][0], i[3]) for i in items if isinstance(i, tuple) and i[0] == P.EVENT]


def test_host_silence_turns_every_motor_off_within_the_failsafe_time():
    clock, board, port, mcu = _rig()
    _send(port, 1, "hello", 0)
    _send(port, 2, "shuffle", 3)
    mcu.step()
    last_host = clock.now_ms()
    assert board.relay, "the shuffler runs"
    silence = mcu.modules["config"].HOST_SILENCE_MS
    off_at = None
    while clock.now_ms() < last_host + 3 * silence:
        clock.advance(TICK)
        mcu.step()
        if not board.relay and off_at is None:
            off_at = clock.now_ms()
    assert off_at is not None
    assert silence < off_at - last_host <= silence + TICK  # not before, and within one loop pass after
    assert board.motor == 0 and not board.servo_powered
    assert mcu.fw.fault == P.F_HOST_SILENCE
    queued = [e[2] for e in mcu.fw.events]  # nobody acks: the events wait in order, boot report first
    assert "fault" in queued and "done" in queued


def test_a_live_host_keeps_the_shuffler_running_past_the_failsafe_time():
    clock, board, port, mcu = _rig(riffle_ms=2500.0)
    _send(port, 1, "hello", 0)
    _send(port, 2, "shuffle", 1)
    mcu.step()
    acked: set[int] = set()
    done = None
    while clock.now_ms() < 10_000 and done is None:
        clock.advance(TICK)
        mcu.step()
        for seq, name, values in _events(port):
            if seq not in acked:  # the host acks every event (heartbeats included)
                acked.add(seq)
                port.inbox += P.encode(P.ACK, seq)
                if name == "done":
                    done = (clock.now_ms(), values)
    assert done is not None and done[1][2] == P.DONE_OK and done[0] > 2000
    assert mcu.fw.fault == P.F_NONE


def test_silence_while_idle_is_no_fault():
    clock, board, port, mcu = _rig()
    _send(port, 1, "hello", 0)
    mcu.step()
    for _ in range(1000):
        clock.advance(TICK)
        mcu.step()
    assert mcu.fw.fault == P.F_NONE


def test_a_hung_main_loop_is_reset_by_the_watchdog():
    clock, board, port, mcu = _rig()
    first = mcu.fw.boot_id
    wdt = mcu.modules["config"].WDT_MS
    mcu.fw.step = lambda: None  # the main loop hangs: nothing feeds the watchdog any more
    clock.advance(wdt + 1)
    mcu.step()
    clock.advance(board.mech.boot_ms + 1)
    mcu.step()
    mcu.step()
    assert mcu.boots == 2 and mcu.fw.boot_id != first and mcu.fw.reset_cause == 3
    boot = [v for _, n, v in _events(port) if n == "boot"][-1]
    assert boot[0] == mcu.fw.boot_id and boot[-1] == 3  # the boot report names the watchdog


def test_retransmitted_eject_never_ejects_twice():
    clock, board, port, mcu = _rig()
    _send(port, 1, "hello", 0)
    _send(port, 2, "eject", 1)
    _send(port, 2, "eject", 1)  # the host did not hear the reply and sent it again
    mcu.step()
    for _ in range(100):
        clock.advance(TICK)
        _send(port, 2, "eject", 1)
        mcu.step()
    assert len(board.places) == 1
    replies = [i for i in P.FrameDecoder().feed(bytes(port.sent)) if isinstance(i, tuple) and i[0] == P.REPLY]
    assert all(r[3][0] == P.ACCEPTED for r in replies if r[1] == 2) and len(replies) >= 100


def test_wall_safe_config_keeps_link_budgets_in_wall_time():
    from firmware_bridge.sim import wall_safe_config

    assert wall_safe_config(1) == {}
    fast = wall_safe_config(40)
    assert fast["HOST_SILENCE_MS"] / 40 >= 250 and fast["HEARTBEAT_MS"] * 4 <= fast["HOST_SILENCE_MS"]
    assert fast["REPL_RESET_MS"] / 40 >= 200  # the "repl" reply reaches a busy host before the port goes


def test_host_gone_mid_shuffle_on_the_threaded_rig(make_rig):
    """The host process dies during a shuffle: the virtual Pico stops the shuffler on its own, and the
    next host finds the latched 'host silent' fault."""
    import time

    from firmware_bridge import Rig

    vr, rig = make_rig(speed=10)
    status, _ = rig.link.command("shuffle", 20)
    assert status == P.ACCEPTED
    deadline = time.monotonic() + 5
    while not vr.board.relay and time.monotonic() < deadline:
        time.sleep(0.005)
    assert vr.board.relay
    rig.close()  # the host is gone: no more acks, nothing
    gone = vr.clock.now_ms()
    silence = vr.mcu.modules["config"].HOST_SILENCE_MS
    while vr.board.relay and time.monotonic() < deadline + 5:
        time.sleep(0.002)
    off = vr.clock.now_ms()
    # within the failsafe time plus thread-scheduling slack (the exact timing: the manual-clock test above);
    # without the failsafe the shuffle would run 20 passes, ~60 s of rig time
    assert not vr.board.relay and off - gone <= silence + 500 * vr.speed
    again = Rig(vr.ends["serial"])
    again.connect()
    try:
        assert again.status()["fault"] == "host silent"
        assert again.clear_fault() == "host silent"
    finally:
        again.close()
