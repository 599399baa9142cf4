"""Synthetic card faces and camera frames: the reader's training data and the virtual rig's camera.

Three deck designs come built in — ``"poker"`` (63 x 88 mm), ``"bridge"`` (57 x 89 mm) and ``"guandan"``
(a tall 掼蛋 card with large indices) — plus ``"dark"`` (a black deck with gold and white pips). With
``design=None`` every call draws a fresh random style (font, stroke, index size, pip shapes, colours,
aspect 0.58..0.75), which is what training wants.

Usage::

    rng = np.random.default_rng(7)
    frame = render_window_frame("H4", rng, design="poker")   # the dealer camera's view, BGR uint8
    empty = render_window_frame(None, rng)                    # an empty hopper
    photo = render_table_frame("RJ", rng)                     # one card anywhere on a table

Everything is drawn with OpenCV (Hershey fonts, polygons): no font files, no downloads. A call is
deterministic for a given generator state and takes a few milliseconds. A training run may also draw
random decks' indices in real typefaces from a prebuilt glyph atlas (:func:`use_ttf_fonts`, :mod:`vision.glyphs`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

import cv2
import numpy as np

from vision.labels import LABELS, split

WINDOW_SIZE = (320, 240)  # (width, height) of the dealer camera's frames
TABLE_SIZE = (320, 240)
FACE_WIDTH = 200  # card faces are drawn this many pixels wide

DESIGNS: tuple[str, ...] = ("poker", "bridge", "guandan", "dark")

_FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_COMPLEX_SMALL,
)


@dataclass(frozen=True)
class Style:
    """How one deck looks. Sizes are fractions of the card's width."""

    aspect: float = 0.716  # width / height
    font: int = cv2.FONT_HERSHEY_SIMPLEX
    italic: bool = False
    stroke: float = 0.10  # glyph stroke relative to glyph height
    rank_h: float = 0.15  # height of the rank glyph
    squeeze: float = 1.0  # width factor for the rank glyph
    suit_h: float = 0.11  # height of the index suit pip
    margin_x: float = 0.05
    margin_y: float = 0.05
    gap: float = 0.02  # between rank and suit in the index
    paper: tuple[int, int, int] = (250, 250, 248)
    red: tuple[int, int, int] = (40, 30, 200)
    black: tuple[int, int, int] = (30, 30, 30)
    pip_variant: int = 0
    border: bool = False
    corner_r: float = 0.06
    joker_vertical: bool = True  # the joker's letters stacked in a column
    joker_across: bool = False  # ... or the word written across the corner, read left to right
    joker_word: str = "JOKER"  # "JOKER", "Joker" or "joker"
    ttf: str = ""  # a real typeface of the glyph atlas for the ranks (vision.glyphs); "" = the Hershey font
    ttf_tight: bool = False  # ... with a 10 set as a 1 and a 0 almost touching
    ttf_suit: str = ""  # a typeface whose ♠♥♦♣ are the suit pips; "" = the polygon pips


_NAMED: dict[str, Style] = {
    "poker": Style(),
    "bridge": Style(aspect=0.64, font=cv2.FONT_HERSHEY_DUPLEX, rank_h=0.14, suit_h=0.10, pip_variant=1),
    "guandan": Style(aspect=0.62, font=cv2.FONT_HERSHEY_DUPLEX, stroke=0.14, rank_h=0.26, squeeze=0.9,
                     suit_h=0.17, margin_x=0.04, margin_y=0.04, pip_variant=2, red=(30, 20, 215)),
    "dark": Style(aspect=0.70, font=cv2.FONT_HERSHEY_TRIPLEX, rank_h=0.17, suit_h=0.12, paper=(22, 22, 24),
                  red=(60, 170, 215), black=(225, 225, 225), pip_variant=3, border=True),
}


def named_style(design: str) -> Style:
    try:
        return _NAMED[design]
    except KeyError:
        raise ValueError(f"unknown card design {design!r}; choose one of {', '.join(DESIGNS)}") from None


def _random_style(rng: np.random.Generator) -> Style:
    """A random deck style, from plain poker decks to large-index 掼蛋 decks and dark decks."""
    base = _NAMED[DESIGNS[int(rng.integers(len(DESIGNS)))]]
    big = rng.random() < 0.3
    dark = rng.random() < 0.15
    paper = tuple(int(v) for v in rng.integers(225, 256, 3))
    red = (int(rng.integers(0, 80)), int(rng.integers(0, 60)), int(rng.integers(160, 240)))
    black = tuple([int(rng.integers(0, 60))] * 3)
    if dark:
        paper = tuple(int(v) for v in rng.integers(5, 50, 3))
        red = (int(rng.integers(20, 90)), int(rng.integers(140, 200)), int(rng.integers(190, 245)))  # gold
        if rng.random() < 0.3:
            red = (int(rng.integers(30, 90)), int(rng.integers(30, 90)), int(rng.integers(190, 255)))
        black = tuple([int(rng.integers(180, 250))] * 3)
    return replace(
        base,
        aspect=float(rng.uniform(0.58, 0.75)),
        font=_FONTS[int(rng.integers(len(_FONTS)))],
        italic=bool(rng.random() < 0.12),
        stroke=float(rng.uniform(0.06, 0.18)),
        rank_h=float(rng.uniform(0.20, 0.28) if big else rng.uniform(0.11, 0.18)),
        squeeze=float(rng.uniform(0.7, 1.15)),
        suit_h=float(rng.uniform(0.13, 0.19) if big else rng.uniform(0.08, 0.13)),
        margin_x=float(rng.uniform(0.03, 0.08)),
        margin_y=float(rng.uniform(0.03, 0.08)),
        gap=float(rng.uniform(0.0, 0.04)),
        paper=paper,
        red=red,
        black=black,
        pip_variant=int(rng.integers(PIP_VARIANTS)),
        border=bool(rng.random() < 0.3),
        corner_r=float(rng.uniform(0.03, 0.09)),
        joker_vertical=bool(rng.random() < 0.7),
        joker_across=bool(rng.random() < 0.3),
        joker_word=("JOKER", "Joker", "joker")[int(rng.integers(3))],
    )


