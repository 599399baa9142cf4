"""``hongsi serve`` as a process: it starts, serves the display and the API with the operator token that
``hongsi token`` prints, deals a hand, and stops cleanly on SIGTERM."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
from svc_helpers import wait_for

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_runs_deals_and_stops_cleanly(tmp_path):
    env = {**os.environ, "HONGSI_DATA_DIR": str(tmp_path), "HONGSI_VOICE": "false",
           "PYTHONPATH": str(ROOT)}
    env.pop("HONGSI_CONFIG", None)
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "serve", "--no-rig", "--port", str(port),
                             "--bot-delay", "0"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        def up() -> bool:
            try:
                return httpx.get(url + "/api/health", timeout=1).status_code == 200
            except httpx.HTTPError:
                return False
        wait_for(up, timeout=30, step=0.1)
        token = subprocess.run([sys.executable, "-m", "controller.cli", "token"], cwd=tmp_path, env=env,
                               capture_output=True, text=True, check=True).stdout.strip()
        assert "<title>" in httpx.get(url + "/").text
        op = {"Authorization": f"Bearer {token}"}
        rid = httpx.post(url + "/api/rounds", json={"bots": "all"}, headers=op).json()["id"]
        wait_for(lambda: httpx.get(f"{url}/api/rounds/{rid}").json()["phase"] == "finished", timeout=30, step=0.1)
        verdict = httpx.get(f"{url}/api/rounds/{rid}/record").json()["verdict"]
        assert verdict["finished"] is True
        # the next deal, with no first seat given, starts from the first player out (the rules)
        assert httpx.get(url + "/api/ledger").json()["next_first_seat"] == verdict["next_first_seat"]
        rid2 = httpx.post(url + "/api/rounds", json={"bots": "all"}, headers=op).json()["id"]
        assert httpx.get(f"{url}/api/rounds/{rid2}").json()["first_seat"] == verdict["next_first_seat"]
        # a seat's link names the port this service runs on, not the configured default
        link = subprocess.run([sys.executable, "-m", "controller.cli", "token", "--seat", "1"], cwd=tmp_path,
                              env=env, capture_output=True, text=True, check=True).stdout.splitlines()[1]
        assert link.startswith(f"{url}/seat#t="), link
        # the hands as dealt are in the data dir: nobody but the service's user may read it
        assert {oct(p.stat().st_mode & 0o777) for p in (tmp_path, tmp_path / "images")} == {"0o700"}
        assert oct((tmp_path / "journal.db").stat().st_mode & 0o777) == "0o600"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            out, err = proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            raise AssertionError("hongsi serve did not stop on SIGTERM") from None
    assert proc.returncode == 0, err
    assert f"{url}/operator (the token: hongsi token)" in err  # the links it printed
    assert token not in err  # never the token itself in a log
