"""Find the card in a frame, warp it upright to a canonical size and cut out both corner indices.

Usage::

    found = localize(frame)            # None: no card in the frame (e.g. an empty hopper)
    if found is not None:
        found.quad                     # the card's 4 corners in the frame, clockwise from a short side
        found.card                     # the card warped portrait, CARD_WIDTH px wide, BGR
        top_left, bottom_right = found.corners   # the two index corners, both upright (see corner_crops)

A card lies portrait after the warp, either upright or turned 180°: both ways its top-left and
bottom-right corners hold an index (the bottom-right one is turned back by 180°), so the reader does not
need to know which. Aspect ratios (short/long side) from 0.52 to 0.82 are taken as cards.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np

CARD_WIDTH = 128
MIN_ASPECT, MAX_ASPECT = 0.52, 0.82
# The corner region holding the index, as fractions of the card's width: large 掼蛋 indices fit too.
CORNER_W, CORNER_H = 0.34, 0.52
MIN_AREA, MAX_AREA = 0.04, 0.88  # a card covers this share of the frame
WORK_SIDE = 360  # frames are searched at most this big (the warp uses the full-resolution frame)


@dataclass(frozen=True)
class Localized:
    quad: np.ndarray  # (4, 2) float32 corners in the frame
    card: np.ndarray  # the warped card, portrait
    corners: list[np.ndarray]  # [top-left index, bottom-right index turned upright]
    aspect: float

    @property
    def other_corners(self) -> list[np.ndarray]:
        """The other diagonal's corners (see :func:`other_corner_crops`)."""
        return other_corner_crops(self.card)


