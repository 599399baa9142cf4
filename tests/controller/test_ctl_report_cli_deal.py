"""A `hongsi deal` on the virtual rig into a table service's data folder: the round is in the service's
rounds list and replay (a round is a round, whoever dealt it), and `hongsi log report` writes its report:
every seat's hand with its crops, no play (none was refereed), the receipts and the fair-deal proof."""

import json
import re
import shutil
import subprocess

import httpx
import pytest
from ctl_simrig import HONGSI, ROOT, _env, run_deal, simulator

from controller.service.app import create_app
from controller.service.deal import SoftwareDealSource
from controller.service.table import TableService
from controller.text import card_sign

pytestmark = pytest.mark.slow


def test_a_cli_deal_is_a_round_of_the_service_and_has_a_report(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    with simulator(tmp_path, seed=33) as (ends, _truth):
        proc = run_deal(ends, data / "journal.db", "--json", "--frames", "3")
        assert proc.returncode == 0, proc.stderr[-3000:]
    record = json.loads(proc.stdout)
    page = tmp_path / "r.html"
    rep = subprocess.run([*HONGSI, "log", "report", "1", "--journal", str(data / "journal.db"), "--out", str(page),
                          "--pdf"], capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=120)
    assert rep.returncode == 0, rep.stderr
    if shutil.which("chromium"):  # printed by headless Chromium; without it, one line says so
        assert page.with_suffix(".pdf").read_bytes()[:5] == b"%PDF-"
    else:
        assert "no PDF" in rep.stderr
    html = page.read_text(encoding="utf-8")
    for seat, hand in enumerate(record["hands"]):
        section = html.split(f"Seat {seat + 1}</span> <small>", 1)[1].split("</section>", 1)[0]
        assert re.findall(r"<figcaption[^>]*>([^<]+)</figcaption>", section) == [card_sign(c) for c in hand]
    assert html.count("data:image/jpeg;base64,") == 52 and "No actions" in html and "check_deal passes" in html

    svc = TableService(data, SoftwareDealSource(card_delay=0.0, seed=1), bot_delay=0.0, seed=1)
    try:
        transport = httpx.ASGITransport(app=create_app(svc))

        op = {"Authorization": f"Bearer {svc.tokens.operator_token()}"}

        async def ask() -> tuple[dict, int, dict]:
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                return ((await client.get("/api/rounds")).json(),
                        (await client.get("/api/rounds/1/replay")).status_code,  # its hand may be in play
                        (await client.get("/api/rounds/1/replay", headers=op)).json())

        import asyncio

        listed, anonymous, view = asyncio.run(ask())
        assert anonymous == 401
        assert {"id": 1, "game": "hongsi", "phase": "dealt", "source": "cli"} in listed["rounds"]
        assert view["steps"] == [] and len(view["cards"]) == 52
        assert all(c["label"] in record["hands"][c["seat"]] for c in view["cards"])
    finally:
        svc.close()
