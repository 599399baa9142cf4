"""The service's announcements: shown on the display (always) and spoken (when espeak-ng is there).

Speech goes through the one voice queue of :class:`controller.announce.Voice` (espeak-ng, Mandarin,
never overlapping). Every announcement is also published as a ``voice`` event, so the table display
shows it as a caption — the fallback when there is no speaker or no espeak-ng.

>>> ann = Announcer(speak=False)
>>> ann.say("二号先出", "Seat 2 plays first.")["text_zh"]
'二号先出'
"""

from __future__ import annotations

from typing import Any

from controller.announce import Voice


class Announcer:
    """``say(zh, en)``: queue speech (if ``speak``) and publish a ``voice`` event to the attached hub."""

    def __init__(self, *, speak: bool = True, voice: Voice | None = None):
        self.voice = voice if voice is not None else (Voice(enabled=True, fallback=lambda _t: None)
                                                      if speak else None)
        self.hub: Any = None
        self.said: list[dict[str, Any]] = []

    def attach(self, hub: Any) -> None:
        self.hub = hub

    @property
    def speaks(self) -> bool:
        return self.voice is not None and self.voice.speaks

    def say(self, text_zh: str, text_en: str) -> dict[str, Any]:
        event = {"type": "voice", "text_zh": text_zh, "text": text_en, "spoken": self.speaks}
        self.said = [*self.said[-49:], event]
        if self.voice is not None:
            self.voice.say(text_zh, text_en)
        if self.hub is not None:
            self.hub.publish(event)
        return event

    def status(self) -> dict[str, Any]:
        return {"speaks": self.speaks, "engine": "espeak-ng" if self.speaks else "display"}

    def close(self) -> None:
        if self.voice is not None:
            self.voice.close(timeout=5)
