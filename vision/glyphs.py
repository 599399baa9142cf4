"""Card-index glyphs in real typefaces (issue 28): rank letters and suit pips of installed TrueType/Type 1
fonts, rasterised once by librsvg's ``rsvg-convert`` into a mask cache (no font library at run time).

Usage::

    python -m vision.glyphs                    # build the atlas (build/glyphs/atlas.npz, a few seconds)
    python -m vision.glyphs --sheet out.png    # ... and a contact sheet of every glyph, to look at
    rank_mask("Q", "Nimbus Roman|bold|normal")   # a tight float32 mask (ink = 1), or None

The fonts come from Debian packages (``scripts/install-system.sh``: fonts-urw-base35, fonts-liberation2,
fonts-freefont-ttf, fonts-dejavu-core, fonts-crosextra-*, fonts-linuxlibertine). Each face is one SVG of
``<text>`` cells, so one ``rsvg-convert`` call draws all its glyphs; a face fontconfig would substitute
(a family or a bold/italic it lacks) is left out, so a glyph is always the named typeface's own. Suit pips
(♠ ♥ ♦ ♣) come only from fonts that have them. ``vision.render`` draws with these only when asked
(``use_ttf_fonts``); without the atlas it keeps its Hershey fonts.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path
from xml.sax.saxutils import escape

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
CACHE = Path(os.environ.get("HONGSI_GLYPHS", REPO / "build" / "glyphs"))

RANK_GLYPHS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "1", "0")  # 1 and 0: tight 10s
SUIT_GLYPHS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}

RANK_FAMILIES = (  # serif, sans, narrow, geometric, script, mono: the range printed decks use
    "Nimbus Roman", "Nimbus Sans", "Nimbus Sans Narrow", "URW Bookman", "C059", "P052", "URW Gothic", "Z003",
    "Nimbus Mono PS", "Liberation Sans", "Liberation Serif", "Liberation Sans Narrow", "FreeSans", "FreeSerif",
    "DejaVu Sans", "DejaVu Serif", "DejaVu Sans Condensed", "DejaVu Serif Condensed", "Carlito", "Caladea",
    "Linux Libertine O", "Linux Biolinum O",
)
SUIT_FAMILIES = ("DejaVu Sans", "DejaVu Serif", "FreeSans", "FreeSerif", "C059", "D050000L",
                 "Standard Symbols PS", "Liberation Mono")
SUIT_WRONG = ("FreeSerif|bold|normal", "FreeSerif|bold|italic")  # their U+2660 is a club and U+2663 a spade
FACES = (("normal", "normal"), ("bold", "normal"), ("normal", "italic"), ("bold", "italic"))  # weight, style
CELL = 220  # pixels a glyph cell; text at FONT_PX
FONT_PX = 120


def face_key(family: str, weight: str, style: str) -> str:
    return f"{family}|{weight}|{style}"


def _resolves(family: str, weight: str, style: str) -> bool:
    """Whether fontconfig has this face itself (not a substitute family, not a faked bold or slant)."""
    if not shutil.which("fc-match"):
        return True
    pattern = family + (":bold" if weight == "bold" else "") + (":italic" if style == "italic" else "")
    out = subprocess.run(["fc-match", "-f", "%{family}|%{style}", pattern],
                         capture_output=True, text=True, check=False).stdout
    fams, _, face = out.partition("|")
    if family not in fams.split(","):
        return False
    face = face.split(",")[0].lower()  # the face's own style name: fontconfig's synthetic bold reports weight 200
    bold = "bold" in face or "demi" in face
    italic = "italic" in face or "oblique" in face
    return bold == (weight == "bold") and italic == (style == "italic")


def _svg(family: str, weight: str, style: str, texts: list[str]) -> str:
    cells = []
    for i, t in enumerate(texts):
        x, y = i * CELL + CELL // 6, CELL * 2 // 3
        cells.append(f'<text x="{x}" y="{y}" font-family="{escape(family)}" font-weight="{weight}" '
                     f'font-style="{style}" font-size="{FONT_PX}px">{escape(t)}</text>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{CELL * len(texts)}" height="{CELL}">'
            + "".join(cells) + "</svg>")


def rasterise(family: str, weight: str, style: str, texts: list[str]) -> list[np.ndarray | None]:
    """Each of ``texts`` in one face as a tight uint8 mask (None where nothing was drawn)."""
    with tempfile.TemporaryDirectory() as tmp:
        src, png = Path(tmp) / "g.svg", Path(tmp) / "g.png"
        src.write_text(_svg(family, weight, style, texts), encoding="utf-8")
        subprocess.run(["rsvg-convert", "-o", str(png), str(src)], check=True, capture_output=True)
        img = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
    alpha = img[..., 3] if img.ndim == 3 and img.shape[2] == 4 else 255 - cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    out: list[np.ndarray | None] = []
    for i in range(len(texts)):
        cell = alpha[:, i * CELL:(i + 1) * CELL]
        ys, xs = np.nonzero(cell > 40)
        out.append(None if len(ys) < 20 else np.ascontiguousarray(cell[ys.min():ys.max() + 1, xs.min():xs.max() + 1]))
    return out


def build(out_dir: Path | None = None, rank_families=RANK_FAMILIES, suit_families=SUIT_FAMILIES,
          faces=FACES) -> dict[str, np.ndarray]:
    """Rasterise every available face's glyphs into ``out_dir/atlas.npz`` (keys ``rank|face`` and
    ``suit|face``, face as :func:`face_key`); returns the masks."""
    if not shutil.which("rsvg-convert"):
        raise SystemExit("rsvg-convert is missing: apt-get install librsvg2-bin")
    out_dir = Path(out_dir or CACHE)
    masks: dict[str, np.ndarray] = {}
    for families, glyphs in ((rank_families, list(RANK_GLYPHS)), (suit_families, list(SUIT_GLYPHS))):
        for family in families:
            for weight, style in faces:
                if not _resolves(family, weight, style) or (
                        glyphs[0] == "S" and face_key(family, weight, style) in SUIT_WRONG):
                    continue
                texts = [SUIT_GLYPHS.get(g, g) for g in glyphs]
                drawn = rasterise(family, weight, style, texts)
                if any(m is None for m in drawn):
                    continue  # a face missing a glyph is left out whole
                for g, m in zip(glyphs, drawn, strict=True):
                    masks[f"{g}|{face_key(family, weight, style)}"] = m
    out_dir.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out_dir / "atlas.npz", **masks)
    _load.cache_clear()
    _mask.cache_clear()
    return masks


def load(cache: Path | None = None) -> dict[str, np.ndarray]:
    """The atlas's masks (empty when it was never built); ``cache``: the directory, :data:`CACHE` by default."""
    return _load(Path(cache or CACHE))