def corner_crops(card: np.ndarray) -> list[np.ndarray]:
    """The two index corners of an upright (or 180°-turned) portrait card image."""
    h, w = card.shape[:2]
    cw, ch = int(round(CORNER_W * w)), min(h // 2, int(round(CORNER_H * w)))
    tl = card[:ch, :cw]
    br = card[h - ch:, w - cw:][::-1, ::-1]
    return [np.ascontiguousarray(tl), np.ascontiguousarray(br)]


def other_corner_crops(card: np.ndarray) -> list[np.ndarray]:
    """The top-right corner and the bottom-left one turned 180°: where some designs (KDE's oxygen decks)
    print their index instead of top-left and bottom-right."""
    h, w = card.shape[:2]
    cw, ch = int(round(CORNER_W * w)), min(h // 2, int(round(CORNER_H * w)))
    return [np.ascontiguousarray(card[:ch, w - cw:]), np.ascontiguousarray(card[h - ch:, :cw][::-1, ::-1])]


def _order(quad: np.ndarray) -> np.ndarray:
    """Corners clockwise (in image coordinates) starting at the first corner of a short side."""
    c = quad.mean(axis=0)
    ang = np.arctan2(quad[:, 1] - c[1], quad[:, 0] - c[0])
    q = quad[np.argsort(ang)]  # clockwise on screen (y grows down)
    if np.linalg.norm(q[0] - q[1]) > np.linalg.norm(q[1] - q[2]):
        q = np.roll(q, -1, axis=0)
    return q.astype(np.float32)


def _masks(frame: np.ndarray, grey: np.ndarray) -> Iterator[np.ndarray | None]:
    """Binary masks that may hold the card as a blob, most telling first: distance from the
    background's colour (the frame's border), bright and dark, saturated, and closed edges; then None,
    and after it a last resort (:func:`_filled_outlines`), to look at only when no other mask holds a card."""
    blur = cv2.GaussianBlur(grey, (5, 5), 0)
    if frame.ndim == 3:
        small = cv2.GaussianBlur(frame, (5, 5), 0)
        border = np.concatenate([small[0], small[-1], small[:, 0], small[:, -1]])
        ref = np.median(border, axis=0).astype(np.uint8)
        dist = cv2.absdiff(small, (float(ref[0]), float(ref[1]), float(ref[2]), 0.0))
        dist = cv2.transform(dist, np.ones((1, 3), np.float32) / 2)  # sum of channels, halved
        yield _otsu(dist)
    m = _otsu(blur)
    yield m
    yield cv2.bitwise_not(m)
    if frame.ndim == 3:
        b, g, r = cv2.split(frame)
        sat = cv2.subtract(cv2.max(cv2.max(b, g), r), cv2.min(cv2.min(b, g), r))
        if int(sat.max()) - int(sat.min()) > 40:
            m = _otsu(cv2.GaussianBlur(sat, (5, 5), 0))
            yield m
            yield cv2.bitwise_not(m)
    edges = cv2.morphologyEx(cv2.Canny(blur, 20, 60), cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    yield edges
    yield None  # what follows is a last resort
    yield _filled_outlines(edges)


def _filled_outlines(edges: np.ndarray) -> np.ndarray:
    """Each long edge filled to its convex hull: a pale card on a pale table shows its outline only in
    pieces, which no other mask closes."""
    hulls = np.zeros_like(edges)
    contours, _ = cv2.findContours(edges, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    long_ones = [cv2.convexHull(c) for c in contours if cv2.arcLength(c, True) > 0.5 * sum(edges.shape)]
    cv2.drawContours(hulls, long_ones, -1, 255, cv2.FILLED)
    return hulls


def _otsu(plane: np.ndarray) -> np.ndarray:
    return cv2.threshold(plane, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[1]


_SIDE_T = np.linspace(0.1, 0.9, 16, dtype=np.float64)[None, :, None]  # 16 points along each side


def _edge_support(grad: np.ndarray, quad: np.ndarray, cut: bool = False) -> float:
    """How well the quad's sides lie on strong brightness edges: the share of points on an edge along
    its weakest side (points on the frame's own border count as no edge; ``cut``: as an edge, for a
    card cut by the picture's edge)."""
    h, w = grad.shape
    m = 3
    a = quad.astype(np.float64)[:, None, :]
    b = np.roll(quad, -1, axis=0).astype(np.float64)[:, None, :]
    p = (a + (b - a) * _SIDE_T).round().astype(int)  # (4 sides, 16 points, xy)
    inside = (p[..., 0] >= m) & (p[..., 0] < w - m) & (p[..., 1] >= m) & (p[..., 1] < h - m)
    on = ~inside if cut else np.zeros(inside.shape, bool)
    on[inside] = grad[p[..., 1][inside], p[..., 0][inside]] > 0
    return min(1.0, float(on.sum(axis=1).min()) / _SIDE_T.shape[1])


def _refine(cnt: np.ndarray, box: np.ndarray) -> np.ndarray | None:
    """Fit a straight line to the contour along each side of ``box`` (away from the rounded corners)
    and intersect them: the card's corners under perspective."""
    pts = cnt.reshape(-1, 2).astype(np.float32)
    d = np.roll(box, -1, axis=0) - box  # the four sides
    length = np.sqrt((d * d).sum(axis=1))
    if length.min() < 4:
        return None
    u = d / length[:, None]
    nrm = np.stack([-u[:, 1], u[:, 0]], axis=1)
    rel = pts[None] - box[:, None]  # (4 sides, points, xy)
    along = rel[..., 0] * u[:, None, 0] + rel[..., 1] * u[:, None, 1]
    off = np.abs(rel[..., 0] * nrm[:, None, 0] + rel[..., 1] * nrm[:, None, 1])
    near = (along > 0.15 * length[:, None]) & (along < 0.85 * length[:, None]) & (off < 0.06 * length[:, None] + 2)
    lines = []
    for i in range(4):
        sel = pts[near[i]][::2]
        if len(sel) < 5:
            return None
        vx, vy, x0, y0 = cv2.fitLine(sel, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0]), np.array([vx, vy])))
    out = []
    for i in range(4):  # where side i-1 meets side i: p1 + t d1 = p2 + s d2 (Cramer's rule)
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        det = float(d2[0] * d1[1] - d1[0] * d2[1])
        if abs(det) < 1e-6:
            return None
        q = p2 - p1
        t = float(d2[0] * q[1] - q[0] * d2[1]) / det
        out.append(p1 + t * d1)
    quad = np.array(out, np.float32)
    if np.abs(quad - box).max() > 0.15 * np.linalg.norm(box[0] - box[2]):
        return None
    return quad


def find_quad(frame: np.ndarray, thorough: bool = False) -> np.ndarray | None:
    """The card's four corners in ``frame`` (clockwise from a short side), or None. ``thorough``: look
    through every mask even after a clean card-shaped blob (in a photo taken close, the first mask may
    hold a court card's picture frame, the card's own outline only a later one)."""
    H, W = frame.shape[:2]
    scale = min(1.0, WORK_SIDE / max(H, W))
    if scale < 1.0:
        frame = cv2.resize(frame, (int(W * scale), int(H * scale)), interpolation=cv2.INTER_AREA)
    grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    h, w = grey.shape
    area_img = h * w
    gx = cv2.Sobel(grey, cv2.CV_16S, 1, 0)
    gy = cv2.Sobel(grey, cv2.CV_16S, 0, 1)
    mag = cv2.convertScaleAbs(gx) // 2 + cv2.convertScaleAbs(gy) // 2
    strong = cv2.dilate((mag > 12).astype(np.uint8), np.ones((5, 5), np.uint8))
    best, best_score = None, 0.0
    for mask in _masks(frame, grey):
        if mask is None:  # only last resorts follow
            if best is not None:
                break
            continue
        contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
        for cnt in contours:
            if len(cnt) < 40:
                continue
            area = cv2.contourArea(cnt)
            if area < MIN_AREA * area_img or area > MAX_AREA * area_img:
                continue
            (cx, cy), (rw, rh), ang = cv2.minAreaRect(cnt)
            aspect = min(rw, rh) / max(rw, rh)
            fill = area / (rw * rh)
            if not (MIN_ASPECT <= aspect <= MAX_ASPECT) or fill < 0.82 or area * fill <= best_score:
                continue
            quad = cv2.boxPoints(((cx, cy), (rw, rh), ang)).astype(np.float32)
            support = _edge_support(strong, quad, thorough)
            if support < 0.4:
                continue
            fitted = _refine(cnt, quad)  # a perspective quad usually fits better
            if fitted is not None:
                s4 = _edge_support(strong, fitted, thorough)
                if s4 >= support:
                    quad, support = fitted, s4
            if support < 0.6:
                continue
            score = area * fill * support
            if score > best_score:
                best, best_score = quad, score
        if not thorough and best is not None and best_score > 0.85 * area_of(best):
            break  # a clean, well-supported card: no need to look further
    if best is None:
        best = _line_quad(grey, strong)  # the very last resort: a quad from straight pieces of outline
    if best is None:
        return None
    return _order(best / scale)


_MAX_LINES = 14  # the longest straight edges looked at by _line_quad (pairs of pairs: at most 8,281 quads)


def _straight_edges(grey: np.ndarray) -> np.ndarray:
    """The frame's long straight edges as (angle in [0, pi), offset along the normal, length) rows,
    collinear pieces merged (a broken side counts once, with its pieces' summed length), longest first."""
    h, w = grey.shape
    edges = cv2.Canny(cv2.GaussianBlur(grey, (5, 5), 0), 20, 60)
    segs = cv2.HoughLinesP(edges, 1, np.pi / 180, threshold=25, minLineLength=0.1 * min(h, w), maxLineGap=6)
    if segs is None:
        return np.zeros((0, 3))
    segs = segs.reshape(-1, 4).astype(np.float64)
    ang = np.arctan2(segs[:, 3] - segs[:, 1], segs[:, 2] - segs[:, 0]) % np.pi
    off = -np.sin(ang) * segs[:, 0] + np.cos(ang) * segs[:, 1]
    length = np.hypot(segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1])
    merged: list[list[float]] = []
    for i in np.argsort(-length):
        for m in merged:
            d = abs(ang[i] - m[0])
            same = (d < np.deg2rad(3) and abs(off[i] - m[1]) < 4) or (np.pi - d < np.deg2rad(3) and abs(off[i] + m[1]) < 4)
            if same:
                m[2] += length[i]
                break
        else:
            merged.append([ang[i], off[i], length[i]])
    return np.array(merged[:_MAX_LINES])


def _line_quad(grey: np.ndarray, strong: np.ndarray) -> np.ndarray | None:
    """The best card-shaped quad bounded by two pairs of straight edges (parallel within 6°, the pairs
    square within 12°) on strong edges: a card whose outline no mask closes (broken by a pale table, or
    run into a shape lying against it) still shows most of its four straight sides."""
    lines = _straight_edges(grey)
    h, w = grey.shape
    n = len(lines)
    if n < 4:
        return None

    def apart(t1: float, t2: float) -> float:  # the angle between two line directions, 0..pi/2
        d = abs(t1 - t2) % np.pi
        return min(d, np.pi - d)

    pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if apart(lines[i, 0], lines[j, 0]) < np.deg2rad(6)]
    best, best_score = None, 0.0
    for a, b in pairs:
        for c, d in pairs:
            if c <= a or abs(apart(lines[a, 0], lines[c, 0]) - np.pi / 2) > np.deg2rad(12):
                continue
            quad = [_meet(lines[p], lines[q]) for p, q in ((a, c), (c, b), (b, d), (d, a))]
            if any(p is None for p in quad):
                continue
            quad = np.array(quad, np.float32)
            if quad[:, 0].min() < -2 or quad[:, 1].min() < -2 or quad[:, 0].max() > w + 1 or quad[:, 1].max() > h + 1:
                continue
            area = area_of(quad)
            sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
            aspect = min(sides[0] + sides[2], sides[1] + sides[3]) / max(sides[0] + sides[2], sides[1] + sides[3])
            if not (MIN_AREA * h * w <= area <= MAX_AREA * h * w and MIN_ASPECT <= aspect <= MAX_ASPECT):
                continue
            support = _edge_support(strong, quad)
            if support >= 0.6 and area * support > best_score:
                best, best_score = quad, area * support
    return best


