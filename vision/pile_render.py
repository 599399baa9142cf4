"""Piles of cards on the play area, as players throw them: the pile reader's test data and
``hongsi vision compose --kind pile``.

Usage::

    rng = np.random.default_rng(3)
    faces = [face_for(label, rng, "paris") for label in ("S3", "S3", "H4")]
    pile = render_pile(faces, rng)          # Pile: .image (BGR uint8), .shown (which faces show an index)

A pile is built play by play: a play is a fan (a straight, a bomb, a 升级 tractor: each card shifted
along its short side so that only its corner index shows), a heap of cards thrown anyhow, or a single
card, each play turned as a whole at any angle. Sometimes a hand hovers over part of the pile. Every
card keeps at least one corner index in view (a card nobody can see is no test of a reader); which
faces show an index is in ``Pile.shown``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.render import Face, _composite, _photometric, _texture

PILE_SIZE = (640, 480)  # (width, height) of a pile picture
VISIBLE = 0.85  # an index counts as shown when this share of its box is in view


@dataclass
class Pile:
    image: np.ndarray  # BGR uint8
    shown: list[bool]  # per face: at least one corner index in view
    quads: list[np.ndarray]  # per face: its four corners in the picture
    indices: list[list[np.ndarray]] = field(default_factory=list)  # per face: its two index boxes (4 points each)
    in_view: list[list[float]] = field(default_factory=list)  # per face: the share of each index box in view
    hand: np.ndarray | None = None  # the hand's mask (0..1) when one hovers over the pile


def place(face: Face, centre, long_side: float, angle: float) -> tuple[np.ndarray, np.ndarray]:
    """The affine-as-perspective matrix putting ``face`` at ``centre`` (its long side ``long_side``
    px, turned ``angle`` degrees), and its corners in the picture."""
    H, W = face.bgr.shape[:2]
    s = long_side / H
    t = np.deg2rad(angle)
    R = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]]) * s
    src = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float32)
    dst = ((src - [W / 2, H / 2]) @ R.T + centre).astype(np.float32)
    return cv2.getPerspectiveTransform(src, dst), dst


def _index_polys(face: Face, M: np.ndarray) -> list[np.ndarray]:
    """The two corner indices' boxes in the picture (top-left, and its 180° turn at the bottom right)."""
    H, W = face.bgr.shape[:2]
    x0, y0, x1, y1 = face.index_box
    boxes = [[[x0, y0], [x1, y0], [x1, y1], [x0, y1]],
             [[W - x1, H - y1], [W - x0, H - y1], [W - x0, H - y0], [W - x1, H - y0]]]
    return [cv2.perspectiveTransform(np.array(b, np.float32)[None], M)[0] for b in boxes]


def _plays(n: int, rng: np.random.Generator) -> list[int]:
    """How ``n`` cards were thrown: the sizes of the plays, in order."""
    sizes = []
    while n > 0:
        k = int(min(n, rng.choice([1, 1, 2, 3, 4, 5, 6])))
        sizes.append(k)
        n -= k
    return sizes


def _poses(k: int, centre: np.ndarray, long_side: float, aspect: float, rng: np.random.Generator) -> list:
    """Centres and angles of one play of ``k`` cards: a fan, or a heap when thrown anyhow."""
    base = rng.uniform(0, 360)
    if k > 1 and rng.random() < 0.7:  # a fan: each card shifted along its short side
        step = long_side * aspect * rng.uniform(0.22, 0.5)
        skew = rng.normal(0, 3)
        t = np.deg2rad(base)
        along = np.array([np.cos(t), np.sin(t)])
        return [(centre + along * step * (i - (k - 1) / 2) + rng.normal(0, 2, 2), base + skew * i) for i in range(k)]
    return [(centre + rng.normal(0, 0.35 * long_side, 2), rng.uniform(0, 360)) for _ in range(k)]


def _hand(img: np.ndarray, rng: np.random.Generator, size: float) -> np.ndarray:
    """A hand over part of the picture (palm and fingers in a skin tone); returns its mask (0..1)."""
    H, W = img.shape[:2]
    mask = np.zeros((H, W), np.uint8)
    side = int(rng.integers(4))
    edge = {0: (rng.uniform(0, W), 0), 1: (W, rng.uniform(0, H)), 2: (rng.uniform(0, W), H), 3: (0, rng.uniform(0, H))}[side]
    towards = np.array([W / 2, H / 2]) + rng.normal(0, 0.15 * min(W, H), 2)
    d = towards - np.array(edge)
    d /= max(np.linalg.norm(d), 1e-6)
    palm = np.array(edge) + d * size * rng.uniform(0.4, 0.9)
    cv2.ellipse(mask, tuple(int(v) for v in palm), (int(0.45 * size), int(0.35 * size)),
                float(np.degrees(np.arctan2(d[1], d[0]))), 0, 360, 255, -1, cv2.LINE_AA)
    cv2.line(mask, tuple(int(v) for v in edge), tuple(int(v) for v in palm), 255, int(0.6 * size), cv2.LINE_AA)
    normal = np.array([-d[1], d[0]])
    for f in range(4):
        base = palm + d * 0.25 * size + normal * (f - 1.5) * 0.18 * size
        tip = base + d * size * rng.uniform(0.35, 0.6)
        cv2.line(mask, tuple(int(v) for v in base), tuple(int(v) for v in tip), 255, int(0.14 * size), cv2.LINE_AA)
    tone = np.array([rng.uniform(90, 160), rng.uniform(120, 180), rng.uniform(170, 230)], np.float32)
    a = cv2.GaussianBlur(mask.astype(np.float32) / 255.0, (0, 0), 1.5)[..., None]
    shade = 0.85 + 0.15 * rng.random()
    img[:] = img * (1 - a) + tone * shade * a
    return a[..., 0]


