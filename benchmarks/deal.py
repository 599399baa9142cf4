"""Benchmark the deal (prints figures; no assertions).

- A 52-card 红桃四 deal on the virtual rig (``hongsi simulate`` in its own process, so the CPU figures
  are the controller's alone), round robin and fair deal, against the mechanism's lower bound: the sum
  of the unavoidable rotation times (the firmware's own servo timing for each move the plan needs) and
  eject times (motor start to the card clearing the exit beam, from each eject's evidence).
- The controller's CPU time per card.
- The journal's write latency (hash chain, WAL, synchronous=FULL), against a plain SQLite insert in the
  same process as the peer.

Run: ``.venv/bin/python benchmarks/deal.py [--speed 1] [--frames 3]``. Target: round robin within
1.15× its lower bound.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "hardware" / "firmware"))

from controller.camera import open_camera  # noqa: E402
from controller.config import load_config  # noqa: E402
from controller.deal import AutoOperator, Dealer  # noqa: E402
from controller.journal import Journal  # noqa: E402
from controller.plan import BOTTOM  # noqa: E402


def start_sim(speed: float, seed: int) -> tuple[subprocess.Popen, dict]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "simulate", "--seed", str(seed),
                             "--speed", str(speed)], stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT,
                            start_new_session=True)
    return proc, json.loads(proc.stdout.readline())


def rotation_ms(frm: float | None, to: float) -> float:
    import config as fw  # the firmware's own timing constants (hardware/firmware/config.py)

    if frm is None:
        return fw.SERVO_RANGE_DEG * 1000 / fw.SERVO_DEG_PER_S + fw.SERVO_SETTLE_MS
    if frm == to:
        return 0.0                       # no move needed: the dealer does not rotate
    return abs(to - frm) * 1000 / fw.SERVO_DEG_PER_S + fw.SERVO_SETTLE_MS


class DropsAFrame(Dealer):
    """The peer: the dealer as it was, dropping a frame per read even from a camera that stamps its frames
    with the sensor's exposure start (the virtual rig's, a Pi camera's)."""

    @property
    def _stamped(self) -> bool:
        return False

    @_stamped.setter
    def _stamped(self, value: bool) -> None:
        pass


def deal_once(ends: dict, journal: Journal, fair: bool, frames: int, speed: float, peer: bool = False) -> dict:
    from firmware_bridge import Rig
    from vision.reader import CardReader

    cfg = load_config(None, env={"HONGSI_SHUFFLE_PASSES": "0"})
    rig = Rig(ends["serial"], angles=cfg.servo_angles, bottom_angle=cfg.bottom_angle)
    rig.connect()
    cam = open_camera(ends["camera"])
    reader = CardReader(threads=1)
    ejects: list[float] = []
    orig_eject = rig.eject

    def eject():
        import config as fw

        ev = orig_eject()
        ejects.append(ev.travel_ms + ev.pulse_ms + fw.CHUTE_MS)  # the turntable waits for the chute
        return ev

    rig.eject = eject
    grabs = {"frames": 0, "s": 0.0}
    grab = cam.grab

    def counted(n: int = 1, **kw):
        t = time.perf_counter()
        out = grab(n, **kw)
        grabs["frames"] += n + kw.get("skip", 0)
        grabs["s"] += time.perf_counter() - t
        return out

    cam.grab = counted
    dealer = (DropsAFrame if peer else Dealer)(rig, cam, reader, journal, config=cfg, operator=AutoOperator(),
                                               frames_per_read=frames)
    grab(1, timeout=5)                   # the stream is up
    cpu0 = time.process_time()
    result = dealer.run("hongsi", first_seat=0, fair=fair)
    cpu = time.process_time() - cpu0
    dealer.close()
    cam.close()
    rig.close()
    rows = journal.rows(result.round)
    start = next(r.t for r in rows if r.kind == "home_done")
    end = max(r.t for r in rows if r.kind == "eject_done")
    order = [r.data["seat"] for r in rows if r.kind == "eject_done"]
    angles = [cfg.bottom_angle if s == BOTTOM else cfg.servo_angles[s] for s in order]
    prev: float | None = 0.0             # home is angle 0
    bound_ms = 0.0
    for angle in angles:
        bound_ms += rotation_ms(prev, angle)
        prev = angle
    bound = (bound_ms + sum(ejects)) / 1000 / speed
    reads = max(1, sum(r.kind == "card_read" for r in rows))
    return {"status": result.status, "cards": len(order), "wall": end - start, "bound": bound,
            "cpu_per_card_ms": cpu / max(1, len(order)) * 1000, "frames_per_read": grabs["frames"] / reads,
            "grab_ms": grabs["s"] / reads * 1000 * speed}