def _meet(l1: np.ndarray, l2: np.ndarray) -> np.ndarray | None:
    """Where two (angle, offset) lines cross; None if they are parallel."""
    s1, c1, s2, c2 = np.sin(l1[0]), np.cos(l1[0]), np.sin(l2[0]), np.cos(l2[0])
    det = -s1 * c2 + c1 * s2
    if abs(det) < 1e-3:
        return None
    return np.array([(l1[1] * c2 - c1 * l2[1]) / det, (-s1 * l2[1] + s2 * l1[1]) / det])


def quad_error(found: np.ndarray, truth: np.ndarray) -> float:
    """The largest corner distance between two quads (best cyclic match either way), per unit of long side."""
    long = max(np.linalg.norm(truth - np.roll(truth, -1, axis=0), axis=1))
    best = np.inf
    for q in (found, found[::-1]):
        for k in range(4):
            best = min(best, float(np.linalg.norm(np.roll(q, k, axis=0) - truth, axis=1).max()))
    return best / long


def area_of(quad: np.ndarray) -> float:
    return float(cv2.contourArea(quad.astype(np.float32)))


def warp_card(frame: np.ndarray, quad: np.ndarray, width: int = CARD_WIDTH) -> tuple[np.ndarray, float]:
    """The card inside ``quad`` warped portrait, ``width`` px wide; and its aspect (short/long side)."""
    q = _order(quad)
    short = 0.5 * (np.linalg.norm(q[0] - q[1]) + np.linalg.norm(q[2] - q[3]))
    long = 0.5 * (np.linalg.norm(q[1] - q[2]) + np.linalg.norm(q[3] - q[0]))
    aspect = float(np.clip(short / max(long, 1e-6), MIN_ASPECT, MAX_ASPECT))
    height = int(round(width / aspect))
    dst = np.array([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]], np.float32)
    M = cv2.getPerspectiveTransform(q, dst)
    card = cv2.warpPerspective(frame, M, (width, height), flags=cv2.INTER_AREA if long > height else cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)
    return card, aspect


