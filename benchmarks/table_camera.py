"""Whole simulated hands refereed from the virtual table camera alone (issue 29's targets).

Bots play every seat; each play is thrown onto the virtual table (``firmware_bridge.sim.table_camera``)
in the design given, and the table service learns it only from the camera (``controller.table_camera``).
Per design and game: the share of hands whose record is the truth with nobody asked (target >= 95 %),
the hands where a seat was asked, the hands with a wrong play applied (target: none), and the time from
the settled picture to the referee's verdict (target <= 1 s).

    .venv/bin/python benchmarks/table_camera.py --hands 2                      # every game, held-out designs
    .venv/bin/python benchmarks/table_camera.py --game G --design paris --hands 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.camera import open_camera  # noqa: E402
from controller.service.deal import SoftwareDealSource  # noqa: E402
from controller.service.table import TableService  # noqa: E402
from controller.table_camera.watcher import TableWatcher  # noqa: E402
from engine.registry import game_names  # noqa: E402
from firmware_bridge.sim.table_camera import VirtualTable  # noqa: E402
from vision.card_art import HELD_OUT, cached_designs  # noqa: E402


def one_hand(game: str, design: str, seed: int, timeout: float) -> dict:
    """One hand on a fresh table: what the camera made of it."""
    with tempfile.TemporaryDirectory() as tmp:
        svc = TableService(Path(tmp) / "data", SoftwareDealSource(card_delay=0.0, seed=seed), bot_delay=0.0,
                           seed=seed, declare_window=0.0)
        truth = Path(tmp) / "plays.jsonl"
        vt = VirtualTable(seed=seed, design=design, fps=30, truth_path=truth)
        vt.rest = 0.2
        watcher = TableWatcher(svc, open_camera(vt.start()), virtual=vt)
        svc.table_camera = watcher
        watcher.start()
        try:
            rnd = svc.start_round(game=game, bots="all", fair_deal=False, first_seat=0)
            end = time.monotonic() + timeout
            while rnd.phase not in ("finished", "void") and time.monotonic() < end:
                time.sleep(0.2)
            with rnd.lock:
                plays = [(e["seat"], sorted(e["cards"])) for e, ok in zip(rnd.events, rnd.applied, strict=True)
                         if ok and e.get("action") == "play"]
                finished = rnd.phase == "finished"
            landed = [(t["seat"], sorted(t["cards"])) for t in map(json.loads, truth.read_text().splitlines())
                      if "cards" in t] if truth.exists() else []
        finally:
            watcher.close()
            vt.stop()
            svc.close()
    wrong = plays != landed[:len(plays)]
    first = next((i for i, (a, b) in enumerate(zip(plays, landed, strict=False)) if a != b), None)
    return {"finished": finished, "true": finished and plays == landed, "wrong": wrong,
            "first_wrong": None if first is None else {"at": first, "applied": plays[first], "landed": landed[first]},
            "asked": watcher.stats["asked"], "read": watcher.stats["read"], "plays": len(plays),
            "held": watcher.stats["held"], "why": dict(watcher.stats["why"]), "ms": list(watcher.stats["verdict_ms"])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=2, help="hands per game and design")
    ap.add_argument("--game", action="append", help="a game (default: every game)")
    ap.add_argument("--design", action="append", help="a deck design (default: the held-out ones cached)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds a hand may take")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--log", type=Path, help="append each hand's figures as a JSON line")
    args = ap.parse_args()
    games = args.game or list(game_names())
    designs = args.design or [d for d in HELD_OUT if d in cached_designs()] or ["poker"]
    out = Table(title="whole hands refereed from the virtual table camera alone")
    for col in ("design", "game", "hands", "record = truth, nobody asked", "a seat asked", "wrong play applied",
                "plays read", "settle → verdict ms (median / p95 / max)"):
        out.add_column(col)
    why: Counter = Counter()  # why the reader asked, over every hand
    with Progress() as bar:
        task = bar.add_task("hands", total=len(games) * len(designs) * args.hands)
        for design in designs:
            for game in games:
                got = []
                for i in range(args.hands):
                    got.append(one_hand(game, design, args.seed + i, args.timeout))
                    why.update(got[-1]["why"])
                    if args.log:
                        with open(args.log, "a") as f:
                            f.write(json.dumps({"design": design, "game": game, "seed": args.seed + i, **got[-1]}) + "\n")
                    bar.advance(task)
                n = len(got)
                alone = sum(g["true"] and not g["asked"] for g in got)
                asked = sum(bool(g["asked"]) for g in got)
                wrong = sum(g["wrong"] for g in got)
                ms = sorted(m for g in got for m in g["ms"])
                plays, read = sum(g["plays"] for g in got), sum(g["read"] for g in got)
                p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))] if ms else 0
                out.add_row(design, game, str(n), f"{alone}/{n} ({100 * alone / n:.0f} %)", str(asked), str(wrong),
                            f"{read}/{plays}", f"{statistics.median(ms) if ms else 0:.0f} / {p95} / {max(ms, default=0)}")
    console = Console(width=170)
    console.print(out)
    reasons = Table(title="why the reader asked (plays read as None; a refused reading is asked too)")
    reasons.add_column("plays", justify="right")
    reasons.add_column("why")
    for text, n in why.most_common():
        reasons.add_row(str(n), text)
    console.print(reasons)


if __name__ == "__main__":
    main()
