"""The service's announcements: shown on the display (always) and spoken (when espeak-ng is there).

Speech goes through the one voice queue of :class:`controller.announce.Voice` (espeak-ng, Mandarin,
never overlapping). Every announcement is also published as a ``voice`` event, so the table display
shows it as a caption — the fallback when there is no speaker or no espeak-ng.

espeak-ng exits 0 when the sound card is missing (it only prints ALSA's errors), so :func:`output_problem`
plays a moment of silence to the default output device and reads what espeak-ng printed; the health data
says ``"device": "no output device"`` then, and the operator page shows it.

>>> ann = Announcer(speak=False)
>>> ann.say("二号先出", "Seat 2 plays first.")["text_zh"]
'二号先出'
"""

from __future__ import annotations

import re
import subprocess
import time
from typing import Any

from controller.announce import Voice

NO_DEVICE = "no output device"
_DEVICE_TROUBLE = re.compile(r"\berror\b|cannot find card|unknown pcm|cannot open|no such device", re.I)
RECHECK_S = 30.0  # a speaker plugged in (or pulled out) shows on the operator page within this time


def output_problem(espeak: str) -> str | None:
    """None when espeak-ng can play to the default output device; else what is wrong, in a few words.
    Plays silence (amplitude 0), so a table with a working speaker hears nothing."""
    try:
        proc = subprocess.run([espeak, "-a", "0", "-v", "cmn", " "], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"espeak-ng does not run ({type(exc).__name__})"
    if re.search(r"busy", proc.stderr, re.I):  # the card is there, playing an announcement right now
        return None
    if proc.returncode != 0 or _DEVICE_TROUBLE.search(proc.stderr):
        return NO_DEVICE
    return None


class Announcer:
    """``say(zh, en)``: queue speech (if ``speak``) and publish a ``voice`` event to the attached hub."""

    def __init__(self, *, speak: bool = True, voice: Voice | None = None):
        self.voice = voice if voice is not None else (Voice(enabled=True, fallback=lambda _t: None)
                                                      if speak else None)
        self.hub: Any = None
        self.said: list[dict[str, Any]] = []
        self._problem: str | None = None
        self._checked = -RECHECK_S
        self.device_problem()

    def attach(self, hub: Any) -> None:
        self.hub = hub

    def device_problem(self) -> str | None:
        """What keeps espeak-ng from being heard (None: nothing), checked at most every RECHECK_S."""
        if self.voice is None or self.voice.espeak is None:
            return None
        if time.monotonic() - self._checked >= RECHECK_S:
            self._problem, self._checked = output_problem(self.voice.espeak), time.monotonic()
        return self._problem

    @property
    def speaks(self) -> bool:
        return self.voice is not None and self.voice.speaks and self._problem is None

    def say(self, text_zh: str, text_en: str) -> dict[str, Any]:
        event = {"type": "voice", "text_zh": text_zh, "text": text_en, "spoken": self.speaks}
        self.said = [*self.said[-49:], event]
        if self.voice is not None and self._problem is None:  # no speaker: the caption is all there is
            self.voice.say(text_zh, text_en)
        if self.hub is not None:
            self.hub.publish(event)
        return event

    def status(self) -> dict[str, Any]:
        problem = self.device_problem()
        out: dict[str, Any] = {"speaks": self.speaks, "engine": "espeak-ng" if self.speaks else "display"}
        if problem is not None:
            out["device"] = problem  # the announcements are still shown on the display
        return out

    def close(self) -> None:
        if self.voice is not None:
            self.voice.close(timeout=5)
