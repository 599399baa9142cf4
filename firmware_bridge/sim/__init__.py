"""The virtual rig: the project's own firmware on a physical model, behind a real pty and an MJPEG camera.

>>> vr = VirtualRig(seed=3, speed=20)                                   # doctest: +SKIP
>>> ends = vr.start()     # {"serial": "/dev/pts/5", "camera": "http://127.0.0.1:40123/SECRET/stream.mjpg"}
>>> # VirtualRig(table_camera=True) also serves the table camera: ends["table_camera"] (sim.table_camera)
>>> # ... drive firmware_bridge.Rig(ends["serial"]) and read the camera ...
>>> vr.truth()            # {"hands": [[...], [...], [...], [...]], "bottom": [...]}
>>> vr.stop()

Several deals run on one virtual rig: the shuffle that starts a deal gathers the previous deal's cards
back into the shuffler (``load()`` does the same by hand, or loads given cards). ``speed`` scales every
mechanical timing; the firmware's link and watchdog times are stretched at high speed (configuration, not
logic) so that host threads keep at least 250 ms of wall time before the host-silence failsafe.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from firmware_bridge.sim.camera import CameraServer
from firmware_bridge.sim.clock import ManualClock, SimClock
from firmware_bridge.sim.fakes import load_config
from firmware_bridge.sim.mcu import Mcu, NoisyPort, OperatorTap, UsbPort
from firmware_bridge.sim.model import Board, Mechanics

__all__ = ["VirtualRig", "Board", "Mechanics", "Mcu", "SimClock", "ManualClock", "wall_safe_config"]


def wall_safe_config(speed: float) -> dict[str, Any]:
    """Firmware config overrides for a clock ``speed`` times faster than real. The link's and the
    watchdog's budgets are for real software (host threads, the GIL), not for mechanics, so each keeps a
    floor in wall-clock milliseconds; at speed 1 nothing changes."""
    cfg = load_config()
    # the feed's "nothing came in time" windows too: a host thread's 1 ms loop is 40 ms of mechanics at 40x
    floors = {"HOST_SILENCE_MS": 250, "RETX_MS": 10, "RETX_MAX_MS": 100, "WDT_MS": 500, "FRAME_GAP_MS": 3,
              "EDGE_MS": 25, "JAM_MS": 40, "STUCK_MS": 60,
              # "repl": the OK's time to reach the host before the reset takes the port away (5 ms at 40x)
              "REPL_RESET_MS": 200}
    out = {k: max(getattr(cfg, k), int(wall_ms * speed)) for k, wall_ms in floors.items()}
    out["HEARTBEAT_MS"] = max(cfg.HEARTBEAT_MS, out["HOST_SILENCE_MS"] // 4)
    return {k: v for k, v in out.items() if v != getattr(cfg, k)}


DEFAULT_STEP_MS = 24.0  # the most the world moves in one pass of the MCU loop (a pass is ~1 ms of wall)


class VirtualRig:
    def __init__(self, seed: int | None = None, speed: float = 1.0, decks: int = 1, jokers: bool = False,
                 jam_rate: float = 0.0, double_feed_rate: float = 0.0, camera_dropout: float = 0.0,
                 mcu_reset_at: int | None = None, missing: Sequence[str] = (), extra: Sequence[str] = (),
                 truth_path: str | Path | None = None, *, angles: Sequence[float] | None = None,
                 bottom_angle: float | None = None, noise: tuple[float, float] = (0.0, 0.0),
                 camera: bool = True, mechanics: Mechanics | None = None,
                 fw_overrides: dict[str, Any] | None = None, design: str | None = None,
                 max_step_ms: float | None = DEFAULT_STEP_MS, table_camera: bool = False,
                 table_truth_path: str | Path | None = None):
        if decks not in (1, 2):
            raise ValueError(f"decks = {decks}: 1 or 2")
        for name, p in (("jam_rate", jam_rate), ("double_feed_rate", double_feed_rate),
                        ("camera_dropout", camera_dropout)):
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"{name} = {p}: a probability 0..1")
        self.seed, self.speed = seed, speed
        # max_step_ms: the MCU thread drives the clock, a starved thread freezes the world (sim.clock): a
        # real Pico is never starved, so a loaded host must not let the mechanics run on unwatched (None: the
        # wall clock alone, as before)
        self.clock = SimClock(speed, max_step_ms)
        self.board = Board(self.clock, seed=seed, decks=decks, jokers=jokers, missing=missing, extra=extra,
                           jam_rate=jam_rate, double_feed_rate=double_feed_rate, mcu_reset_at=mcu_reset_at,
                           angles=(0.0, 90.0, 180.0, 270.0) if angles is None else angles,
                           bottom_angle=45.0 if bottom_angle is None else bottom_angle,
                           mechanics=mechanics, truth_path=Path(truth_path) if truth_path else None)
        self.noise = noise
        self.overrides = {**wall_safe_config(speed), **(fw_overrides or {})}
        if design is not None:  # the deck's look (vision.render.face_for): a clear error now, not per frame
            from vision.render import check_design

            check_design(design)
        self.camera = CameraServer(self.board, dropout=camera_dropout, seed=seed, design=design) if camera else None
        self.table = None  # the table camera over the play area (firmware_bridge.sim.table_camera), if asked for
        if table_camera:
            from firmware_bridge.sim.table_camera import VirtualTable

            self.table = VirtualTable(seed=seed, design=design, truth_path=table_truth_path)
        self.port: Any = None
        self.usb: UsbPort | None = None
        self.mcu: Mcu | None = None
        self.ends: dict[str, str] | None = None

    def start(self) -> dict[str, str]:
        """Start the MCU thread and the camera; return {"serial": pty path, "camera": URL}."""
        if self.ends is not None:
            return self.ends
        pty = self.usb = UsbPort()  # vanishes on a reset and comes back after enumeration, as USB does
        flip, drop = self.noise
        self.port = NoisyPort(pty, flip, drop, seed=self.seed) if (flip or drop) else pty
        self.mcu = Mcu(self.board, OperatorTap(self.port, self.board), self.overrides, usb=pty)
        self.mcu.start()
        url = self.camera.start() if self.camera is not None else ""
        self.ends = {"serial": pty.name, "camera": url}
        if self.table is not None:
            self.ends["table_camera"] = self.table.start()
        return self.ends

    def stop(self) -> None:
        """Stop everything; the truth file gets the deal in progress if it was not written yet."""
        if self.mcu is not None:
            self.mcu.stop()
        if self.camera is not None:
            self.camera.stop()
        if self.table is not None:
            self.table.stop()
        if self.port is not None:
            self.port.close()
            self.port = None
        with self.board.lock:
            if self.board.places and not self.board.truth_written:
                self.board.write_truth()
        self.ends = None

    def __enter__(self) -> VirtualRig:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def truth(self) -> dict[str, Any]:
        """Where every card of the current deal really went: {"hands": [[…] per seat], "bottom": […]}
        (plus "stray" for cards that left with the turntable between places)."""
        return self.board.truth()

    def load(self, cards: Sequence[str] | None = None) -> None:
        """The operator reloads the hopper: gathers the dealt cards back, or loads ``cards`` (bottom
        card first)."""
        self.board.load(cards)

    def press_estop(self, pressed: bool = True) -> None:
        """Press (or release) the e-stop wired to the microcontroller."""
        self.board.press_estop(pressed)

    @property
    def hopper(self) -> list[str]:
        with self.board.lock:
            return list(self.board.hopper)
