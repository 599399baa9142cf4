"""Voice: espeak-ng (Mandarin) writes a WAV of a service announcement of plausible length; without
espeak-ng the announcement still reaches the display as a ``voice`` event."""

from __future__ import annotations

import shutil
import wave

import pytest

from controller.announce import Voice
from controller.service.hub import EventHub
from controller.service.voice import Announcer


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_espeak_writes_a_wav_of_plausible_length(tmp_path):
    voice = Voice(enabled=True)
    try:
        short = voice.wav("三号先出", tmp_path / "short.wav")
        long = voice.wav("红桃四在三号位，三号先出。二号位剩两张。本局结束，一号位、三号位获胜", tmp_path / "long.wav")
    finally:
        voice.close()
    lengths = []
    for path in (short, long):
        with wave.open(str(path)) as w:
            assert w.getnchannels() == 1 and w.getframerate() >= 8000
            lengths.append(w.getnframes() / w.getframerate())
    assert 0.3 < lengths[0] < 5.0, lengths      # four syllables: about a second
    assert lengths[1] > 2 * lengths[0], lengths  # more words, longer speech
    assert lengths[1] < 30.0


def test_announcements_reach_the_display_without_espeak():
    hub = EventHub()
    events = []
    hub.add_listener(events.append)
    ann = Announcer(voice=Voice(enabled=False, fallback=lambda _t: None))
    ann.attach(hub)
    assert not ann.speaks and ann.status()["engine"] == "display"
    ann.say("二号位剩三张", "Seat 2 has 3 cards left")
    ann.close()
    assert events[-1]["type"] == "voice" and events[-1]["text_zh"] == "二号位剩三张"
    assert events[-1]["text"] == "Seat 2 has 3 cards left" and events[-1]["spoken"] is False


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_service_announcements_are_queued_in_order(tmp_path):
    """The service's voice queue speaks one announcement after another (written to WAVs here)."""
    voice = Voice(enabled=True)
    files = [tmp_path / f"{i}.wav" for i in range(3)]
    try:
        for i, f in enumerate(files):
            voice.say(f"{'一二三'[i]}号先出", wav=f)
        voice.say("完", wait=False, wav=tmp_path / "end.wav")
    finally:
        voice.close()
    mtimes = [f.stat().st_mtime_ns for f in files]
    assert mtimes == sorted(mtimes) and all(f.stat().st_size > 1000 for f in files)
