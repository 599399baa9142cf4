"""The rig as the controller sees it: connect, home, shuffle, rotate to a seat, eject one card.

>>> rig = Rig("/dev/ttyACM0", angles=[0, 90, 180, 270], bottom_angle=45)   # doctest: +SKIP
>>> rig.connect().fw_version                                               # doctest: +SKIP
'0.4'
>>> rig.home(); rig.rotate_to(1); rig.eject().pulse_ms                     # doctest: +SKIP
73.0

Motion commands are answered twice by the firmware: "accepted" at once, then a DONE event with the
sensor evidence. The host waits for DONE as long as the link is alive (heartbeats keep coming); a reboot
of the microcontroller in between raises :class:`McuRebooted`, never a success.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

from firmware_bridge import protocol as P
from firmware_bridge.errors import (
    DoubleFeed,
    EStop,
    Fault,
    HopperEmpty,
    Jam,
    LinkLost,
    McuRebooted,
    RigError,
    fault_error,
)
from firmware_bridge.link import Link

DEFAULT_ANGLES = (0.0, 90.0, 180.0, 270.0)  # as controller.config's servo_angles default
DEFAULT_BOTTOM_ANGLE = 45.0  # as controller.config's bottom_angle default


@dataclass(frozen=True)
class BootInfo:
    """The firmware's boot report."""

    boot_id: int
    fw_version: str
    protocol_version: int
    protocol_hash: int
    reset_cause: str
    rebooted: bool = False  # True when this connect found a different boot than the previous one


@dataclass(frozen=True)
class EjectEvidence:
    """What the exit sensor saw for one eject."""

    pulse_ms: float  # how long the card blocked the exit beam
    t: float  # host wall-clock time (time.time()) when the firmware reported it
    travel_ms: float = 0.0  # motor start to the card's leading edge at the exit
    attempts: int = 1  # 2 or 3 after automatic jam retries
    seat: int | str | None = None  # where the turntable pointed: a seat, "bottom", or None
    angle: float | None = None
    double: bool = False
    mcu_t_ms: int = 0


@dataclass(frozen=True)
class Event:
    """A firmware event: name in card_passed, jam, estop, fault, heartbeat, boot, done."""

    name: str
    fields: dict[str, Any] = field(default_factory=dict)
    t: float = 0.0


__all__ = ["BootInfo", "EjectEvidence", "Event", "HopperEmpty", "Rig", "RigStatus"]


class RigStatus(TypedDict, total=False):
    """:meth:`Rig.status`: the firmware's state and both ends' link counters."""

    homed: bool
    busy: bool
    hopper: bool                 # the card-present sensor: a card waits in the hopper
    shuffler_on: bool
    ejector_on: bool
    estop_input: bool
    connected: bool
    fault: str                   # "none" | "jam" | "e-stop" | "homing failed" | "host silent" | "shuffler stuck"
    angle: float
    ejects: int                  # the MCU's eject counter since its boot
    uptime_ms: int
    mcu_crc_errors: int
    mcu_retransmits: int
    crc_errors: int
    retransmits: int
    link: dict[str, Any]
    boot_id: int | None


