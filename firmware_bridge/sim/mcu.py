"""The virtual Pico: the firmware's own code on a :class:`~firmware_bridge.sim.model.Board`, behind a
real pseudo-terminal (raw mode), with reboots (watchdog, ``--mcu-reset-at``) and optional line noise.

>>> from firmware_bridge.sim.clock import ManualClock
>>> from firmware_bridge.sim.model import Board
>>> port = MemoryPort(); mcu = Mcu(Board(ManualClock()), port); mcu.step()
>>> mcu.boots
1
"""

from __future__ import annotations

import os
import random
import select
import sys
import threading
import time
import traceback
import tty
from typing import Any

from firmware_bridge.sim.fakes import PWRON_RESET, WDT_RESET, UsbStdio, load_firmware


class PtyPort:
    """The firmware's end of the serial line: the master side of a pty. ``name`` is the slave's path,
    which the host opens with pyserial like any serial port."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        self.name = os.ttyname(self.slave)
        self.dropped_writes = 0

    def fileno(self) -> int:
        return self.master

    def read(self) -> bytes | None:
        try:
            return os.read(self.master, 4096) or None
        except (BlockingIOError, OSError):
            return None

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.master, view)
            except (BlockingIOError, OSError):
                self.dropped_writes += 1  # nobody reads: like a USB port without a host
                return
            view = view[n:]

    def close(self) -> None:
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass


class UsbPort:
    """The Pico's USB CDC port as the host sees it: a pty that VANISHES when the chip resets (its path is
    gone, the host's open port reads end-of-file, as a /dev/ttyACM does when USB drops) and comes back
    after enumeration at the same path, as cdc_acm gives the same ttyACM back once the host has closed the
    old one. Until the host lets go of its dead port the path stays away (the kernel still holds that
    number); a real host then gets a new ttyACM, which the udev symlink hides."""

    def __init__(self) -> None:
        self.pty: PtyPort | None = PtyPort()
        self.name = self.pty.name
        self.dropped_writes = 0
        self.vanished = self.returned = 0

    @property
    def attached(self) -> bool:
        return self.pty is not None

    def detach(self) -> None:
        """USB drops: the path disappears at once; the host's port reads end-of-file."""
        if self.pty is not None:
            self.pty.close()
            self.pty = None
            self.vanished += 1

    def attach(self) -> bool:
        """Enumerated again: take the same pty number back; False while it is still held (try again)."""
        if self.pty is not None:
            return True
        held: list[PtyPort] = []
        try:
            for _ in range(256):  # ptys come lowest number first: hold the lower free ones until ours
                pty = PtyPort()
                if pty.name == self.name:
                    self.pty = pty
                    self.returned += 1
                    return True
                held.append(pty)
                if int(pty.name.rsplit("/", 1)[1]) > int(self.name.rsplit("/", 1)[1]):
                    return False  # ours is still in use (the host has not closed its dead port yet)
            return False
        finally:
            for pty in held:
                pty.close()

    def fileno(self) -> int:
        return self.pty.master if self.pty is not None else -1

    def read(self) -> bytes | None:
        return self.pty.read() if self.pty is not None else None

    def write(self, data: bytes) -> None:
        if self.pty is None:
            self.dropped_writes += 1  # no USB: the bytes go nowhere
            return
        self.pty.write(data)

    def close(self) -> None:
        self.detach()


class NoisyPort:
    """Wraps a port: each byte, both ways, is flipped (one random bit) with chance ``flip`` and dropped
    with chance ``drop``."""

    def __init__(self, inner: Any, flip: float = 0.01, drop: float = 0.005, seed: int | None = None):
        self.inner, self.flip, self.drop = inner, flip, drop
        self.rng = random.Random(seed)
        self.flipped = self.dropped = 0
        self.name = getattr(inner, "name", None)

    def fileno(self) -> int:
        return self.inner.fileno()

    def _noise(self, data: bytes) -> bytes:
        out = bytearray()
        for b in data:
            r = self.rng.random()
            if r < self.drop:
                self.dropped += 1
                continue
            if r < self.drop + self.flip:
                self.flipped += 1
                b ^= 1 << self.rng.randrange(8)
            out.append(b)
        return bytes(out)

    def read(self) -> bytes | None:
        data = self.inner.read()
        return self._noise(data) or None if data else None

    def write(self, data: bytes) -> None:
        self.inner.write(self._noise(data))

    def close(self) -> None:
        self.inner.close()


