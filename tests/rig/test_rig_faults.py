"""Faults end to end, real pyserial over a real pty to the firmware on the model: jams, double feeds,
homing without its sensor, e-stops, and a reboot of the microcontroller in the middle of a deal."""

from __future__ import annotations

import os
import time

import pytest

from firmware_bridge import DoubleFeed, Fault, Jam, LinkLost
from firmware_bridge.rig import HopperEmpty


def test_a_jam_is_retried_twice_by_reversing_the_wheel_then_succeeds(make_rig):
    vr, rig = make_rig()
    rig.home()
    rig.rotate_to(1)
    vr.board.forced_jams = 2
    before = len(vr.board.log)
    ev = rig.eject()
    assert ev.attempts == 3 and ev.seat == 1
    assert [w for _, w in vr.board.log[before:]].count("jam") == 2
    assert rig.status()["fault"] == "none"
    assert sum(len(h) for h in vr.truth()["hands"]) == 1


def test_a_third_jam_latches_a_fault_that_needs_a_clear(make_rig):
    vr, rig = make_rig()
    rig.home()
    rig.rotate_to(0)
    vr.board.forced_jams = 3
    with pytest.raises(Jam) as info:
        rig.eject()
    assert info.value.attempts == 3 and info.value.code == "jam"
    assert rig.status()["fault"] == "jam"
    with pytest.raises(Fault):  # latched: refused, the wheel does not turn
        rig.eject()
    assert vr.truth()["hands"] == [[], [], [], []]
    assert vr.board.stalled
    assert rig.clear_fault() == "jam"
    assert not vr.board.stalled  # the (simulated) operator freed the card before clearing
    ev = rig.eject()
    assert ev.attempts == 1 and len(vr.truth()["hands"][0]) == 1


def test_jam_rate_one_always_ends_in_a_latched_jam(make_rig):
    vr, rig = make_rig(jam_rate=1.0)
    rig.home()
    with pytest.raises(Jam):
        rig.eject()
    assert rig.status()["fault"] == "jam" and len(vr.hopper) == 52


def test_a_double_feed_is_reported_with_its_evidence(make_rig):
    vr, rig = make_rig()
    rig.home()
    rig.rotate_to(2)
    single = rig.eject()
    vr.board.forced_doubles = 1
    with pytest.raises(DoubleFeed) as info:
        rig.eject()
    ev = info.value.evidence
    assert ev.double and ev.seat == 2 and ev.pulse_ms > 1.18 * single.pulse_ms
    assert len(vr.truth()["hands"][2]) == 3  # both cards really went to seat 2
    assert rig.eject().double is False


def test_double_feed_rate_one_reports_every_eject_as_double(make_rig):
    vr, rig = make_rig(double_feed_rate=1.0)
    rig.home()
    for _ in range(3):
        with pytest.raises(DoubleFeed):
            rig.eject()
    assert len(vr.hopper) == 52 - 6


def test_homing_fails_cleanly_without_its_sensor(make_rig):
    vr, rig = make_rig()
    vr.board.endstop_connected = False
    with pytest.raises(Fault) as info:
        rig.home()
    assert info.value.code == "home"
    st = rig.status()
    assert st["fault"] == "homing failed" and not st["homed"] and not st["busy"]
    with pytest.raises(Fault):
        rig.rotate_to(1)  # nothing moves while the fault is latched
    vr.board.endstop_connected = True
    assert rig.clear_fault() == "homing failed"
    rig.home()
    assert rig.status()["homed"] and rig.rotate_to(3) == 270.0


def test_estop_from_the_host_and_from_the_input(make_rig):
    vr, rig = make_rig()
    rig.home()
    rig.estop()
    assert rig.status()["fault"] == "e-stop"
    with pytest.raises(Fault):
        rig.eject()
    rig.clear_fault()
    vr.press_estop(True)
    # the input is wired to the MCU: it latches without the host, once its level has held
    deadline = time.monotonic() + 2
    while rig.status()["fault"] != "e-stop" and time.monotonic() < deadline:
        time.sleep(0.01)
    st = rig.status()
    assert st["estop_input"] and st["fault"] == "e-stop"
    with pytest.raises(Fault):
        rig.clear_fault()  # cannot clear while the button is pressed
    vr.press_estop(False)
    assert rig.clear_fault() == "e-stop"
    assert rig.eject().pulse_ms > 0


