"""The host side of the rig: the serial link to the Pico, the operator panel, and the virtual rig.

The microcontroller is dumb but safe (Klipper style); the host is smart. One definition of the messages
and the framing serves both ends: ``hardware/firmware/protocol.py`` (MicroPython subset), loaded here as
:mod:`firmware_bridge.protocol` — the very same file, not a copy.

The rig (real or virtual)::

    from firmware_bridge import Rig, Jam, DoubleFeed, McuRebooted, Fault, LinkLost

    rig = Rig("/dev/ttyACM0", angles=[0, 90, 180, 270], bottom_angle=45)   # or the pty of `hongsi simulate`
    boot = rig.connect()            # BootInfo(boot_id, fw_version, protocol_version, protocol_hash, reset_cause)
    rig.home()                      # turntable to its end-stop; raises Fault if homing fails
    rig.shuffle(7)                  # seven passes of the shuffler; returns when the shuffler has stopped
    rig.rotate_to(2)                # point the exit at seat 2 (angle from `angles`); rotate_to("bottom") = 底牌 tray
    ev = rig.eject()                # one card out; EjectEvidence(pulse_ms, t, travel_ms, attempts, seat, angle,
                                    #   double, mcu_t_ms); t = host time.time() when the firmware said "done"
    rig.status()                    # dict: homed, busy, hopper, shuffler_on, ejector_on, estop_input, connected,
                                    #   fault ("none" | "jam" | "e-stop" | "homing failed" | "host silent" |
                                    #   "shuffler stuck"), angle, ejects, boot_id, crc_errors, retransmits,
                                    #   mcu_crc_errors, mcu_retransmits, link (all host counters)
    rig.on_event(callback)          # firmware events: callback(Event(name, fields, t)) in a dispatcher thread;
                                    #   names: boot, done, card_passed, jam, estop, fault, heartbeat
    rig.estop(); rig.clear_fault()  # e-stop latches until cleared (clear refuses while the button is pressed)
    rig.reverse(); rig.ping(); rig.count()
    rig.close()

Errors (``firmware_bridge.errors``): ``RigError`` is the base; ``Jam`` (after two automatic retries:
reverse the wheel, try again; the fault stays latched), ``DoubleFeed`` (``.evidence``: an EjectEvidence;
both cards went to the seat pointed at — no fault is latched), ``LinkLost`` (no answer within
``timeout``), ``McuRebooted`` (unexpected reboot; the interrupted command did NOT complete — call
``connect()`` (BootInfo.rebooted is True) and ``home()`` again), ``Fault`` (a latched fault, ``.code``;
also for motion stopped by an e-stop or host silence). ``firmware_bridge.rig.HopperEmpty`` (a RigError)
when ``eject()`` finds no card. ``rotate_to`` homes by itself if the firmware was not homed yet.

The virtual rig (``firmware_bridge.sim``), the same world ``hongsi simulate`` runs::

    from firmware_bridge.sim import VirtualRig

    vr = VirtualRig(seed=1, speed=20, decks=1, jokers=False)
    ends = vr.start()               # {"serial": "/dev/pts/N", "camera": "http://127.0.0.1:PORT/SECRET/stream.mjpg"}
    # camera: GET /SECRET/stream.mjpg (MJPEG), GET /SECRET/snapshot.jpg (the newest frame). A sensor on the rig's
    # clock: a frame shows the hopper as it was when its exposure began and arrives ~55 ms later; its header
    # X-Sensor-Timestamp is that exposure start (ns, CLOCK_MONOTONIC), X-Hopper-Cards the cards left then.
    # serial: the pty vanishes when the MCU resets and comes back at the same path after USB enumeration.
    ...
    vr.truth()                      # {"hands": [[card, …] per seat], "bottom": [...]} for the current deal
    vr.load()                       # operator: gather the dealt cards back (or vr.load(["H4", ...]), bottom first)
    vr.press_estop(True/False)      # the e-stop wired to the MCU; vr.hopper = the cards left, bottom first
    vr.board.forced_jams = 2        # fault injection for tests (also forced_doubles, endstop_connected)
    vr.stop()

``VirtualRig(seed=None, speed=1.0, decks=1, jokers=False, jam_rate=0, double_feed_rate=0, camera_dropout=0,
mcu_reset_at=None, missing=(), extra=(), truth_path=None, *, angles=None, bottom_angle=None,
noise=(flip, drop), camera=True)``; ``hongsi simulate`` wraps it (angles from the config).

After a deal, the next ``rig.shuffle(n)`` gathers every dealt card back into the shuffler (a new deal),
so many deals run on one virtual rig. The panel (``firmware_bridge.panel``): ``SeatLights``,
``DealButton``, ``EStop``, ``Buzzer`` on gpiozero devices (any pin factory).
"""

from __future__ import annotations

from typing import Any

__all__ = ["Rig", "BootInfo", "EjectEvidence", "Event", "RigError", "Jam", "DoubleFeed", "LinkLost", "PortGone",
           "McuRebooted", "Fault"]


def __getattr__(name: str) -> Any:  # lazy: importing the package must not open serial ports or load numpy
    if name in ("Rig", "BootInfo", "EjectEvidence", "Event"):
        from firmware_bridge import rig

        return getattr(rig, name)
    if name in ("RigError", "Jam", "DoubleFeed", "LinkLost", "PortGone", "McuRebooted", "Fault"):
        from firmware_bridge import errors

        return getattr(errors, name)
    raise AttributeError(name)
