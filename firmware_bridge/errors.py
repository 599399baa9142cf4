"""Typed errors of the rig. Catch :class:`RigError` for all of them.

>>> from firmware_bridge.errors import Jam, RigError
>>> issubclass(Jam, RigError)
True
"""

from __future__ import annotations

from typing import Any


class RigError(RuntimeError):
    """Something the rig could not do; the message says what (English / 中文)."""


class LinkLost(RigError):
    """The microcontroller did not answer within the timeout (cable, power, crash)."""


class PortGone(LinkLost):
    """The serial port itself vanished: the board reset (its USB re-enumerates) or the cable dropped.
    ``connect()`` waits for the port to come back."""


class McuRebooted(RigError):
    """The microcontroller rebooted unexpectedly. The command in flight did NOT complete.
    Call ``connect()`` (and ``home()``) again. ``.boot`` is the new boot report, if known."""

    def __init__(self, message: str, boot: Any = None):
        super().__init__(message)
        self.boot = boot


class Fault(RigError):
    """A latched fault in the microcontroller (``.code``: jam, e-stop, homing failed, host silent,
    shuffler stuck). Motion is refused until ``clear_fault()``."""

    def __init__(self, message: str, code: str = "fault"):
        super().__init__(message)
        self.code = code


class Jam(Fault):
    """The ejector jammed: three tries (two automatic retries after reversing the wheel) failed.
    The jam fault is latched; clear the card path, then ``clear_fault()``."""

    def __init__(self, message: str, attempts: int = 3):
        super().__init__(message, "jam")
        self.attempts = attempts


class EStop(Fault):
    """Motion refused or stopped by the e-stop (latched until ``clear_fault()``; clearing is refused
    while the button is still pressed)."""

    def __init__(self, message: str):
        super().__init__(message, "e-stop")


class HopperEmpty(RigError):
    """The hopper has no card to eject / 发牌盒已空."""


def fault_error(message: str, code: str) -> Fault:
    """The typed error of a latched fault, by the firmware's fault name."""
    return EStop(message) if code == "e-stop" else Fault(message, code)


class DoubleFeed(RigError):
    """The exit pulse was that of two cards: both went to the same place. ``.evidence`` is the
    :class:`~firmware_bridge.rig.EjectEvidence` of that eject."""

    def __init__(self, message: str, evidence: Any = None):
        super().__init__(message)
        self.evidence = evidence