class OperatorTap:
    """The simulated operator, watching the line like a person watching the table: when the controller
    starts a deal with a zero-pass shuffle while the hopper is empty, the operator puts the gathered cards
    straight into the hopper (a shuffle with passes does this through the shuffler, see the model); before
    the controller clears a fault, the operator frees a jammed card."""

    def __init__(self, inner: Any, board: Any):
        from firmware_bridge import protocol as P

        self.inner, self.board, self.P = inner, board, P
        self.decoder = P.FrameDecoder()
        self.name = getattr(inner, "name", None)

    def fileno(self) -> int:
        return self.inner.fileno()

    def read(self) -> bytes | None:
        data = self.inner.read()
        if data:
            P = self.P
            for item in self.decoder.feed(data):
                if not isinstance(item, tuple) or item[0] != P.CMD:
                    continue
                if item[2] == P.CMD_IDS["shuffle"] and item[3][0] == 0:
                    self.board.operator_reload()
                elif item[2] == P.CMD_IDS["clear"]:
                    self.board.clear_path()  # "clear the card path, then clear the fault"
        return data

    def write(self, data: bytes) -> None:
        self.inner.write(data)

    def close(self) -> None:
        self.inner.close()


class MemoryPort:
    """An in-memory serial line for tests that step the firmware by hand."""

    def __init__(self) -> None:
        self.inbox = bytearray()
        self.sent = bytearray()

    def read(self) -> bytes | None:
        data, self.inbox = bytes(self.inbox), bytearray()
        return data or None

    def write(self, data: bytes) -> None:
        self.sent += data


class VirtualRepl:
    """What the USB port shows after the firmware freed it (command ``repl``): MicroPython's REPL, as
    far as a flashing tool probes it. Ctrl-C gives the prompt, Ctrl-A the raw REPL's banner, Ctrl-B
    the friendly REPL again; anything else is echoed."""

    BANNER = b"MicroPython (the virtual hongsi Pico)\r\nType \"help()\" for more information.\r\n>>> "

    def __init__(self, port: Any, message: str | None):
        self.port = port
        port.write((message.encode() + b"\r\n" if message else b"") + self.BANNER)

    def step(self) -> None:
        data = self.port.read()
        for b in data or b"":
            if b == 0x03:
                self.port.write(b"\r\n>>> ")
            elif b == 0x01:
                self.port.write(b"raw REPL; CTRL-B to exit\r\n>")
            elif b == 0x02:
                self.port.write(b"\r\n" + self.BANNER)
            else:
                self.port.write(bytes([b]))