def test_estop_stops_a_running_shuffle(make_rig):
    import threading

    vr, rig = make_rig(speed=5)
    errors = []
    t = threading.Thread(target=lambda: _catch(errors, rig.shuffle, 5))
    t.start()
    deadline = time.monotonic() + 10
    while not rig.status()["shuffler_on"] and time.monotonic() < deadline:
        time.sleep(0.005)
    rig.estop()
    t.join(10)
    assert errors and isinstance(errors[0], Fault)
    assert not rig.status()["shuffler_on"]


def _catch(errors, fn, *args):
    try:
        fn(*args)
    except Exception as exc:  # noqa: BLE001
        errors.append(exc)


def test_reboot_mid_deal_is_detected_and_never_taken_for_success(make_rig):
    vr, rig = make_rig(mcu_reset_at=3)
    first = rig.boot
    rig.home()
    rig.eject()
    rig.eject()
    with pytest.raises(LinkLost):
        rig.eject()  # card 3: the MCU resets while dealing it, and its USB port vanishes
    assert sum(len(h) for h in vr.truth()["hands"]) == 2  # card 3 never left
    assert not os.path.exists(vr.ends["serial"]) and vr.usb.vanished == 1
    with pytest.raises(LinkLost):
        rig.eject()  # nothing moves until the host shakes hands again
    boot = rig.connect()  # waits for the port to come back, then for the firmware to speak
    assert vr.usb.returned == 1
    assert boot.rebooted and boot.boot_id != first.boot_id and boot.reset_cause == "reset pin (relay or button)"
    assert not rig.status()["homed"]
    rig.home()
    rig.eject()
    assert sum(len(h) for h in vr.truth()["hands"]) == 3 and vr.mcu.boots == 2


def test_empty_hopper_is_refused(make_rig):
    vr, rig = make_rig()
    vr.load(["H4"])
    rig.home()
    rig.eject()
    with pytest.raises(HopperEmpty):
        rig.eject()
    assert vr.truth()["hands"][0] == ["H4"]


def test_a_card_thrown_after_an_estop_is_still_reported(make_rig):
    import threading

    vr, rig = make_rig(speed=1)
    rig.home()
    passed = []
    got = threading.Event()
    rig.on_event(lambda ev: ev.name == "card_passed" and (passed.append(ev.fields), got.set()))
    vr.board.mech.eject_travel_ms = 5.0  # the card is in the beam almost at once...
    vr.board.mech.card_pulse_ms = 200.0  # ...and stays there a while (less than the firmware's STUCK_MS)
    errors = []
    t = threading.Thread(target=lambda: _catch(errors, rig.eject))
    t.start()
    deadline = time.monotonic() + 10
    while not vr.board.beam_blocked and time.monotonic() < deadline:
        time.sleep(0.002)
    assert vr.board.beam_blocked
    rig.estop()  # the rollers stop with the card in the beam...
    t.join(10)
    time.sleep(0.1)
    vr.board.pull_card()  # ...and the operator pulls it out: the firmware still reports it
    assert got.wait(5) and passed[0]["pulse_us"] > 0
    assert errors and isinstance(errors[0], Fault)
    deadline = time.monotonic() + 10  # down the chute (~0.1 s at speed 1; longer when the machine is busy)
    while len(vr.board.places) < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert rig.status()["ejects"] == 1 and len(vr.board.places) == 1


def test_a_lost_done_report_raises_instead_of_hanging(make_rig):
    from firmware_bridge.errors import RigError

    vr, rig = make_rig(speed=20)
    rig.DONE_CHECK_S = 0.2
    fw = vr.mcu.fw
    real = fw.queue_event
    fw.queue_event = lambda name, values: None if name == "done" else real(name, values)  # the report is lost
    with pytest.raises(RigError, match="report was lost"):
        rig.shuffle(2)
    fw.queue_event = real
    assert rig.shuffle(1)["passes"] == 1  # the link is fine afterwards


def test_a_closed_rig_can_connect_again(make_rig):
    vr, rig = make_rig()
    seen = []
    rig.on_event(lambda ev: seen.append(ev.name))
    first = rig.boot
    rig.close()
    again = rig.connect()
    assert again.boot_id == first.boot_id and not again.rebooted  # same boot: no false alarm
    rig.home()
    rig.eject()

    deadline = time.monotonic() + 5
    while "card_passed" not in seen and time.monotonic() < deadline:
        time.sleep(0.01)
    assert "card_passed" in seen
