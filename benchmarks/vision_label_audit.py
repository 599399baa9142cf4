"""Draws the audited real crops: each crop of ``vision/real_label_audit.csv`` with its source label,
the label a look at it gives and its split, so anyone can check the audit by eye.

    .venv/bin/python benchmarks/vision_label_audit.py [--out docs/real-label-audit.png]
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.train import AUDIT_PATH, REAL_DIR  # noqa: E402

THUMB_W, THUMB_H, COLUMNS = 96, 150, 9


def thumb(image: np.ndarray, top: str, bottom: str) -> np.ndarray:
    """The crop scaled into a tile, with a caption band above (source label) and below (audited)."""
    h, w = image.shape[:2]
    k = min(THUMB_W / w, THUMB_H / h)
    small = cv2.resize(image, (max(1, round(w * k)), max(1, round(h * k))), interpolation=cv2.INTER_CUBIC)
    tile = np.full((THUMB_H + 36, THUMB_W, 3), 255, np.uint8)
    y, x = 18 + (THUMB_H - small.shape[0]) // 2, (THUMB_W - small.shape[1]) // 2
    tile[y:y + small.shape[0], x:x + small.shape[1]] = small
    cv2.putText(tile, top, (3, 13), cv2.FONT_HERSHEY_SIMPLEX, _fit(top), (40, 40, 200), 1, cv2.LINE_AA)
    cv2.putText(tile, bottom, (3, THUMB_H + 31), cv2.FONT_HERSHEY_SIMPLEX, _fit(bottom), (30, 140, 30), 1, cv2.LINE_AA)
    return tile


def _fit(text: str, scale: float = 0.4) -> float:
    """The font scale, at most ``scale``, at which ``text`` fits in a tile's width."""
    width = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)[0][0]
    return min(scale, scale * (THUMB_W - 6) / max(1, width))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "docs" / "real-label-audit.png")
    args = ap.parse_args()
    with AUDIT_PATH.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    labels = REAL_DIR / "labels.csv"
    if not labels.exists():
        sys.exit(f"the real photos are not beside the repository ({REAL_DIR})")
    with labels.open(newline="") as fh:
        split = {r["file"]: r["split"] for r in csv.DictReader(fh)}
    tiles = []
    for r in rows:
        image = cv2.imread(str(REAL_DIR / r["file"]), cv2.IMREAD_COLOR)
        if image is None:
            sys.exit(f"cannot read {REAL_DIR / r['file']} (are the real photos beside the repository?)")
        tiles.append(thumb(image, f"source {r['source_label']}", f"seen {r['label']} ({split.get(r['file'], '?')})"))
    save_sheet(tiles, args.out)
    print(f"{len(rows)} audited crops drawn to {args.out} ({args.out.stat().st_size // 1024} KiB)")


def save_sheet(tiles: list[np.ndarray], out: Path) -> None:
    """The tiles in rows of ``COLUMNS``, as a PNG."""
    tiles = tiles + [np.full_like(tiles[0], 255)] * (-len(tiles) % COLUMNS)
    sheet = np.vstack([np.hstack(tiles[i:i + COLUMNS]) for i in range(0, len(tiles), COLUMNS)])
    out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), sheet, [cv2.IMWRITE_PNG_COMPRESSION, 9])


if __name__ == "__main__":
    main()
