"""Rules-engine speed: hands per second for every game, the median µs to judge one play, side by side
with OpenSpiel's hearts and dou_dizhu through pyspiel (and RLCard's Dou Dizhu) in the same run.

How to run (from the project root)::

    make bench                                              # every benchmark, the peers installed
    .venv/bin/python benchmarks/engine_speed.py            # ~1 min
    .venv/bin/python benchmarks/engine_speed.py --seconds 2 # quicker, noisier
    .venv/bin/python benchmarks/engine_speed.py --seconds 1.5 --rounds 12  # + the ratio to OpenSpiel, interleaved

The peers need ``open_spiel`` and ``rlcard``, which are NOT project dependencies. ``make bench`` installs
them in their own environment, ``.benchvenv`` (or by hand: ``python3 -m venv .benchvenv &&
.benchvenv/bin/pip install open_spiel rlcard numpy``). The peers run with the Python named by
``--peer-python`` (default ``$HONGSI_BENCH_PEER_PYTHON`` or ``.benchvenv/bin/python``) in a subprocess
pinned to the same core. Rates are per second of the process's own CPU time, so that other load on a
shared machine does not skew the ratio.

What it prints, per game whose engine module imports (``engine.registry.game_names()``):
- self-play hands/s: random bots play every seat and every action goes through ``State.judge``;
- referee hands/s: the recorded hands parsed and judged again from JSON (``engine.referee``);
- judge µs: the median time of ``State.judge`` on one play event, replaying the recorded hands;
and for 红桃四 also the median µs to list every legal play of a 13-card hand. The peers print games/s
and the median µs of ``legal_actions()`` at a decision node (dou_dizhu: in card play, past the bidding).
Targets (issue 34): every game 2× its hands/s of ``benchmarks/engine_speed.md``'s first figures, 红桃四 at
or above OpenSpiel's dou_dizhu, 升级 ≥ 1,000 hands/s, judging one play ≤ 5 µs median.
Figures measured so far: ``benchmarks/engine_speed.md``.
"""

from __future__ import annotations

import argparse
import gc
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
import json, random, statistics, sys, time

def rlcard_rate(seconds, seed):
    import numpy as np
    from rlcard.games.doudizhu.game import DoudizhuGame
    rng = random.Random(seed)
    game = DoudizhuGame(np.random.RandomState(seed))
    n, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        state, _ = game.init_game()
        while not game.is_over():
            state, _ = game.step(rng.choice(state["actions"]))
        n += 1
    return n / (time.process_time() - start)

def spiel_rate(name, seconds, seed):
    # random play through pyspiel, chance nodes (the deal) sampled too; the median µs of
    # legal_actions() at decision nodes (dou_dizhu: once card play has begun; hearts: passing and play)
    import pyspiel
    game = pyspiel.load_game(name)
    rng = random.Random(seed)
    clock = time.perf_counter_ns
    lat = []
    n, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = [a for a, _ in state.chance_outcomes()]
                state.apply_action(rng.choice(outcomes))
                continue
            t0 = clock()
            legal = state.legal_actions()
            t1 = clock()
            if len(lat) < 50000 and (name == "hearts" or legal[-1] > 3):  # dou_dizhu: past the bidding
                lat.append(t1 - t0)
            state.apply_action(rng.choice(legal))
        n += 1
    rate = n / (time.process_time() - start)
    return rate, statistics.median(lat) / 1000 if lat else None

if __name__ == "__main__":
    seconds, seed, which = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3].split(",")
    out = {}
    for name in which:
        try:
            if name == "rlcard_doudizhu":
                out[name] = {"games_per_s": rlcard_rate(seconds, seed)}
            else:
                rate, lat = spiel_rate(name, seconds, seed)
                out["openspiel_" + name] = {"games_per_s": rate, "legal_actions_us": lat}
        except ImportError as exc:
            out[name] = {"error": f"not installed ({exc.name})"}
    print(json.dumps(out))
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
        if len(records) % 64 == 0:
            # the hands kept for the referee's turn are the benchmark's, not the engine's: out of the garbage
            # collector's sight, or it walks them again and again (half of 升级's time per hand)
            gc.freeze()
    gc.unfreeze()
    return len(records) / (time.process_time() - start), records