def journal_latency(tmp: Path, n: int = 500) -> None:
    j = Journal(tmp / "lat.db")
    r = j.new_round({"game": "hongsi"})
    jpeg = os.urandom(8000)
    lat, lat_img = [], []
    for i in range(n):
        t = time.perf_counter()
        j.append(r, "eject_done", {"index": i, "seat": i % 4, "pulse_ms": 73.0})
        lat.append(time.perf_counter() - t)
        t = time.perf_counter()
        j.append(r, "card_read", {"index": i, "label": "H4", "confidence": 0.99}, image=jpeg + i.to_bytes(4, "big"))
        lat_img.append(time.perf_counter() - t)
    j.close()
    db = sqlite3.connect(tmp / "peer.db", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE t (seq INTEGER PRIMARY KEY, data TEXT)")
    peer = []
    for i in range(n):
        t = time.perf_counter()
        db.execute("INSERT INTO t(data) VALUES (?)", (json.dumps({"index": i}),))
        peer.append(time.perf_counter() - t)
    db.close()

    def ms(xs: list[float], q: float) -> float:
        return sorted(xs)[int(q * (len(xs) - 1))] * 1000

    print(f"journal append (row):          median {ms(lat, .5):.2f} ms, p99 {ms(lat, .99):.2f} ms")
    print(f"journal append (row + image):  median {ms(lat_img, .5):.2f} ms, p99 {ms(lat_img, .99):.2f} ms")
    print(f"peer: plain SQLite insert (WAL, default sync): median {ms(peer, .5):.3f} ms "
          f"→ journal/peer = {statistics.median(lat) / statistics.median(peer):.1f}×")


COMMERCIAL = "commercial card dealers: 2-4 cards/s"


def parts_figures() -> None:
    """Cards per second the parts allow (hardware/parts.py), beside commercial dealers'."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("hongsi_parts", ROOT / "hardware" / "parts.py")
    parts = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(parts)
    t = parts.derive()
    card = parts.mechanical_card_ms(t)
    print(f"from the parts: travel {t['TRAVEL_MS']} ms + card {t['SINGLE_PULSE_US'] / 1000:.1f} ms + chute "
          f"{t['CHUTE_MS']} ms + 90° turn {90 * 1000 / t['SERVO_DEG_PER_S'] + t['SERVO_SETTLE_MS']:.0f} ms "
          f"= {card:.0f} ms a card → {1000 / card:.2f} cards/s ({COMMERCIAL})")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--speed", type=float, default=1.0, help="virtual rig speed (1 = real mechanics)")
    ap.add_argument("--frames", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    parts_figures()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        proc, ends = start_sim(args.speed, args.seed)
        try:
            journal = Journal(tmp / "journal.db")
            print(f"virtual rig speed {args.speed}×, {args.frames} frames voted per card")
            figures = {}
            for name, fair in (("round robin", False), ("fair deal", True)):
                f = deal_once(ends, journal, fair, args.frames, args.speed)
                figures[name] = f
                print(f"{name:12s}: {f['cards']} cards in {f['wall']:.2f} s; lower bound {f['bound']:.2f} s "
                      f"→ {f['wall'] / f['bound']:.3f}× the bound; controller CPU {f['cpu_per_card_ms']:.1f} ms/card"
                      f" ({f['status']}); {f['cards'] / (f['wall'] * args.speed):.2f} cards/s at real speed "
                      f"({COMMERCIAL})")
            rr, fd = figures["round robin"], figures["fair deal"]
            old = deal_once(ends, journal, False, args.frames, args.speed, peer=True)
            print(f"window reads: {rr['frames_per_read']:.2f} frames taken per read, {rr['grab_ms']:.0f} ms a read "
                  f"(real speed); peer dropping a frame per read: {old['frames_per_read']:.2f} frames, "
                  f"{old['grab_ms']:.0f} ms → {rr['grab_ms'] / old['grab_ms']:.2f}× the peer's read time; deal "
                  f"{rr['wall']:.2f} s vs {old['wall']:.2f} s ({rr['wall'] / old['wall']:.3f}×)")
            print(f"fair deal takes {fd['wall'] / rr['wall']:.2f}× the round-robin deal time; its mechanical bound "
                  f"is {fd['bound'] / rr['bound']:.2f}× round robin's (random seats: some repeats need no turn, "
                  "while round robin swings back 270° from the last seat to the first every round)")
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(10)
        journal_latency(tmp)


if __name__ == "__main__":
    main()
