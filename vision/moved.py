"""A throw pushes an older card a few pixels: find that card's motion and take it out of the change.

>>> mask = changed_mask(before, after)                        # doctest: +SKIP
>>> new = without_pushed(before, after, mask)                # what the pushed card explains is gone

A pushed card changes the picture over its whole face (its art moved), so the change of a single card
thrown plus a pushed one looks like two cards. The pushed card moved rigidly: its keypoints in the
picture before and after agree on one small rotation and shift (RANSAC), and the picture before, moved
so, matches the picture after wherever that card lies. A new card's keypoints have no partner before,
and static ink does not move, so neither drags the motion. Up to :data:`PUSHES` cards are taken out.

A pushed card that lies mostly under the new card shows too few keypoints for its motion. What stays of
it in the change is a thin wedge along its edge, between its dark outline where it lay and where it lies
now: :func:`without_moved_edges` takes out such a wedge when a straight outline of the picture before
vanished in it, a nearly parallel one of the picture after appeared a few pixels away, and nothing else
in it changed (a sliver of a second new card shows its face and new outline, and no old outline gone).
It also takes out the specks a pushed card taken out by its motion leaves far from the new card.
"""

from __future__ import annotations

import cv2
import numpy as np

PUSHES = 2  # cards a throw may push, at most
REACH = 20  # a push moves a point at most this far (px at a 640 px picture; the rig's nudges are 2-7 px and 2.5 deg)
STILL = 0.7  # ... and at least this far (a keypoint that stayed is static, not pushed)
AGREE = 8  # keypoints that agree on one motion, at least
TOLERANCE = 2.0  # px: a keypoint agrees with the motion this closely (RANSAC)
TURN, SCALE = np.radians(5), 0.03  # a rigid push: this much rotation at most, and no zoom beyond this
SAME = 40  # levels (a channel, after a light blur) within which the moved picture before matches after
SPECK = 7  # px: slivers thinner than this left along a pushed card's edges are no change
BORDER = 32  # px: ORB's patch (31 px) and one: ORB finds no keypoint nearer a picture's edge

# A patch that the picture before shows within MOVED_PX is ink that lay there (pushed, or not moved at
# all): it matches there at MOVED_NCC or better. On training designs (poker, kde-standard), in grey, the
# new card's ink matched at 0.79 at most, a pushed card's at 0.86-0.99 (a few below, partly covered); in
# colour a new card's changed patches at 0.73 at most, a pushed card's thin edges from 0.73.
MOVED_NCC, MOVED_PX = 0.9, 12

# A moved edge (:func:`without_moved_edges`), px at a 640 px picture. Chosen on the training designs'
# singles asked as "more changed than one card" (docs/vision-decisions.md, stop 53).
BODY = 15  # an opening this wide keeps the new card's body; thinner pieces outside its hull are candidates
WEDGE = 12  # a candidate is at most this thick ...
WEDGE_LONG = 20  # ... and at least this long
DARK = 100  # an outline's pixels: every channel below this
OUTLINE_PX, STRAIGHT = 1.5, 0.9  # this share of an outline's pixels lies this near the line fitted to them
PARALLEL = 3.0  # degrees between the outline before and after, at most (the rig's nudges turn 2.5)
EDGE_STEP = 10  # px between them (at the wedge's middle), at most
ON_LINE, ON_LINE_SHARE = 3.0, 0.95  # px: (this share of) the wedge's changed pixels lie this near an outline
# What the pushed card's motion left of it (specks where the picture moved matched a little less well): a
# piece this small (px), this far (px) from the hull of the change's bigger pieces, wholly where that card
# was taken out.
RESIDUE, RESIDUE_GAP = 150, 100

_orb = cv2.ORB_create(nfeatures=800, fastThreshold=10)