_ttf: tuple[tuple[str, ...], tuple[str, ...], float] = ((), (), 0.0)  # atlas faces for ranks, suits; share


def use_ttf_fonts(share: float, atlas: dict | None = None) -> int:
    """Make :func:`random_style` draw ``share`` of its decks' ranks in a real typeface of the glyph atlas
    (:mod:`vision.glyphs`), and half of those decks' pips from a font's ♠♥♦♣ (a training recipe,
    ``train.py --ttf-fonts``; forked workers inherit it). Returns the rank faces found: with no atlas, 0
    and the Hershey fonts stay. Off (share 0), random styles draw exactly what they drew before."""
    global _ttf
    from vision import glyphs

    if not 0.0 <= share <= 1.0:
        raise ValueError(f"the typeface share must be between 0 and 1, not {share}")

    atlas = glyphs.load() if atlas is None else atlas
    ranks, suits = glyphs.faces_of(atlas, "rank"), glyphs.faces_of(atlas, "suit")
    _ttf = (ranks, suits, float(share) if ranks else 0.0)
    return len(ranks)


def random_style(rng: np.random.Generator) -> Style:
    """A random deck style (:func:`_random_style`), in a real typeface for a share of decks when
    :func:`use_ttf_fonts` asked for it. The extra draws come after the usual ones, and only when on."""
    st = _random_style(rng)
    ranks, suits, share = _ttf
    if share <= 0 or rng.random() >= share:
        return st
    suit = suits[int(rng.integers(len(suits)))] if suits and rng.random() < 0.5 else ""
    return replace(st, ttf=ranks[int(rng.integers(len(ranks)))], ttf_tight=bool(rng.random() < 0.3), ttf_suit=suit,
                   squeeze=float(rng.uniform(0.75, 1.1)))  # a real face has its own widths: squeeze it less


# ----------------------------------------------------------------------------------- glyphs (masks)
@lru_cache(maxsize=512)
def _text_mask(text: str, font: int, italic: bool, stroke: float) -> np.ndarray:
    """A tight float32 mask (ink = 1) of ``text`` drawn large."""
    scale = 3.0
    (w, h), base = cv2.getTextSize(text, font | (cv2.FONT_ITALIC if italic else 0), scale, 1)
    thick = max(1, int(round(stroke * h)))
    canvas = np.zeros((h + base + 4 * thick + 8, w + 4 * thick + 8), np.uint8)
    cv2.putText(canvas, text, (2 * thick + 4, h + 2 * thick + 4), font | (cv2.FONT_ITALIC if italic else 0),
                scale, 255, thick, cv2.LINE_AA)
    ys, xs = np.nonzero(canvas > 40)
    return canvas[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1].astype(np.float32) / 255.0


def _rank_mask(rank: str, st: Style) -> np.ndarray:
    """The rank's mask in the style's typeface: the atlas's when it has one, else Hershey."""
    if st.ttf:
        from vision.glyphs import rank_mask

        m = rank_mask(rank, st.ttf, tight=st.ttf_tight)
        if m is not None:
            return m
    return _text_mask(rank, st.font, st.italic, st.stroke)


def _suit_mask(suit: str, st: Style) -> np.ndarray:
    """The suit pip's mask: a font's ♠♥♦♣ when the style names one the atlas has, else the polygons."""
    if st.ttf_suit and suit in "SHDC":
        from vision.glyphs import suit_mask

        m = suit_mask(suit, st.ttf_suit)
        if m is not None:
            return m
    return _pip_mask(suit, st.pip_variant)


