"""Screenshots of the table pages for the README: the display at 1280×800 in each game, a few actions
into a hand, and a seat page on a phone (390×844). Real service, real Chromium (Debian's), people in
every seat (this script acts for them, the first legal play each time).

    .venv/bin/python scripts/page_shots.py docs/
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage"]


def _wait(pred, timeout: float = 15.0) -> None:
    end = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > end:
            raise SystemExit("page_shots: timed out waiting for the table")
        time.sleep(0.05)


def _play(svc, rnd, actions: int) -> None:
    """``actions`` actions, each the seat's first legal play (a call when one is due, never a pass)."""
    for _ in range(actions):
        seat = rnd.turn()
        if seat is None or rnd.phase != "playing":
            return
        with rnd.lock:
            legal = rnd.state.legal_actions(seat)
        pick = next((a for a in legal if a["action"] in ("call", "bury", "take_bottom")), None) or next(
            (a for a in legal if a["action"] == "play"), None) or legal[0]
        svc.act(rnd.id, pick)


def main(out: Path) -> None:
    import httpx
    from playwright.sync_api import sync_playwright
    from svc_helpers import LiveServer

    from controller.service.app import create_app
    from controller.service.deal import SoftwareDealSource
    from controller.service.table import TableService
    from engine.registry import game_names

    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        svc = TableService(Path(tmp) / "data", SoftwareDealSource(card_delay=0.0, seed=11), bot_delay=0.0, seed=5)
        srv = LiveServer(create_app(svc), svc).start()
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        op = {"Authorization": f"Bearer {svc.tokens.operator_token()}"}
        token = svc.tokens.new_seat_token(0)
        svc.set_seat_name(0, "小李")  # a player who gave a name
        display = browser.new_page(viewport={"width": 1280, "height": 800})
        display.goto(srv.url + "/")
        for game in game_names():
            r = httpx.post(srv.url + "/api/rounds", json={"game": game, "first_seat": 0, "bots": []}, headers=op)
            r.raise_for_status()
            rnd = svc.get_round(r.json()["id"])
            _wait(lambda rnd=rnd: rnd.phase == "playing")
            _play(svc, rnd, 14)
            display.wait_for_function(f"document.getElementById('round-label').textContent.startsWith('#{rnd.id}')")
            display.wait_for_timeout(400)
            display.screenshot(path=str(out / f"display-{game}.png"))
            if game == "hongsi":
                seat = browser.new_page(viewport={"width": 390, "height": 844})
                seat.goto(srv.url + f"/seat#t={token}")
                seat.wait_for_selector("#hand .card")
                seat.wait_for_timeout(400)
                seat.screenshot(path=str(out / "seat-phone.png"), full_page=True)
                seat.close()
        browser.close()
        srv.stop()
        svc.close()


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "service"))
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs"))
