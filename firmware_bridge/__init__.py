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
    ev = rig.eject()                # one card out; EjectEvidence(pulse_ms, t, travel_ms, attempts, seat)
    rig.status()                    # dict: homed, busy, hopper, fault, angle, counters (crc errors, retransmits…)
    rig.on_event(callback)          # firmware events: callback(Event(name, fields)) — card_passed, jam, estop, …
    rig.estop(); rig.clear_fault()  # e-stop latches until cleared
    rig.close()

Errors (``firmware_bridge.errors``): ``RigError`` is the base; ``Jam`` (after two automatic retries:
reverse the wheel, try again), ``DoubleFeed`` (``.evidence``: the cards went — two to one seat),
``LinkLost`` (no answer within ``timeout``), ``McuRebooted`` (unexpected reboot; call ``connect()`` and
``home()`` again — the interrupted command did NOT complete), ``Fault`` (a latched fault: ``.code``).
``rig.hopper_empty`` / ``EjectEvidence`` tell when the hopper ran out (``eject()`` raises ``RigError`` then).

The virtual rig (``firmware_bridge.sim``), the same world ``hongsi simulate`` runs::

    from firmware_bridge.sim import VirtualRig

    vr = VirtualRig(seed=1, speed=20, decks=1, jokers=False)
    ends = vr.start()               # {"serial": "/dev/pts/N", "camera": "http://127.0.0.1:PORT/stream.mjpg"}
    # camera: GET /stream.mjpg (MJPEG), GET /snapshot.jpg (one fresh frame; header X-Frame-Seq grows each
    # time the hopper changes, X-Hopper-Cards = cards left). A frame is fresh as soon as eject() returns.
    ...
    vr.truth()                      # {"hands": [[card, …] per seat], "bottom": [...]} for the current deal
    vr.stop()

After a deal, the next ``rig.shuffle(n)`` gathers every dealt card back into the shuffler (a new deal),
so many deals run on one virtual rig. The panel (``firmware_bridge.panel``): ``SeatLights``,
``DealButton``, ``EStop``, ``Buzzer`` on gpiozero devices (any pin factory).
"""

from __future__ import annotations

from typing import Any

__all__ = ["Rig", "BootInfo", "EjectEvidence", "Event", "RigError", "Jam", "DoubleFeed", "LinkLost",
           "McuRebooted", "Fault"]


def __getattr__(name: str) -> Any:  # lazy: importing the package must not open serial ports or load numpy
    if name in ("Rig", "BootInfo", "EjectEvidence", "Event"):
        from firmware_bridge import rig

        return getattr(rig, name)
    if name in ("RigError", "Jam", "DoubleFeed", "LinkLost", "McuRebooted", "Fault"):
        from firmware_bridge import errors

        return getattr(errors, name)
    raise AttributeError(name)
