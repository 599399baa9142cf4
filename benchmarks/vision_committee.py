"""How the committee reads the real ``eval`` crops (``--kind corner``): per subset, how many crops its
members disagree on, and how many of those the first model alone would have answered wrong; draws the
crops they disagree on, each with its label and each member's choice.

    .venv/bin/python benchmarks/vision_committee.py [--out docs/committee-disagreements.png]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
from rich.console import Console
from rich.progress import track
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from vision_label_audit import save_sheet, thumb  # noqa: E402

from vision.reader import CardReader  # noqa: E402
from vision.train import REAL_DIR, real_rows  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path,
                    default=Path(__file__).resolve().parents[1] / "docs" / "committee-disagreements.png")
    ap.add_argument("--tiles", type=int, default=36, help="at most this many crops in the picture")
    args = ap.parse_args()
    rows = real_rows("eval", audited=True)
    if not rows:
        sys.exit(f"the real photos are not beside the repository ({REAL_DIR})")
    committee = CardReader(threads=1)
    alone = CardReader(committee.paths[0], threads=1)
    stats: dict[str, Counter] = {}
    split: list[tuple[str, np.ndarray, str, list]] = []
    for r in track(rows, description="real eval crops"):
        image = cv2.imread(str(REAL_DIR / r["file"]), cv2.IMREAD_COLOR)
        truth = r.get("source_label", r["label"])
        s = stats.setdefault(r["subset"], Counter())
        s["n"] += 1
        choices = committee.member_choices(image, "corner")
        if len(set(choices)) > 1:
            s["split"] += 1
            first = alone.read(image, kind="corner").label
            s["alone_wrong"] += first is not None and first != truth
            s["alone_right"] += first == truth
            split.append((r["subset"], image, truth, choices))
    table = Table(title=f"the committee ({len(committee.paths)} models) on the real eval crops")
    for col in ("subset", "crops", "members disagree", "of those, the first model alone: wrong / right"):
        table.add_column(col)
    for subset, s in sorted(stats.items()):
        table.add_row(subset, str(s["n"]), f"{s['split']} ({s['split'] / s['n']:.1%})",
                      f"{s['alone_wrong']} / {s['alone_right']}")
    Console(width=120).print(table)
    # the picture: the disagreements, the hardest subsets first
    split.sort(key=lambda t: -stats[t[0]]["split"] / stats[t[0]]["n"])
    tiles = [thumb(image, f"label {truth}", " ".join(c or "-" for c in choices))
             for _, image, truth, choices in split[:args.tiles]]
    if tiles:
        save_sheet(tiles, args.out)
        print(f"{len(tiles)} crops drawn to {args.out} ({args.out.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
