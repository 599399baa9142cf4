"""The firmware's ``repl`` command on the model, on a manual clock: refused while anything moves; otherwise
everything off, a reset, one boot that leaves the port to MicroPython's REPL, and the firmware again on
the boot after."""

from __future__ import annotations

from firmware_bridge import protocol as P
from firmware_bridge.sim.clock import ManualClock
from firmware_bridge.sim.mcu import Mcu, MemoryPort
from firmware_bridge.sim.model import Board, Mechanics

TICK = 5.0


def _rig():
    clock = ManualClock()
    board = Board(clock, seed=1, mechanics=Mechanics(riffle_ms=60_000.0))
    port = MemoryPort()
    mcu = Mcu(board, port)
    mcu.step()
    port.inbox += P.encode(P.CMD, 1, P.CMD_IDS["hello"], (0,))
    mcu.step()
    return clock, board, port, mcu


def _replies(port) -> dict[int, tuple]:
    items = P.FrameDecoder().feed(bytes(port.sent))
    return {i[1]: i[3] for i in items if isinstance(i, tuple) and i[0] == P.REPLY}


def _run(clock, mcu, ms: float) -> None:
    end = clock.now_ms() + ms
    while clock.now_ms() < end:
        clock.advance(TICK)
        mcu.step()


def test_repl_is_refused_while_the_shuffler_runs_and_nothing_changes():
    clock, board, port, mcu = _rig()
    port.inbox += P.encode(P.CMD, 2, P.CMD_IDS["shuffle"], (3,))
    mcu.step()
    assert board.relay
    port.inbox += P.encode(P.CMD, 3, P.CMD_IDS["repl"])
    mcu.step()
    assert _replies(port)[3][0] == P.BUSY
    assert board.flash == {} and board.relay and mcu.fw.reset_at is None


def test_repl_turns_everything_off_resets_and_gives_one_boot_to_the_repl():
    clock, board, port, mcu = _rig()
    port.inbox += P.encode(P.CMD, 2, P.CMD_IDS["home"])
    mcu.step()
    _run(clock, mcu, 1500)  # homed: the servo holds the turntable
    assert board.servo_powered
    boots = mcu.boots
    port.inbox += P.encode(P.CMD, 3, P.CMD_IDS["repl"])
    mcu.step()
    assert _replies(port)[3][0] == P.OK
    assert not board.servo_powered and board.motor == 0 and not board.relay  # off at once
    assert list(board.flash) == [mcu.modules["config"].REPL_FLAG]
    port.inbox += P.encode(P.CMD, 4, P.CMD_IDS["eject"], (1,))  # nothing moves in the time before the reset
    mcu.step()
    assert _replies(port)[4][0] == P.BUSY
    port.inbox += P.encode(P.CMD, 3, P.CMD_IDS["repl"])  # a retransmission: the same answer, once
    mcu.step()
    _run(clock, mcu, 5000)
    assert mcu.boots == boots + 1 and mcu.fw is None and mcu.repl is not None
    assert board.flash == {}  # the flag is spent: only this boot is the REPL's
    port.sent.clear()
    port.inbox += b"\r\x03\x03\x01"
    mcu.step()
    assert bytes(port.sent).endswith(b"raw REPL; CTRL-B to exit\r\n>")
    board.request_reset(5)  # mpremote's reset (or a power cycle): the firmware runs again
    _run(clock, mcu, 5000)
    assert mcu.boots == boots + 2 and mcu.fw is not None and mcu.repl is None


def test_the_repl_boot_says_so_on_the_port():
    clock, board, port, mcu = _rig()
    port.inbox += P.encode(P.CMD, 2, P.CMD_IDS["repl"])
    mcu.step()
    port.sent.clear()
    _run(clock, mcu, 5000)
    text = bytes(port.sent)
    assert mcu.modules["firmware"].REPL_BANNER.encode() in text and text.endswith(b">>> ")