class Rig:
    """The microcontroller on a serial port. Seats map to turntable angles (``angles``), and
    ``"bottom"`` to ``bottom_angle`` (the 底牌 tray)."""

    DONE_CHECK_S = 2.0  # while waiting this long for a DONE, ask the firmware whether it is still busy

    def __init__(self, port: str, baud: int = 115200, *, angles: Sequence[float] | None = None,
                 bottom_angle: float | None = None, timeout: float = 2.0):
        self.port = port
        self.baud = baud
        self.angles = [float(a) for a in (DEFAULT_ANGLES if angles is None else angles)]
        self.bottom_angle = DEFAULT_BOTTOM_ANGLE if bottom_angle is None else float(bottom_angle)
        self.timeout = timeout
        self.link: Link | None = None
        self.boot: BootInfo | None = None
        self.pointing: int | str | None = None
        self.angle: float | None = None
        self._cv = threading.Condition()
        self._done: dict[int, dict[str, Any]] = {}
        self._reboot: BootInfo | None = None
        self._heartbeat: dict[str, Any] = {}
        self._subscribers: list[Callable[[Event], None]] = []
        self._events: queue.Queue[Event | None] = queue.Queue()
        self._dispatcher: threading.Thread | None = None

    # ------------------------------------------------------------------ connection
    REENUMERATE_S = 10.0  # a reset Pico's USB port comes back within this (reconnects wait for it)

    def connect(self) -> BootInfo:
        """Open the port (first time) and shake hands; return the boot report. After an
        unexpected reboot, connect again (the turntable must be homed again)."""
        if self.link is None or self.link.dead or self.link.closed:
            if self.link is not None:
                self.link.close()
            self.link = Link(self.port, self.baud, timeout=self.timeout, on_event=self._on_event,
                             open_wait=self.REENUMERATE_S if self.boot is not None else 0.0)
            if self._dispatcher is None:
                self._events = queue.Queue()
                self._dispatcher = threading.Thread(target=self._dispatch, args=(self._events,),
                                                    name="rig-events", daemon=True)
                self._dispatcher.start()
        self.link.wait_heard()  # a Pico still booting must hear nothing (no 0x03) before main.py's first line
        status, r = self.link.command("hello", int(time.time()) & 0xFFFFFFFF)
        if status != P.OK:
            raise RigError(f"handshake refused: {P.STATUS_NAMES.get(status, status)}")
        if r["protocol_hash"] != P.PROTOCOL_HASH or r["protocol_version"] != P.PROTOCOL_VERSION:
            raise RigError(f"firmware speaks protocol {r['protocol_version']}/{r['protocol_hash']:04x}, host "
                           f"{P.PROTOCOL_VERSION}/{P.PROTOCOL_HASH:04x}: flash hardware/firmware/ again / "
                           f"固件协议不一致")
        previous = self.boot
        info = BootInfo(r["boot_id"], f"{r['fw_major']}.{r['fw_minor']}", r["protocol_version"],
                        r["protocol_hash"], P.RESET_NAMES.get(r["reset_cause"], str(r["reset_cause"])),
                        rebooted=previous is not None and previous.boot_id != r["boot_id"])
        with self._cv:
            self.boot = info
            self._reboot = None
        if info.rebooted:
            self.pointing = self.angle = None
        return info

    def close(self) -> None:
        if self.link is not None:
            self.link.close()
        self._events.put(None)  # ends this dispatcher; connect() starts a new one
        self._dispatcher = None

    def __enter__(self) -> Rig:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ events
    def on_event(self, callback: Callable[[Event], None]) -> None:
        """Call ``callback(Event)`` for every firmware event (in a dispatcher thread, in order)."""
        self._subscribers.append(callback)

    def _on_event(self, name: str, fields: dict[str, Any], seq: int) -> None:
        with self._cv:
            if name == "done":
                self._done[fields["ref"]] = fields
            elif name == "heartbeat":
                self._heartbeat = fields
            elif name == "boot" and self.boot is not None and fields["boot_id"] != self.boot.boot_id:
                self._reboot = BootInfo(fields["boot_id"], f"{fields['fw_major']}.{fields['fw_minor']}",
                                        fields["protocol_version"], fields["protocol_hash"],
                                        P.RESET_NAMES.get(fields["reset_cause"], "?"), rebooted=True)
            self._cv.notify_all()
        if self._subscribers:
            self._events.put(Event(name, fields, time.time()))

    def _dispatch(self, events: queue.Queue[Event | None]) -> None:
        while (ev := events.get()) is not None:
            for cb in list(self._subscribers):
                try:
                    cb(ev)
                except Exception:  # noqa: BLE001 - a subscriber's bug must not stop the rig
                    pass

    # ------------------------------------------------------------------ commands
    def _link(self) -> Link:
        if self.link is None:
            raise RigError("not connected: call connect() first / 未连接")
        return self.link

    def _rebooted(self, what: str) -> McuRebooted:
        return McuRebooted(f"the microcontroller rebooted during {what}; it did not complete — connect() "
                           f"and home() again / 单片机意外重启，{what} 未完成", self._reboot)

    def _simple(self, name: str, *args: int) -> dict[str, Any]:
        status, r = self._link().command(name, *args)
        if status == P.NOT_CONNECTED or self._reboot is not None:
            raise self._rebooted(name)
        if status == P.FAULTED:
            raise self._fault_error(name)
        if status != P.OK:
            raise RigError(f"{name}: {P.STATUS_NAMES.get(status, status)}")
        return r

    def _fault_error(self, what: str) -> Fault:
        code = "fault"
        try:
            st = self.status()
            code = st["fault"]
        except RigError:
            pass
        return fault_error(f"{what} refused: fault latched ({code}); clear_fault() first / 故障锁定，请先清除", code)

    def _motion(self, name: str, *args: int) -> dict[str, Any]:
        link = self._link()
        with self._cv:
            if self._reboot is not None:
                raise self._rebooted(name)
        seq, status, _r = link.request(name, *args)
        if status == P.NOT_CONNECTED:
            raise self._rebooted(name)
        if status == P.FAULTED:
            raise self._fault_error(name)
        if status == P.EMPTY:
            raise HopperEmpty("eject: the hopper is empty / 发牌盒已空")
        if status == P.BLOCKED:  # a card left in the exit beam (a stop mid-card): clear the path like a jam
            raise Jam("a card is stuck in the exit beam; clear the path (the card back into the hopper), "
                      "then clear_fault() / 出牌口有卡住的牌，请清理（放回牌仓）", 0)
        if status != P.ACCEPTED:
            raise RigError(f"{name}: {P.STATUS_NAMES.get(status, status)}")
        checked = time.monotonic()
        while True:
            with self._cv:
                if seq in self._done:
                    return self._done.pop(seq)
                if self._reboot is not None:
                    raise self._rebooted(name)
                if link.dead:
                    raise link.lost(f"{name}: serial link down ({link.dead}) / 串口连接中断")
                if time.monotonic() - link.last_rx > self.timeout:
                    raise LinkLost(f"{name}: the microcontroller fell silent / 单片机无响应")
                self._cv.wait(0.05)
            if time.monotonic() - checked > self.DONE_CHECK_S:  # long motion: is it still going?
                checked = time.monotonic()
                if not self.status()["busy"]:
                    with self._cv:
                        self._cv.wait_for(lambda: seq in self._done or self._reboot is not None, 1.0)
                        if seq not in self._done and self._reboot is None:
                            raise RigError(f"{name}: the firmware finished but its report was lost / 动作结果丢失")

    def home(self) -> float:
        """Drive the turntable to its end-stop; return the time it took (ms of the MCU)."""
        d = self._motion("home")
        if d["outcome"] != P.DONE_OK:
            raise Fault(f"homing failed: the end-stop never closed ({P.DONE_NAMES.get(d['outcome'])}) / "
                        f"转盘归位失败", "home")
        self.pointing, self.angle = None, 0.0
        return float(d["extra"])

    def shuffle(self, passes: int) -> dict[str, int]:
        """Run the shuffler ``passes`` times; return {"passes", "ms"} when it has stopped."""
        if not 0 <= passes <= 255:
            raise ValueError(f"passes = {passes}: 0..255")
        if passes == 0:  # nothing moves; still tells the rig (and a virtual rig's operator) a deal begins
            self._simple("shuffle", 0)
            return {"passes": 0, "ms": 0}
        d = self._motion("shuffle", passes)
        if d["outcome"] != P.DONE_OK:
            raise Fault(f"shuffle stopped: {P.DONE_NAMES.get(d['outcome'])} / 洗牌中断",
                        "shuffler" if d["outcome"] == P.DONE_SHUFFLER else "aborted")
        return {"passes": d["value"], "ms": d["extra"]}

    def seat_angle(self, seat: int | str) -> float:
        if seat == "bottom":
            return self.bottom_angle
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.angles):
            raise ValueError(f"seat {seat!r}: a seat 0..{len(self.angles) - 1} or 'bottom'")
        return self.angles[seat]

    def rotate_to(self, seat: int | str) -> float:
        """Point the exit at a seat (index into ``angles``) or ``"bottom"``; return the angle."""
        angle = self.rotate_to_angle(self.seat_angle(seat))
        self.pointing = seat
        return angle

    def rotate_to_angle(self, deg: float) -> float:
        """Turn the turntable to ``deg`` degrees (homes first if the firmware asks for it)."""
        if not 0 <= deg <= 6553:
            raise ValueError(f"angle {deg}: out of range")
        try:
            d = self._motion("rotate", round(deg * 10))
        except RigError as exc:
            if "not homed" not in str(exc):
                raise
            self.home()
            d = self._motion("rotate", round(deg * 10))
        if d["outcome"] != P.DONE_OK:
            raise Fault(f"rotate stopped: {P.DONE_NAMES.get(d['outcome'])} / 转盘中断", "aborted")
        self.pointing, self.angle = None, d["value"] / 10
        return self.angle

    def eject(self) -> EjectEvidence:
        """Push out the bottom card. A jam is retried twice (wheel reversed first); the third jam
        latches the fault and raises :class:`Jam`. Two cards at once raise :class:`DoubleFeed`."""
        for attempt in range(1, P.JAM_TRIES + 1):
            d = self._motion("eject", attempt)
            outcome = d["outcome"]
            if outcome in (P.DONE_OK, P.DONE_DOUBLE):
                ev = EjectEvidence(pulse_ms=d["value"] / 1000, t=time.time(), travel_ms=d["extra"] / 1000,
                                   attempts=attempt, seat=self.pointing, angle=self.angle,
                                   double=outcome == P.DONE_DOUBLE, mcu_t_ms=d["t_ms"])
                if ev.double:
                    raise DoubleFeed(f"two cards left together (exit pulse {ev.pulse_ms:.0f} ms) / 一次出了两张牌",
                                     ev)
                return ev
            if outcome != P.DONE_JAM:
                raise Fault(f"eject stopped: {P.DONE_NAMES.get(outcome)} / 出牌中断", "aborted")
            if attempt < P.JAM_TRIES:
                self._motion("reverse", 0)
        raise Jam(f"card jammed {P.JAM_TRIES} times; fault latched — clear the path, then clear_fault() / "
                  f"卡牌堵塞，请清理后解除故障", P.JAM_TRIES)

    def reverse(self, ms: int = 0) -> None:
        """Run the ejector wheel backwards (``ms`` 0 = the firmware's default)."""
        self._motion("reverse", ms)

    def estop(self) -> None:
        """Emergency stop: motors off at once; latched until :meth:`clear_fault`."""
        self._simple("estop")

    def clear_fault(self) -> str:
        """Clear a latched fault; return the fault that was cleared. Raises Fault while the e-stop
        input is still pressed."""
        status, r = self._link().command("clear")
        if status == P.NOT_CONNECTED:
            raise self._rebooted("clear")
        if status == P.FAULTED:
            raise EStop("cannot clear: the e-stop is still pressed / 急停按钮仍被按下")
        return P.FAULT_NAMES.get(r["was"], str(r["was"]))

    def pulses(self, single_ms: float = 0.0, double_ms: float = 0.0) -> tuple[float, float]:
        """Set the firmware's exit-pulse figures (one card; the double-feed threshold), kept in the Pico's
        flash; with no arguments only read them. Returns the (single, threshold) in force, in ms."""
        r = self._simple("pulses", int(single_ms * 1000), int(double_ms * 1000))
        return r["single_us"] / 1000, r["double_us"] / 1000

    def ping(self) -> int:
        return self._simple("ping")["uptime_ms"]

    def count(self) -> int:
        """A harmless counting command (exactly-once link tests): the firmware's count after this one."""
        return self._simple("count")["count"]

    def status(self) -> RigStatus:
        """The firmware's state and both ends' link counters."""
        r = self._simple("status")
        f = r["flags"]
        link = self._link()
        return {
            "homed": bool(f & P.FL_HOMED), "busy": bool(f & P.FL_BUSY), "hopper": bool(f & P.FL_HOPPER),
            "shuffler_on": bool(f & P.FL_RELAY), "ejector_on": bool(f & P.FL_EJECTOR),
            "estop_input": bool(f & P.FL_ESTOP_IN), "connected": bool(f & P.FL_CONNECTED),
            "fault": P.FAULT_NAMES.get(r["fault"], str(r["fault"])), "angle": r["angle10"] / 10,
            "ejects": r["ejects"], "uptime_ms": r["uptime_ms"],
            "mcu_crc_errors": r["crc_errors"], "mcu_retransmits": r["retransmits"],
            "crc_errors": link.crc_errors, "retransmits": link.counters["retransmits"],
            "link": link.stats(), "boot_id": self.boot.boot_id if self.boot else None,
        }

    @property
    def hopper_empty(self) -> bool:
        return not self.status()["hopper"]
