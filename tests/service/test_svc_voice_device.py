"""espeak-ng exits 0 when there is no sound card: the service finds out by playing silence to the default
output device (real espeak-ng, real ALSA, its default device chosen by an ``~/.asoundrc``), says so in the
health data and on the operator page (real Chromium), and keeps showing the announcements as text."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import httpx
import pytest
from svc_helpers import LiveServer, wait_for

from controller.service.app import create_app
from controller.service.deal import SoftwareDealSource
from controller.service.hub import EventHub
from controller.service.table import TableService
from controller.service.voice import NO_DEVICE, Announcer, output_problem

CHROMIUM = "/usr/bin/chromium"
pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")


def _alsa_default(monkeypatch, tmp_path: Path, pcm: str) -> None:
    """Make ALSA's default output device ``pcm`` for this test's processes (ALSA reads ~/.asoundrc)."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / ".asoundrc").write_text(f"pcm.!default {{ {pcm} }}\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("PULSE_SERVER", raising=False)


@pytest.fixture
def no_card(monkeypatch, tmp_path):
    _alsa_default(monkeypatch, tmp_path, "type hw card 9")  # a card this machine does not have


def test_no_sound_card_is_found_although_espeak_exits_0(no_card):
    assert output_problem(shutil.which("espeak-ng")) == NO_DEVICE
    hub = EventHub()
    events: list[dict] = []
    hub.add_listener(events.append)
    ann = Announcer(speak=True)
    ann.attach(hub)
    try:
        assert ann.status() == {"speaks": False, "engine": "display", "device": NO_DEVICE}
        ann.say("二号先出", "Seat 2 plays first.")
    finally:
        ann.close()
    assert events[-1]["text_zh"] == "二号先出" and events[-1]["spoken"] is False  # the display still shows it


def test_a_working_output_device_speaks(monkeypatch, tmp_path):
    _alsa_default(monkeypatch, tmp_path, "type null")  # plays and discards, as a speaker would take it
    assert output_problem(shutil.which("espeak-ng")) is None
    ann = Announcer(speak=True)
    try:
        assert ann.status() == {"speaks": True, "engine": "espeak-ng"}
    finally:
        ann.close()


@pytest.mark.browser
@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian chromium is not installed")
def test_the_operator_page_says_there_is_no_output_device(no_card, tmp_path):
    from playwright.sync_api import sync_playwright

    svc = TableService(tmp_path / "data", SoftwareDealSource(card_delay=0.0, seed=4), bot_delay=0.0, seed=2,
                       voice=Announcer(speak=True))
    srv = LiveServer(create_app(svc), svc).start()
    try:
        assert httpx.get(srv.url + "/api/health").json()["voice"]["device"] == NO_DEVICE
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu",
                                                                        "--disable-dev-shm-usage"])
            try:
                page = browser.new_page()
                page.goto(srv.url + f"/operator#t={svc.tokens.operator_token()}")
                page.wait_for_selector("#health td[data-key=voice]", timeout=10000)
                shown = page.inner_text("#health td[data-key=voice]")
                assert "no output device" in shown and "没有音频输出设备" in shown, shown
                assert "shown on the display" in shown
            finally:
                browser.close()
        # the announcement of a deal still reaches the display as text
        svc.start_round(game="hongsi", bots="all")
        wait_for(lambda: any(e["type"] == "voice" for e in svc.voice.said), timeout=15)
        assert all(e["spoken"] is False for e in svc.voice.said)
    finally:
        srv.stop()
        svc.close()


def test_the_self_test_fails_its_voice_row_without_a_sound_card(no_card):
    from controller.config import load_config
    from controller.selftest import _Run, check_voice

    run = _Run(load_config(None, env={}), lambda _s: None)
    check_voice(run, shutil.which("espeak-ng"), aloud=True)
    (row,) = run.rows
    assert row.name == "voice" and row.status == "fail" and NO_DEVICE in row.detail, row
    assert "speaker" in row.remedy
