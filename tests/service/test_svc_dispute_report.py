"""Disputes, for real: a hand dealt on the virtual rig by the real dealer (pty serial, MJPEG camera, ONNX
reader, SQLite journal) and played through the service, one action refused. The replay names every
card's seat; ``hongsi log report`` writes one page naming every seat's cards and every action, with
the crops, the receipts and the fair-deal proof, rendered in headless Chromium; ``log export`` gives
one readable picture per card; a live hand is refused; the rounds list shows rounds only the journal
holds."""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys

import cv2
import httpx
import numpy as np
import pytest
from svc_helpers import CARD_IN_TEXT, LiveServer, rig_parts_missing, rig_service, wait_for

from controller.journal import Journal, export_record
from controller.service.app import create_app
from controller.service.deal import SoftwareDealSource
from controller.service.table import TableService
from controller.text import card_sign, cards_sign

pytestmark = [pytest.mark.slow, pytest.mark.skipif(rig_parts_missing() is not None,
                                                   reason=rig_parts_missing() or "")]
HONGSI = [sys.executable, "-m", "controller.cli"]
CHROMIUM = "/usr/bin/chromium"


def _hongsi(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*HONGSI, *args], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A finished hand of 红桃四 on the virtual rig: seat 0 driven here (one refused play), bots the rest."""
    tmp = tmp_path_factory.mktemp("disputes")
    svc, vr = rig_service(tmp)
    try:
        rnd = svc.start_round(game="hongsi", first_seat=0, fair_deal=True, bots=[1, 2, 3])
        refused = []

        def step() -> bool:
            if rnd.phase == "interrupted":
                svc.resume(rnd.id)
            view = rnd.seat_view(0)
            if rnd.phase == "playing" and view["legal"] and view["turn"] == 0:
                if not refused:  # a card seat 0 does not hold: refused, with the referee's reason
                    stranger = next(c for h in rnd.hands[1:] for c in map(str, h))
                    refused.append((stranger, svc.act(rnd.id, {"seat": 0, "action": "play", "cards": [stranger]})))
                else:
                    svc.act(rnd.id, next(a for a in view["legal"] if a["action"] != "tiao"))
            return rnd.phase == "finished"

        wait_for(step, timeout=240, step=0.02, why=lambda: f"{rnd.phase}: {rnd.message}")
        # the hand's end (its verdict, after the revealed seed) is journalled just after "finished"
        wait_for(lambda: any(r.kind == "round_end" for r in svc.journal.rows(rnd.id)), timeout=30)
    finally:
        svc.close()
        vr.stop()
    with Journal(tmp / "journal.db", readonly=True) as jr:
        record = export_record(jr.rows(rnd.id))
    return {"dir": tmp, "journal": tmp / "journal.db", "round": rnd.id, "record": record, "refused": refused}


def test_the_replay_names_each_cards_seat(played):
    from controller.service.dispute import card_reads, replay

    with Journal(played["journal"], readonly=True) as jr:
        view = replay(played["record"], jr, played["round"])
        plain = card_reads(jr, played["round"])  # without the record: from the rows alone
    hands = played["record"]["hands"]
    dealt = [c for c in view["cards"] if c["label"]]
    assert len(dealt) == 52 and [c["seat"] for c in plain if c["label"]] == [c["seat"] for c in dealt]
    for c in dealt:
        assert isinstance(c["seat"], int) and c["label"] in hands[c["seat"]], c
        assert c["seat_label"] == f"Seat {c['seat'] + 1}"


def test_the_report_names_every_seats_cards_and_every_action(played, tmp_path):
    page = tmp_path / "report.html"
    proc = _hongsi("log", "report", str(played["round"]), "--journal", str(played["journal"]), "--out", str(page))
    assert proc.returncode == 0, proc.stderr
    html = page.read_text(encoding="utf-8")
    rec = played["record"]
    for seat, hand in enumerate(rec["hands"]):
        section = html.split(f"Seat {seat + 1}</span> <small>", 1)[1].split("</section>", 1)[0]
        assert [card_sign(c) for c in hand] == re.findall(r"<figcaption[^>]*>([^<]+)</figcaption>", section)
    # a camera crop for every card, embedded (no file beside the page), each a picture of a card index
    crops = re.findall(r"src='data:image/jpeg;base64,([^']+)'", html)
    assert len(crops) == 52
    img = cv2.imdecode(np.frombuffer(base64.b64decode(crops[0]), np.uint8), cv2.IMREAD_COLOR)
    assert img is not None and img.shape[0] >= 150 and img.shape[0] > img.shape[1]
    # every action in order, in both languages; the refused one with the referee's reason
    rows = re.findall(r"<tr><td>(\d+)</td><td>(.*?)</td>", html)
    assert [int(n) for n, _ in rows[:len(rec["events"])]] == list(range(1, len(rec["events"]) + 1))
    for (_, cell), ev in zip(rows, rec["events"], strict=False):
        if ev.get("cards"):
            assert cards_sign(ev["cards"]) in cell and f"Seat {ev['seat'] + 1}" in cell
    said = played["refused"][0][1]["violations"][0]  # the referee's reason, as the seat was told it
    assert said["message"] in html.replace("&#x27;", "'") and said["message_zh"] in html and "✗ 拒绝" in html
    assert "Hand over" in html and "本局结束" in html
    assert "check_deal passes" in html and rec["deal"]["proof"]["seed"] in html
    assert html.count("<svg") >= 2 and "round_end" not in html.split("Receipts", 1)[1].split("fair-deal", 1)[0]
    if os.path.exists(CHROMIUM):  # the page as a person sees it: a picture with the cards in it
        shot = tmp_path / "report.png"
        subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'p'}",
                        "--hide-scrollbars", "--window-size=1000,1400", f"--screenshot={shot}", page.as_uri()],
                       capture_output=True, timeout=90)
        png = cv2.imread(str(shot))
        assert png is not None and png.shape[:2] == (1400, 1000)
        assert (png < 200).any(axis=2).mean() > 0.05  # not a blank page: text and pictures


def test_the_export_has_one_readable_picture_per_card_named_by_seat(played, tmp_path):
    from vision.reader import CardReader

    out = tmp_path / "export"
    proc = _hongsi("log", "export", str(played["round"]), "--journal", str(played["journal"]), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "52 card pictures" in proc.stdout and "verdict.json, report.html" in proc.stdout
    verdict = json.loads((out / "verdict.json").read_text())
    assert verdict["finished"] and len(verdict["scores"]) == 4
    assert "check_deal passes" in (out / "report.html").read_text(encoding="utf-8")
    names = sorted(p.stem for p in (out / "cards").glob("*.png"))
    hands = played["record"]["hands"]
    assert sorted(f"seat{s + 1}-{c}" for s, h in enumerate(hands) for c in h) == names
    reader = CardReader()
    right = wrong = 0
    for p in sorted((out / "cards").glob("*.png"))[::3]:
        r = reader.read(cv2.imread(str(p)), kind="corner")
        right += r.label == p.stem.split("-")[1]
        wrong += r.label is not None and r.label != p.stem.split("-")[1]
    assert wrong == 0 and right >= 14  # of 18
    # the journal's evidence strip itself, read as one corner, is declined (it was a joker at 0.97)
    strip = cv2.imread(str(next((out / "images").glob("*.jpg"))))
    assert strip.shape[1] > 3 * strip.shape[0] and reader.read(strip, kind="corner").label is None


def test_rounds_only_the_journal_holds_are_listed_and_replayed(played):
    """A round a service does not hold in memory (a CLI deal into its data directory, an earlier run)."""
    svc = TableService(played["dir"], SoftwareDealSource(card_delay=0.0, seed=1), bot_delay=0.0, seed=1)
    srv = LiveServer(create_app(svc), svc).start()
    try:
        with httpx.Client(base_url=srv.url, timeout=10) as client:
            listed = client.get("/api/rounds").json()["rounds"]
            assert {"id": played["round"], "game": "hongsi", "phase": "finished", "source": "service"} in listed
            view = client.get(f"/api/rounds/{played['round']}/replay").json()  # finished: anyone
            assert len(view["steps"]) == len(played["record"]["events"]) and view["cards"][0]["seat"] is not None
            assert client.get(f"/api/rounds/{played['round']}/report").status_code == 401
            op = {"Authorization": f"Bearer {svc.tokens.operator_token()}"}
            rep = client.get(f"/api/rounds/{played['round']}/report", headers=op)
            assert rep.status_code == 200 and rep.headers["content-type"].startswith("text/html")
            assert "check_deal passes" in rep.text
            assert client.get("/api/rounds/999/report", headers=op).status_code == 404
    finally:
        srv.stop()
        svc.close()


def test_a_live_hand_is_refused_in_one_line(tmp_path):
    svc = TableService(tmp_path, SoftwareDealSource(card_delay=0.0, seed=7), bot_delay=0.0, seed=3)
    try:
        rnd = svc.start_round(game="hongsi", fair_deal=True, bots=[])
        wait_for(lambda: rnd.phase == "playing", timeout=30)
        proc = _hongsi("log", "report", str(rnd.id), "--journal", str(tmp_path / "journal.db"),
                       "--out", str(tmp_path / "r.html"))
        assert proc.returncode == 2 and proc.stdout == ""
        assert proc.stderr.count("\n") == 1 and "still being played" in proc.stderr
        assert not CARD_IN_TEXT.findall(proc.stderr) and not (tmp_path / "r.html").exists()
        ex = _hongsi("log", "export", str(rnd.id), "--journal", str(tmp_path / "journal.db"),
                     "--out", str(tmp_path / "ex"))
        assert ex.returncode == 0 and "no card pictures or report while the round is being played" in ex.stdout
        assert not (tmp_path / "ex" / "cards").exists() and not (tmp_path / "ex" / "report.html").exists()
        op = {"Authorization": f"Bearer {svc.tokens.operator_token()}"}
        srv = LiveServer(create_app(svc), svc).start()
        try:
            assert httpx.get(f"{srv.url}/api/rounds/{rnd.id}/report", headers=op).status_code == 409
        finally:
            srv.stop()
    finally:
        svc.close()
