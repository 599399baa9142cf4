"""Choose the reader's decline policy by measured risk (issue 28; docs/vision-decisions.md, stop 27).

    .venv/bin/python benchmarks/vision_policy.py [--per-design 54] [--seed 270]

Held-out designs are split by whole family: the calibration designs choose, per kind of input, the
committee thresholds (members agreeing *k*, pooled probability *t*) with the fewest declines whose wrong
answers stay within the issue's targets; the report designs, read only after the choice, give the figures.
Prints both tables and the chosen ``DECLINE_POLICY`` (to be copied into ``vision/reader.py``).
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.card_art import ART_DESIGNS, cached_designs  # noqa: E402
from vision.corner_data import NONE_CLASS  # noqa: E402
from vision.labels import LABELS  # noqa: E402
from vision.reader import (  # noqa: E402
    CONSULT_BELOW,
    DECLINE_POLICY,
    MIN_CONFIDENCE,
    MIN_MARGIN,
    CardReader,
    Policy,
    pooled_features,
)
from vision.render import render_table_frame, render_tight_photo, render_window_frame  # noqa: E402

CALIBRATION_FAMILIES = ("anglo", "oxygen")
REPORT_FAMILIES = ("paris", "ornamental")
WRONG_TARGET = {"window": 0.001, "table": 0.005, "tight": 0.01}
AGREE = (3, 4, 5)
CONFIDENCE = (0.40, 0.50, 0.60, 0.70, 0.80, 0.90, 0.95, 0.99)
STOP27 = {"window": Policy(5, 0.8), "frame": Policy(5, 0.9)}  # what stop 27 chose (stop 28 compares with it)


def family(*names: str) -> list[str]:
    return [d for d, (_, _, fam) in ART_DESIGNS.items() if fam in names]


@dataclass
class Sample:
    """What the policy sees of one picture: the first member alone (window only) and the committee."""
    truth: int
    first: object | None  # Pooled, or None: no card found
    committee: object | None


def sample(reader: CardReader, image: np.ndarray, kind: str, truth: str) -> Sample:
    outlines: dict = {}
    first = None
    if kind == "window":
        ev = reader._evidence(image, kind, False, outlines)
        first = None if ev is None else pooled_features(ev[0])
        if first is None or first.p[NONE_CLASS] > 0.5:
            return Sample(LABELS.index(truth), first, None)
    ev = reader._evidence(image, kind, True, outlines)
    return Sample(LABELS.index(truth), first, None if ev is None else pooled_features(ev[0]))


def answer(s: Sample, kind: str, policy: Policy) -> int | None:
    """The label index the reader answers with under ``policy``, None if it declines (as CardReader)."""
    if kind == "window":
        f = s.first
        if f is None or f.p[NONE_CLASS] > 0.5:
            return None
        if f.margin >= MIN_MARGIN and f.confidence >= max(MIN_CONFIDENCE["window"], CONSULT_BELOW):
            return f.best
    c = s.committee
    if c is None or c.p[NONE_CLASS] > 0.5:
        return None
    return c.best if c.margin >= MIN_MARGIN and c.agree >= policy.agree and c.confidence >= policy.confidence else None


def tally(samples: list[Sample], kind: str, policy: Policy) -> tuple[int, int, int]:
    right = wrong = 0
    for s in samples:
        a = answer(s, kind, policy)
        right += a == s.truth
        wrong += a is not None and a != s.truth
    return right, wrong, len(samples) - right - wrong


def collect(reader: CardReader, designs: list[str], n: int, seed: int, progress) -> dict[str, dict[str, list[Sample]]]:
    """{design: {"window"|"table"|"tight": samples}}, n pictures of each per design."""
    out = {}
    for i, d in enumerate(designs):
        rng = np.random.default_rng(seed + i)
        task = progress.add_task(d, total=n)
        got: dict[str, list[Sample]] = {"window": [], "table": [], "tight": []}
        for k in range(n):
            truth = LABELS[k % len(LABELS)]
            got["window"].append(sample(reader, render_window_frame(truth, rng, design=d), "window", truth))
            got["table"].append(sample(reader, render_table_frame(truth, rng, design=d), "frame", truth))
            tight = render_tight_photo(truth, rng, design=d, finger=k % 4 == 3)
            got["tight"].append(sample(reader, tight, "frame", truth))
            progress.advance(task)
        out[d] = got
    return out


def choose(pooled: dict[str, list[Sample]]) -> dict[str, Policy]:
    """The stop-27 rule: fewest declines within the wrong bounds, ties to the stricter point."""
    chosen = {}
    for kind, subsets in (("window", ("window",)), ("frame", ("table", "tight"))):
        best, best_key = Policy(5, 0.99), None
        for k in AGREE:
            for t in CONFIDENCE:
                p = Policy(k, t)
                results = {s: tally(pooled[s], "window" if s == "window" else "frame", p) for s in subsets}
                if any(w > math.floor(WRONG_TARGET[s] * len(pooled[s])) for s, (_, w, _) in results.items()):
                    continue
                key = (-sum(d for _, _, d in results.values()), k, t)
                if best_key is None or key > best_key:
                    best, best_key = p, key
        chosen[kind] = best
    return chosen


def show(console: Console, title: str, data: dict, policies: dict[str, dict[str, Policy]]) -> None:
    table = Table(title=title)
    table.add_column("design")
    for name in policies:
        for s in ("window", "table", "tight"):
            table.add_column(f"{name}: {s} r/w/d")
    rows = list(data.items())
    pooled = {s: [x for _, got in rows for x in got[s]] for s in ("window", "table", "tight")}
    for d, got in rows + [("all", pooled)]:
        cells = []
        for pol in policies.values():
            for s in ("window", "table", "tight"):
                r, w, dec = tally(got[s], "window" if s == "window" else "frame", pol["window" if s == "window" else "frame"])
                cells.append(f"{r} / {w} / {dec}")
        table.add_row(d, *cells)
    console.print(table)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--per-design", type=int, default=54)
    ap.add_argument("--seed", type=int, default=270)
    ap.add_argument(
        "--installed",
        choices=("calibration", "report"),
        default=None,
        help="only read these designs with the installed DECLINE_POLICY (no choice)",
    )
    args = ap.parse_args()
    console = Console(width=200)
    calibration, report = family(*CALIBRATION_FAMILIES), family(*REPORT_FAMILIES)
    if args.installed:
        designs, seed = (
            (calibration, args.seed) if args.installed == "calibration" else (report, args.seed + 100)
        )
        with Progress(console=console, transient=True) as progress:
            got = collect(CardReader(threads=1), designs, args.per_design, seed, progress)
        show(console, f"{args.installed} designs, the installed policy", got, {"installed": DECLINE_POLICY})
        return
    missing = sorted(set(calibration + report) - set(cached_designs()))
    if missing:
        console.print(f"not rasterised: {', '.join(missing)} (run: python -m vision.card_art)")
        raise SystemExit(2)
    reader = CardReader(threads=1)
    with Progress(console=console, transient=True) as progress:
        cal = collect(reader, calibration, args.per_design, args.seed, progress)
    pooled = {s: [x for got in cal.values() for x in got[s]] for s in ("window", "table", "tight")}
    chosen = choose(pooled)
    console.print(f"chosen on {', '.join(calibration)}: DECLINE_POLICY window={chosen['window']} frame={chosen['frame']}")
    show(console, "calibration designs", cal, {"stop 27": STOP27, "chosen": chosen})
    with Progress(console=console, transient=True) as progress:
        rep = collect(reader, report, args.per_design, args.seed + 100, progress)
    show(console, "report designs (read once, after the choice)", rep, {"stop 27": STOP27, "chosen": chosen})


if __name__ == "__main__":
    main()
