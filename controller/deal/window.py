"""Reading the card at the window: vote over fresh frames, look again when unsure, tell an empty hopper,
keep the evidence crop. A part of :class:`controller.deal.flow.Dealer`."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from controller.camera import CameraError
from controller.deal.problems import Problem
from controller.deal.seams import Camera, CardReader, Reading
from controller.deal.state import DealState, planned_seat
from controller.journal import Journal

FRAMES_PER_READ = 3          # frames voted over for one card
MORE_FRAMES = 3              # extra frames for a card the first vote could not read
DOUBTFUL = 0.60              # below this (or declined) the card is looked at again with more frames
SURE = 0.90                  # below this a read is marked "unsure" and left to deck decoding
CAMERA_RETRIES = 4           # fresh-frame attempts before the deal pauses for the operator


class WindowReads:
    camera: Camera
    reader: CardReader
    journal: Journal
    frames_per_read: int
    camera_timeout: float
    skip: int                             # frames dropped after a motion (they may show the last card)
    _tagged: bool                         # the camera tags frames by scene change
    _stamped: bool                        # the camera stamps frames with the sensor's exposure start
    _last_tag: int | None                 # the tag of the frames of the last read
    _eject_tag: int | None                # the tag of the card just ejected

    if TYPE_CHECKING:                     # the dealer's own
        def _status(self) -> dict[str, Any]: ...
        def _pause(self, state: DealState, problem: Problem, reason: str, **details: Any) -> None: ...

    def _read_card(self, state: DealState, i: int) -> dict[str, Any]:
        """Read the card at the window and journal it as card ``i`` (with its evidence crop)."""
        data, jpeg = self._look(state, i)
        if not data.get("empty"):
            self._record_read(state, data, jpeg)
        return data

    def _look(self, state: DealState, i: int, check: bool = False) -> tuple[dict[str, Any], bytes | None]:
        """Vote over fresh frames; more frames if unsure; ``empty`` when the hopper has no card."""
        frames = self._fresh_frames(state, check)
        reading = self._vote(frames)
        if self._empty(reading):
            return {"index": i, "empty": True}, None
        if reading.label is None or reading.confidence < DOUBTFUL:
            frames = frames + self._frames(state, MORE_FRAMES, skip=0)
            reading = self._vote(frames)
        probs = np.asarray(reading.probs, dtype=float)
        data = {"index": i, "label": reading.label, "confidence": round(float(reading.confidence), 4),
                "unsure": reading.label is None or reading.confidence < SURE,
                "probs": [float(f"{p:.4g}") for p in probs.tolist()]}
        return data, evidence_jpeg(reading, frames)

    def _fresh_frames(self, state: DealState, check: bool) -> list[Any]:
        """Right after an eject, a camera that tags its frames by scene change (the virtual rig's
        X-Frame-Seq) is asked for frames tagged after the ejected card's; a camera that stamps frames
        with the sensor's exposure start needs nothing dropped (a grab takes only frames exposed after
        it began, and the card left the window before its eject's DONE); other cameras drop ``skip``
        frames that may have been in flight. A ``check`` (after a fault) drops a few more."""
        newer, self._eject_tag = self._eject_tag, None
        if check:
            frames = self._frames(state, self.frames_per_read, skip=self.skip + 2)
        elif newer is not None:
            frames = self._frames(state, self.frames_per_read, skip=0, newer_than=newer)
        else:
            fresh = self._tagged or self._stamped
            frames = self._frames(state, self.frames_per_read, skip=0 if fresh else self.skip)
        tags = [f.tag for f in frames if f.tag is not None]
        self._stamped = bool(frames) and all(getattr(f, "exposed", None) is not None for f in frames)
        self._tagged = bool(tags)
        self._last_tag = max(tags) if tags else None
        return frames

    def _record_read(self, state: DealState, data: dict[str, Any], jpeg: bytes | None) -> None:
        """Journal a read with the seat the card is to be dealt to (the dispute view's first fact)."""
        data = {**data, "seat": planned_seat(state, data["index"])}
        self.journal.append(state.round, "card_read", data, image=jpeg)
        state.reads[data["index"]] = data

    def _vote(self, frames: list[Any]) -> Reading:
        return self.reader.read_votes([f.image for f in frames])

    def _empty(self, reading: Reading) -> bool:
        """The hopper is empty: the rig's card-present sensor says so, or the reader sees no card.
        (A confident read needs no sensor round trip.)"""
        if reading.label is not None and float(reading.confidence) >= SURE:
            return False
        status = self._status()
        if isinstance(status.get("hopper"), bool):          # the card-present sensor decides
            return not status["hopper"]
        return not reading.found

    def _frames(self, state: DealState, n: int, skip: int, newer_than: int | None = None) -> list[Any]:
        """Fresh frames; after a few failed tries the operator checks the camera, and the tries begin again."""
        while True:
            for attempt in range(CAMERA_RETRIES):
                try:
                    return self.camera.grab(n, timeout=self.camera_timeout, skip=skip, newer_than=newer_than)
                except CameraError as exc:
                    self.journal.append(state.round, "fault", {"kind": "camera", "attempt": attempt + 1,
                                                               "message": str(exc)})
                    time.sleep(0.1 * (attempt + 1))
            self._pause(state, Problem("camera_dark"), "camera")

    def _check_leftover(self, state: DealState) -> None:
        """After the last planned card the hopper must be empty; a card left over is an extra card."""
        i = max(state.plan.total, state.next_index)   # past a card too many a double feed took along
        reading = self._read_card(state, i)
        if reading.get("empty"):
            state.reads.pop(i, None)


def evidence_jpeg(reading: Reading, frames: list[Any]) -> bytes:
    """The evidence image of a read: the reader's crops side by side, else the first frame."""
    crops = [c for c in (reading.crops or []) if isinstance(c, np.ndarray) and c.size]
    if crops:
        h = max(c.shape[0] for c in crops)
        parts = [_bgr(cv2.resize(c, (max(1, int(c.shape[1] * h / c.shape[0])), h))) for c in crops]
        image = np.hstack(parts)
    else:
        image = frames[0].image
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    return buf.tobytes() if ok else frames[0].to_jpeg()


def _bgr(img: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR) if img.ndim == 2 else img