class Mcu:
    """Runs the firmware: :meth:`step` advances the mechanics to now and runs one pass of the firmware's
    main loop; :meth:`run_forever` does that on a thread, waking on serial input.

    A reset runs as on the board (the model's ``usb_enum_ms``, ``main_ms``, ``boot_ms``): the USB port
    (``usb``, a :class:`UsbPort`) vanishes and comes back after enumeration; at ``main_ms`` MicroPython
    runs ``main.py`` itself, whose first statement turns Ctrl-C off (a 0x03 byte before that stops the
    board in its REPL, with no firmware and no watchdog); after the imports (``boot_ms``) main.py starts
    the firmware on its stdin/stdout, which sends its boot event. Other bytes wait in stdin for the
    firmware, as in MicroPython's ring buffer."""

    def __init__(self, board: Any, port: Any, overrides: dict[str, Any] | None = None, usb: UsbPort | None = None):
        self.board, self.port, self.overrides, self.usb = board, port, overrides, usb
        self.main_at = self.usb_at = board.clock.now_ms()
        self.stdin = bytearray()
        self.ctrl_c_in_boot = 0  # boots a 0x03 stopped in the REPL
        self.ctrl_c_off = False  # main.py has run its first statement this boot
        self.usb_stdio: Any = None
        self._usb_retry = 0.0
        self.fw: Any = None
        self.modules: dict[str, Any] = {}
        self.boots = 0
        self.cause = PWRON_RESET
        self.boot_at = board.clock.now_ms()
        self.crashes: list[str] = []
        self.repl: VirtualRepl | None = None  # the port given to MicroPython's REPL for this boot
        self._stop = threading.Event()
        self.thread: threading.Thread | None = None

    def step(self) -> None:
        board = self.board
        board.clock.tick()
        now = board.clock.now_ms()
        board.advance(now)
        if board.reset_request is not None:
            self.cause = board.reset_request
            board.power_cycle_outputs()
            self.fw = None
            self.repl = None
            m = board.mech
            self.usb_at, self.main_at, self.boot_at = now + m.usb_enum_ms, now + m.main_ms, now + m.boot_ms
            self.stdin = bytearray()
            self.ctrl_c_off, self.modules, self.usb_stdio = False, {}, None
            if self.usb is not None:
                self.usb.detach()
        if self.usb is not None and not self.usb.attached and now >= self.usb_at \
                and time.monotonic() >= self._usb_retry:
            self._usb_retry = time.monotonic() + 0.005  # the host still holds the dead port: look again soon
            self.usb.attach()
        if self.repl is not None:
            self.repl.step()
            return
        if self.fw is None:
            self._booting(now)
            return
        try:
            self.fw.step()
        except Exception:  # noqa: BLE001 - a firmware crash: the hardware watchdog would reset the chip
            self.crashes.append(traceback.format_exc())
            sys.stderr.write("virtual MCU crashed:\n" + self.crashes[-1])
            board.request_reset(WDT_RESET)

    def _booting(self, now: float) -> None:
        data = self.port.read()  # USB's receive path sees every byte (it is where Ctrl-C is caught)
        if data:
            if not self.ctrl_c_off and 3 in data:  # Ctrl-C before main.py turned it off: KeyboardInterrupt
                self.ctrl_c_in_boot += 1
                self.board.log.append((now, "ctrl-c during boot: the board stopped in its REPL"))
                self.repl = VirtualRepl(self.port, "Traceback (most recent call last):\r\nKeyboardInterrupt: ")
                return
            buf = self.stdin if self.usb_stdio is None else self.usb_stdio.buf
            buf += data[:256 - len(buf)]  # MicroPython's stdin ring buffer
        if now >= self.main_at and not self.modules:
            self._run_main()
        if now >= self.boot_at:
            self._boot()

    def _run_main(self) -> None:
        """MicroPython runs main.py: its first statement, then its imports (their time is ``boot_ms``)."""
        self.usb_stdio = UsbStdio(self.port, bytes(self.stdin))
        self.stdin = bytearray()
        self.modules = load_firmware(self.board, self.cause, self.overrides, usb=self.usb_stdio,
                                     on_kbd_intr=self._kbd_intr)

    def _kbd_intr(self, c: int) -> None:
        self.ctrl_c_off = c == -1

    def _boot(self) -> None:
        """main.py's imports are done: it starts the firmware (or leaves the REPL free for this boot)."""
        if not self.modules:
            self._run_main()
        self.boots += 1
        self.fw = self.modules["main"].start()
        if self.fw is None:  # the host asked for the REPL: main.py printed why and returned
            self.repl = VirtualRepl(self.port, None)

    def run_forever(self) -> None:
        while not self._stop.is_set():
            fd = self.port.fileno()
            try:
                if fd < 0:  # no USB right now (a reset): the chip runs on
                    time.sleep(0.001)
                else:
                    select.select([fd], [], [], 0.001)
            except (OSError, ValueError):
                time.sleep(0.001)  # the port went away under select: it comes back after enumeration
            self.step()

    def start(self) -> None:
        self.thread = threading.Thread(target=self.run_forever, name="virtual-mcu", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self.thread is not None:
            self.thread.join(timeout=2)
