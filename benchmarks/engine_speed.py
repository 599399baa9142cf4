"""Rules-engine speed: hands per second for every game, and 红桃四's judge / move-generator latency,
against RLCard's Dou Dizhu raw game played by random agents in the same run.

How to run (from the project root)::

    .venv/bin/python benchmarks/engine_speed.py            # ~30 s
    .venv/bin/python benchmarks/engine_speed.py --seconds 2 # quicker, noisier

The peer needs RLCard, which is NOT a project dependency. ``make bench`` installs it in its own
environment, ``.benchvenv`` (or by hand: ``python3 -m venv .benchvenv && .benchvenv/bin/pip install rlcard``).

If ``rlcard`` imports here it runs in-process; otherwise the script runs the peer with the Python named by
``--peer-python`` (default ``$HONGSI_BENCH_PEER_PYTHON`` or ``.benchvenv/bin/python``) in a
subprocess. Both run on one core (the same CPU, pinned when the OS allows), and rates are per second of
the process's own CPU time, so that other load on a shared machine does not skew the ratio.

What it prints, per game whose engine module imports (``engine.registry.game_names()``):
- self-play hands/s: random bots play every seat and every action goes through ``State.judge``;
- referee hands/s: the recorded hands parsed and judged again from JSON (``engine.referee``);
and for 红桃四 also the median µs to judge one play and to list every legal play of a 13-card hand.
Targets (issue 3): ≥ 1,000 refereed hands/s, ≥ 3× RLCard's games/s, judging a play ≤ 20 µs median.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.record import parse_record  # noqa: E402
from engine.referee import judge_record  # noqa: E402
from engine.registry import game_names, get_game  # noqa: E402

PEER_CODE = r"""
import json, random, sys, time
import numpy as np
from rlcard.games.doudizhu.game import DoudizhuGame

def run(seconds, seed):
    rng = random.Random(seed)
    game = DoudizhuGame(np.random.RandomState(seed))
    n, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        state, _ = game.init_game()
        while not game.is_over():
            state, _ = game.step(rng.choice(state["actions"]))
        n += 1
    return n / (time.process_time() - start)

if __name__ == "__main__":
    print(json.dumps({"games_per_s": run(float(sys.argv[1]), int(sys.argv[2]))}))