@lru_cache(maxsize=4)
def _load(cache: Path) -> dict[str, np.ndarray]:
    path = cache / "atlas.npz"
    if not path.exists():
        return {}
    with np.load(path) as data:
        return {k: data[k] for k in data.files}


def faces_of(atlas: dict[str, np.ndarray], kind: str) -> tuple[str, ...]:
    """The faces with every rank (``kind="rank"``) or every suit (``"suit"``), sorted."""
    glyphs = RANK_GLYPHS if kind == "rank" else tuple(SUIT_GLYPHS)
    faces = {k.split("|", 1)[1] for k in atlas}
    return tuple(sorted(f for f in faces if all(f"{g}|{f}" in atlas for g in glyphs)))


@lru_cache(maxsize=2048)
def _mask(key: str, cache: Path) -> np.ndarray | None:
    m = load(cache).get(key)
    return None if m is None else m.astype(np.float32) / 255.0


def rank_mask(rank: str, face: str, tight: bool = False, cache: Path | None = None) -> np.ndarray | None:
    """``rank`` in ``face`` as a tight float32 mask; ``tight``: a 10 set as a 1 and a 0 almost touching."""
    cache = Path(cache or CACHE)
    if rank == "10" and tight:
        one, zero = _mask(f"1|{face}", cache), _mask(f"0|{face}", cache)
        if one is None or zero is None:
            return None
        h = max(one.shape[0], zero.shape[0])
        gap = max(1, h // 40)
        parts = [cv2.resize(m, (max(1, int(round(m.shape[1] * h / m.shape[0]))), h)) for m in (one, zero)]
        return np.concatenate([parts[0], np.zeros((h, gap), np.float32), parts[1]], 1)
    return _mask(f"{rank}|{face}", cache)


def suit_mask(suit: str, face: str, cache: Path | None = None) -> np.ndarray | None:
    return _mask(f"{suit}|{face}", Path(cache or CACHE))


def contact_sheet(atlas: dict[str, np.ndarray], cell: int = 48) -> np.ndarray:
    """Every face's glyphs, one face a row (ranks, then suits): for a look."""
    rows = []
    for kind, glyphs in (("rank", RANK_GLYPHS), ("suit", tuple(SUIT_GLYPHS))):
        for face in faces_of(atlas, kind):
            row = np.full((cell, cell * len(RANK_GLYPHS)), 255, np.uint8)
            for i, g in enumerate(glyphs):
                m = atlas[f"{g}|{face}"]
                s = (cell - 6) / max(m.shape)
                m = cv2.resize(m, (max(1, int(m.shape[1] * s)), max(1, int(m.shape[0] * s))), interpolation=cv2.INTER_AREA)
                row[3:3 + m.shape[0], i * cell + 3:i * cell + 3 + m.shape[1]] = 255 - m
            rows.append(row)
    return np.concatenate(rows) if rows else np.full((cell, cell), 255, np.uint8)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=None, help=f"the cache directory (default {CACHE})")
    ap.add_argument("--sheet", type=Path, default=None, help="also write a contact sheet PNG here")
    args = ap.parse_args(argv)
    try:
        masks = build(args.out)
    except (OSError, subprocess.CalledProcessError) as e:  # a one-line error, not a traceback
        raise SystemExit(f"could not build the glyph atlas: {e}") from None
    print(f"{(args.out or CACHE) / 'atlas.npz'}: {len(faces_of(masks, 'rank'))} rank faces, "
          f"{len(faces_of(masks, 'suit'))} suit faces")
    if args.sheet:
        cv2.imwrite(str(args.sheet), contact_sheet(masks))


if __name__ == "__main__":
    main()
