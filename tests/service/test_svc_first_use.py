"""A first evening with ``make run``: the service listens where the phones at the table can reach it, and
its seat links name that address; a port already taken is said in one line before anything starts."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from svc_helpers import wait_for

ROOT = Path(__file__).resolve().parents[2]
HONGSI = [sys.executable, "-m", "controller.cli"]


def _env(tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "HONGSI_DATA_DIR": str(tmp_path), "HONGSI_VOICE": "false", "PYTHONPATH": str(ROOT)}
    env.pop("HONGSI_CONFIG", None)
    return env


def _free_port(host: str = "0.0.0.0") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _lan_address() -> str | None:
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.connect(("10.255.255.255", 1))
            address = sock.getsockname()[0]
    except OSError:
        return None
    return None if address.startswith("127.") else address


def test_make_run_listens_for_the_phones_and_says_how_to_change_it():
    out = subprocess.run(["make", "-n", "run"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert "serve --sim --host 0.0.0.0 --port 8000" in out
    env = {**os.environ, "HOST": "127.0.0.1", "PORT": "8123"}
    out = subprocess.run(["make", "-n", "run"], cwd=ROOT, capture_output=True, text=True, env=env,
                         check=True).stdout
    assert "serve --sim --host 127.0.0.1 --port 8123" in out
    readme = (ROOT / "README.md").read_text()
    assert "HOST=127.0.0.1 make run" in readme and "PORT=" in readme


def test_a_port_in_use_is_said_in_one_line_before_anything_starts(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        proc = subprocess.run([*HONGSI, "serve", "--no-rig", "--host", "127.0.0.1", "--port", str(port)],
                              cwd=tmp_path, env=_env(tmp_path), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert f"port {port} is already in use" in lines[0]
    assert "table display" not in proc.stderr + proc.stdout  # no links to a service that never ran
    assert not (tmp_path / "service.json").exists()


def test_not_an_address_of_this_machine_is_one_line(tmp_path):
    foreign = "203.0.113.7"  # TEST-NET-3: documentation only, never a machine's address
    proc = subprocess.run([*HONGSI, "serve", "--no-rig", "--host", foreign, "--port", str(_free_port())],
                          cwd=tmp_path, env=_env(tmp_path), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and f"cannot listen on {foreign}" in proc.stderr


def test_bound_to_every_interface_the_seat_links_name_the_lan_address(tmp_path):
    lan = _lan_address()
    if lan is None:
        pytest.skip("this machine has no network address besides loopback")
    env = _env(tmp_path)
    port = _free_port()
    proc = subprocess.Popen([*HONGSI, "serve", "--no-rig", "--host", "0.0.0.0", "--port", str(port),
                             "--bot-delay", "0"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    local = f"http://127.0.0.1:{port}"
    try:
        def up() -> bool:
            try:
                return httpx.get(local + "/api/health", timeout=1).status_code == 200
            except httpx.HTTPError:
                return False
        wait_for(up, timeout=30, step=0.1)
        token = subprocess.run([*HONGSI, "token"], cwd=tmp_path, env=env, capture_output=True, text=True,
                               check=True).stdout.strip()
        # the operator page opened on this machine (127.0.0.1) makes a QR code a phone can follow
        made = httpx.post(local + "/api/tokens", json={"seat": 2}, headers={"Authorization": f"Bearer {token}"})
        url = made.json()["url"]
        assert urlsplit(url).hostname == lan and urlsplit(url).port == port, url
        # and so does `hongsi token --seat N`
        link = subprocess.run([*HONGSI, "token", "--seat", "1"], cwd=tmp_path, env=env, capture_output=True,
                              text=True, check=True).stdout.splitlines()[1]
        assert link.startswith(f"http://{lan}:{port}/seat#t="), link
        # the address answers (through the LAN interface, not loopback)
        assert httpx.get(f"http://{lan}:{port}/api/health", timeout=5).json()["status"] == "ok"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            _out, err = proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            _out, err = proc.communicate()
    assert proc.returncode == 0, err
    assert f"table display  http://{lan}:{port}/" in err