"""


def pin_one_core() -> int | None:
    try:
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return cpu
    except (AttributeError, OSError):
        return None


def selfplay_rate(name: str, seconds: float, seed: int) -> tuple[float, list[dict]]:
    game = get_game(name)
    rng = random.Random(seed)
    records, start = [], time.process_time()
    first_seat = 0
    while time.process_time() - start < seconds:
        rec = game.bot_hand(rng, bot="random", first_seat=first_seat)
        nxt = rec.get("next_first_seat")
        first_seat = nxt if isinstance(nxt, int) else first_seat
        records.append(rec)
    return len(records) / (time.process_time() - start), records


def referee_rate(records: list[dict]) -> tuple[float, int]:
    texts = [json.dumps(r) for r in records]
    start = time.process_time()
    violations = 0
    for text in texts:
        violations += len(judge_record(parse_record(json.loads(text)))["violations"])
    return len(texts) / (time.process_time() - start), violations


def hongsi_latencies(samples: int, seed: int) -> dict[str, float]:
    """Median µs: judge one play (a fresh state copy each time); list every legal play of a 13-card hand."""
    from engine.hongsi import combos as C
    from engine.hongsi.bots import choose_play, talk
    from engine.hongsi.state import HongsiState

    game = get_game("hongsi")
    rng = random.Random(seed)
    judge_ns, list_ns, list_rank_ns = [], [], []
    clock = time.perf_counter_ns
    while len(judge_ns) < samples:
        state = HongsiState(game.deal(rng), game.settings())
        talk(state, rng, state.judge)
        # the first lead: a full 13-card hand
        seat = state.current_player()
        s = state.settings
        t0 = clock()
        state.legal_actions(seat)
        t1 = clock()
        C.lead_combos(state.hands[seat], bombs=s.bombs, min_pair_run=s.min_pair_run)
        t2 = clock()
        list_ns.append(t1 - t0)
        list_rank_ns.append(t2 - t1)
        while not state.is_terminal():
            seat = state.current_player()
            if state.pending is not None:
                state.judge({"seat": seat, "action": "announce", "count": state.pending[1]})
                continue
            action = choose_play(state, seat, rng, "random")
            if action["action"] == "play":
                trial = state.clone()
                t0 = clock()
                trial.judge(action)
                judge_ns.append(clock() - t0)
            state.judge(action)
    return {"judge_play_us": statistics.median(judge_ns) / 1000,
            "legal_plays_13_us": statistics.median(list_ns) / 1000,
            "legal_plays_13_rank_level_us": statistics.median(list_rank_ns) / 1000,
            "judge_samples": len(judge_ns), "list_samples": len(list_ns)}


def peer_rate(seconds: float, seed: int, python: str) -> tuple[float | None, str]:
    try:
        import rlcard  # noqa: F401
    except ImportError:
        pass
    else:
        namespace: dict = {"__name__": "peer"}
        exec(PEER_CODE, namespace)
        return namespace["run"](seconds, seed), "in-process"
    if not Path(python).exists():
        return None, f"rlcard is not installed (no {python}); see the top of this script"
    cpu = None
    try:
        cpu = min(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        pass
    cmd = [python, "-c", PEER_CODE, str(seconds), str(seed)]
    if cpu is not None:
        preexec = lambda: os.sched_setaffinity(0, {cpu})  # noqa: E731
    else:
        preexec = None
    proc = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=preexec, timeout=seconds * 10 + 120)
    if proc.returncode != 0:
        return None, f"the peer failed: {proc.stderr.strip().splitlines()[-1:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])["games_per_s"], f"subprocess {python}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--samples", type=int, default=20000, help="plays to time for the judge latency")
    ap.add_argument("--peer-python", default=os.environ.get("HONGSI_BENCH_PEER_PYTHON",
                                                                 str(ROOT / ".benchvenv" / "bin" / "python")))
    args = ap.parse_args()
    cpu = pin_one_core()
    print(f"engine speed — one core{f' (cpu {cpu})' if cpu is not None else ''}, {args.seconds:g} s a figure, "
          f"Python {sys.version.split()[0]}")

    peer, how = peer_rate(args.seconds, args.seed, args.peer_python)
    if peer is None:
        print(f"peer  RLCard Dou Dizhu raw game, random actions: unavailable — {how}")
    else:
        print(f"peer  RLCard Dou Dizhu raw game, random actions: {peer:10.1f} games/s  ({how})")

    for name in game_names():
        try:
            get_game(name)
        except ImportError as exc:
            print(f"{name:10s} not built yet ({exc.name})")
            continue
        rate, records = selfplay_rate(name, args.seconds, args.seed)
        ref_rate, violations = referee_rate(records)
        ratio = f"  = {rate / peer:5.2f}x RLCard" if peer else ""
        print(f"{name:10s} self-play, random bots, every action judged: {rate:10.1f} hands/s{ratio}")
        print(f"{name:10s} referee of the recorded hands from JSON:       {ref_rate:10.1f} hands/s"
              f"  ({len(records)} hands, {violations} violations)")

    lat = hongsi_latencies(args.samples, args.seed)
    print(f"hongsi     judge one play, median:                       {lat['judge_play_us']:10.2f} µs"
          f"  (over {lat['judge_samples']} plays; target ≤ 20 µs)")
    print(f"hongsi     list every legal play of a 13-card hand:      {lat['legal_plays_13_us']:10.2f} µs"
          f"  (as events; rank level {lat['legal_plays_13_rank_level_us']:.2f} µs; over {lat['list_samples']} hands)")


if __name__ == "__main__":
    main()