def render_pile(faces: list[Face], rng: np.random.Generator, *, size: tuple[int, int] = PILE_SIZE,
                hand: float = 0.25, strength: float = 0.7, plays: list[int] | None = None,
                stages: list | None = None, layouts: int = 20) -> Pile:
    """The faces thrown onto a table in plays, in order (the last on top); ``hand``: how often a hand
    hovers over part of the pile; ``strength``: how harsh the light and the camera are (0..1);
    ``plays``: the plays' sizes (default: random ones). ``stages``, a list: the settled picture after
    each play (no hand; the same light and camera, fresh sensor noise) is appended to it. ``layouts``:
    how many layouts to try for one where every card shows an index (training data takes the first)."""
    W, H = size
    long_side = min(W, H) * rng.uniform(0.36, 0.5)
    laid = 0
    for _ in range(400):  # until every card lies in the picture, and shows an index (20 layouts at most)
        img = _texture(rng, W, H, blobs=1).astype(np.float32)
        covered = np.zeros((H, W), np.float32)  # what lies above each card, filled from the top down
        placed = []
        i = 0
        sizes = plays if plays is not None else _plays(len(faces), rng)
        ends = np.cumsum(sizes)
        for k in sizes:
            centre = np.array([W / 2, H / 2]) + rng.normal(0, 0.12, 2) * (W, H)
            aspect = faces[i].bgr.shape[1] / faces[i].bgr.shape[0]
            for centre_j, angle in _poses(k, centre, long_side, aspect, rng):
                M, quad = place(faces[i], centre_j, long_side * rng.uniform(0.97, 1.03), angle)
                placed.append((faces[i], M, quad))
                i += 1
        quads = [q for _, _, q in placed]
        if any(q[:, 0].min() < 2 or q[:, 1].min() < 2 or q[:, 0].max() > W - 2 or q[:, 1].max() > H - 2
               for q in quads):
            long_side *= 0.95
            continue
        table = img
        for face, M, _ in placed:
            img = _composite(img, face, M, shadow=rng.uniform(0.1, 0.35))
        hand_mask = _hand(img, rng, long_side * rng.uniform(0.7, 1.0)) if rng.random() < hand else None
        shown, indices, in_view = [], [], []
        for face, M, quad in reversed(placed):
            polys = _index_polys(face, M)
            view = [_in_view(p, covered, hand_mask) for p in polys]
            shown.append(max(view) >= VISIBLE)
            indices.append(polys)
            in_view.append(view)
            cv2.fillConvexPoly(covered, quad.astype(np.int32), 1.0)
        for x in (shown, indices, in_view):
            x.reverse()
        laid += 1
        if all(shown) or laid >= layouts:
            break
    else:
        raise RuntimeError("the pile could not be laid out in the picture")
    seed = int(rng.integers(2**31))
    if stages is not None:
        stages += _stages(table, placed, ends, seed, strength, rng)
    out = _photometric(img, np.random.default_rng(seed), strength=strength)
    return Pile(out, shown, quads, indices, in_view, hand_mask)


def index_owner(pile: Pile) -> np.ndarray:
    """(H, W) int32: at each pixel, whose corner index is in view there (``2 * face + corner``, corner 0
    the top-left one), or -1 (table, a card's face away from its indices, the hand). The cards are
    painted in the order they were thrown, so a card on top hides the indices under it: what the pile
    reader's training cuts its true index boxes with (vision.pile_train)."""
    H, W = pile.image.shape[:2]
    owner = np.full((H, W), -1, np.int32)
    for i, (quad, polys) in enumerate(zip(pile.quads, pile.indices, strict=True)):
        cv2.fillConvexPoly(owner, np.round(quad).astype(np.int32), -1)
        for c, poly in enumerate(polys):
            cv2.fillConvexPoly(owner, np.round(poly).astype(np.int32), 2 * i + c)
    if pile.hand is not None:
        owner[pile.hand >= 0.3] = -1
    return owner


def _stages(table: np.ndarray, placed: list, ends, seed: int, strength: float,
            rng: np.random.Generator) -> list[np.ndarray]:
    """The picture after each play: the same table, light and camera (``seed``), its own sensor noise."""
    out = []
    img = table
    for i, (face, M, _) in enumerate(placed):
        img = _composite(img, face, M, shadow=0.2)
        if i + 1 in ends:
            shot = _photometric(img.copy(), np.random.default_rng(seed), strength=strength).astype(np.float32)
            shot += rng.standard_normal(shot.shape[:2] + (1,)).astype(np.float32) * 2.0
            out.append(np.clip(shot, 0, 255).astype(np.uint8))
    return out


def _in_view(poly: np.ndarray, covered: np.ndarray, hand: np.ndarray | None) -> float:
    """The share of an index box not covered by cards above it, nor by the hand, nor off the picture."""
    m = np.zeros(covered.shape, np.uint8)
    cv2.fillConvexPoly(m, poly.astype(np.int32), 1)
    area = float(cv2.contourArea(poly.astype(np.float32)))
    if area < 1:
        return 0.0
    free = 1.0 - covered if hand is None else (1.0 - covered) * (hand < 0.3)
    return float((free * m).sum() / area)
