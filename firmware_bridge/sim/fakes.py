"""The MicroPython world the firmware runs in on the host: fake ``machine``, ``time`` and ``micropython``
modules wired to a :class:`~firmware_bridge.sim.model.Board`, and a loader that executes the firmware's own
files (``hardware/firmware/*.py``) with imports limited to MicroPython's modules.

Each loaded firmware instance gets its own modules, so several virtual rigs (and reboots) coexist in one
process.

>>> from firmware_bridge.sim.model import Board
>>> from firmware_bridge.sim.clock import ManualClock
>>> board = Board(ManualClock())
>>> fw = load_firmware(board)
>>> sorted(k for k in fw if k in FIRMWARE_FILES)
['config', 'drivers', 'firmware', 'protocol']
"""

from __future__ import annotations

import builtins
import io
import types
from pathlib import Path
from typing import Any

FIRMWARE_DIR = Path(__file__).resolve().parents[2] / "hardware" / "firmware"
FIRMWARE_FILES = ("protocol", "config", "drivers", "firmware", "main")

# MicroPython's standard modules (docs: "MicroPython libraries"), plus the rp2 port's.
MICROPYTHON_MODULES = frozenset({
    "array", "asyncio", "binascii", "builtins", "cmath", "collections", "cryptolib", "deflate", "errno",
    "framebuf", "gc", "hashlib", "heapq", "io", "json", "machine", "math", "micropython", "network", "os",
    "platform", "random", "re", "rp2", "select", "socket", "ssl", "struct", "sys", "time", "uctypes", "vfs",
    "zlib", "_thread", "neopixel", "onewire", "dht", "bluetooth",
})

PWRON_RESET, HARD_RESET, WDT_RESET, DEEPSLEEP_RESET, SOFT_RESET = 1, 2, 3, 4, 5


TICKS_PERIOD = 1 << 30  # rp2: ticks_ms and ticks_us wrap here (ticks_us every 17.9 minutes)


