"""The dealer's collaborators, typed: the rig, the camera and the card reader. Anything with these
methods will do (the serial :class:`firmware_bridge.rig.Rig`, :mod:`controller.camera`'s cameras,
:class:`vision.reader.CardReader`, a test's fake), so the dealer asks no object what it can do."""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from firmware_bridge.rig import RigStatus


class Rig(Protocol):
    def connect(self) -> Any: ...
    def home(self) -> float: ...
    def shuffle(self, passes: int) -> Any: ...
    def rotate_to(self, seat: int | str) -> float: ...
    def eject(self) -> Any: ...                    # EjectEvidence (pulse_ms, …)
    def estop(self) -> None: ...
    def clear_fault(self) -> str: ...
    def status(self) -> RigStatus: ...


class Frame(Protocol):
    image: np.ndarray
    tag: int | None                                 # the scene it shows (X-Frame-Seq), when the camera knows

    def to_jpeg(self) -> bytes: ...


class Camera(Protocol):
    def grab(self, n: int = 1, *, timeout: float = 2.0, skip: int = 0,
             newer_than: int | None = None) -> list[Any]: ...   # list[Frame]
    def close(self) -> None: ...


class Reading(Protocol):
    label: str | None
    confidence: float
    probs: np.ndarray
    crops: list[np.ndarray]
    found: bool                                     # False: no card in the frames (an empty hopper)


class CardReader(Protocol):
    def read_votes(self, frames: list[np.ndarray], kind: str = "window") -> Any: ...   # a Reading