def referee_rate(records: list[dict]) -> tuple[float, int]:
    texts = [json.dumps(r) for r in records]
    # the self-play records the caller keeps are the benchmark's, as in selfplay_rate: out of the collector's
    # sight while the referee runs (else its full collections walk them: a quarter of 升级's referee time)
    gc.freeze()
    start = time.process_time()
    violations = 0
    for text in texts:
        violations += len(judge_record(parse_record(json.loads(text)))["violations"])
    rate = len(texts) / (time.process_time() - start)
    gc.unfreeze()
    return rate, violations


def judge_latency(records: list[dict], limit: int = 50000) -> tuple[float, int]:
    """Median µs of ``State.judge`` on one play event, replaying ``records`` (every event is judged; the
    play events are timed)."""
    clock = time.perf_counter_ns
    times: list[int] = []
    for rec in records:
        r = parse_record(rec)
        game = get_game(r.game)
        state = game.new_state(r.hands, r.bottom, game.settings(r.preset, r.rules))
        for event in r.events:
            t0 = clock()
            state.judge(event)
            t1 = clock()
            if event["action"] == "play":
                times.append(t1 - t0)
        if len(times) >= limit:
            break
    return statistics.median(times) / 1000, len(times)


def hongsi_listing(samples: int, seed: int) -> tuple[float, float]:
    """Median µs to list every legal play of a full 13-card hand at the first lead: as events
    (``legal_actions``) and as rank-level combinations."""
    from engine.hongsi import combos as C
    from engine.hongsi.bots import talk
    from engine.hongsi.state import HongsiState

    game = get_game("hongsi")
    rng = random.Random(seed)
    events, ranks = [], []
    clock = time.perf_counter_ns
    while len(events) < samples:
        state = HongsiState(game.deal(rng), game.settings())
        talk(state, rng, state.judge)
        seat = state.current_player()
        s = state.settings
        t0 = clock()
        state.legal_actions(seat)
        t1 = clock()
        C.lead_combos(state.hands[seat], bombs=s.bombs, min_pair_run=s.min_pair_run)
        t2 = clock()
        events.append(t1 - t0)
        ranks.append(t2 - t1)
    return statistics.median(events) / 1000, statistics.median(ranks) / 1000


PEERS = ("dou_dizhu", "hearts", "rlcard_doudizhu")


def peer_figures(seconds: float, seed: int, python: str, which: tuple[str, ...] = PEERS) -> tuple[dict, str]:
    """The peers' figures, run by ``python`` in a subprocess pinned to this process's core."""
    if not Path(python).exists():
        return {}, f"no {python}; see the top of this script"
    try:
        cpu = min(os.sched_getaffinity(0))
        preexec = lambda: os.sched_setaffinity(0, {cpu})  # noqa: E731
    except (AttributeError, OSError):
        preexec = None
    cmd = [python, "-c", PEER_CODE, str(seconds), str(seed), ",".join(which)]
    proc = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=preexec, timeout=seconds * 30 + 120)
    if proc.returncode != 0:
        return {}, f"the peer failed: {proc.stderr.strip().splitlines()[-1:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1]), f"subprocess {python}"


