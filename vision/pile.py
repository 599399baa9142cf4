"""The pile reader: every card in a picture of the play area, from the corner indices it shows.

Usage::

    reader = PileReader()                 # the pile index model and the corner models, one onnxruntime thread
    r = reader.read(picture)              # PileReading
    r.labels, r.confidence                # ["S3", "S3", "H4"], 0.97 -- or None when unsure

Cards in a pile overlap, fan and turn at any angle; often only a corner index of a card shows. So the
reader looks for indices, not cards. :meth:`PileReader.read` finds them with the corner detector
(:mod:`vision.pile_detect`, read as :mod:`vision.pile_corners` says) when its model is there, and then
declines the pile as below when something on the table is left unexplained. The ink-blob way below is
what :mod:`vision.play_weigh` still uses for the cards a play added, and ``detector=None`` reads with it:

1. *Ink on paper*: pixels much darker (or redder) than the bright paper around them, as connected
   blobs of a glyph's size (:func:`ink_blobs`; ``erase``: long straight strokes, cards' outlines that a
   rank printed near the edge touches, painted out first, as :mod:`vision.play_weigh` does).
2. *Candidates*: an index is a rank glyph with its suit pip next to it, so each blob alone, each blob
   with each of its nearest blobs of the same ink, and each tight cluster of blobs is a candidate box
   (:func:`candidates`).
3. *Classify*: each candidate's box, cut axis-aligned, is read by the pile index model
   (``vision/models/pile_index.onnx``, :mod:`vision.pile_train`: the corner models' network trained on
   exactly these crops of rendered piles, "no card" included). It reads a candidate when it is
   :data:`INDEX_ACCEPT` sure; a candidate it does not read is a doubt when it or the first corner model
   thinks it likely to be some card (a card missed would make the pile wrong). Without the index model
   (``index_model=None``) the first corner model screens and the committee reads, all members but
   :data:`DISSENT` agreeing (:class:`vision.reader.CardReader`). :meth:`PileReader._upright_evidence` (used by
   :mod:`vision.play_weigh`) cuts each candidate turned upright along its rank-to-pip axis, both ways,
   for the committee: on the true index boxes of rendered piles of training designs the first model
   reads 97 % upright, 88 % axis-aligned.
4. *One reading per index*: overlapping candidates are the same index (the surest one stays).
5. *One card per pair of indices*: a card shows its index at two opposite corners, turned 180°; two
   readings of the same card lying where one card's two corners would lie are one card. Two copies of
   a card (two decks) lie elsewhere, so they stay two.

The pile is declined (``labels`` None) when some blob looks like an index (not "no card") but no
reading of it is sure: a guess is worse than asking.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.corner_data import NONE_CLASS
from vision.labels import LABELS
from vision.pile_corners import MEMBER as PILE_MEMBER
from vision.pile_corners import read_corners, verdict
from vision.pile_detect import MODEL as DETECTOR
from vision.pile_detect import CornerDetector
from vision.reader import MODEL_DIR, CardReader, is_colourless

# A card's long side, as a share of the picture's short side, at most: the play area's calibration
# (the composer draws cards 0.36..0.5 of it).
CARD_LONG = 0.5
WORK_SIDE = 640  # the picture's long side is scaled to this many pixels first
MIN_SIDE = 16  # px: a picture smaller than this each way shows no readable index (a close-up of one is ~40)
# A blob is a glyph when its box is this many pixels on its long side (at WORK_SIDE).
MIN_GLYPH, MAX_GLYPH = 5, 60
ACCEPT = 0.85  # a candidate is read when the pooled committee is this sure of its card ...
MARGIN = 0.5  # ... and this far ahead of the next card
SCREEN = 0.3  # the first model's probability of some card for a candidate to go to the committee
DOUBT = 0.8  # a candidate this likely to be some card, left unread and not part of a read index: decline
PAD = 1.1  # the crop around a candidate's box (as the models learnt: 1.05..1.6)
NEIGHBOURS = 3
SHARED = True  # an unread candidate sharing a blob with a read index is part of that index
CLEAN = True  # paint other blobs out of each candidate's crop
UPRIGHT = False  # the pile reader cuts each candidate turned upright (vision.play_weigh always does)
POOL_TURNS = True  # its two turns' evidence pooled (else the surer one)
TURNS = False  # the committee reads each crop at its four quarter turns
CLEARS = 0.3  # a doubtful candidate sharing this much of its box with a read index is part of it
SAME_SHAPE = 0.6  # Hu-moment distance below which two blobs are one shape (cv2.matchShapes, I2)
EDGE_LENGTH, EDGE_VOTES = 40, 40  # a straight stroke this long (working pixels) is a card's edge
DISSENT = 1  # committee members that may pick another card (of five)
INDEX_MODEL = MODEL_DIR / "pile_index.onnx"  # vision.pile_train's model of pile candidates
MEMBER_MODEL = MODEL_DIR / PILE_MEMBER  # vision.pile_member_train's: the pile committee's own member
# the same trainer's model of 21 training designs (stop 54), pooled on a play's new indices (vision.play_corners)
PLAY_MEMBER_MODEL = MODEL_DIR / "play_member.onnx"
# The index model reads a candidate this sure of its card (and MARGIN ahead); one it does not read is a
# doubt when it or the first corner model thinks it this likely to be some card. Chosen on piles of the
# training designs (benchmarks/vision_pile.py --training-designs), wrong piles kept few.
INDEX_ACCEPT = 0.8
INDEX_DOUBT = 0.5
# "No cards" needs a picture that could have shown an index (:func:`unseeable`), measured at WORK_SIDE
# against 300 rendered piles of the training designs and 150 rendered empty tables (the renderer's light,
# blur, noise and JPEG; strength 0.3..1) and 600 real camera crops (cards-real-dev):
DARK = 20.0  # the brightest 0.5 % of the picture darker than this: unlit (a third of renders' >= 58, real >= 61)
NOISY = 15.0  # noise (grey levels, Immerkaer's estimate) above this: renders <= 6.3, real crops <= 9.2
BLOWN = 0.9  # this share of the picture white in every channel (>= 250): overexposed (piles' renders <= 0.19)
BLUNT = 0.12  # edges blunter than this (:func:`sharpness`): half the bluntest of the renders of piles (0.245)
EDGE_STEP = 24.0  # grey levels within 15 px that make an edge


@dataclass
class Blob:
    box: tuple[int, int, int, int]  # x0, y0, x1, y1 (inclusive-exclusive)
    centre: np.ndarray
    size: float  # the box's long side
    red: bool
    mask: np.ndarray  # the blob's own pixels in its box (uint8 0/1)


@dataclass
class Found:
    """One corner index read in the picture."""

    label: str
    confidence: float
    box: tuple[float, float, float, float]
    axis: np.ndarray  # the index's long direction (unit vector, sign unknown)


@dataclass
class PileReading:
    labels: list[str] | None
    confidence: float
    found: list[Found] = field(default_factory=list)  # every index read (both corners of a card)
    doubts: int = 0  # blobs that looked like an index and were not read


def check_size(image: np.ndarray) -> None:
    """A ValueError for a picture of the play area too small to show a card's index, or so narrow that
    scaled to :data:`WORK_SIDE` its short side vanishes."""
    h, w = image.shape[:2]
    if min(h, w) < MIN_SIDE or min(h, w) * WORK_SIDE / max(h, w) < MIN_SIDE / 2:
        raise ValueError(f"the picture is too small or too narrow to read ({w} x {h} px)")


def darkest(bgr: np.ndarray) -> np.ndarray:
    """Each pixel's darkest channel (black and red ink are both dark in it; paper is not)."""
    b, g, r = cv2.split(bgr)
    return cv2.min(cv2.min(b, g), r)


