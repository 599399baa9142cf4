"""The host end of the serial link: framing, sequence numbers, retransmit with backoff, exactly-once.

A :class:`Link` sends one command at a time (stop-and-wait): the command is retransmitted — after a NAK at
once, otherwise after a timeout that doubles from ``rto`` up to ``rto_max`` — until its REPLY arrives or
``timeout`` passes (:class:`~firmware_bridge.errors.LinkLost`). The firmware answers a retransmission of a
sequence number it has already seen with its cached reply and never acts twice. Events from the firmware
are acked at once, duplicates dropped, and handed to ``on_event(name, fields, seq)`` in the reader thread.

>>> link = Link("/dev/ttyACM0")                                    # doctest: +SKIP
>>> link.command("count")                                          # doctest: +SKIP
(0, {'count': 1})
"""

from __future__ import annotations

import errno
import os
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import serial

from firmware_bridge import protocol as P
from firmware_bridge.errors import LinkLost, PortGone, RigError

EventHandler = Callable[[str, dict[str, Any], int], None]


class Link:
    def __init__(self, port: str, baud: int = 115200, *, timeout: float = 2.0, rto: float = 0.03,
                 rto_max: float = 0.25, on_event: EventHandler | None = None, open_wait: float = 0.0):
        """``open_wait``: how long a port that is not there may take to appear (a Pico reset re-enumerates
        its USB: the port vanishes for about a second, up to ~10 s on a busy hub)."""
        # exclusive: a second controller (another `hongsi deal`, `hongsi serve`) cannot share the port
        extra = {"exclusive": True} if os.name == "posix" else {}
        try:
            self.ser = self._open(port, baud, timeout, extra, open_wait)
        except (serial.SerialException, ValueError) as exc:
            if "exclusively lock" in str(exc):
                raise LinkLost(f"serial port {port} is in use by another program (another hongsi deal or "
                               f"hongsi serve?) / 串口被占用") from None
            raise LinkLost(f"cannot open serial port {port!r}: {exc} / 无法打开串口") from None
        self.port = port
        self.timeout = timeout
        self.rto = rto
        self.rto_max = rto_max
        self.on_event = on_event
        self.decoder = P.FrameDecoder()
        self.counters = {"commands": 0, "frames_sent": 0, "retransmits": 0, "naks_sent": 0,
                         "naks_received": 0, "events": 0, "duplicate_events": 0, "stray_replies": 0}
        self._seq = random.randrange(1, 0xFFFF)
        self._cmd_lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._cv = threading.Condition()
        self._waiting: int | None = None
        self._reply: tuple[int, tuple] | None = None
        self._nak = False
        self._last_event: int | None = None
        self._boot_id: int | None = None
        self.last_rx = self._rx_byte = time.monotonic()
        self._heard = threading.Event()  # a whole frame came from the firmware on this port
        self.frame_gap = 0.008  # the line quiet this long in mid-frame: that frame is lost
        self.dead: str | None = None
        self._closing = False
        self._reader = threading.Thread(target=self._read_loop, name=f"link-{port}", daemon=True)
        self._reader.start()

    # ------------------------------------------------------------------ public
    @staticmethod
    def _open(port: str, baud: int, timeout: float, extra: dict, open_wait: float) -> Any:
        deadline = time.monotonic() + open_wait
        while True:
            try:
                return serial.serial_for_url(port, baud, timeout=0.004, write_timeout=timeout, **extra)
            except serial.SerialException as exc:
                # "not there" by the error itself: the port may appear between the failed open and a look
                missing = (exc.args and exc.args[0] == errno.ENOENT) or not os.path.exists(port)
                if "://" in port or not missing or time.monotonic() >= deadline:
                    raise
                time.sleep(0.02)  # poll often: the sooner the port is open, the sooner the boot event is heard

    def _frame(self, msg: int, args: tuple) -> tuple[int, bytes]:
        """The next sequence number whose frame holds no 0x03: a Pico still booting (before main.py's
        first statement turns Ctrl-C off) would take that byte for Ctrl-C and stop in its REPL."""
        for _ in range(64):  # an argument may hold 0x03 itself (900 = 0x0384): then send it as it is
            seq = self._seq
            self._seq = (self._seq % 0xFFFF) + 1  # never 0
            frame = P.encode(P.CMD, seq, msg, args)
            if 3 not in frame:
                break
        return seq, frame

    BOOT_WAIT_S = 2.0  # a booting Pico speaks (its boot event) within this; a running one sooner

    def wait_heard(self, timeout: float | None = None) -> bool:
        """Wait until the firmware has said something on this port (its boot event, a heartbeat), for
        at most ``timeout`` s (default :attr:`BOOT_WAIT_S`); True if it has. Speak first (HELLO) only
        after this: a port that has just come back may belong to a Pico still booting, before main.py
        turned Ctrl-C off, and a 0x03 in our first frame would stop it in its REPL. A firmware that
        stays silent (its boot event acked by an earlier host that never said HELLO) has long been
        past that window when the wait ends."""
        return self._heard.wait(self.BOOT_WAIT_S if timeout is None else timeout)

    @property
    def crc_errors(self) -> int:
        return self.decoder.errors

    def stats(self) -> dict[str, int]:
        return {**self.counters, "crc_errors": self.decoder.errors}

    def command(self, name: str, *args: int, timeout: float | None = None) -> tuple[int, dict[str, Any]]:
        """Send one command; return (status, reply fields). Retransmits until answered."""
        _seq, status, fields = self.request(name, *args, timeout=timeout)
        return status, fields

    def request(self, name: str, *args: int, timeout: float | None = None) -> tuple[int, int, dict[str, Any]]:
        """Like :meth:`command`, also returning the sequence number the command carried."""
        msg = P.CMD_IDS[name]
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        with self._cmd_lock:
            seq, frame = self._frame(msg, tuple(args))
            with self._cv:
                self._waiting, self._reply, self._nak = seq, None, False
            self.counters["commands"] += 1
            rto = self.rto
            first = True
            try:
                while True:
                    if self.dead:
                        raise self.lost(f"serial link to {self.port} is down: {self.dead} / 串口连接中断")
                    if not first:
                        self.counters["retransmits"] += 1
                    first = False
                    self._write(frame)
                    sent = time.monotonic()
                    with self._cv:
                        while self._reply is None and not self._nak and not self.dead:
                            left = min(sent + rto, deadline) - time.monotonic()
                            if left <= 0:
                                break
                            self._cv.wait(left)
                        if self._reply is not None:
                            status, values = self._reply
                            names = ("status",) + P.COMMANDS[msg][4]
                            return seq, status, dict(zip(names[1:], values[1:], strict=True))
                        nak, self._nak = self._nak, False
                    if time.monotonic() >= deadline:
                        raise LinkLost(f"no answer to {name!r} from {self.port} within "
                                       f"{self.timeout if timeout is None else timeout:.1f} s / 单片机无应答")
                    if not nak:
                        rto = min(rto * 2, self.rto_max)
            finally:
                with self._cv:
                    self._waiting = None

    def lost(self, message: str) -> LinkLost:
        """The error for a dead link: :class:`PortGone` when the port's path has vanished (a reset Pico
        re-enumerating, a pulled cable), else :class:`LinkLost`."""
        gone = "://" not in self.port and not os.path.exists(self.port)
        return (PortGone if gone else LinkLost)(message)

    @property
    def closed(self) -> bool:
        return self._closing

    def close(self) -> None:
        self._closing = True
        try:
            self.ser.close()
        except Exception:  # noqa: BLE001 - closing a dead port
            pass
        self._reader.join(timeout=1)

    # ------------------------------------------------------------------ internals
    def _write(self, frame: bytes) -> None:
        with self._write_lock:
            try:
                self.ser.write(frame)
                self.counters["frames_sent"] += 1
            except Exception as exc:  # noqa: BLE001 - SerialException, OSError, or a port closed under us
                self._die(str(exc) or type(exc).__name__)
                raise LinkLost(f"cannot write to {self.port}: {exc} / 串口写入失败") from None

    def _die(self, why: str) -> None:
        with self._cv:
            self.dead = self.dead or why
            self._cv.notify_all()

    def _read_loop(self) -> None:
        while not self._closing:
            try:
                data = self.ser.read(max(1, self.ser.in_waiting))
            except Exception as exc:  # noqa: BLE001 - any failure of the port ends the link, clearly
                if not self._closing:
                    self._die(f"read failed: {exc}")
                return
            now = time.monotonic()
            if self._closing:
                return
            if data:
                self._rx_byte = now
                for item in self.decoder.feed(data):
                    self._handle(item)
            elif self.decoder.pending() and now - self._rx_byte > self.frame_gap:
                self._handle(self.decoder.flush())  # quiet in mid-frame: the frame was cut, NAK it

    def _handle(self, item: Any) -> None:
        if isinstance(item, P.FrameError):
            self.counters["naks_sent"] += 1
            self._safe_write(P.encode(P.NAK, 0))
            with self._cv:  # it may have been our reply (or the MCU's NAK): resend the command now
                if self._waiting is not None and self._reply is None:
                    self._nak = True
                    self._cv.notify_all()
            return
        kind, seq, msg, values = item
        self.last_rx = time.monotonic()
        self._heard.set()
        if kind == P.REPLY:
            with self._cv:
                if seq == self._waiting and self._reply is None:
                    self._reply = (values[0], values)
                    self._cv.notify_all()
                else:
                    self.counters["stray_replies"] += 1
        elif kind == P.NAK:
            self.counters["naks_received"] += 1
            with self._cv:
                if self._waiting is not None:
                    self._nak = True
                    self._cv.notify_all()
        elif kind == P.EVENT:
            self._safe_write(P.encode(P.ACK, seq))
            name, _fmt, names = P.EVENTS[msg]
            fields = dict(zip(names, values, strict=True))
            if name == "boot":
                if fields["boot_id"] == self._boot_id and seq == self._last_event:
                    self.counters["duplicate_events"] += 1
                    return
                self._boot_id = fields["boot_id"]
            elif seq == self._last_event:
                self.counters["duplicate_events"] += 1
                return
            self._last_event = seq
            self.counters["events"] += 1
            if self.on_event is not None:
                self.on_event(name, fields, seq)

    def _safe_write(self, frame: bytes) -> None:
        try:
            self._write(frame)
        except RigError:
            pass