def without_pushed(before: np.ndarray, after: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``mask`` (bool, where the table changed) without what a pushed card's motion explains."""
    out = mask.copy()
    grey_b = cv2.cvtColor(before, cv2.COLOR_BGR2GRAY)
    grey_a = cv2.cvtColor(after, cv2.COLOR_BGR2GRAY)
    blur_a = cv2.GaussianBlur(after, (5, 5), 0)
    reach = REACH * max(after.shape[:2]) / 640
    for _ in range(PUSHES):
        motion = push_motion(grey_b, grey_a, out, reach)
        if motion is None:
            break
        moved = cv2.warpAffine(before, motion, (after.shape[1], after.shape[0]), borderMode=cv2.BORDER_REPLICATE)
        same = cv2.absdiff(blur_a, cv2.GaussianBlur(moved, (5, 5), 0)).max(axis=2) <= SAME
        kept = (out & ~same).astype(np.uint8)
        out = cv2.morphologyEx(kept, cv2.MORPH_OPEN, np.ones((SPECK, SPECK), np.uint8)) > 0
    return out


def push_motion(grey_b: np.ndarray, grey_a: np.ndarray, mask: np.ndarray, reach: float) -> np.ndarray | None:
    """The rigid motion (2 x 3) that most keypoints in and near ``mask`` agree on, when it is a push."""
    near = cv2.dilate(mask.astype(np.uint8), np.ones((15, 15), np.uint8))
    x, y, w, h = cv2.boundingRect(near)
    if w < 32 or h < 32:
        return None
    # keypoints only where something changed (cheaper), cut with a border ORB can look into
    x, y = max(x - BORDER, 0), max(y - BORDER, 0)
    cut = (slice(y, y + h + 2 * BORDER), slice(x, x + w + 2 * BORDER))
    kb, db = _orb.detectAndCompute(grey_b[cut], near[cut])
    ka, da = _orb.detectAndCompute(grey_a[cut], near[cut])
    if db is None or da is None:
        return None
    pairs = cv2.BFMatcher(cv2.NORM_HAMMING, crossCheck=True).match(db, da)
    at = np.float32([x, y])
    src = np.float32([kb[p.queryIdx].pt for p in pairs]).reshape(-1, 2) + at
    dst = np.float32([ka[p.trainIdx].pt for p in pairs]).reshape(-1, 2) + at
    step = np.linalg.norm(dst - src, axis=1)
    keep = (step > STILL) & (step < reach)
    if keep.sum() < AGREE:
        return None
    motion, inliers = cv2.estimateAffinePartial2D(
        src[keep], dst[keep], method=cv2.RANSAC, ransacReprojThreshold=TOLERANCE
    )
    if motion is None or int(inliers.sum()) < AGREE:
        return None
    scale = float(np.hypot(motion[0, 0], motion[1, 0]))
    turn = abs(float(np.arctan2(motion[1, 0], motion[0, 0])))
    return motion if turn <= TURN and abs(scale - 1) <= SCALE else None


def shifted_from(before: np.ndarray, after: np.ndarray, box, pad: int = 3) -> bool:
    """Whether ``after``'s patch ``box`` (x0, y0, x1, y1) lies within :data:`MOVED_PX` of where it was in
    ``before`` (colour pictures, so a red pip is not a black one: normalised cross-correlation at least
    :data:`MOVED_NCC`)."""
    H, W = after.shape[:2]
    x0, y0, x1, y1 = box
    xa, ya, xb, yb = max(x0 - pad, 0), max(y0 - pad, 0), min(x1 + pad, W), min(y1 + pad, H)
    patch = after[ya:yb, xa:xb]
    d = MOVED_PX
    area = before[max(ya - d, 0):min(yb + d, H), max(xa - d, 0):min(xb + d, W)]
    if patch.std() < 1 or area.shape[0] < patch.shape[0] or area.shape[1] < patch.shape[1]:
        return False
    return float(cv2.matchTemplate(area, patch, cv2.TM_CCOEFF_NORMED).max()) >= MOVED_NCC


def without_moved_edges(before: np.ndarray, after: np.ndarray, mask: np.ndarray, taken=None) -> np.ndarray:
    """``mask`` (bool) without the thin wedges that an older card's outline moved by a push leaves along
    its edge (:func:`moved_outline`), beside the new card's body. ``taken``: where :func:`without_pushed`
    took a pushed card out of the change; small pieces (:data:`RESIDUE`) wholly there and at least
    :data:`RESIDUE_GAP` from the hull of the change's bigger pieces are what its motion left, and go too."""
    scale = max(after.shape[:2]) / 640
    m = mask.astype(np.uint8)
    k = max(3, int(round(BODY * scale)) | 1)
    core = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    contours = [c for c in cv2.findContours(core, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0]
                if cv2.contourArea(c) > 30]
    if not contours:
        return mask
    body = np.zeros_like(m)
    cv2.fillConvexPoly(body, cv2.convexHull(np.concatenate(contours)), 1)
    body = cv2.dilate(body, np.ones((5, 5), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(((m > 0) & (body == 0)).astype(np.uint8))
    out = mask.astype(bool).copy()
    blurred: list = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if area <= 15:
            continue
        piece = (labels[y : y + h, x : x + w] == i).astype(np.uint8)
        if 2 * float(cv2.distanceTransform(np.pad(piece, 1), cv2.DIST_L2, 3).max()) > WEDGE * scale:
            continue
        ys, xs = np.nonzero(piece)
        blurred = blurred or [cv2.GaussianBlur(before, (5, 5), 0), cv2.GaussianBlur(after, (5, 5), 0)]
        lines = moved_outline(before, after, ys + y, xs + x, body, scale, blurred)
        if lines is None:
            continue
        out[ys + y, xs + x] = False
        # the wedge's thick end, where it meets the new card, stays in the opening: the change along the
        # two outlines, a little beyond the wedge, goes with it
        (cg, ng), (cc, nc), (c, u, a0, a1) = lines
        yy, xx = np.nonzero(out)
        pts = np.c_[xx, yy].astype(np.float32)
        along = (pts - c) @ u
        off = np.minimum(np.abs((pts - cg) @ ng), np.abs((pts - cc) @ nc))
        near = (along >= a0 - k - 5) & (along <= a1 + k + 5) & (off <= ON_LINE)
        out[yy[near], xx[near]] = False
    if taken is not None and taken.any():
        n, labels, stats, _ = cv2.connectedComponentsWithStats(out.astype(np.uint8))
        small = stats[:, 4] <= RESIDUE * scale * scale
        small[0] = False
        if not small.any() or small[1:].all():
            return out
        # the change's substantial pieces (a card on white cards changes in pieces: its ink, its edges)
        hull = cv2.convexHull(cv2.findNonZero(((labels > 0) & ~small[labels]).astype(np.uint8)))
        whole = np.zeros_like(m)
        cv2.fillConvexPoly(whole, hull, 1)
        gap = cv2.distanceTransform((whole == 0).astype(np.uint8), cv2.DIST_L2, 3)
        there = cv2.dilate(taken.astype(np.uint8), np.ones((15, 15), np.uint8)) > 0
        for i in np.flatnonzero(small):
            piece = labels == i
            if gap[piece].min() >= RESIDUE_GAP * scale and there[piece].all():
                out[piece] = False
    return out


def _line(pts: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """The straight line ``pts`` (N x 2) follow: a point on it, its normal, and the share of ``pts`` within
    :data:`OUTLINE_PX` of it."""
    vx, vy, x0, y0 = cv2.fitLine(pts, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    c, normal = np.array([x0, y0], np.float32), np.array([-vy, vx], np.float32)
    return c, normal, float((np.abs((pts - c) @ normal) <= OUTLINE_PX).mean())


def moved_outline(before, after, ys, xs, body=None, scale: float = 1.0, blurred=None):
    """Whether the piece of the change at ``ys``, ``xs`` is an older card's outline moved a few px: a
    straight dark line of ``before`` vanished in it, a nearly parallel one of ``after`` appeared, and
    every pixel of it that changed lies on one of the two. Its outlines ((point, normal) before and
    after) and its axis (centre, direction, extent along it), or None. ``body``: where the new card lies
    (its outline is not the moved one); ``blurred``: ``before`` and ``after`` blurred (5 x 5), when at hand."""
    H, W = after.shape[:2]
    pts = np.c_[xs, ys].astype(np.float32)
    c = pts.mean(axis=0)
    u = np.linalg.svd(pts - c, full_matrices=False)[2][0].astype(np.float32)
    along = (pts - c) @ u
    if along.max() - along.min() < WEDGE_LONG * scale:
        return None
    x0, y0 = max(int(xs.min()) - 4, 0), max(int(ys.min()) - 4, 0)
    x1, y1 = min(int(xs.max()) + 5, W), min(int(ys.max()) + 5, H)
    zone = np.zeros((y1 - y0, x1 - x0), np.uint8)
    zone[ys - y0, xs - x0] = 1
    zone = cv2.dilate(zone, np.ones((5, 5), np.uint8)) > 0
    if body is not None:
        zone &= body[y0:y1, x0:x1] == 0
    dark_b = (before[y0:y1, x0:x1].max(axis=2) < DARK).astype(np.uint8)
    dark_a = (after[y0:y1, x0:x1].max(axis=2) < DARK).astype(np.uint8)
    k3 = np.ones((3, 3), np.uint8)
    gone = (dark_b > 0) & (cv2.dilate(dark_a, k3) == 0) & zone
    came = (dark_a > 0) & (cv2.dilate(dark_b, k3) == 0) & zone
    if gone.sum() < 10 or came.sum() < 10:
        return None
    at = np.float32([x0, y0])
    cg, ng, straight_g = _line(np.c_[np.nonzero(gone)[::-1]].astype(np.float32) + at)
    cc, nc, straight_c = _line(np.c_[np.nonzero(came)[::-1]].astype(np.float32) + at)
    turn = np.degrees(np.arccos(min(1.0, abs(float(ng @ nc)))))
    step = abs(float((c - cg) @ ng) - float((c - cc) @ nc) * np.sign(float(ng @ nc)))
    if min(straight_g, straight_c) < STRAIGHT or turn > PARALLEL or step > EDGE_STEP * scale:
        return None
    blur_b, blur_a = blurred or (cv2.GaussianBlur(before, (5, 5), 0), cv2.GaussianBlur(after, (5, 5), 0))
    changed = np.abs(blur_a[ys, xs].astype(np.int16) - blur_b[ys, xs].astype(np.int16)).max(axis=1) > SAME
    changed = pts[changed]
    off = np.minimum(np.abs((changed - cg) @ ng), np.abs((changed - cc) @ nc))
    if len(changed) and (off <= ON_LINE).mean() < ON_LINE_SHARE:
        return None
    return (cg, ng), (cc, nc), (c, u, float(along.min()), float(along.max()))


__all__ = ["without_pushed", "push_motion", "shifted_from", "without_moved_edges", "moved_outline"]