def _heart(c: np.ndarray, s: int, v: int) -> None:
    r = int(s * (0.26 + 0.02 * (v % 2)))
    cy = int(s * 0.33)
    cv2.circle(c, (int(s * 0.5) - r + 1, cy), r, 255, -1, cv2.LINE_AA)
    cv2.circle(c, (int(s * 0.5) + r - 1, cy), r, 255, -1, cv2.LINE_AA)
    tip = int(s * (0.95 - 0.04 * (v % 3)))
    pts = np.array([[int(s * 0.5) - 2 * r + 2, cy + r // 3], [int(s * 0.5) + 2 * r - 2, cy + r // 3],
                    [int(s * 0.5), tip]], np.int32)
    cv2.fillPoly(c, [pts], 255, cv2.LINE_AA)


def _spade(c: np.ndarray, s: int, v: int) -> None:
    if v >= 4:
        return _round_spade(c, s, v)
    h = np.zeros_like(c)
    _heart(h, s, v)
    top = int(s * 0.8)
    c[:top] = np.maximum(c[:top], cv2.resize(cv2.flip(h, 0), (s, top), interpolation=cv2.INTER_AREA))
    _stem(c, s, v)


def _stem(c: np.ndarray, s: int, v: int) -> None:
    w = 0.16 + 0.05 * (v % 2)
    pts = np.array([[int(s * 0.5), int(s * 0.55)], [int(s * (0.5 - w)), int(s * 0.98)],
                    [int(s * (0.5 + w)), int(s * 0.98)]], np.int32)
    cv2.fillPoly(c, [pts], 255, cv2.LINE_AA)


def _club(c: np.ndarray, s: int, v: int) -> None:
    if v >= 4:
        return _round_club(c, s, v)
    r = int(s * (0.2 + 0.015 * (v % 3)))
    cv2.circle(c, (int(s * 0.5), int(s * 0.25)), r, 255, -1, cv2.LINE_AA)
    cv2.circle(c, (int(s * 0.5) - int(1.05 * r), int(s * 0.55)), r, 255, -1, cv2.LINE_AA)
    cv2.circle(c, (int(s * 0.5) + int(1.05 * r), int(s * 0.55)), r, 255, -1, cv2.LINE_AA)
    cv2.circle(c, (int(s * 0.5), int(s * 0.47)), int(r * 0.6), 255, -1, cv2.LINE_AA)
    _stem(c, s, v)


def _diamond(c: np.ndarray, s: int, v: int) -> None:
    w = 0.36 + 0.04 * (v % 3)
    pts = np.array([[int(s * 0.5), 0], [int(s * (0.5 + w)), int(s * 0.5)], [int(s * 0.5), s - 1],
                    [int(s * (0.5 - w)), int(s * 0.5)]], np.int32)
    cv2.fillPoly(c, [pts], 255, cv2.LINE_AA)


def _star(c: np.ndarray, s: int, v: int) -> None:
    ang = np.linspace(-np.pi / 2, 1.5 * np.pi, 11)[:-1]
    rad = np.where(np.arange(10) % 2 == 0, 0.48, 0.2 + 0.02 * v) * s
    pts = np.stack([s / 2 + rad * np.cos(ang), s / 2 + rad * np.sin(ang)], 1).astype(np.int32)
    cv2.fillPoly(c, [pts], 255, cv2.LINE_AA)


_PIPS = {"H": _heart, "S": _spade, "C": _club, "D": _diamond, "J": _star}

# More spades and clubs (pip variants 4..11, drawn only under use_more_pip_shapes): taller spades with
# round lobes, blunt or pointed tops, and clubs with big or small lobes, on stems from a hairline with a
# small foot to a broad wedge. Shrunk to a cheap webcam's 8-10 px, a spade is then a round blob on a
# thin stem, as real ones are, and a club's stem says nothing about its suit.
# Spade: (tip distance / lobe radius, tip radius, stem half-width, foot half-width, body height), of s.
_SPADES = ((2.4, 0.01, 0.035, 0.12, 0.80), (2.0, 0.09, 0.05, 0.16, 0.82), (2.6, 0.05, 0.03, 0.10, 0.86),
           (1.9, 0.12, 0.06, 0.20, 0.78), (2.2, 0.03, 0.07, 0.07, 0.84), (2.1, 0.07, 0.025, 0.14, 0.80),
           (2.5, 0.10, 0.045, 0.22, 0.80), (2.3, 0.02, 0.055, 0.09, 0.88))
# Club: (lobe radius, lobe spread / radius, stem half-width, foot half-width).
_CLUBS = ((0.24, 1.0, 0.035, 0.12), (0.21, 1.1, 0.05, 0.16), (0.26, 0.9, 0.03, 0.10), (0.22, 1.05, 0.06, 0.20),
          (0.25, 0.95, 0.07, 0.07), (0.23, 1.0, 0.025, 0.14), (0.20, 1.15, 0.045, 0.22), (0.25, 1.0, 0.055, 0.09))
PIP_VARIANTS = 4  # what random_style draws from: 4, or 4 + len(_SPADES) under use_more_pip_shapes


def use_more_pip_shapes(on: bool = True) -> None:
    """Make :func:`random_style` also draw the rounder spades and thin-stemmed clubs of pip variants
    4..11 (a training recipe, ``train.py --pip-shapes``; worker processes forked after this call inherit
    it). The named designs, and so the virtual rig's camera, keep their pips either way."""
    global PIP_VARIANTS
    PIP_VARIANTS = 4 + len(_SPADES) if on else 4


def _fill_poly(c: np.ndarray, pts, shift: int = 4) -> None:
    """Fill a convex polygon given in float pixels (sub-pixel exact, anti-aliased)."""
    cv2.fillConvexPoly(c, np.round(np.asarray(pts, np.float64) * (1 << shift)).astype(np.int32), 255,
                       cv2.LINE_AA, shift=shift)


def _foot_stem(c: np.ndarray, s: int, top: float, half: float, foot: float) -> None:
    x = s * 0.5
    _fill_poly(c, [[x - half * s, top], [x + half * s, top], [x + half * s, s * 0.97], [x - half * s, s * 0.97]])
    _fill_poly(c, [[x, s * 0.72], [x + foot * s, s * 0.99], [x - foot * s, s * 0.99]])


def _round_spade(c: np.ndarray, s: int, v: int) -> None:
    k, tip, half, foot, body = _SPADES[v - 4]
    r = body * s / (1 + k)
    y = body * s - r  # the lobes' centres; the tip is k radii above them
    a = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    ring = np.stack([np.cos(a), np.sin(a)], 1)
    pts = np.concatenate([(s * 0.5 - 0.95 * r, y) + r * ring, (s * 0.5 + 0.95 * r, y) + r * ring,
                          (s * 0.5, tip * s + 1) + (tip * s + 0.5) * ring]).astype(np.float32)
    _fill_poly(c, cv2.convexHull(pts)[:, 0])
    _foot_stem(c, s, y, half, foot)


def _round_club(c: np.ndarray, s: int, v: int) -> None:
    lobe, spread, half, foot = _CLUBS[v - 4]
    r = lobe * s
    low = 2.52 * r + 1  # the side lobes' centres
    for x, y, rr in ((0.5 * s, r + 1, r), (0.5 * s - spread * r, low, r), (0.5 * s + spread * r, low, r),
                     (0.5 * s, 2 * r + 1, 0.7 * r)):
        cv2.circle(c, (int(x * 16), int(y * 16)), int(rr * 16), 255, -1, cv2.LINE_AA, shift=4)
    _foot_stem(c, s, 2.2 * r, half, foot)


@lru_cache(maxsize=96)
def _pip_mask(suit: str, variant: int) -> np.ndarray:
    s = 96
    c = np.zeros((s, s), np.uint8)
    _PIPS[suit](c, s, variant)
    ys, xs = np.nonzero(c > 40)
    return c[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1].astype(np.float32) / 255.0


def _paste(img: np.ndarray, mask: np.ndarray, x: int, y: int, w: int, h: int, colour, rot180=False) -> None:
    """Ink ``mask`` resized to ``w x h`` at ``(x, y)`` into ``img`` in ``colour`` (clipped to the image)."""
    if w < 1 or h < 1:
        return
    m = cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA if w < mask.shape[1] else cv2.INTER_LINEAR)
    if rot180:
        m = m[::-1, ::-1]
    H, W = img.shape[:2]
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, W), min(y + h, H)
    if x1 <= x0 or y1 <= y0:
        return
    m = m[y0 - y: y1 - y, x0 - x: x1 - x, None]
    roi = img[y0:y1, x0:x1].astype(np.float32)
    img[y0:y1, x0:x1] = (roi * (1 - m) + np.asarray(colour, np.float32) * m).astype(np.uint8)