def interleaved(games: list[str], rounds: int, seconds: float, seed: int, python: str) -> None:
    """The ratio to OpenSpiel's dou_dizhu, round by round: the peer, then each game, then the next round.

    On a shared machine one run's ratio moves by ±20 % with the other jobs' bursts; a burst now hits a peer
    and the games measured beside it, so the median over rounds is the figure to quote."""
    ratios: dict[str, list[float]] = {name: [] for name in games}
    for r in range(rounds):
        peers, how = peer_figures(seconds, seed + r, python, ("dou_dizhu",))
        spiel = peers.get("openspiel_dou_dizhu", {}).get("games_per_s")
        if not spiel:
            print(f"interleaved: no peer figure ({how}); stopped")
            return
        for name in games:
            rate, _ = selfplay_rate(name, seconds, seed + r)
            ratios[name].append(rate / spiel)
    print(f"self-play ÷ OpenSpiel dou_dizhu, {rounds} interleaved rounds of {seconds:g} s "
          "(median [lowest, highest], rounds at or above 1)")
    for name, got in ratios.items():
        print(f"{name:10s} {statistics.median(got):5.2f}x  [{min(got):.2f}, {max(got):.2f}]"
              f"  {sum(x >= 1 for x in got)} of {len(got)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--samples", type=int, default=1000, help="13-card hands to time the move listing on")
    ap.add_argument("--games", default=",".join(game_names()), help="comma-separated games (default: all)")
    ap.add_argument("--no-peers", action="store_true", help="skip OpenSpiel and RLCard")
    ap.add_argument("--peer-python", default=os.environ.get("HONGSI_BENCH_PEER_PYTHON",
                                                                 str(ROOT / ".benchvenv" / "bin" / "python")))
    ap.add_argument("--rounds", type=int, default=0,
                    help="also this many interleaved rounds (peer, then each game) for a steadier ratio")
    args = ap.parse_args()
    cpu = pin_one_core()
    print(f"engine speed — one core{f' (cpu {cpu})' if cpu is not None else ''}, {args.seconds:g} s a figure, "
          f"Python {sys.version.split()[0]}, rates per CPU second")

    peers, how = ({}, "skipped") if args.no_peers else peer_figures(args.seconds, args.seed, args.peer_python)
    spiel = peers.get("openspiel_dou_dizhu", {}).get("games_per_s")
    for key in ("openspiel_dou_dizhu", "openspiel_hearts", "rlcard_doudizhu"):
        fig = peers.get(key) or peers.get(key.removeprefix("openspiel_"))
        if not fig or "error" in fig:
            print(f"peer  {key:20s} unavailable — {(fig or {}).get('error', how)}")
            continue
        lat = fig.get("legal_actions_us")
        lat_text = f"  legal_actions median {lat:6.2f} µs" if lat is not None else ""
        print(f"peer  {key:20s} random play:  {fig['games_per_s']:10.1f} games/s{lat_text}")

    for name in args.games.split(","):
        try:
            get_game(name)
        except ImportError as exc:
            print(f"{name:10s} not built yet ({exc.name})")
            continue
        rate, records = selfplay_rate(name, args.seconds, args.seed)
        ref_rate, violations = referee_rate(records)
        judge_us, plays = judge_latency(records)
        ratio = f"  = {rate / spiel:5.2f}x OpenSpiel dou_dizhu" if spiel else ""
        print(f"{name:10s} self-play, random bots, every action judged: {rate:10.1f} hands/s{ratio}")
        print(f"{name:10s} referee of the recorded hands from JSON:       {ref_rate:10.1f} hands/s"
              f"  ({len(records)} hands, {violations} violations)")
        print(f"{name:10s} judge one play, median:                       {judge_us:10.2f} µs  (over {plays} plays)")

    if "hongsi" in args.games.split(","):
        events_us, ranks_us = hongsi_listing(args.samples, args.seed)
        print(f"hongsi     list every legal play of a 13-card hand:      {events_us:10.2f} µs"
              f"  (as events; rank level {ranks_us:.2f} µs; over {args.samples} hands)")
    if args.rounds > 0 and not args.no_peers:
        interleaved(args.games.split(","), args.rounds, args.seconds, args.seed, args.peer_python)


if __name__ == "__main__":
    main()
