"""A Pico reset as on the board: its USB port vanishes, comes back after enumeration at the same path,
main.py turns Ctrl-C off, then the firmware boots and speaks. The host reconnects and waits for the
firmware to speak before its HELLO, so even a HELLO carrying 0x03 cannot stop a booting board in its REPL.
Times are sim times (the model's knobs), at speed 20."""

from __future__ import annotations

import os
import time
import types

import pytest

from firmware_bridge import LinkLost
from firmware_bridge import protocol as P
from firmware_bridge import rig as rig_module
from firmware_bridge.sim import Mechanics

SPEED = 20


def _wait(pred, wall_s: float = 5.0) -> bool:
    end = time.monotonic() + wall_s
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.002)
    return pred()


def _reset(vr, rig) -> None:
    vr.board.request_reset(2)  # the RUN pin (the relay)
    assert _wait(lambda: rig.link.dead is not None), "the host must see its port vanish"


def test_the_port_vanishes_on_a_reset_and_comes_back_at_the_same_path(make_rig):
    vr, rig = make_rig(speed=SPEED)
    path, first = vr.ends["serial"], rig.boot.boot_id
    _reset(vr, rig)
    assert not os.path.exists(path) and vr.usb.vanished == 1
    time.sleep(vr.board.mech.usb_enum_ms * 3 / SPEED / 1000)
    assert not os.path.exists(path)  # the host still holds its dead port: the kernel keeps the number
    with pytest.raises(LinkLost):
        rig.ping()
    boot = rig.connect()  # lets go of the dead port, waits for the path, then for the firmware
    assert os.path.exists(path) and vr.usb.returned == 1 and os.path.realpath(path) == path
    assert boot.rebooted and boot.boot_id != first and vr.mcu.boots == 2
    rig.home()
    assert rig.eject().pulse_ms > 0


def _slow_boot() -> Mechanics:
    # the port is back 200 ms after the reset, main.py's first statement runs only at 4 s: a wide window
    return Mechanics(usb_enum_ms=200.0, main_ms=4000.0, boot_ms=4400.0)


def test_a_ctrl_c_before_mains_first_statement_stops_the_board_in_its_repl(make_rig):
    """The model is as harsh as the board: a 0x03 in the window leaves it in the REPL, no firmware."""
    vr, rig = make_rig(speed=SPEED, mechanics=_slow_boot())
    _reset(vr, rig)
    rig.link.close()
    assert _wait(lambda: os.path.exists(vr.ends["serial"]))
    fd = os.open(vr.ends["serial"], os.O_RDWR | os.O_NOCTTY)
    try:
        os.write(fd, b"\x03")
        assert _wait(lambda: vr.mcu.ctrl_c_in_boot == 1)
        time.sleep(5000 / SPEED / 1000)  # past the boot time: still no firmware
        assert vr.mcu.fw is None and vr.mcu.boots == 1
    finally:
        os.close(fd)


def test_a_hello_sent_during_boot_cannot_hit_the_repl_window(make_rig, monkeypatch):
    vr, rig = make_rig(speed=SPEED, mechanics=_slow_boot())
    # a clock whose every byte is 0x03: the HELLO carries it whatever its sequence number
    monkeypatch.setattr(rig_module, "time", types.SimpleNamespace(time=lambda: 0x03030303,
                                                                    monotonic=time.monotonic, sleep=time.sleep))
    assert all(3 in P.encode(P.CMD, s, P.CMD_IDS["hello"], (0x03030303,)) for s in range(1, 300))
    _reset(vr, rig)
    opened = []
    link_open = rig_module.Link._open

    def _open(*a, **kw):
        ser = link_open(*a, **kw)
        opened.append((vr.board.clock.now_ms(), vr.mcu.main_at))
        return ser

    monkeypatch.setattr(rig_module.Link, "_open", staticmethod(_open))
    boot = rig.connect()
    assert opened and opened[0][0] < opened[0][1]  # the host had the port before main.py's first statement
    assert boot.rebooted and vr.mcu.ctrl_c_in_boot == 0 and vr.mcu.fw is not None
    rig.home()
    assert rig.eject().pulse_ms > 0


def _ctrl_c_between_main_and_boot(make_rig, monkeypatch=None, main_source: str | None = None):
    from firmware_bridge.sim import fakes

    if main_source is not None:
        monkeypatch.setitem(fakes._CODE, "main", compile(main_source, "main.py", "exec"))
    vr, rig = make_rig(speed=SPEED, mechanics=Mechanics(usb_enum_ms=100.0, main_ms=200.0, boot_ms=4000.0))
    _reset(vr, rig)
    rig.link.close()
    assert _wait(lambda: "main" in vr.mcu.modules)   # main.py has run; the firmware is still importing
    fd = os.open(vr.ends["serial"], os.O_RDWR | os.O_NOCTTY)
    try:
        os.write(fd, b"\x03")
        assert _wait(lambda: vr.board.clock.now_ms() > vr.mcu.boot_at + 50)   # past the boot, in sim time
    finally:
        os.close(fd)
    return vr


def test_the_sim_runs_main_py_itself_and_its_first_statement_closes_the_window(make_rig, monkeypatch):
    vr = _ctrl_c_between_main_and_boot(make_rig)
    assert vr.mcu.ctrl_c_off and vr.mcu.ctrl_c_in_boot == 0 and vr.mcu.fw is not None  # 0x03 was data
    text = open(vr.mcu.modules["main"].__file__).read()
    # the same main.py without its first statement leaves the window open: the 0x03 stops the board
    without = text.replace("import micropython; micropython.kbd_intr(-1)", "import micropython", 1)
    without = without.replace("        micropython.kbd_intr(-1)\n", "        pass\n", 1)
    assert "kbd_intr" not in without
    vr = _ctrl_c_between_main_and_boot(make_rig, monkeypatch, without)
    assert not vr.mcu.ctrl_c_off and vr.mcu.ctrl_c_in_boot == 1 and vr.mcu.fw is None