# ----------------------------------------------------------------------------------- card faces
@dataclass(frozen=True)
class Face:
    """A drawn card: ``bgr`` (H, W, 3), ``alpha`` (H, W) float32 (rounded corners), and the top-left
    index's bounding box ``(x0, y0, x1, y1)`` in pixels (the bottom-right index is its 180° turn)."""

    bgr: np.ndarray
    alpha: np.ndarray
    index_box: tuple[int, int, int, int]


def _index_layout(label: str, st: Style, W: int) -> list[tuple[np.ndarray, int, int, int, int, str]]:
    """The top-left index as (mask, x, y, w, h, colour-name) items."""
    suit, rank = split(label)
    items = []
    mx, my = int(st.margin_x * W), int(st.margin_y * W)
    if suit is None:
        colour = "red" if rank == "RJ" else "black"
        letters = st.joker_word
        lh = max(4, int(st.rank_h * W * 0.6))
        if st.joker_across:
            m = _text_mask(letters, st.font, st.italic, st.stroke)
            h = max(4, int(lh * 0.9))
            w = min(int(W * 0.6), max(8, int(h * m.shape[1] / m.shape[0] * st.squeeze)))
            items.append((m, mx, my, w, h, colour))
        elif st.joker_vertical:
            y = my
            for ch in letters:
                m = _text_mask(ch, st.font, st.italic, st.stroke)
                w = max(3, int(lh * m.shape[1] / m.shape[0] * st.squeeze))
                items.append((m, mx, y, w, lh, colour))
                y += int(lh * 1.15)
        else:
            m = _text_mask(letters, st.font, st.italic, st.stroke)
            m = np.ascontiguousarray(np.rot90(m, -1))  # read top to bottom
            w = lh
            h = int(w * m.shape[0] / m.shape[1])
            items.append((m, mx, my, w, h, colour))
        return items
    colour = "red" if suit in ("H", "D") else "black"
    m = _rank_mask(rank, st)
    rh = max(5, int(st.rank_h * W))
    rw = max(3, int(rh * m.shape[1] / m.shape[0] * st.squeeze))
    if rank == "10":
        rw = min(rw, int(rh * 1.05))
    items.append((m, mx, my, rw, rh, colour))
    pm = _suit_mask(suit, st)
    sh = max(4, int(st.suit_h * W))
    sw = max(4, int(sh * pm.shape[1] / pm.shape[0]))
    sx = mx + (rw - sw) // 2
    items.append((pm, max(1, sx), my + rh + int(st.gap * W) + 1, sw, sh, colour))
    return items


_PIP_ROWS = {  # (column, row) positions of the centre pips, column in {0,1,2}, row in 0..1
    2: [(1, 0), (1, 1)],
    3: [(1, 0), (1, 0.5), (1, 1)],
    4: [(0, 0), (2, 0), (0, 1), (2, 1)],
    5: [(0, 0), (2, 0), (1, 0.5), (0, 1), (2, 1)],
    6: [(0, 0), (2, 0), (0, 0.5), (2, 0.5), (0, 1), (2, 1)],
    7: [(0, 0), (2, 0), (1, 0.25), (0, 0.5), (2, 0.5), (0, 1), (2, 1)],
    8: [(0, 0), (2, 0), (1, 0.25), (0, 0.5), (2, 0.5), (1, 0.75), (0, 1), (2, 1)],
    9: [(0, 0), (2, 0), (0, 1 / 3), (2, 1 / 3), (1, 0.5), (0, 2 / 3), (2, 2 / 3), (0, 1), (2, 1)],
    10: [(0, 0), (2, 0), (1, 1 / 6), (0, 1 / 3), (2, 1 / 3), (0, 2 / 3), (2, 2 / 3), (1, 5 / 6), (0, 1), (2, 1)],
}


