"""How training recipes read real photos they never saw: models trained with ``vision.train --holdout
SHARE --holdout-subset SUBSET --seed SEED`` are each read alone (``--kind corner``, the reader's own
thresholds) on the ``fit`` crops that run held out, and the crops any of them gets wrong are drawn.

    .venv/bin/python benchmarks/vision_holdout.py --seed 41 --share 0.5 --subset webcam_handheld \\
        --model control=C.onnx --model pip-shapes=P.onnx [--out /tmp/holdout.png]

Only models trained with the same seed, share and subsets held out the same photos: a paired comparison.
The committed members saw every ``fit`` photo, so they are no peer here.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import cv2
from rich.console import Console
from rich.progress import track
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from vision_label_audit import save_sheet, thumb  # noqa: E402

from vision.reader import CardReader  # noqa: E402
from vision.train import REAL_DIR, held_out_frames, real_rows  # noqa: E402


def _named_model(text: str) -> tuple[str, Path]:
    name, _, path = text.rpartition("=")
    return (name or Path(path).stem), Path(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", type=_named_model, action="append", required=True, metavar="[NAME=]ONNX")
    ap.add_argument("--seed", type=int, required=True, help="the training runs' --seed")
    ap.add_argument("--share", type=float, required=True, help="their --holdout")
    ap.add_argument("--subset", action="append", default=None, help="their --holdout-subset (repeatable)")
    ap.add_argument("--out", type=Path, default=None, help="draw the crops some model gets wrong here (PNG)")
    args = ap.parse_args()
    rows = real_rows("fit", audited=True)
    if not rows:
        sys.exit(f"the real photos are not beside the repository ({REAL_DIR})")
    held = held_out_frames(rows, args.share, args.seed, args.subset)
    rows = [r for r in rows if r["frame"] in held]
    readers = {name: CardReader(path, threads=1) for name, path in args.model}
    stats = {name: Counter() for name in readers}
    missed = []
    for r in track(rows, description="held-out real crops"):
        image = cv2.imread(str(REAL_DIR / r["file"]), cv2.IMREAD_COLOR)
        choices = {}
        for name, reader in readers.items():
            label = reader.read(image, kind="corner").label
            verdict = "declined" if label is None else "right" if label == r["label"] else "wrong"
            s = stats[name]
            s[verdict] += 1
            if r["label"][0] in "SC":
                s["sc_" + verdict] += 1
                s["spade as club" if r["label"][0] == "S" else "club as spade"] += (
                    verdict == "wrong" and label[0] in "SC" and label[0] != r["label"][0])
            choices[name] = label
        if any(c is not None and c != r["label"] for c in choices.values()):
            missed.append((image, r["label"], choices))
    table = Table(title=f"{len(rows)} held-out real crops of {len(held)} photos "
                        f"({', '.join(args.subset or ['every subset'])}; seed {args.seed}, share {args.share})")
    for col in ("model", "right / wrong / declined", "spades and clubs: right / wrong / declined",
                "spades read as clubs", "clubs read as spades"):
        table.add_column(col)
    for name, s in stats.items():
        table.add_row(name, f"{s['right']} / {s['wrong']} / {s['declined']}",
                      f"{s['sc_right']} / {s['sc_wrong']} / {s['sc_declined']}",
                      str(s["spade as club"]), str(s["club as spade"]))
    Console(width=140).print(table)
    if args.out and missed:
        save_sheet([thumb(image, f"label {truth}", " ".join(c or "-" for c in choices.values()))
                    for image, truth, choices in missed], args.out)
        print(f"{len(missed)} crops drawn to {args.out} (below each: {' '.join(readers)})")


if __name__ == "__main__":
    main()