def grown_quad(quad: np.ndarray, margin: float) -> np.ndarray:
    """``quad`` grown outward on every side by ``margin`` of its short side, in the card's own plane: a
    printed frame inside the card (ornamental decks draw one) grown out to where the card's edge would be."""
    q = _order(quad)
    short = 0.5 * (np.linalg.norm(q[0] - q[1]) + np.linalg.norm(q[2] - q[3]))
    long = 0.5 * (np.linalg.norm(q[1] - q[2]) + np.linalg.norm(q[3] - q[0]))
    w, h = 1000.0, 1000.0 * long / max(short, 1e-6)
    flat = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    back = cv2.getPerspectiveTransform(flat, q)
    d = margin * w
    out = np.array([[[-d, -d], [w + d, -d], [w + d, h + d], [-d, h + d]]], np.float32)
    return cv2.perspectiveTransform(out, back)[0]


# Where the card lies in the dealer camera's view (the rig's calibration): centred, long side across,
# about this share of the frame's width. Used when the outline cannot be found (glare, a dark deck).
WINDOW_CARD_LONG = 0.885
WINDOW_ASPECTS = (0.62, 0.70)


def nominal_window_cards(frame: np.ndarray) -> list[Localized]:
    """The card cut at its nominal place in a dealer-window frame, once per likely aspect."""
    H, W = frame.shape[:2]
    out = []
    for aspect in WINDOW_ASPECTS:
        long, short = WINDOW_CARD_LONG * W, WINDOW_CARD_LONG * W * aspect
        x0, x1, y0, y1 = (W - long) / 2, (W + long) / 2, (H - short) / 2, (H + short) / 2
        quad = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
        card, a = warp_card(frame, quad)
        if frame.ndim == 2:
            card = cv2.cvtColor(card, cv2.COLOR_GRAY2BGR)
        out.append(Localized(quad=_order(quad), card=card, corners=corner_crops(card), aspect=a))
    return out


