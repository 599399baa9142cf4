"""Benchmark of the serial link and the ejector, on the virtual rig behind a real pty.

Prints: round-trip commands per second clean and with line noise (as ratios to a raw pty echo of the
same size, run in the same process), the retransmit overhead, and the time one simulated eject takes
against the model's mechanical minimum.

    .venv/bin/python benchmarks/link.py [--n 2000] [--ejects 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import serial  # noqa: E402

from firmware_bridge import Rig  # noqa: E402
from firmware_bridge import protocol as P  # noqa: E402
from firmware_bridge.sim import VirtualRig  # noqa: E402
from firmware_bridge.sim.mcu import PtyPort  # noqa: E402


def raw_echo_rate(n: int) -> float:
    """Peer: round trips of a count-sized frame through a pty echoed by a thread, no protocol at all."""
    pty = PtyPort()
    stop = threading.Event()

    def echo() -> None:
        import select

        while not stop.is_set():
            select.select([pty.master], [], [], 0.01)
            data = pty.read()
            if data:
                pty.write(data)

    t = threading.Thread(target=echo, daemon=True)
    t.start()
    ser = serial.Serial(pty.name, 115200, timeout=1)
    frame = P.encode(P.CMD, 1, P.CMD_IDS["count"])
    start = time.perf_counter()
    for _ in range(n):
        ser.write(frame)
        got = b""
        while len(got) < len(frame):
            got += ser.read(len(frame) - len(got))
    rate = n / (time.perf_counter() - start)
    stop.set()
    ser.close()
    t.join()
    pty.close()
    return rate


def command_rate(n: int, noise: tuple[float, float]) -> dict[str, float]:
    vr = VirtualRig(seed=11, speed=1, camera=False, noise=noise)
    ends = vr.start()
    rig = Rig(ends["serial"], timeout=5.0)
    rig.connect()
    base = dict(rig.link.stats())
    start = time.perf_counter()
    for i in range(1, n + 1):
        got = rig.count()
        if got != i:
            raise SystemExit(f"exactly-once broken: command {i} answered {got}")
    elapsed = time.perf_counter() - start
    st = rig.link.stats()
    out = {"rate": n / elapsed, "retransmits": (st["retransmits"] - base["retransmits"]) / n,
           "frames": (st["frames_sent"] - base["frames_sent"]) / n,
           "host_crc": st["crc_errors"] - base["crc_errors"], "mcu_crc": vr.mcu.fw.decoder.errors}
    rig.close()
    vr.stop()
    return out


def eject_times(k: int) -> tuple[list[float], float]:
    vr = VirtualRig(seed=3, speed=1, camera=False)
    ends = vr.start()
    rig = Rig(ends["serial"])
    rig.connect()
    rig.home()
    rig.rotate_to(0)
    times = []
    for _ in range(k):
        t0 = vr.clock.now_ms()
        rig.eject()
        times.append(vr.clock.now_ms() - t0)
    rig.close()
    vr.stop()
    return times, vr.board.mech.mechanical_eject_ms()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000, help="commands per link run")
    ap.add_argument("--ejects", type=int, default=20)
    args = ap.parse_args()
    print(f"link benchmark: {args.n} round trips per run, pty, pyserial, os {os.uname().sysname}")
    peer = raw_echo_rate(args.n)
    print(f"  peer: raw pty echo (no protocol)         {peer:9.0f} round trips/s   (1.00x)")
    for label, noise in (("clean", (0.0, 0.0)), ("1% bit flips", (0.01, 0.0)),
                         ("1% flips + 0.5% drops", (0.01, 0.005))):
        r = command_rate(args.n, noise)
        print(f"  {label:<24} commands {r['rate']:9.0f} /s   ({r['rate'] / peer:.2f}x of raw echo)   "
              f"retransmits {r['retransmits'] * 100:5.1f}% of commands, {r['frames']:.2f} frames sent "
              f"per command, crc errors host {r['host_crc']} / mcu {r['mcu_crc']}")
    times, minimum = eject_times(args.ejects)
    mean, best = statistics.mean(times), min(times)
    print(f"  eject (speed 1): mean {mean:.1f} ms, best {best:.1f} ms of simulated time; mechanical minimum "
          f"{minimum:.1f} ms (travel + pulse) -> {mean / minimum:.2f}x / {best / minimum:.2f}x")


if __name__ == "__main__":
    main()
