"""Choose the policy for photos read from their plain outline (issue 28, stop 42; docs/vision-decisions.md).

    .venv/bin/python benchmarks/vision_outlined_policy.py [--per-design 108] [--seed 4200]

On the calibration designs (the anglo and oxygen families), table and tight photos are read by the committee; a
photo whose evidence is its plain outline's with a clear corner is judged by ``DECLINE_POLICY["outlined"]``, every
other one by ``frame``. Over stop 27's grid, the outlined policy with the fewest declines (table and tight photos
together) such that neither kind gets more wrong answers than the installed policies give on the same pictures;
ties to the stricter point. Prints the installed and the chosen figures (to be copied into ``vision/reader.py``).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.vision_policy import AGREE, CALIBRATION_FAMILIES, CONFIDENCE, family  # noqa: E402
from vision.corner_data import NONE_CLASS  # noqa: E402
from vision.labels import LABELS  # noqa: E402
from vision.reader import DECLINE_POLICY, MIN_MARGIN, CardReader, Policy, pooled_features  # noqa: E402
from vision.render import render_table_frame, render_tight_photo  # noqa: E402

KINDS = ("table", "tight")


@dataclass
class Photo:
    truth: int
    pooled: object | None  # the committee's Pooled features, None: no card found
    outlined: bool  # read from its plain outline with a clear corner


def read(reader: CardReader, image: np.ndarray, truth: str) -> Photo:
    outlined: set = set()
    ev = reader._evidence(image, "frame", True, None, outlined)
    return Photo(LABELS.index(truth), None if ev is None else pooled_features(ev[0]), id(image) in outlined)


def answer(p: Photo, outlined: Policy, frame: Policy) -> int | None:
    """As ``CardReader._decide`` for a committee's photo."""
    f = p.pooled
    if f is None or f.p[NONE_CLASS] > 0.5:
        return None
    pol = outlined if p.outlined else frame
    return f.best if f.margin >= MIN_MARGIN and f.agree >= pol.agree and f.confidence >= pol.confidence else None


def tally(photos: list[Photo], outlined: Policy, frame: Policy) -> tuple[int, int, int]:
    got = [answer(p, outlined, frame) for p in photos]
    right = sum(a == p.truth for a, p in zip(got, photos, strict=True))
    wrong = sum(a is not None and a != p.truth for a, p in zip(got, photos, strict=True))
    return right, wrong, len(photos) - right - wrong


def collect(reader: CardReader, designs: list[str], n: int, seed: int, progress) -> dict[str, dict[str, list[Photo]]]:
    out = {}
    for i, d in enumerate(designs):
        rng = np.random.default_rng(seed + i)
        task = progress.add_task(d, total=n)
        got: dict[str, list[Photo]] = {k: [] for k in KINDS}
        for k in range(n):
            truth = LABELS[k % len(LABELS)]
            got["table"].append(read(reader, render_table_frame(truth, rng, design=d), truth))
            got["tight"].append(read(reader, render_tight_photo(truth, rng, design=d, finger=k % 4 == 3), truth))
            progress.advance(task)
        out[d] = got
    return out


def choose(pooled: dict[str, list[Photo]], frame: Policy, installed: Policy) -> Policy:
    """Fewest declines with no more wrong answers than the installed policies, per kind; ties to the stricter."""
    bound = {k: tally(pooled[k], installed, frame)[1] for k in KINDS}
    best, best_key = installed, None
    for k in AGREE:
        for t in CONFIDENCE:
            p = Policy(k, t)
            res = {s: tally(pooled[s], p, frame) for s in KINDS}
            if any(res[s][1] > bound[s] for s in KINDS):
                continue
            key = (-sum(r[2] for r in res.values()), k, t)
            if best_key is None or key > best_key:
                best, best_key = p, key
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--per-design", type=int, default=108)
    ap.add_argument("--seed", type=int, default=4200)
    args = ap.parse_args()
    console = Console(width=160)
    designs = family(*CALIBRATION_FAMILIES)
    with Progress(console=console, transient=True) as progress:
        got = collect(CardReader(threads=1), designs, args.per_design, args.seed, progress)
    pooled = {k: [p for g in got.values() for p in g[k]] for k in KINDS}
    frame, installed = DECLINE_POLICY["frame"], DECLINE_POLICY["outlined"]
    chosen = choose(pooled, frame, installed)
    console.print(f"chosen on {', '.join(designs)}: DECLINE_POLICY['outlined'] = {chosen}")
    table = Table(title=f"calibration designs, {args.per_design} of each per design (seed {args.seed}), r / w / d")
    table.add_column("design")
    for name in ("installed", "chosen"):
        for k in KINDS:
            table.add_column(f"{name}: {k}")
    table.add_column("outlined share: table / tight")
    for d, g in list(got.items()) + [("all", pooled)]:
        cells = [" / ".join(map(str, tally(g[k], pol, frame))) for pol in (installed, chosen) for k in KINDS]
        share = " / ".join(f"{sum(p.outlined for p in g[k])}" for k in KINDS)
        table.add_row(d, *cells, share)
    console.print(table)


if __name__ == "__main__":
    main()
