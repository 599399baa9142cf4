"""Reading a play: which of the plays a seat may make landed on the table (issue 29's play tracking).

Usage::

    r = read_play(before, after, [("S3", "S3"), ("S3",), ("H4",), ()])   # () is a pass
    r.labels, r.confidence, r.boxes       # ("S3", "S3"), 0.98, [(x0, y0, x1, y1), ...] -- labels None: ask

``before`` and ``after`` are settled pictures of the play area (``before`` None: an empty table). Only
what changed between them is read: the corner detector (:mod:`vision.pile_detect`) finds every index in
``after``; an index is new when the middle of its box changed and it is not an older index pushed a few
pixels. Each new index is cut upright at :data:`vision.pile_corners.PADS` and read by the committee, the
cuts' evidence pooled; two readings of one label are one card when one lies on the other's card facing
the other way (its other corner). With the seat's hand as dealt, each index is also likened to the hand's
own cards (:func:`pool`). A reader without the detector (``PileReader(detector=None)``, or
:data:`DETECT` False) finds the new indices as ink blobs instead, as :mod:`vision.pile` once did.

The options are then weighed as deck decoding weighs a deal: a play is likely when each of its cards was
seen and no other card was, each seen card counted by how sure its reading is (a Bernoulli per card:
:data:`MISSED` is the chance a card of the play shows no readable index, :data:`STRAY` the chance a
sure-looking reading is of no new card). The best option is answered when its share of the options'
likelihood is at least :data:`ANSWER`; otherwise ``labels`` is None and a person confirms.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision import play_corners
from vision.corner_data import NONE_CLASS
from vision.labels import LABELS
from vision.moved import shifted_from
from vision.pile import (
    WORK_SIDE,
    Found,
    PileReader,
    _clean_regions,
    _overlap,
    _same_card,
    _shifted,
    _union,
    candidates,
    check_size,
    foreground,
    ink_blobs,
    upright_crop,
)
from vision.reader import is_colourless

DETECT = True  # the new cards' indices are found by the corner detector (False: by ink blobs)
SAME_SHAPE = 0.1  # two blobs are two pips only when their shapes match this closely (more indices found)
MISSED = 0.03  # a card of the play whose index is not read at all
STRAY = 0.01  # a card seen, read as surely as can be, that is no new card
STRAY_UNSURE = 0.2  # ... and how much likelier a stray is when its reading is unsure
FLOOR = 0.0002  # a card read as another: the reading's probability of the right card, at least
LANDED = 0.01  # the share of the picture that changes when at least one card lands (a card covers ~5 %)
UNCHANGED = 1e-4  # a pass when that much changed, or a play when it did not
SECOND = 0.3  # a card's other corner, read apart from the first
SECOND_DETECTED = 0.02  # ... when the detector did not see the two as one card's corners (it mostly does)
ANSWER = 0.9  # the best option's share of the likelihood, at least, to answer (chosen on training designs)
CHANGED = 40  # levels of difference (a channel, after a light blur) that mean the table changed there
NEW_INK = 0.6  # a blob is new ink when this share of its pixels changed
# ... unless the picture before shows the same ink a few pixels away (vision.moved.shifted_from)
MOVED_AREA = 0.08  # a changed patch is looked for in the picture before only up to this share of it
# With the hand's own pictures (vision.hand_refs): a likeness step of REF_TAU weighs one nat against the
# committee's log-probability; "no card" counts as a card REF_NONE alike. Chosen on training designs.
REF_TAU = 0.08
REF_NONE = 0.9
_INDEX = {label: i for i, label in enumerate(LABELS)}


@dataclass(frozen=True)
class PlayRead:
    labels: tuple[str, ...] | None  # the play chosen among `options`, None when unsure
    confidence: float  # 0..1
    boxes: list  # where the new cards' indices were seen (for the journal's crops)


_default: PileReader | None = None


def _reader(reader) -> PileReader:
    global _default
    if isinstance(reader, PileReader):
        return reader
    if reader is not None:  # a vision.reader.CardReader
        return PileReader(reader)
    if _default is None:
        _default = PileReader(threads=1)
    return _default


def _as_bgr(image, name: str) -> np.ndarray:
    if not isinstance(image, np.ndarray) or image.size == 0 or image.ndim not in (2, 3):
        raise ValueError(f"{name} is not an image")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    check_size(image)
    return np.ascontiguousarray(image[..., :3])


def _options(options) -> list[tuple[str, ...]]:
    out = []
    for opt in options:
        opt = tuple(opt)
        bad = [lab for lab in opt if lab not in _INDEX]
        if bad:
            raise ValueError(f"an option names no card: {bad[0]!r}")
        out.append(opt)
    if not out:
        raise ValueError("no options to choose among")
    return out


def changed_mask(before: np.ndarray | None, after: np.ndarray, moved: bool = True) -> np.ndarray:
    """Where the table changed (bool, at ``after``'s size): everywhere when there was no picture before.
    ``moved``: a changed patch that the picture before shows a few pixels away (an old card pushed by
    the throw: its edges and ink) is no change."""
    if before is None:
        return np.ones(after.shape[:2], bool)
    if before.shape[:2] != after.shape[:2]:
        before = cv2.resize(before, (after.shape[1], after.shape[0]), interpolation=cv2.INTER_AREA)
    a = cv2.GaussianBlur(after, (5, 5), 0)
    b = cv2.GaussianBlur(before, (5, 5), 0)
    diff = cv2.absdiff(a, b).max(axis=2)
    mask = (diff > CHANGED).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    if moved:
        n, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
        for k in range(1, n):
            x, y, w, h = (int(v) for v in stats[k, :4])
            # a patch as big as a few cards may hold a new card in much that only moved: it stays a change
            if w * h <= MOVED_AREA * mask.size and shifted_from(before, after, (x, y, x + w, y + h)):
                mask[labels == k] = 0
    return mask > 0


@dataclass
class Evidence:
    """What the new cards' indices say: one row per card seen (its corners' readings merged)."""
    probs: np.ndarray  # (cards, 54): how sure each card seen is of each label
    boxes: list  # per card: the index boxes seen, in the picture's pixels
    changed: float = 1.0  # the share of the picture that changed
    second: float = SECOND  # how likely a reading no card is given to is a card of the play's other corner
    moved: int = 0  # changed indices taken for an older card slid (not new cards)
    detected: bool = False  # the rows are the corner detector's indices (not ink blobs, where pips read as cards)


def new_card_evidence(before, after, reader: PileReader, refs=None) -> Evidence:
    """Read the indices of the ink that is new in ``after``, merged into cards. ``refs``
    (:class:`vision.hand_refs.HandRefs`): each index is also likened to the hand's own cards (:func:`pool`)."""
    return pool(new_candidates(before, after, reader, refs))