def ink_mask(bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ink (uint8 0/255) on bright paper, and the picture's darkest channel. Ink is darker than 60 %
    of the brightest nearby paper, and that paper is bright."""
    low = darkest(bgr)
    paper = cv2.dilate(low, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (25, 25)))
    paper = cv2.GaussianBlur(paper, (0, 0), 4)
    bright = np.percentile(paper, 95)
    ink = (low.astype(np.float32) < 0.6 * paper) & (paper > 0.55 * bright)
    return ink.astype(np.uint8) * 255, low


def erase_edges(ink: np.ndarray) -> np.ndarray:
    """The ink with long straight strokes painted out: cards' outlines, which a rank printed close to
    the edge touches (a "2" joined to its card's border is no glyph-sized blob). Glyph strokes are short."""
    lines = cv2.HoughLinesP(ink, 1, np.pi / 180, EDGE_VOTES, minLineLength=EDGE_LENGTH, maxLineGap=2)
    if lines is None:
        return ink
    out = ink.copy()
    for x0, y0, x1, y1 in lines.reshape(-1, 4):
        cv2.line(out, (int(x0), int(y0)), (int(x1), int(y1)), 0, 3)
    return out


def ink_blobs(bgr: np.ndarray, erase: bool = False) -> list[Blob]:
    """The glyph-sized blobs of ink on paper (``erase``: cards' outlines painted out first)."""
    ink, _ = ink_mask(bgr)
    if erase:
        ink = erase_edges(ink)
    n, lab, stats, cents = cv2.connectedComponentsWithStats(ink, connectivity=8)
    b, g, r = (bgr[..., i].astype(np.int16) for i in range(3))
    redness = r - np.maximum(b, g)
    out = []
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        size = max(w, h)
        if not (MIN_GLYPH <= size <= MAX_GLYPH) or area < 12 or area > 0.9 * w * h and min(w, h) > 0.6 * size:
            continue  # too small, too big, or a solid square (not a glyph)
        mask = lab[y:y + h, x:x + w] == i
        red = float(redness[y:y + h, x:x + w][mask].mean()) > 40
        out.append(Blob((int(x), int(y), int(x + w), int(y + h)), np.array(cents[i]), float(size), red,
                        mask.astype(np.uint8)))
    return out


def _ink_out_of_scale(bgr: np.ndarray) -> bool:
    """Whether ink too big for a glyph at the play area's scale is there (a rank or pip seen close up):
    a picture where no index was read is then no empty table."""
    ink, _ = ink_mask(bgr)
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    for _x, _y, w, h, area in stats[1:]:
        if MAX_GLYPH < max(w, h) <= 4 * MAX_GLYPH and area >= 0.15 * w * h:
            return True
    return False


def unseeable(image: np.ndarray) -> bool:
    """Whether the picture (at :data:`WORK_SIDE`) could not have shown an index, so that finding none says
    nothing: too dark (:data:`DARK`: a black frame), too noisy (:data:`NOISY`: a dead sensor's static), or
    something not the table is there as big as a part of a card but every edge is blurred past what a
    camera gives (:data:`BLUNT`: a pile out of focus), or too bright (:data:`BLOWN`: a white frame, a lamp in
    the lens). An empty table photographed clearly is none of these."""
    if float(np.percentile(image.max(axis=2), 99.5)) < DARK or float((image.min(axis=2) >= 250).mean()) > BLOWN:
        return True
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    lap = cv2.filter2D(grey, -1, np.array([[1, -2, 1], [-2, 4, -2], [1, -2, 1]], np.float32))[1:-1, 1:-1]
    if float(np.sqrt(np.pi / 2) * np.median(np.abs(lap)) / 6) > NOISY:
        return True
    H, W = image.shape[:2]
    most = 0.75 * (CARD_LONG * min(H, W)) ** 2
    n, _, stats, _ = cv2.connectedComponentsWithStats(foreground(image).astype(np.uint8), connectivity=8)
    if n < 2 or stats[1:, cv2.CC_STAT_AREA].max() < 0.2 * most:
        return False  # nothing but the table: an empty table need not be sharp to be empty
    sharp = sharpness(grey)
    return sharp is not None and sharp < BLUNT


def sharpness(grey: np.ndarray) -> float | None:
    """How sharp the picture's edges are: at the pixels where the grey level spans at least
    :data:`EDGE_STEP` within 15 px (an edge, not noise), the gradient over that span (p99; a step edge
    ~0.5, one blurred by a Gaussian of sigma s px ~0.4 / s); None when the picture has no such edge."""
    mag = np.hypot(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1)) / 8
    box = np.ones((15, 15), np.uint8)
    span = cv2.dilate(grey, box) - cv2.erode(grey, box)
    edge = span >= EDGE_STEP
    if edge.mean() < 0.002:
        return None
    return float(np.percentile(mag[edge] / span[edge], 99))


def _union(blobs: list[Blob]) -> tuple[int, int, int, int]:
    return (min(b.box[0] for b in blobs), min(b.box[1] for b in blobs),
            max(b.box[2] for b in blobs), max(b.box[3] for b in blobs))


def _gap(a: Blob, b: Blob) -> float:
    dx = max(0, max(a.box[0], b.box[0]) - min(a.box[2], b.box[2]))
    dy = max(0, max(a.box[1], b.box[1]) - min(a.box[3], b.box[3]))
    return float(np.hypot(dx, dy))


def candidates(blobs: list[Blob], same_shape: float | None = None) -> list[tuple[tuple[int, ...], np.ndarray]]:
    """Candidate indices as (the blobs' numbers, the index's axis): each blob with its nearest blobs of
    the same ink and another shape (a rank and its pip, not two pips), and a pair with a third blob close
    to both (a "10" and its pip). A blob alone is no candidate: a pip read alone may look like a card."""
    seen: dict[tuple[int, ...], np.ndarray] = {}
    n = len(blobs)
    if n == 0:
        return []
    cents = np.array([b.centre for b in blobs])
    for i, a in enumerate(blobs):
        d = np.linalg.norm(cents - cents[i], axis=1)
        order = [j for j in np.argsort(d) if j != i][:NEIGHBOURS]
        near = []
        for j in order:
            b = blobs[j]
            if (b.red != a.red or not 0.33 < b.size / a.size < 3 or _gap(a, b) > 0.7 * max(a.size, b.size)
                    or alike(a, b, same_shape)):
                continue
            axis = (b.centre - a.centre) / max(float(d[j]), 1e-6)
            seen.setdefault(tuple(sorted((i, j))), axis)
            near.append(j)
        for j in near:  # a pair with a third close blob: a "10" with its pip
            for k in near:
                if j < k and _gap(blobs[j], blobs[k]) < 0.7 * max(blobs[j].size, blobs[k].size):
                    trio = tuple(sorted((i, j, k)))
                    pts = cents[list(trio)]
                    seen.setdefault(trio, _principal(pts))
    return list(seen.items())


def alike(a: Blob, b: Blob, same_shape: float | None = None) -> bool:
    """Two blobs of one shape (at any angle and size): two pips, not a rank and its pip."""
    return cv2.matchShapes(a.mask, b.mask, cv2.CONTOURS_MATCH_I2, 0) < (SAME_SHAPE if same_shape is None else same_shape)


def _blob_axis(b: Blob) -> np.ndarray:
    x0, y0, x1, y1 = b.box
    return np.array([0.0, 1.0]) if y1 - y0 >= x1 - x0 else np.array([1.0, 0.0])


def _principal(pts: np.ndarray) -> np.ndarray:
    c = pts - pts.mean(axis=0)
    _, _, vt = np.linalg.svd(c, full_matrices=False)
    return vt[0]


def crop_box(img: np.ndarray, box: tuple[float, float, float, float], pad: float = PAD) -> np.ndarray:
    """The box widened by ``pad`` about its centre, cut from the picture (edges repeated)."""
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    hw, hh = max(x1 - x0, 4) * pad / 2, max(y1 - y0, 4) * pad / 2
    H, W = img.shape[:2]
    a, b = int(round(cx - hw)), int(round(cy - hh))
    c, d = int(round(cx + hw)), int(round(cy + hh))
    if a >= 0 and b >= 0 and c <= W and d <= H:
        return img[b:d, a:c]
    return cv2.copyMakeBorder(img[max(b, 0):min(d, H), max(a, 0):min(c, W)], max(0, -b), max(0, d - H),
                              max(0, -a), max(0, c - W), cv2.BORDER_REPLICATE)


def upright_crop(img: np.ndarray, blobs: list[Blob], axis: np.ndarray, pad: float = 1.2) -> np.ndarray:
    """The blobs cut out turned so that ``axis`` (rank to pip) points down: the index upright (or
    turned 180°, as the models also know it), ``pad`` times the blobs' extent in that frame."""
    pts = np.concatenate([np.stack(np.nonzero(b.mask)[::-1], 1) + b.box[:2] for b in blobs]).astype(np.float64)
    down = axis / max(float(np.linalg.norm(axis)), 1e-9)
    right = np.array([down[1], -down[0]])
    u, v = pts @ right, pts @ down
    cu, cv_ = (u.min() + u.max()) / 2, (v.min() + v.max()) / 2
    w = max(u.max() - u.min() + 1, 4) * pad
    h = max(v.max() - v.min() + 1, 4) * pad
    out_w, out_h = max(4, int(round(w))), max(4, int(round(h)))
    # output (x, y) -> picture point: centre + (x - out_w/2) * right + (y - out_h/2) * down
    centre = cu * right + cv_ * down
    A = np.stack([right, down], 1)
    b = centre - A @ np.array([out_w / 2, out_h / 2])
    M = np.hstack([A, b[:, None]]).astype(np.float32)
    return cv2.warpAffine(img, M, (out_w, out_h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


def unexplained(image: np.ndarray, cards: list[np.ndarray], card_long: float) -> bool:
    """Whether something on the table is not explained by the cards read (their index centres, in
    working pixels): a patch of the picture unlike the table, as big as a good part of a card, with no
    card read in it, or bigger than the cards read in it could cover, with things drawn inside it. A card whose index was missed
    (a dark deck, an index under a hand) then declines the pile instead of leaving it out."""
    H, W = image.shape[:2]
    long = card_long * min(H, W)
    most = 0.75 * long * long  # the largest card's area
    fg = foreground(image).astype(np.uint8)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=8)
    inside = np.zeros(n, int)
    for c in cards:
        x, y = int(np.clip(c[0], 0, W - 1)), int(np.clip(c[1], 0, H - 1))
        inside[lab[y, x]] += 1
    edges = cv2.Canny(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), 60, 150) > 0
    for i in range(1, n):
        area = stats[i, cv2.CC_STAT_AREA]
        if area >= 0.2 * most and (inside[i] == 0 or area > (inside[i] + 0.6) * most) and _drawn(lab == i, edges):
            return True
    return False


def _drawn(patch: np.ndarray, edges: np.ndarray) -> bool:
    """Whether a patch has things drawn inside it (a card's glyphs and art), not only an outline (a
    coaster, a cloth's stain): at least 2 % of its inside, away from its border, is on an edge."""
    inner = cv2.erode(patch.astype(np.uint8), np.ones((9, 9), np.uint8)) > 0
    return bool(inner.any() and edges[inner].mean() >= 0.02)


def _shifted(b: Blob, origin: tuple[int, int]) -> Blob:
    x, y = origin
    return Blob((b.box[0] - x, b.box[1] - y, b.box[2] - x, b.box[3] - y), b.centre - (x, y), b.size, b.red, b.mask)


def _clean_regions(img, blobs, cands, boxes, pad: float = 1.9):
    """:func:`clean_crops` wide enough to turn each candidate upright inside, and their origins."""
    crops = clean_crops(img, blobs, cands, boxes, pad)
    origins = []
    for x0, y0, x1, y1 in boxes:
        hw, hh = max(x1 - x0, 4) * pad / 2, max(y1 - y0, 4) * pad / 2
        origins.append((int(round((x0 + x1) / 2 - hw)), int(round((y0 + y1) / 2 - hh))))
    return crops, origins


def clean_crops(img: np.ndarray, blobs: list[Blob], cands: list, boxes: list, pad: float = None) -> list[np.ndarray]:
    """:func:`crop_box` of each candidate with the other blobs in it painted over in the paper's colour:
    a neighbour card's pip beside a rank must not make another suit of it."""
    pad = PAD if pad is None else pad
    bb = np.array([b.box for b in blobs])
    out = []
    for (ids, _), box in zip(cands, boxes, strict=True):
        x0, y0, x1, y1 = box
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        hw, hh = max(x1 - x0, 4) * pad / 2, max(y1 - y0, 4) * pad / 2
        a, b = int(round(cx - hw)), int(round(cy - hh))
        crop = crop_box(img, box, pad).copy()
        hit = np.flatnonzero((bb[:, 0] < a + crop.shape[1]) & (bb[:, 2] > a) & (bb[:, 1] < b + crop.shape[0])
                             & (bb[:, 3] > b))
        others = [j for j in hit if j not in ids]
        if others:
            paper = np.percentile(crop.reshape(-1, 3), 80, axis=0)
            for j in others:
                bl = blobs[j]
                m = cv2.dilate(bl.mask, np.ones((3, 3), np.uint8))
                X0, Y0 = bl.box[0] - 1 - a, bl.box[1] - 1 - b
                m = cv2.copyMakeBorder(m, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
                m = cv2.dilate(m, np.ones((3, 3), np.uint8))
                ys, xs = np.nonzero(m)
                ys, xs = ys + Y0, xs + X0
                ok = (ys >= 0) & (xs >= 0) & (ys < crop.shape[0]) & (xs < crop.shape[1])
                crop[ys[ok], xs[ok]] = paper
        out.append(crop)
    return out


class PileReader:
    """Reads piles with the corner models of :class:`vision.reader.CardReader` (or ``reader``)."""

    def __init__(self, reader: CardReader | None = None, threads: int = 1, card_long: float = CARD_LONG,
                 index_model: str | Path | None = INDEX_MODEL, detector: str | Path | None = DETECTOR,
                 member: str | Path | None = MEMBER_MODEL, play_member: str | Path | None = PLAY_MEMBER_MODEL) -> None:
        self.reader = reader or CardReader(threads=threads)
        # the pile committee's own member (vision.pile_corners.committee) reads the detector's cuts; None
        # (or no such model): the reader's committee as it is
        self.member = (CardReader(model_path=member, threads=threads)
                       if member is not None and Path(member).exists() else None)
        self.card_long = card_long
        # the pile index model (vision.pile_train) reads the candidates; None: the corner models do
        self.index = CardReader(model_path=index_model, threads=threads) if index_model is not None else None
        # the corner detector (vision.pile_detect) finds the indices for read(); None: ink blobs do. It
        # is loaded on the first read(): vision.play_weigh's readers never use it.
        self._detector_path = Path(detector) if detector is not None and Path(detector).exists() else None
        self._threads = threads
        self._detector: CornerDetector | None = None
        # the member pooled on a play's new indices (vision.play_weigh), loaded on its first use
        self._play_member_path = Path(play_member) if play_member is not None and Path(play_member).exists() else None
        self._play_member: CardReader | None = None

    @property
    def play_member(self) -> CardReader | None:
        if self._play_member is None and self._play_member_path is not None:
            self._play_member = CardReader(model_path=self._play_member_path, threads=self._threads)
        return self._play_member

    @property
    def detector(self) -> CornerDetector | None:
        if self._detector is None and self._detector_path is not None:
            self._detector = CornerDetector(self._detector_path, self._threads)
        return self._detector

    def _upright_evidence(self, image, blobs, cands, boxes, grey) -> np.ndarray:
        """(members, n, 55): each candidate cut turned upright along its axis, both ways (rank above
        its pip, or turned 180°: which blob is the rank is unknown), other blobs painted out; the two
        views' evidence pooled."""
        views = []
        for (ids, axis), crop, origin in zip(cands, *_clean_regions(image, blobs, cands, boxes), strict=True):
            own = [_shifted(blobs[i], origin) for i in ids]
            views += [upright_crop(crop, own, axis), upright_crop(crop, own, -axis)]
        first = self.reader.log_probs(views, grey).reshape(len(cands), 2, -1)
        # the first model screens: only candidates it thinks may be an index go to the whole committee
        keep = np.flatnonzero(1.0 - np.exp(first[..., NONE_CLASS]).min(axis=1) >= SCREEN)
        lp = np.repeat(first[None], len(self.reader.paths), axis=0)  # (members, n, 2, 55)
        if len(keep):
            some = self.reader.committee_log_probs([views[2 * i + t] for i in keep for t in (0, 1)], grey)
            lp[:, keep] = some.reshape(some.shape[0], len(keep), 2, -1)
        if POOL_TURNS:
            return lp.mean(axis=2)
        best = lp[..., :NONE_CLASS].mean(axis=0).max(axis=-1)  # (n, 2)
        pick = best.argmax(axis=1)
        return lp[:, np.arange(len(cands)), pick]

    def read(self, image: np.ndarray) -> PileReading:
        if image is None or not isinstance(image, np.ndarray) or image.size == 0:
            raise ValueError("not an image")
        if image.ndim == 2:
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        image = np.ascontiguousarray(image[..., :3])
        check_size(image)
        original = image
        scale = WORK_SIDE / max(image.shape[:2])
        if abs(scale - 1) > 0.02:
            image = cv2.resize(image, None, fx=scale, fy=scale,
                               interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
        grey = is_colourless(image)
        if self._detector_path is not None:
            return self._read_detected(original, image, scale, grey)
        blobs = ink_blobs(image)
        cands = candidates(blobs)
        if not cands:
            if unexplained(image, [], self.card_long) or _ink_out_of_scale(image) or unseeable(image):
                return PileReading(None, 0.0)
            return PileReading([], 1.0)
        boxes = [_union([blobs[i] for i in ids]) for ids, _ in cands]
        lp, keep, seen = self._evidence(image, blobs, cands, boxes, grey)
        return self._conclude(image, scale, cands, boxes, lp, keep, seen)

    def _read_detected(self, original, image, scale, grey) -> PileReading:
        """The pile from the corner detector's indices (:mod:`vision.pile_corners`), declined as the
        blob reading is when something on the table is left unexplained."""
        reading = read_corners(original, self.detector, self.reader, grey, self.member)
        if reading.labels is None:
            return reading
        centres = [_centre(f) * scale for f in reading.found]
        if unexplained(image, centres, self.card_long) or (not reading.found and _ink_out_of_scale(image)):
            return PileReading(None, reading.confidence if reading.found else 0.0, reading.found)
        if not reading.labels and unseeable(image):  # no index found where none could have shown
            return PileReading(None, 0.0, reading.found)
        return reading

    def _evidence(self, image, blobs, cands, boxes, grey):
        """(voters, kept, 55) log-probabilities of the candidates worth reading, which those are, and
        (kept,) another model's probability that each shows some card (None: no other model asked)."""
        if UPRIGHT:
            return self._upright_evidence(image, blobs, cands, boxes, grey), np.arange(len(cands)), None
        crops = [crop_box(image, b) for b in boxes] if not CLEAN else clean_crops(image, blobs, cands, boxes)
        first = np.exp(self.reader.log_probs(crops, grey))  # (n, 55)
        if self.index is not None:  # the pile index model reads every candidate; it alone votes
            return self.index.log_probs(crops, grey)[None], np.arange(len(cands)), 1.0 - first[:, NONE_CLASS]
        keep = np.flatnonzero(1.0 - first[:, NONE_CLASS] >= SCREEN)
        lp = self.reader.committee_log_probs([crops[i] for i in keep], grey) if len(keep) else None
        return lp, keep, None

    def _conclude(self, image, scale, cands, boxes, lp, keep, seen=None) -> PileReading:
        """The pile from its candidates' evidence: each index read or doubted, then one card per pair
        of indices, and declined when a doubt or something unexplained remains."""
        found: list[tuple[float, int, int]] = []  # (confidence, label, candidate)
        unsure = []
        sure, doubt = (INDEX_ACCEPT, INDEX_DOUBT) if self.index is not None else (ACCEPT, DOUBT)
        for row, i in enumerate(keep):
            said = _verdict(lp[:, row], sure)
            if said is None:
                some_card = 1.0 - float(np.exp(lp[:, row, NONE_CLASS]).mean())
                if seen is not None:  # the corner model's doubt counts too: a card missed is a wrong pile
                    some_card = max(some_card, float(seen[row]))
                if len(cands[i][0]) > 1 and some_card > doubt:
                    unsure.append((i, set(np.argsort(-lp[:, row, :NONE_CLASS].mean(axis=0))[:2].tolist())))
                continue
            found.append((said[1], said[0], int(i)))
        kept = _suppress(found, boxes)
        reads = [Found(LABELS[lab], conf, tuple(float(v) / scale for v in boxes[i]), cands[i][1])
                 for conf, lab, i in kept]
        card = foreground(image)
        taken = {b for _, _, j in kept for b in cands[j][0]}  # a blob belongs to one index only
        doubts = [i for i, likely in unsure if not (SHARED and taken & set(cands[i][0]))
                  and not _explained(boxes[i], likely, kept, reads, boxes, card, scale)]
        cards = _one_per_card(reads, card, scale)
        labels = sorted(f.label for f in cards)
        # the least sure index read; a declined picture with none read is not "sure" (0, not 1)
        confidence = float(min((f.confidence for f in reads), default=1.0))
        if doubts:
            return PileReading(None, confidence if reads else 0.0, reads, len(doubts))
        if unexplained(image, [_centre(f) * scale for f in cards], self.card_long):
            return PileReading(None, confidence if reads else 0.0, reads)
        if not reads and (_ink_out_of_scale(image) or unseeable(image)):  # nothing read, yet not empty
            return PileReading(None, 0.0, reads)
        return PileReading(labels, confidence, reads)


def _explained(box, likely: set[int], kept: list, reads: list[Found], boxes: list, paper: np.ndarray,
               scale: float) -> bool:
    """Whether an unread candidate is explained by the indices read: it is part of one (shares a blob
    with it, or :data:`CLEARS` of its box), or it lies where the other corner of a card read would lie and that
    card is among its two likeliest."""
    for (_, lab, j), f in zip(kept, reads, strict=True):
        if _overlap(box, boxes[j]) > CLEARS:
            return True
        if lab in likely:
            other = Found(f.label, 0.0, tuple(float(v) / scale for v in box), f.axis)
            if _same_card(f, other, paper, scale):
                return True
    return False


def _verdict(lp: np.ndarray, accept: float = ACCEPT) -> tuple[int, float] | None:
    """(label, confidence) from the committee's (members, 55) log-probabilities; None unless all
    members but :data:`DISSENT` pick the same card and the pool is sure of it."""
    return verdict(lp, accept, MARGIN, DISSENT)


def _overlap(a, b) -> float:
    """The shared area of two boxes over the smaller one's."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    small = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return float(w * h / max(small, 1e-6))


def _suppress(found: list[tuple[float, int, int]], boxes: list) -> list[tuple[float, int, int]]:
    """One reading per index: the surest first; a candidate sharing most of its box with a kept one
    is a part or a framing of that index."""
    kept: list[tuple[float, int, int]] = []
    for conf, lab, i in sorted(found, reverse=True):
        if all(_overlap(boxes[i], boxes[j]) < 0.3 for _, _, j in kept):
            kept.append((conf, lab, i))
    return kept


def foreground(image: np.ndarray) -> np.ndarray:
    """What is not the table (bool): far in colour from the picture's border (the table around the
    pile), specks opened away, holes filled."""
    small = cv2.GaussianBlur(image, (5, 5), 0)
    border = np.concatenate([small[0], small[-1], small[:, 0], small[:, -1]])
    ref = np.median(border, axis=0)
    dist = np.abs(small.astype(np.int16) - ref.astype(np.int16)).sum(axis=2)
    fg = (dist > max(60, 3 * float(np.median(dist)))).astype(np.uint8)
    fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    # holes in it (a court card's art, as dark as the table) are card too: table reaches the border
    n, lab = cv2.connectedComponents(1 - fg, connectivity=4)
    edge = np.unique(np.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]]))
    return ~np.isin(lab, edge[edge > 0]) | (fg > 0) if n > 1 else fg > 0


def _one_per_card(reads: list[Found], paper: np.ndarray, scale: float) -> list[Found]:
    """Readings with both corners of one card counted once: two readings of the same card a card's
    diagonal apart (1.6..9 index lengths) with card (not table) all along the way between them are the
    two corners of one card (two copies of a card, from two decks, seldom lie so)."""
    used = [False] * len(reads)
    out = []
    for i, a in enumerate(reads):
        if used[i]:
            continue
        used[i] = True
        out.append(a)
        for j in range(i + 1, len(reads)):
            if not used[j] and reads[j].label == a.label and _same_card(a, reads[j], paper, scale):
                used[j] = True
                break
    return out


def _centre(f: Found) -> np.ndarray:
    return np.array([(f.box[0] + f.box[2]) / 2, (f.box[1] + f.box[3]) / 2])


def _same_card(a: Found, b: Found, paper: np.ndarray, scale: float) -> bool:
    ca, cb = _centre(a), _centre(b)
    dist = float(np.linalg.norm(cb - ca))
    length = max(a.box[2] - a.box[0], a.box[3] - a.box[1], b.box[2] - b.box[0], b.box[3] - b.box[1])
    if not 1.6 <= dist / max(length, 1e-6) <= 9.0:
        return False
    pts = (ca + np.linspace(0.1, 0.9, 17)[:, None] * (cb - ca)) * scale
    ys = np.clip(pts[:, 1].astype(int), 0, paper.shape[0] - 1)
    xs = np.clip(pts[:, 0].astype(int), 0, paper.shape[1] - 1)
    return float(paper[ys, xs].mean()) >= 0.9