def make_time(clock: Any, start_ms: int = 0) -> types.ModuleType:
    """MicroPython's ``time`` on the simulated clock. Ticks wrap at 2**30 as on the rp2 port; ``start_ms``
    moves the boot's ticks (near the wrap, to test it); only ``ticks_diff`` tells times apart."""
    t = types.ModuleType("time")
    half, mask = TICKS_PERIOD // 2, TICKS_PERIOD - 1
    t.ticks_ms = lambda: (int(clock.now_ms()) + start_ms) & mask
    t.ticks_us = lambda: (int(clock.now_ms() * 1000) + start_ms * 1000) & mask
    t.ticks_cpu = t.ticks_us
    t.ticks_diff = lambda a, b: ((a - b + half) & mask) - half
    t.ticks_add = lambda a, b: (a + b) & mask
    t.time = lambda: int(clock.now_ms() // 1000)
    t.time_ns = lambda: int(clock.now_ms() * 1_000_000)
    t.sleep_ms = lambda ms: clock.sleep_ms(ms)
    t.sleep_us = lambda us: clock.sleep_ms(us / 1000)
    t.sleep = lambda s: clock.sleep_ms(s * 1000)
    return t


class _FlashFile(io.StringIO):
    """A text file in the virtual Pico's flash: written back to ``flash`` when closed."""

    def __init__(self, flash: dict[str, str], name: str, mode: str):
        super().__init__("" if "w" in mode else flash.get(name, ""))
        self._flash, self._name, self._mode = flash, name, mode
        if "a" in mode:
            self.seek(0, io.SEEK_END)

    def close(self) -> None:
        if not self.closed and ("w" in self._mode or "a" in self._mode):
            self._flash[self._name] = self.getvalue()
        super().close()


def make_flash(flash: dict[str, str]) -> tuple[types.ModuleType, Any]:
    """MicroPython's ``os`` and ``open`` on the virtual Pico's flash (``flash``: name -> text, kept
    across reboots like the real flash): the firmware's files never touch the host's disk."""
    import os as host_os

    def open_(name: str, mode: str = "r", *args: Any, **kw: Any) -> _FlashFile:
        if "r" in mode and name not in flash:
            raise OSError(2, "ENOENT")
        return _FlashFile(flash, str(name), mode)

    def remove(name: str) -> None:
        if flash.pop(name, None) is None:
            raise OSError(2, "ENOENT")

    m = types.ModuleType("os")
    m.urandom = host_os.urandom
    m.remove = remove
    m.listdir = lambda path="": sorted(flash)
    return m, open_


def make_micropython(on_kbd_intr: Any = None) -> types.ModuleType:
    """``on_kbd_intr(c)``: told when the firmware sets the interrupt character (-1: Ctrl-C off)."""
    m = types.ModuleType("micropython")
    m.const = lambda x: x
    m.schedule = lambda f, arg: f(arg)
    m.alloc_emergency_exception_buf = lambda n: None
    m.kbd_intr = on_kbd_intr or (lambda c: None)
    m.mem_info = lambda *a: None
    return m


class UsbStdio:
    """main.py's ``sys.stdin.buffer`` and ``sys.stdout.buffer`` on the virtual Pico's USB port: what came
    in while the board booted waits here, as in MicroPython's stdin ring buffer."""

    def __init__(self, port: Any, pending: bytes = b""):
        self.port, self.buf = port, bytearray(pending)

    def ready(self) -> bool:
        if not self.buf:
            self.buf += self.port.read() or b""
        return bool(self.buf)

    def read(self, n: int = 1) -> bytes:
        self.ready()
        out = bytes(self.buf[:n])
        del self.buf[:n]
        return out

    def write(self, data: bytes) -> int:
        self.port.write(bytes(data))
        return len(data)


def make_usb_sys(stdio: UsbStdio) -> types.ModuleType:
    """MicroPython's ``sys`` as main.py sees it: stdin and stdout are the USB port."""
    m = types.ModuleType("sys")
    m.stdin = types.SimpleNamespace(buffer=stdio)
    m.stdout = types.SimpleNamespace(buffer=stdio, write=lambda text: stdio.write(str(text).encode()))
    m.implementation = types.SimpleNamespace(name="micropython")
    return m


def make_select(stdio: UsbStdio) -> types.ModuleType:
    """MicroPython's ``select.poll`` over the USB port's stdin."""
    m = types.ModuleType("select")
    m.POLLIN, m.POLLOUT = 1, 4

    class Poll:
        def __init__(self) -> None:
            self.objs: list[Any] = []

        def register(self, obj: Any, mask: int = 1) -> None:
            self.objs.append(obj)

        def poll(self, timeout: int = -1) -> list[tuple[Any, int]]:
            return [(obj, m.POLLIN) for obj in self.objs if obj is stdio and stdio.ready()]

    m.poll = Poll
    return m


def make_machine(board: Any, reset_cause: int = PWRON_RESET) -> types.ModuleType:
    """A ``machine`` module whose Pin, PWM, Timer and WDT act on ``board``."""
    m = types.ModuleType("machine")

    class Pin:
        IN, OUT, OPEN_DRAIN, ALT = 0, 1, 2, 3
        PULL_UP, PULL_DOWN = 1, 2
        IRQ_FALLING, IRQ_RISING = 4, 8

        def __init__(self, id: int, mode: int = -1, pull: int = -1, *, value: int | None = None):
            self.id = id
            self.mode = mode
            if value is not None:
                self.value(value)

        def init(self, mode: int = -1, pull: int = -1, *, value: int | None = None) -> None:
            self.__init__(self.id, mode, pull, value=value)

        def value(self, v: int | None = None) -> int | None:
            if v is None:
                return board.read(self.id)
            board.write(self.id, 1 if v else 0)
            return None

        __call__ = value

        def on(self) -> None:
            self.value(1)

        def off(self) -> None:
            self.value(0)

        high, low = on, off

        def toggle(self) -> None:
            self.value(0 if board.read(self.id) else 1)

        def irq(self, handler: Any = None, trigger: int = 12, hard: bool = False) -> None:
            board.set_irq(self.id, None if handler is None else (lambda: handler(self)), trigger, hard)

    class PWM:
        def __init__(self, dest: Pin, *, freq: int | None = None, duty_u16: int | None = None,
                     duty_ns: int | None = None):
            self.pin = dest.id
            self._freq = freq or 1000
            self._duty = 0
            board.pwm(self.pin, self._freq, 0)
            if duty_u16 is not None:
                self.duty_u16(duty_u16)
            if duty_ns is not None:
                self.duty_ns(duty_ns)

        def freq(self, f: int | None = None) -> int | None:
            if f is None:
                return self._freq
            self._freq = int(f)
            board.pwm(self.pin, self._freq, self._duty)
            return None

        def duty_u16(self, d: int | None = None) -> int | None:
            if d is None:
                return self._duty
            if not 0 <= d <= 65535:
                raise ValueError("duty_u16 must be 0..65535")
            self._duty = int(d)
            board.pwm(self.pin, self._freq, self._duty)
            return None

        def duty_ns(self, ns: int | None = None) -> int | None:
            period = 1e9 / self._freq
            if ns is None:
                return int(self._duty / 65535 * period)
            self.duty_u16(min(65535, int(ns / period * 65535)))
            return None

        def deinit(self) -> None:
            self.duty_u16(0)

    class Timer:
        ONE_SHOT, PERIODIC = 0, 1

        def __init__(self, id: int = -1, **kw: Any):
            self._token: object | None = None
            if kw:
                self.init(**kw)

        def init(self, *, mode: int = 1, freq: float | None = None, period: int | None = None,
                 callback: Any = None) -> None:
            self.deinit()
            ms = period if period is not None else 1000 / (freq or 1)
            self._token = board.timer(ms, mode == Timer.PERIODIC, lambda: callback and callback(self))

        def deinit(self) -> None:
            if self._token is not None:
                board.cancel_timer(self._token)
                self._token = None

    class WDT:
        def __init__(self, id: int = 0, timeout: int = 5000):
            board.wdt_start(timeout)

        def feed(self) -> None:
            board.wdt_feed()

    m.Pin, m.PWM, m.Timer, m.WDT = Pin, PWM, Timer, WDT
    m.PWRON_RESET, m.HARD_RESET, m.WDT_RESET = PWRON_RESET, HARD_RESET, WDT_RESET
    m.DEEPSLEEP_RESET, m.SOFT_RESET = DEEPSLEEP_RESET, SOFT_RESET
    m.reset_cause = lambda: reset_cause
    m.reset = lambda: board.request_reset(WDT_RESET)  # rp2's machine.reset() is a watchdog reboot
    m.soft_reset = m.reset
    m.unique_id = lambda: b"\xe6\x61\x38\x52\x83\x4b\x2a\x2f"
    m.freq = lambda *a: 125_000_000
    m.disable_irq = lambda: 0
    m.enable_irq = lambda state=0: None
    m.idle = lambda: None
    return m


_CODE: dict[str, Any] = {}


def _code(name: str) -> Any:
    if name not in _CODE:
        path = FIRMWARE_DIR / f"{name}.py"
        _CODE[name] = compile(path.read_text(encoding="utf-8"), str(path), "exec")
    return _CODE[name]


def load_config(overrides: dict[str, Any] | None = None) -> types.ModuleType:
    """The firmware's ``config`` module alone (the pin map and timings)."""
    mod = types.ModuleType("config")
    exec(_code("config"), mod.__dict__)
    for key, value in (overrides or {}).items():
        setattr(mod, key, value)
    return mod


class FirmwareImportError(ImportError):
    """The firmware imported a module MicroPython does not have."""


def load_firmware(board: Any, reset_cause: int = PWRON_RESET, overrides: dict[str, Any] | None = None,
                  imported: set[str] | None = None, *, usb: UsbStdio | None = None,
                  on_kbd_intr: Any = None) -> dict[str, types.ModuleType]:
    """Execute the firmware files in fresh modules bound to ``board``; return them by name.
    ``overrides`` replaces values of the firmware's ``config``; ``imported`` collects every import.
    With ``usb`` (the USB port as main.py's stdin/stdout) it runs ``main.py`` as the board does — its
    first statement first, and main.py imports the rest — without starting its loop (``main.start()``
    makes the firmware); ``on_kbd_intr`` hears main.py turn Ctrl-C off."""
    flash_os, flash_open = make_flash(board.flash)
    modules: dict[str, types.ModuleType] = {
        "machine": make_machine(board, reset_cause),
        "time": make_time(board.clock, int(getattr(getattr(board, "mech", None), "tick_start_ms", 0))),
        "micropython": make_micropython(on_kbd_intr),
        "os": flash_os,
    }
    own_builtins = dict(builtins.__dict__)
    own_builtins["open"] = flash_open
    if usb is not None:
        modules["sys"], modules["select"] = make_usb_sys(usb), make_select(usb)

        def print_(*args: Any, sep: str = " ", end: str = "\n", **_kw: Any) -> None:  # to the USB port
            usb.write((sep.join(str(a) for a in args) + end).replace("\n", "\r\n").encode())

        own_builtins["print"] = print_

    def _import(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
        if imported is not None:
            imported.add(name)
        if level:
            raise FirmwareImportError(f"firmware uses a relative import of {name!r}")
        if name in modules:
            return modules[name]
        if name in FIRMWARE_FILES:
            return _load(name)
        if name.split(".")[0] not in MICROPYTHON_MODULES:
            raise FirmwareImportError(f"firmware imports {name!r}, which MicroPython does not have")
        return builtins.__import__(name, globals, locals, fromlist, level)

    own_builtins["__import__"] = _import

    def _load(name: str) -> types.ModuleType:
        mod = types.ModuleType(name)
        mod.__dict__["__builtins__"] = own_builtins
        mod.__file__ = str(FIRMWARE_DIR / f"{name}.py")
        modules[name] = mod
        exec(_code(name), mod.__dict__)
        if name == "config" and overrides:
            for key, value in overrides.items():
                if not hasattr(mod, key):
                    raise KeyError(f"firmware config has no {key}")
                setattr(mod, key, value)
        return mod

    for name in ("main",) if usb is not None else ("config", "protocol", "drivers", "firmware"):
        if name not in modules:
            _load(name)
    return modules