@dataclass
class Candidates:
    """The new ink's candidate indices before they are pooled with the hand and merged into cards."""
    probs: np.ndarray  # (n, 55): the committee's pooled reading of each, "no card" last
    likeness: np.ndarray | None  # (n, 54): each one's likeness to the hand's cards (None: no refs)
    boxes: list
    axes: list
    paper: np.ndarray | None
    scale: float
    changed: float
    corners: list | None = None  # the detector's corners (None: blob candidates), one per index
    moved: int = 0  # changed indices taken for an older card slid


def new_candidates(before, after, reader: PileReader, refs=None) -> Candidates:
    """The candidate indices in the ink that is new in ``after``, each read by the committee (and likened
    to ``refs``' cards)."""
    scale = WORK_SIDE / max(after.shape[:2])
    img = cv2.resize(after, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if abs(scale - 1) > 0.02 else after
    old = None
    if before is not None:
        old = cv2.resize(before, (img.shape[1], img.shape[0]), interpolation=cv2.INTER_AREA)
    changed = changed_mask(old, img)
    share = float(changed.mean())
    if DETECT and reader.detector is not None:
        return _detected(after, img, old, changed, share, scale, reader, refs)
    blobs = [b for b in ink_blobs(img, erase=True) if _new(b, changed)]
    if old is not None and blobs:
        blobs = [b for b in blobs if not _moved(b, old, img)]
    cands = candidates(blobs, SAME_SHAPE)
    if not cands:
        return Candidates(np.zeros((0, len(LABELS) + 1)), None, [], [], None, scale, share)
    boxes = [_union([blobs[i] for i in ids]) for ids, _ in cands]
    lp = reader._upright_evidence(img, blobs, cands, boxes, is_colourless(img))
    pooled = lp.mean(axis=0)
    p = np.exp(pooled - pooled.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    likeness = None
    if refs is not None:
        views = _views(img, blobs, cands, boxes)
        # pips grouped as ink blobs read as cards anywhere: liken them to the seat's own cards only
        likeness = refs.scores(views, own_only=True).reshape(len(cands), 2, -1).max(axis=1)
    return Candidates(p, likeness, boxes, [axis for _, axis in cands], foreground(img), scale, share)


def _detected(after, img, old, changed, share, scale, reader: PileReader, refs) -> Candidates:
    """The candidates as the corner detector finds them (:mod:`vision.play_corners`)."""
    cards = reader.reader
    if play_corners.WITH_MEMBER and reader.play_member is not None:
        cards = play_corners.Pooled(cards, reader.play_member)
    corners, boxes, p, likeness, moved = play_corners.new_corners(after, img, old, changed, scale, reader.detector,
                                                                   cards, refs)
    if not corners:
        return Candidates(np.zeros((0, len(LABELS) + 1)), None, [], [], None, scale, share, [], moved)
    return Candidates(p, likeness, boxes, [np.array(c.up) for c in corners], None, scale, share, corners, moved)


def _views(img, blobs, cands, boxes) -> list[np.ndarray]:
    """Each candidate cut upright both ways, as :meth:`vision.pile.PileReader._upright_evidence` cuts it."""
    views = []
    for (ids, axis), crop, origin in zip(cands, *_clean_regions(img, blobs, cands, boxes), strict=True):
        own = [_shifted(blobs[i], origin) for i in ids]
        views += [upright_crop(crop, own, axis), upright_crop(crop, own, -axis)]
    return views


def pool(c: Candidates, tau: float | None = None, none_like: float | None = None) -> Evidence:
    """The candidates' readings, pooled with their likeness to the hand's cards when there is one, then
    merged into cards. A likeness step of ``tau`` weighs one nat; a card not in the hand counts as the
    hand's least alike. ``none_like``: "no card" is weighed as if it were a card that alike; None: how
    likely each candidate is some card stays the models' (the hand only says which card)."""
    p = c.probs
    if not len(p):
        return Evidence(np.zeros((0, len(LABELS))), [], c.changed, moved=c.moved)
    if c.likeness is not None:
        if tau is None:  # the rule chosen on training designs
            tau, none_like = REF_TAU, REF_NONE
        like = c.likeness.astype(np.float64)
        in_hand = like[0] > -1
        if in_hand.any():
            like = np.where(in_hand[None], like, like[:, in_hand].min(axis=1, keepdims=True))
            if none_like is None:
                logit = np.log(p[:, :NONE_CLASS] + 1e-9) + like / tau
                q = np.exp(logit - logit.max(axis=1, keepdims=True))
                q *= (1.0 - p[:, NONE_CLASS:]) / q.sum(axis=1, keepdims=True)
                p = np.concatenate([q, p[:, NONE_CLASS:]], axis=1)
            else:
                like = np.concatenate([like, np.full((len(like), 1), none_like)], axis=1)
                logit = np.log(p + 1e-9) + like / tau
                p = np.exp(logit - logit.max(axis=1, keepdims=True))
                p /= p.sum(axis=1, keepdims=True)
    if c.corners is not None:
        rows, where = play_corners.merge(p[:, :NONE_CLASS], c.boxes, c.corners, c.scale)
        ev = Evidence(np.array(rows), where, second=SECOND_DETECTED, detected=True)
    else:
        ev = _merge(p[:, :NONE_CLASS], c.boxes, c.axes, c.paper, c.scale)
    ev.changed = c.changed
    ev.moved = c.moved
    return ev


def _new(blob, changed: np.ndarray) -> bool:
    x0, y0, x1, y1 = blob.box
    return float(changed[y0:y1, x0:x1][blob.mask > 0].mean()) >= NEW_INK


def _moved(blob, before: np.ndarray, after: np.ndarray) -> bool:
    """Whether ``blob`` (ink of ``after``) is ink that lay a few pixels away in ``before``: an old card
    pushed, not a new one."""
    return shifted_from(before, after, blob.box)


def _merge(cards: np.ndarray, boxes: list, axes: list, paper: np.ndarray, scale: float) -> Evidence:
    """Candidates framing one index (overlapping boxes) are one index, the surest reading kept; two
    indices whose likeliest card is the same and that lie where one card's two corners lie are one card."""
    order = np.argsort(-cards.max(axis=1))
    index: list[int] = []
    for i in order:
        if all(_overlap(boxes[i], boxes[j]) < 0.3 for j in index):
            index.append(int(i))
    found = [Found(LABELS[int(cards[i].argmax())], float(cards[i].max()), tuple(float(v) / scale for v in boxes[i]),
                   axes[i]) for i in index]
    used = [False] * len(index)
    rows, where = [], []
    for a in range(len(index)):
        if used[a]:
            continue
        used[a] = True
        row, seen = cards[index[a]].copy(), [found[a].box]
        for b in range(a + 1, len(index)):
            if not used[b] and found[b].label == found[a].label and _same_card(found[a], found[b], paper, scale):
                used[b] = True
                row = np.maximum(row, cards[index[b]])
                seen.append(found[b].box)
                break
        rows.append(row)
        where.append(seen)
    return Evidence(np.array(rows), where)


def option_log_likelihoods(evidence: Evidence, options: list[tuple[str, ...]]) -> np.ndarray:
    """Each option's log-likelihood. Each card seen is one card of the play (as likely as its reading
    of that card), or a stray (ink that is no new index: likelier the less sure its reading is), or the
    other corner of a card of the play read apart; each card of the play no card seen is given to was
    missed (:data:`MISSED`). Cards are given to readings greedily, the best gain first."""
    q = evidence.probs
    stray = np.log(STRAY + (1 - STRAY) * STRAY_UNSURE * (1 - q.max(axis=1))) if len(q) else np.zeros(0)
    out = np.zeros(len(options))
    for n, opt in enumerate(options):
        total = float(stray.sum()) + len(opt) * np.log(MISSED)
        if len(q) and opt:
            cols = [_INDEX[lab] for lab in opt]
            gain = np.log(q[:, cols] + FLOOR) - stray[:, None] - np.log(MISSED)  # rows x cards
            free_rows = np.ones(len(q), bool)
            for _ in range(min(len(q), len(opt))):
                i, j = np.unravel_index(int(gain.argmax()), gain.shape)
                if gain[i, j] <= 0:
                    break
                total += float(gain[i, j])
                gain[i, :] = -np.inf
                gain[:, j] = -np.inf
                free_rows[i] = False
            for i in np.flatnonzero(free_rows):  # another corner of a card of the play, read apart
                second = np.log(evidence.second * q[i, cols].max() + 1e-12)
                total += max(0.0, float(second - stray[i]))
        # a pass leaves the table as it was; a play changes a good part of a card's area
        landed = evidence.changed >= LANDED
        out[n] = total + (np.log(UNCHANGED) if landed == (not opt) else 0.0)
    return out


def read_play(before, after, options, *, reader=None, refs=None) -> PlayRead:
    """The play among ``options`` (tuples of labels; ``()`` a pass) that best explains what is new in
    ``after`` since ``before`` (None: an empty table); ``labels`` None when no option is clearly best.
    ``reader``: a :class:`vision.pile.PileReader` or :class:`vision.reader.CardReader` (default: the
    committed models, one thread); ``refs``: the seat's hand as dealt (:class:`vision.hand_refs.HandRefs`)."""
    return weigh(before, after, options, reader=reader, refs=refs).read


@dataclass(frozen=True)
class Weighed:
    """Every option's posterior (for benchmarks and the journal), and the read it makes."""
    options: list[tuple[str, ...]]
    posterior: np.ndarray
    evidence: Evidence
    read: PlayRead


def weigh(before, after, options, *, reader=None, refs=None, prior=None) -> Weighed:
    """``prior``: each option's log prior from what else is known of the change (a function of the
    option; :func:`vision.play_read.count_prior`), None: even."""
    after = _as_bgr(after, "after")
    before = None if before is None else _as_bgr(before, "before")
    options = _options(options)
    return weigh_evidence(new_card_evidence(before, after, _reader(reader), refs), options, prior)


def weighings(before, after, options, *, reader=None, refs=None, prior=None) -> list[Weighed]:
    """:func:`weigh` with the hand's pictures and, when ``refs`` is given, without them too: the indices
    are found and read once."""
    after = _as_bgr(after, "after")
    before = None if before is None else _as_bgr(before, "before")
    options = _options(options)
    c = new_candidates(before, after, _reader(reader), refs)
    out = [weigh_evidence(pool(c), options, prior)]
    if c.likeness is not None:
        out.append(weigh_evidence(pool(replace(c, likeness=None)), options, prior))
    return out


def weigh_evidence(evidence: Evidence, options, prior=None) -> Weighed:
    """:func:`weigh` once the new cards' evidence is read."""
    firsts: dict[tuple[str, ...], tuple[str, ...]] = {}
    for opt in _options(options):  # one play however its cards are ordered
        firsts.setdefault(tuple(sorted(opt)), opt)
    opts = list(firsts.values())
    ll = option_log_likelihoods(evidence, opts)
    if prior is not None:
        ll = ll + np.array([prior(opt) for opt in opts])
    post = np.exp(ll - ll.max())
    post /= post.sum()
    best = int(post.argmax())
    confidence = float(post[best])
    chosen = opts[best]
    cols = [_INDEX[lab] for lab in chosen]
    boxes = [box for row, where in zip(evidence.probs, evidence.boxes, strict=True)
             if cols and row[cols].max() >= 0.5 for box in where]
    return Weighed(opts, post, evidence, PlayRead(chosen if confidence >= ANSWER else None, confidence, boxes))


__all__ = ["PlayRead", "read_play", "weigh", "option_log_likelihoods", "new_card_evidence", "new_candidates",
           "pool", "weigh_evidence", "weighings", "changed_mask"]