def _draw_centre(img: np.ndarray, label: str, st: Style, colours: dict, seed: int) -> None:
    H, W = img.shape[:2]
    suit, rank = split(label)
    ix0, ix1 = int(0.3 * W), int(0.7 * W)
    iy0, iy1 = int(0.1 * H), int(0.9 * H)
    crng = np.random.default_rng(seed)
    if suit is None or rank in ("J", "Q", "K"):  # court / joker art placeholder
        cv2.rectangle(img, (ix0, iy0), (ix1, iy1), colours["black"], max(1, W // 100))
        for _ in range(6):
            col = tuple(int(v) for v in crng.integers(0, 256, 3))
            c = (int(crng.integers(ix0, ix1)), int(crng.integers(iy0, iy1)))
            ax = (int(crng.integers(5, W // 6)), int(crng.integers(5, H // 8)))
            cv2.ellipse(img, c, ax, float(crng.uniform(0, 180)), 0, 360, col, -1, cv2.LINE_AA)
        if suit is None:
            _paste(img, _pip_mask("J", 0), W // 2 - W // 6, H // 2 - W // 6, W // 3, W // 3,
                   colours["red" if rank == "RJ" else "black"])
        else:
            m = _rank_mask(rank, st)
            h = int(0.25 * H)
            _paste(img, m, W // 2 - h // 3, H // 2 - h // 2, int(h * 0.66), h, colours[_colour_name(suit)])
        return
    pm = _suit_mask(suit, st)
    col = colours[_colour_name(suit)]
    n = {"A": 1}.get(rank) or int(rank)
    if n == 1:
        s = int(0.38 * W)
        _paste(img, pm, W // 2 - s // 2, H // 2 - s // 2, s, s, col)
        return
    s = int(0.16 * W)
    for cx, ry in _PIP_ROWS[n]:
        x = ix0 + cx * (ix1 - ix0) // 2
        y = iy0 + s // 2 + int(ry * (iy1 - iy0 - s))
        _paste(img, pm, x - s // 2, y - s // 2, s, s, col, rot180=ry > 0.5)


def _colour_name(suit: str) -> str:
    return "red" if suit in ("H", "D") else "black"


def render_face(label: str, style: Style, width: int = FACE_WIDTH) -> Face:
    """Draw one card face (both corner indices, centre pips or art) in ``style``."""
    W = width
    H = int(round(W / style.aspect))
    colours = {"red": style.red, "black": style.black}
    img = np.empty((H, W, 3), np.uint8)
    img[:] = style.paper
    _draw_centre(img, label, style, colours, seed=LABELS.index(label) * 7919 + W)
    items = _index_layout(label, style, W)
    x1 = max(x + w for _, x, _, w, _, _ in items) + 2
    y1 = max(y + h for _, _, y, _, h, _ in items) + 2
    x0 = min(x for _, x, _, _, _, _ in items) - 2
    y0 = min(y for _, _, y, _, _, _ in items) - 2
    img[y0:y1, x0:x1] = style.paper  # clear the corners of any centre art
    img[H - y1: H - y0, W - x1: W - x0] = style.paper
    for m, x, y, w, h, c in items:
        _paste(img, m, x, y, w, h, colours[c])
        _paste(img, m, W - x - w, H - y - h, w, h, colours[c], rot180=True)
    if style.border:
        b = int(0.025 * W)
        cv2.rectangle(img, (b, b), (W - 1 - b, H - 1 - b), colours["red"], 1, cv2.LINE_AA)
    alpha = _rounded_mask(W, H, max(2, int(style.corner_r * W)))
    return Face(img, alpha, (max(0, x0), max(0, y0), x1, y1))


def render_split_face(label: str, style: Style, white_on_colour: bool = False,
                      width: int = FACE_WIDTH) -> tuple[Face, tuple[int, int, int, int], tuple[int, int, int, int]]:
    """A suit card whose rank stands alone at the top-right corner and its suit alone at the bottom-left one,
    both upright, the top-left and bottom-right corners left to the centre art (a layout some designs use,
    KDE's oxygen decks among them); ``white_on_colour``: white ink on a red or dark card. Returns the face
    and the rank's and the suit's boxes ``(x0, y0, x1, y1)``. For training the reader's other diagonal."""
    suit, rank = split(label)
    if suit is None:
        raise ValueError("a split index needs a suit card, not a joker")
    W = width
    H = int(round(W / style.aspect))
    red = suit in ("H", "D")
    if white_on_colour:
        paper = (40, 30, 170) if red else (45, 45, 45)
        style = replace(style, paper=paper, red=(245, 245, 245), black=(245, 245, 245))
    colours = {"red": style.red, "black": style.black}
    img = np.empty((H, W, 3), np.uint8)
    img[:] = style.paper
    _draw_centre(img, label, style, colours, seed=LABELS.index(label) * 7919 + W + 1)
    ink = colours[_colour_name(suit)]
    mx, my = int(style.margin_x * W), int(style.margin_y * W)
    m = _rank_mask(rank, style)
    rh = max(5, int(style.rank_h * W))
    rw = max(3, int(rh * m.shape[1] / m.shape[0] * style.squeeze))
    rbox = (W - mx - rw, my, W - mx, my + rh)
    pm = _suit_mask(suit, style)
    sh = max(4, int(style.suit_h * W * 0.8))
    sw = max(4, int(sh * pm.shape[1] / pm.shape[0]))
    sbox = (mx, H - my - sh, mx + sw, H - my)
    for (x0, y0, x1, y1), mask in ((rbox, m), (sbox, pm)):
        img[max(0, y0 - 3): y1 + 3, max(0, x0 - 3): x1 + 3] = style.paper  # clear any centre art there
        _paste(img, mask, x0, y0, x1 - x0, y1 - y0, ink)
    alpha = _rounded_mask(W, H, max(2, int(style.corner_r * W)))
    return Face(img, alpha, rbox), rbox, sbox


@lru_cache(maxsize=64)
def _rounded_mask(W: int, H: int, r: int) -> np.ndarray:
    m = np.zeros((H, W), np.uint8)
    cv2.rectangle(m, (r, 0), (W - 1 - r, H - 1), 255, -1)
    cv2.rectangle(m, (0, r), (W - 1, H - 1 - r), 255, -1)
    for cx, cy in ((r, r), (W - 1 - r, r), (r, H - 1 - r), (W - 1 - r, H - 1 - r)):
        cv2.circle(m, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return m.astype(np.float32) / 255.0


@lru_cache(maxsize=4 * 54)
def _named_face(label: str, design: str) -> Face:
    return render_face(label, named_style(design))


def face_for(label: str, rng: np.random.Generator, design: str | None) -> Face:
    """The face of ``label`` in ``design`` (a procedural one of :data:`DESIGNS` or a real one of
    :data:`vision.card_art.ART_DESIGNS`); a random face (:func:`random_face`) when ``design`` is None."""
    if design is None:
        return random_face(label, rng)
    if design in DESIGNS:
        return _named_face(label, design)
    from vision.card_art import ART_DESIGNS, art_face, has_card

    if design not in ART_DESIGNS:
        named_style(design)  # the one clear error
    if not has_card(label, design):  # a design without jokers: the plain deck's joker stands in
        if label in ("BJ", "RJ"):
            return _stand_in_joker(label, design)
        raise ValueError(f"card design {design!r} is not rasterised (run: python -m vision.card_art)")
    return art_face(label, design)


@lru_cache(maxsize=16)
def _stand_in_joker(label: str, design: str) -> Face:
    """The plain deck's joker at ``design``'s card size: a deck's jokers are cut as its other cards are
    (at the plain deck's own size a kde-paris joker was a tenth wider than its cards, so the table camera
    took every joker thrown for more than one card)."""
    from vision.card_art import art_face

    H, W = art_face("S5", design).bgr.shape[:2]
    face = _named_face(label, "poker")
    h, w = face.bgr.shape[:2]
    x0, y0, x1, y1 = face.index_box
    sx, sy = W / w, H / h
    return Face(cv2.resize(face.bgr, (W, H), interpolation=cv2.INTER_AREA),
                cv2.resize(face.alpha, (W, H), interpolation=cv2.INTER_AREA),
                (round(x0 * sx), round(y0 * sy), round(x1 * sx), round(y1 * sy)))


def check_design(design: str) -> None:
    """ValueError (one line) unless ``design`` can be drawn: a procedural design, or a real one whose
    card art is in the cache."""
    if design in DESIGNS:
        return
    from vision.card_art import ART_DESIGNS, cached_designs

    if design not in ART_DESIGNS:
        raise ValueError(f"unknown card design {design!r}; choose one of {', '.join(DESIGNS + tuple(ART_DESIGNS))}")
    if design not in cached_designs():
        raise ValueError(f"card design {design!r} is not rasterised yet: run python -m vision.card_art")


_art: tuple[tuple[str, ...], float] = ((), 0.0)  # real designs random faces may come from, and how often


def use_card_art(designs: list[str] | tuple[str, ...], share: float) -> None:
    """Make :func:`random_face` draw a real design of ``designs`` (from the card-art cache) for
    ``share`` of its faces (a training recipe; forked worker processes inherit it)."""
    global _art
    _art = (tuple(designs), float(share))


def face_from_image(image: np.ndarray, width: int = FACE_WIDTH) -> Face:
    """An upright photo or scan of one card face (cropped to the card) as a :class:`Face`, with
    rounded corners; its index box is taken where the real designs have it."""
    from vision.card_art import index_box

    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    alpha = None
    if image.shape[2] == 4:
        alpha = image[..., 3].astype(np.float32) / 255.0
        image = image[..., :3]
    h, w = image.shape[:2]
    if h < w:  # a landscape picture of a portrait card: it was turned a quarter
        image = np.ascontiguousarray(np.rot90(image, -1))
        alpha = None if alpha is None else np.ascontiguousarray(np.rot90(alpha, -1))
        h, w = w, h
    H = int(round(width * h / w))
    bgr = cv2.resize(image, (width, H), interpolation=cv2.INTER_AREA if w > width else cv2.INTER_LINEAR)
    if alpha is None:
        alpha = _rounded_mask(width, H, max(2, int(0.05 * width)))
    else:
        alpha = cv2.resize(alpha, (width, H), interpolation=cv2.INTER_LINEAR)
    return Face(np.ascontiguousarray(bgr), alpha, index_box(bgr))


def random_face(label: str, rng: np.random.Generator) -> Face:
    """A face of ``label`` in a random procedural style, or (see :func:`use_card_art`) a real design."""
    designs, share = _art
    if designs and rng.random() < share:
        from vision.card_art import art_face, has_card

        design = designs[int(rng.integers(len(designs)))]
        if has_card(label, design):
            return art_face(label, design)
    return render_face(label, random_style(rng))


# ----------------------------------------------------------------------------------- frames
def _texture(rng: np.random.Generator, W: int, H: int, base=None, dark=False, blobs=3) -> np.ndarray:
    """A background: a colour with a smooth gradient, noise and a few blotches or stripes."""
    if base is None:
        base = rng.integers(10, 90, 3) if dark else rng.integers(0, 256, 3)
    small = rng.normal(0, 12, (4, 5, 3)).astype(np.float32) + np.asarray(base, np.float32)
    img = cv2.resize(small, (W, H), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.4:  # wood / cloth stripes
        period = rng.uniform(4, 30)
        xs = np.arange(W if rng.random() < 0.5 else H, dtype=np.float32)
        wave = (np.sin(xs / period * 2 * np.pi + rng.uniform(0, 6)) * rng.uniform(3, 18)).astype(np.float32)
        img += wave[None, :, None] if len(xs) == W else wave[:, None, None]
    img = np.clip(img, 0, 255).astype(np.uint8)
    for _ in range(int(rng.integers(0, blobs + 1))):
        col = tuple(int(v) for v in rng.integers(0, 256, 3))
        c = (int(rng.integers(0, W)), int(rng.integers(0, H)))
        cv2.ellipse(img, c, (int(rng.integers(5, W // 3)), int(rng.integers(5, H // 3))),
                    float(rng.uniform(0, 180)), 0, 360, col, -1, cv2.LINE_AA)
    return img


def _composite(dst: np.ndarray, face: Face, M: np.ndarray, shadow: float = 0.0) -> np.ndarray:
    """Warp ``face`` by the 3x3 perspective ``M`` onto ``dst`` (returns a new float32 image)."""
    H, W = dst.shape[:2]
    fg = cv2.warpPerspective(face.bgr, M, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    a = cv2.warpPerspective(face.alpha, M, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    if shadow > 0:
        sh = cv2.resize(cv2.resize(a, (W // 2, H // 2), interpolation=cv2.INTER_AREA), (W, H))
        sh = np.roll(sh, 2, (0, 1))
        dst = cv2.multiply(dst, np.dstack([1 - shadow * sh] * 3), dtype=cv2.CV_8U)
    return cv2.blendLinear(fg, dst, a, 1 - a).astype(np.float32)


def motion_blur(img: np.ndarray, length: int, angle_deg: float, border: int = cv2.BORDER_REFLECT_101) -> np.ndarray:
    """``img`` smeared along a line ``length`` px long at ``angle_deg`` (a camera or card moving)."""
    ker = np.zeros((length, length), np.float32)
    ker[length // 2, :] = 1.0 / length
    rot = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), angle_deg, 1.0)
    ker = cv2.warpAffine(ker, rot, (length, length))
    return cv2.filter2D(img, -1, ker / max(float(ker.sum()), 1e-6), borderType=border)


def _photometric(img: np.ndarray, rng: np.random.Generator, strength: float = 1.0,
                 gain: np.ndarray | None = None) -> np.ndarray:
    """Lighting, colour cast, glare, blur, noise, greyscale and JPEG on a float32 BGR image
    (``gain``: an extra (H, W) light map, e.g. the LED ring's)."""
    H, W = img.shape[:2]
    light = np.ones((H, W), np.float32) if gain is None else gain.copy()
    if rng.random() < 0.7 * strength:  # uneven light: a smooth multiplicative gradient
        g = rng.uniform(0.55, 1.25, (2, 2)).astype(np.float32)
        light *= cv2.resize(g, (W, H), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.25 * strength:  # glare
        c = (int(rng.integers(0, W)), int(rng.integers(0, H)))
        glare = np.zeros((H // 4, W // 4), np.float32)
        cv2.circle(glare, (c[0] // 4, c[1] // 4), int(rng.integers(2, max(3, W // 16))), 1.0, -1)
        glare = cv2.resize(cv2.GaussianBlur(glare, (0, 0), rng.uniform(1, 4)), (W, H))
        light += glare * rng.uniform(0.3, 1.0)
    wb = (rng.uniform(0.85, 1.15, 3) ** strength * rng.uniform(0.6, 1.2)).astype(np.float32)
    img = img * light[..., None]
    img *= wb
    img += np.float32(rng.uniform(-25, 25) * strength)
    if rng.random() < 0.5 * strength:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.6 * strength + 0.01))
    if rng.random() < 0.15 * strength:  # motion blur
        k = int(rng.integers(3, 7))
        img = motion_blur(img, k, float(rng.uniform(0, 180)))
    sigma = rng.uniform(0, 8 * strength)
    img += rng.standard_normal((H, W, 1), dtype=np.float32) * np.float32(sigma)
    out = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.12 * strength:
        out = cv2.cvtColor(cv2.cvtColor(out, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    if rng.random() < 0.5 * strength:
        q = int(rng.integers(30, 95))
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


@lru_cache(maxsize=8)
def _radius2(W: int, H: int) -> np.ndarray:
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    return ((xx - W / 2) / W) ** 2 + ((yy - H / 2) / H) ** 2


def _card_quad(w: float, h: float) -> np.ndarray:
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)


def card_transform(face: Face, centre, long_side: float, angle_deg: float, persp: float,
                   rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The perspective matrix putting ``face`` at ``centre``, its long side ``long_side`` px, turned by
    ``angle_deg``, with corner jitter ``persp`` (fraction of the size); and the card's 4 corners in the frame."""
    H, W = face.bgr.shape[:2]
    s = long_side / H
    t = np.deg2rad(angle_deg)
    R = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]], np.float32)
    src = _card_quad(W, H)
    d = (src - [W / 2, H / 2]) * s
    d = d @ R.T + np.asarray(centre, np.float32)
    d = d + rng.normal(0, persp * long_side, d.shape).astype(np.float32)
    M = cv2.getPerspectiveTransform(src, d.astype(np.float32))
    return M, d


def render_window_frame(label: str | None, rng: np.random.Generator, *, design: str | None = None,
                        size: tuple[int, int] = WINDOW_SIZE, face: Face | None = None) -> np.ndarray:
    """The dealer camera's view through the hopper window: the bottom card's face, lit by the LED ring,
    within a few mm and degrees of its nominal place, possibly turned 180°, framed by the hopper's matte
    green inside. ``None`` = an empty hopper; ``face``: this face rather than one drawn for ``label``."""
    W, H = size
    # The hopper's inside is matte green, a colour no deck uses, so the card stands out even when dark.
    floor = _texture(rng, W, H, base=(rng.integers(30, 90), rng.integers(110, 180), rng.integers(20, 80)), blobs=0)
    if label is None and face is None:
        img = floor.astype(np.float32)
        for _ in range(int(rng.integers(0, 3))):  # the hopper's rails and screws seen through the window
            y = int(rng.integers(0, H))
            cv2.line(img, (0, y), (W - 1, y + int(rng.integers(-8, 9))),
                     tuple(float(v) for v in rng.integers(40, 140, 3)), int(rng.integers(2, 8)))
    else:
        face = face if face is not None else face_for(label, rng, design)
        long_side = min(W * 0.9, H * 0.92 / face.bgr.shape[1] * face.bgr.shape[0]) * rng.uniform(0.95, 1.0)
        angle = 90.0 + rng.normal(0, 1.5) + (180.0 if rng.random() < 0.5 else 0.0)
        centre = (W / 2 + rng.normal(0, 4), H / 2 + rng.normal(0, 4))
        M, _ = card_transform(face, centre, long_side, angle, 0.004, rng)
        img = _composite(floor, face, M, shadow=0.3)
    led = 1.1 - np.float32(rng.uniform(0.4, 0.9)) * _radius2(W, H)  # the LED ring: bright centre
    return _photometric(img, rng, strength=0.6, gain=led)


def render_table_frame(label: str, rng: np.random.Generator, *, design: str | None = None,
                       size: tuple[int, int] = TABLE_SIZE, angle: float | None = None) -> np.ndarray:
    """A photo of one card lying anywhere on a table (with clutter), at any rotation (or ``angle`` degrees)."""
    return table_scene(label, rng, design=design, size=size, angle=angle)[0]


TABLES = ("white", "pattern")  # table_scene's harder tables (issue 28): a white one, a busy pattern


def table_scene(label: str, rng: np.random.Generator, *, design: str | None = None,
                size: tuple[int, int] = TABLE_SIZE, angle: float | None = None,
                clutter: bool = True, table: str | None = None,
                finger: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """:func:`render_table_frame` and the card's true corners in the frame ((4, 2), clockwise);
    ``clutter=False``: a bare table (light, blur, noise and JPEG still vary); ``table``: one of
    :data:`TABLES` rather than a random colour; ``finger``: a fingertip over one corner of the card."""
    W, H = size
    if table is None:
        bg = _texture(rng, W, H, blobs=3 if clutter else 0)
    elif table == "white":
        bg = _texture(rng, W, H, base=rng.integers(215, 250, 3), blobs=0)
    elif table == "pattern":
        bg = _pattern(rng, W, H)
    else:
        raise ValueError(f"unknown table {table!r}; choose one of {', '.join(TABLES)}")
    face = face_for(label, rng, design)
    angle = rng.uniform(0, 360) if angle is None else angle
    fh, fw = face.bgr.shape[:2]
    t = np.deg2rad(angle)  # the turned card's bounding box, per unit of long side
    bw = abs(np.cos(t)) * fw / fh + abs(np.sin(t))
    bh = abs(np.sin(t)) * fw / fh + abs(np.cos(t))
    long_side = min(rng.uniform(0.55, 0.95) * min(W, H), 0.92 * W / bw, 0.92 * H / bh)
    hx, hy = 0.5 * bw * long_side + 4, 0.5 * bh * long_side + 4  # the whole card stays in the picture
    centre = (rng.uniform(hx, max(hx, W - hx)), rng.uniform(hy, max(hy, H - hy)))
    M, quad = card_transform(face, centre, long_side, angle, 0.02, rng)
    img = _composite(bg, face, M, shadow=rng.uniform(0, 0.5))
    if finger:
        _finger(img, quad, rng, 0.25 * min(W, H))
    return _photometric(img, rng, strength=1.0), quad


def _pattern(rng: np.random.Generator, W: int, H: int) -> np.ndarray:
    """A busy tablecloth: checks, stripes or dots in two random colours, at any angle."""
    a, b = (np.asarray(rng.integers(0, 256, 3), np.float32) for _ in range(2))
    period = rng.uniform(6, 30)
    t = rng.uniform(0, np.pi)
    y, x = np.mgrid[0:H, 0:W].astype(np.float32)
    u, v = x * np.cos(t) + y * np.sin(t), -x * np.sin(t) + y * np.cos(t)
    kind = int(rng.integers(3))
    if kind == 0:  # checks (gingham)
        m = ((np.floor(u / period) + np.floor(v / period)) % 2).astype(np.float32)
    elif kind == 1:  # stripes
        m = (np.floor(u / period) % 2).astype(np.float32)
    else:  # dots
        m = ((np.mod(u, period) - period / 2) ** 2 + (np.mod(v, period) - period / 2) ** 2 < (period / 3.5) ** 2)
        m = m.astype(np.float32)
    img = a * (1 - m[..., None]) + b * m[..., None]
    return np.clip(img + rng.normal(0, 4, img.shape).astype(np.float32), 0, 255).astype(np.uint8)


def _finger(img: np.ndarray, quad: np.ndarray, rng: np.random.Generator, width: float) -> None:
    """A fingertip (skin tone) reaching over one corner of the card at ``quad``, ``width`` px wide."""
    corner = quad[int(rng.integers(4))]
    centre = quad.mean(axis=0)
    tip = corner + (centre - corner) * rng.uniform(0.35, 0.6)
    tone = tuple(float(v) for v in (rng.uniform(90, 160), rng.uniform(120, 180), rng.uniform(170, 230)))
    far = tip + (tip - centre) * 3.0
    cv2.line(img, tuple(int(v) for v in tip), tuple(int(v) for v in far), tone, max(2, int(width * 0.72)), cv2.LINE_AA)
    cv2.circle(img, tuple(int(v) for v in tip), max(2, int(width * 0.36)), tone, -1, cv2.LINE_AA)


def render_tight_photo(label: str, rng: np.random.Generator, *, design: str | None = None,
                       size: tuple[int, int] = (240, 320), finger: bool = False) -> np.ndarray:
    """A photo of one card face taken close: the card fills the picture (sometimes cut by its edges),
    upright or turned a quarter or half, on whatever lies around it; ``finger``: a fingertip over part
    of the card (never both indices)."""
    return tight_scene(label, rng, design=design, size=size, finger=finger)[0]


def tight_scene(
    label: str,
    rng: np.random.Generator,
    *,
    design: str | None = None,
    size: tuple[int, int] = (240, 320),
    finger: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`render_tight_photo` and the card's true corners in the picture ((4, 2); some may lie outside it)."""
    W, H = size
    face = face_for(label, rng, design)
    fh, fw = face.bgr.shape[:2]
    quarter = int(rng.integers(4))
    angle = 90.0 * quarter + rng.normal(0, 3)
    across = quarter % 2 == 1
    fill = rng.uniform(0.92, 1.08)  # above 1: the card is cut by the picture's edges
    long_side = fill * min((W if across else H), (H if across else W) * fh / fw)
    bg = _texture(rng, W, H, blobs=1)
    M, quad = card_transform(face, (W / 2 + rng.normal(0, 4), H / 2 + rng.normal(0, 4)), long_side, angle,
                             0.015, rng)
    img = _composite(bg, face, M, shadow=0.0)
    if finger:
        _finger(img, quad, rng, 0.25 * W)
    return _photometric(img, rng, strength=0.8), quad