# Where a card that fills the picture lies (a tight photo, a scan): its long side as a share of the most the
# picture holds (above 1: cut by the edges), and its aspect (short / long), a poker card's.
FILL_SCALES = (0.9, 1.0, 1.1)
FILL_ASPECT = 0.7


def filling_cards(frame: np.ndarray) -> list[Localized]:
    """The card cut where it lies if it fills the picture: centred, its long side along the picture's
    long side or across it, at each of :data:`FILL_SCALES`. For a photo whose outline is cut by the edges
    or lost, where reading the whole picture as the card puts the corners off."""
    H, W = frame.shape[:2]
    out = []
    for upright in (True, False):
        for s in FILL_SCALES:
            if upright:  # the card's long side vertical
                h = s * min(H, W / FILL_ASPECT)
                w = h * FILL_ASPECT
            else:
                w = s * min(W, H / FILL_ASPECT)
                h = w * FILL_ASPECT
            x0, x1, y0, y1 = (W - w) / 2, (W + w) / 2, (H - h) / 2, (H + h) / 2
            quad = _order(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32))
            card, a = warp_card(frame, quad)
            if frame.ndim == 2:
                card = cv2.cvtColor(card, cv2.COLOR_GRAY2BGR)
            out.append(Localized(quad=quad, card=card, corners=corner_crops(card), aspect=a))
    return out


def localize(frame: np.ndarray, thorough: bool = False) -> Localized | None:
    """Find the card in ``frame``; None when there is none (too small, not card-shaped, empty hopper).
    ``thorough``: see :func:`find_quad` (photos; the dealer's window frames need not)."""
    if frame is None or frame.size == 0:
        return None
    quad = find_quad(frame, thorough)
    if quad is None:
        return None
    card, aspect = warp_card(frame, quad)
    if frame.ndim == 2:
        card = cv2.cvtColor(card, cv2.COLOR_GRAY2BGR)
    return Localized(quad=quad, card=card, corners=corner_crops(card), aspect=aspect)
