"""How long `hongsi selftest` takes on the virtual rig at real speed (speed 1), row by row, next to the
mechanical minimum of the motions it makes in the same run (the peer figure): the turntable's travel at
its rated speed, and one card's travel plus exit pulse. The ratio is the self-test's overhead on the
motions (handshakes, status reads, settling, the camera read).

    .venv/bin/python benchmarks/selftest.py [--speed 1] [--runs 2]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpiozero.pins.mock import MockFactory, MockPWMPin  # noqa: E402

from controller.config import load_config  # noqa: E402
from controller.selftest import ROWS, run_selftest  # noqa: E402
from firmware_bridge.sim import VirtualRig  # noqa: E402


def one_run(seed: int, speed: float) -> tuple[dict[str, float], dict[str, float]]:
    cfg = load_config(None, env={"HONGSI_VOICE": "false"})
    times: dict[str, float] = {}
    last = [0.0]

    def say(line: str) -> None:
        now = time.perf_counter()
        times[line.split(":", 1)[0]] = now - last[0]
        last[0] = now

    with VirtualRig(seed=seed, speed=speed) as vr:
        start = vr.board.angle_now()
        mech = vr.board.mech
        last[0] = time.perf_counter()
        rows = run_selftest(cfg, serial=vr.ends["serial"], camera=vr.ends["camera"], aloud=False, blink=0,
                            pin_factory=MockFactory(pin_class=MockPWMPin), say=say)
    failed = [r.name for r in rows if r.failed]
    if failed:
        raise SystemExit(f"the self-test failed on the virtual rig: {failed}")
    path = [0.0, *cfg.servo_angles, cfg.bottom_angle]  # homing ends at 0, then each seat, then the tray
    seat_travel = sum(abs(b - a) for a, b in zip(path, path[1:], strict=False))
    minimum = {"homing": start / mech.turntable_deg_per_s / speed,
               "seat angles": seat_travel / mech.turntable_deg_per_s / speed,
               "eject": mech.mechanical_eject_ms() / 1000 / speed}
    return times, minimum


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--speed", type=float, default=1.0)
    ap.add_argument("--runs", type=int, default=2)
    args = ap.parse_args()
    runs = [one_run(seed, args.speed) for seed in range(1, args.runs + 1)]
    print(f"self-test on the virtual rig, speed {args.speed:g}, {args.runs} runs (median seconds)")
    print(f"{'row':<14}{'self-test':>11}{'mechanical':>12}{'ratio':>8}")
    for row in ROWS:
        took = statistics.median(t[row] for t, _ in runs)
        if row in runs[0][1]:
            mech = statistics.median(m[row] for _, m in runs)
            print(f"{row:<14}{took:>11.3f}{mech:>12.3f}{took / mech:>8.2f}")
        else:
            print(f"{row:<14}{took:>11.3f}{'-':>12}{'-':>8}")
    total = statistics.median(sum(t.values()) for t, _ in runs)
    print(f"{'total':<14}{total:>11.3f}")


if __name__ == "__main__":
    main()
