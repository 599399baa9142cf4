"""Helpers for the controller's end-to-end tests: `hongsi simulate` and `hongsi deal` as subprocesses.

Everything between the two ends is real: a pseudo-terminal to the firmware, MJPEG over loopback HTTP
to the camera, the ONNX reader, SQLite.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HONGSI = [sys.executable, "-m", "controller.cli"]
ROOT = Path(__file__).resolve().parents[2]
SPEED = float(os.environ.get("HONGSI_TEST_SPEED", "40"))
GAME_DECKS = {"hongsi": [], "wakeng": [], "gongzhu": [], "zhuohonga": ["--jokers"],
              "shengji": ["--jokers", "--decks", "2"]}


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["HONGSI_VOICE"] = "false"
    env["HONGSI_SHUFFLE_PASSES"] = env.get("HONGSI_TEST_PASSES", "1")
    env.pop("HONGSI_CONFIG", None)
    return env


@contextmanager
def simulator(tmp: Path, *, game: str = "hongsi", seed: int = 1, speed: float = SPEED, args: list[str] = ()):
    """Start `hongsi simulate` for ``game``'s deck; yield (ends dict, truth path); stop it after."""
    truth = tmp / f"truth-{seed}.json"
    cmd = HONGSI + ["simulate", "--seed", str(seed), "--speed", str(speed), "--truth", str(truth),
                    *GAME_DECKS[game], *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=open(tmp / f"sim-{seed}.log", "w"),
                            text=True, env=_env(), cwd=ROOT, start_new_session=True)
    try:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("hongsi simulate exited: " + (tmp / f"sim-{seed}.log").read_text()[-2000:])
        ends = json.loads(line)
        yield ends, truth
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)


def deal_cmd(ends: dict[str, str], journal: Path, *extra: str) -> list[str]:
    return HONGSI + ["deal", "--serial", ends["serial"], "--camera", ends["camera"], "--journal", str(journal),
                     "--unattended", *extra]


def run_deal(ends: dict[str, str], journal: Path, *extra: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(deal_cmd(ends, journal, *extra), capture_output=True, text=True, env=_env(), cwd=ROOT,
                          timeout=timeout)


def start_deal(ends: dict[str, str], journal: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(deal_cmd(ends, journal, *extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=_env(), cwd=ROOT, start_new_session=True)


def read_truth(truth: Path, timeout: float = 10.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if truth.exists():
            try:
                return json.loads(truth.read_text())
            except json.JSONDecodeError:
                pass
        time.sleep(0.05)
    raise AssertionError(f"the simulator wrote no truth file {truth}")


class Table:
    """The controller's real parts wired to a running simulator: Rig over the pty, the MJPEG camera,
    the ONNX reader, a journal; ``deal(...)`` runs one whole hand in this process."""

    def __init__(self, ends: dict[str, str], journal_path: Path, reader: Any, *, frames: int = 1,
                 passes: int = 1, durable: bool = False):
        """``durable`` False: the journal commits without fsync (WAL, synchronous=NORMAL; a killed
        process still loses nothing) to keep these many deals quick; the CLI tests use the default."""
        from controller.camera import open_camera
        from controller.config import load_config
        from controller.journal import Journal
        from firmware_bridge import Rig

        self.cfg = load_config(None, env={"HONGSI_SHUFFLE_PASSES": str(passes), "HONGSI_VOICE": "false"})
        self.rig = Rig(ends["serial"], angles=self.cfg.servo_angles, bottom_angle=self.cfg.bottom_angle)
        self.rig.connect()
        self.camera = open_camera(ends["camera"])
        self.journal = Journal(journal_path, durable=durable)
        self.reader = reader
        self.frames = frames

    def dealer(self, **kw: Any) -> Any:
        from controller.deal import AutoOperator, Dealer

        return Dealer(self.rig, self.camera, self.reader, self.journal, config=self.cfg,
                      operator=kw.pop("operator", AutoOperator()), frames_per_read=self.frames, **kw)

    def deal(self, game: str, **kw: Any) -> tuple[Any, list[dict[str, Any]]]:
        events: list[dict[str, Any]] = []
        dealer = self.dealer()
        try:
            result = dealer.run(game, on_event=events.append, **kw)
        finally:
            dealer.close()
        return result, events

    def close(self) -> None:
        self.camera.close()
        self.rig.close()
        self.journal.close()

    def why_stopped(self, result: Any) -> str:
        """For a failing assertion: the deal's message and, for each card its problems name, the
        journal's reads of it (index, confidence, the three likeliest labels, the evidence image)."""
        from controller.deal.problems import card_name
        from vision.labels import LABELS

        named = {label for label in LABELS if any(card_name(label, "en") in p for p in result.problems)}
        lines = [str(result.message)]
        for row in self.journal.rows(result.round):
            d = row.data
            if row.kind == "card_read" and (d.get("label") in named or d.get("unsure")):
                top = sorted(range(len(d["probs"])), key=lambda i: -d["probs"][i])[:3]
                lines.append(f"card {d['index']}: {d['label']} {d['confidence']} "
                             f"{[(LABELS[i], d['probs'][i]) for i in top]} image {row.image}")
        return "\n".join(lines)


def seats_of(game: str) -> int:
    return 3 if game == "wakeng" else 4


def assert_equals_truth(game: str, record: dict[str, Any], truth: dict[str, Any]) -> None:
    """Card for card: every seat's hand and the bottom hold exactly the cards the simulator put there."""
    n = seats_of(game)
    assert [sorted(h) for h in record["hands"]] == [sorted(h) for h in truth["hands"][:n]], \
        (record["hands"], truth["hands"])
    assert all(not h for h in truth["hands"][n:])
    assert sorted(record["bottom"]) == sorted(truth["bottom"])
    assert not truth.get("stray")
