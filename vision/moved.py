"""A throw pushes an older card a few pixels: find that card's motion and take it out of the change.

>>> mask = changed_mask(before, after)                        # doctest: +SKIP
>>> new = without_pushed(before, after, mask)                # what the pushed card explains is gone

A pushed card changes the picture over its whole face (its art moved), so the change of a single card
thrown plus a pushed one looks like two cards. The pushed card moved rigidly: its keypoints in the
picture before and after agree on one small rotation and shift (RANSAC), and the picture before, moved
so, matches the picture after wherever that card lies. A new card's keypoints have no partner before,
and static ink does not move, so neither drags the motion. Up to :data:`PUSHES` cards are taken out.
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


__all__ = ["without_pushed", "push_motion", "shifted_from"]
