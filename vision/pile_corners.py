"""A pile read from its corner indices as the detector finds them (:mod:`vision.pile_detect`).

1. The detector names every place an index's centre may lie, with the index's "up", size, and its
   card's centre.
2. Each is cut upright (:func:`vision.pile_detect.upright`) at :data:`PADS` and read by the corner
   models' committee (:meth:`vision.reader.CardReader.committee_log_probs`): read when the committee
   is sure of one card at some cut and no cut names another, nor leans to another. The committee's
   weakest member (:data:`LAX`) may pick another card at a cut when two cuts are so read.
3. A place the detector is :data:`SURE` of that the committee cannot read makes the pile a doubt: the
   reading is declined, since a card missed is a wrong pile. A weaker place counts only when read, and
   a doubt where a card read has its other corner is that corner, cut poorly.
4. Two readings of one label where one's index lies on the card the other's index belongs to are
   one card (its two corners, or four in designs that print four). Two copies of a card (two decks)
   lie elsewhere.
5. Two readings of one label that face apart, each straight along the way to its own card's centre
   from the other, but farther apart than the detector's card reaches, may be one card bigger than the
   detector measures (it learnt cards up to half the picture's short side; past that its card centre
   and index size stop growing): the pile is declined rather than read as two copies. So is a card
   whose two corners, joined, lie farther apart than any card's in the detector's training piles.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.corner_data import NONE_CLASS
from vision.labels import LABELS
from vision.pile_detect import INPUT, Corner, CornerDetector, upright

# The decision rule, chosen on 200 piles of five TRAINING designs (kde-standard, tango, bellot,
# lattmann, kde-jolly-royal; seed 7) for few wrong piles: 37 % right, 60.5 % declined, 2.5 % wrong
# (a card left unread), 0 named absent. Letting one member dissent read 50.5 % right but 9 % wrong;
# a doubt anywhere on a card read (not only at its other corner) 38 % right, 3.5 % wrong
# (docs/vision-decisions.md, stop 46).
SURE = 0.3  # a detection this strong is an index: read, or the pile is declined
ACCEPT = 0.8  # the committee's pooled probability for a reading ...
MARGIN = 0.35  # ... and its lead over the next card
DISSENT = 0  # members that may pick another card
REACH = 0.8  # a card reaches this many index sizes past its index centre's distance from the card's centre
SAME_INDEX = 0.3  # two detections this many index heights apart are one index (a fan's are ~0.7 apart)
# Each index is cut three times, tight to loose: the tight cut keeps a neighbour's ink out, the looser
# ones keep the pip of a design whose index box clips it. On the TRAINING designs' true index boxes
# (435 indices of five designs) 418 were read at 1.15 alone, 427 at 1.3, 434 with 1.15 and 1.3; 0 wrong.
PADS = (1.15, 1.3, 1.45)
# Two readings of one label facing apart whose way to each other is this close (degrees) to the way
# to their own card's centre lie as one card's two corners do (a card is symmetric about its centre):
# when the detector's card does not reach the other, the card may be bigger than it measures.
ALONG = 20.0
# The farthest apart one card's two corner indices lay in the detector's training piles, in its input's
# pixels (vision.pile_detect.INPUT): an index centre lay at most 55 px from its card's centre (300 rendered
# piles of the training designs, 1,900 indices in view). Two readings of one label joined as one card's
# corners farther apart than this are a card bigger than the detector learnt: the pile is declined.
FARTHEST = 110.0
# The committee's weakest member on these cuts (card_corner_e, which reads 48 x 48 crops): on the detections
# of 200 piles of the five rule designs it picked another card than the true one at 27 % of the indices in
# full view, the other four at 6-12 %. It may dissent when the other members pick one card at two cuts of
# the three, the pool is as sure as ever there, and every cut's pooled first choice is that card
# (docs/vision-decisions.md, stop 51).
LAX = "card_corner_e.onnx"
LAX_CUTS = 2
# The pile committee's own member (vision.pile_member_train: the corner models' network trained on these
# very cuts of rendered piles of the training designs), when its model is there: it stands in for LAX
# (``SIXTH``: it joins the five instead). Members named in ``LAX_MEMBERS`` may dissent as LAX may, one at
# a cut (docs/vision-decisions.md, stop 52).
MEMBER = "pile_member.onnx"
SIXTH = True
LAX_MEMBERS = (LAX,)


def read_corners(image: np.ndarray, detector: CornerDetector, reader, colourless: bool = False, member=None):
    """The pile's :class:`vision.pile.PileReading` from its detected corners (``reader``: a
    :class:`vision.reader.CardReader`; ``member``: one reading the pile committee's own model, or None)."""
    from vision.pile import Found, PileReading

    corners = _distinct(detector.detect(image))
    if not corners:
        return PileReading([], 1.0)
    said = [committee(reader, member, [upright(image, c, pad) for c in corners], colourless) for pad in PADS]
    lps = [lp for lp, _ in said]
    lax = tuple(k for k, name in enumerate(said[0][1]) if name in LAX_MEMBERS)
    reads, doubts = decide(corners, lps, lax)
    found = [Found(LABELS[lab], conf, _box(c), np.array(c.up)) for c, lab, conf in reads]
    cards = _one_per_card(reads)
    doubts += _beyond_card(cards) + _too_big(reads, INPUT / max(image.shape[:2]))
    confidence = float(min((conf for _, _, conf in reads), default=1.0))
    if doubts:
        return PileReading(None, confidence if reads else 0.0, found, doubts)
    return PileReading(sorted(LABELS[lab] for _, lab, _ in cards), confidence, found)


def committee(reader, member, crops: list[np.ndarray], colourless: bool = False,
              sixth: bool | None = None) -> tuple[np.ndarray, list[str]]:
    """(members, n, 55) log-probabilities of the pile committee and its members' names: the reader's
    committee, with ``member``'s model standing in for :data:`LAX` (or joining it: ``sixth``, by default
    :data:`SIXTH`)."""
    names = [Path(p).name for p in getattr(reader, "paths", ())]
    lp = reader.committee_log_probs(crops, colourless)
    if member is None:
        return lp, names
    sixth = SIXTH if sixth is None else sixth
    keep = [k for k, name in enumerate(names) if sixth or name != LAX]
    own = member.log_probs(crops, colourless)[None]
    return np.concatenate([lp[keep], own]), [names[k] for k in keep] + [Path(member.paths[0]).name]


def decide(corners: list[Corner], lps: list[np.ndarray],
           lax: tuple[int, ...] = ()) -> tuple[list[tuple[Corner, int, float]], int]:
    """The detections read (corner, label, confidence), and how many strong ones stay doubts, from the
    committee's (members, n, 55) log-probabilities at each cut (``lax``: the members that may dissent
    at two cuts, :func:`read_cuts`). A detection left unread is explained when it lies where a card
    read has its other corner, and that card is among its two likeliest (the other corner, cut poorly)."""
    reads: list[tuple[Corner, int, float]] = []
    unread = []
    for i, c in enumerate(corners):
        said = read_cuts([lp[:, i] for lp in lps], lax)
        if said is not None:
            reads.append((c, *said))
        elif c.score >= SURE:
            pooled = np.mean([lp[:, i, :NONE_CLASS].mean(axis=0) for lp in lps], axis=0)
            unread.append((c, set(np.argsort(-pooled)[:2].tolist())))
    doubts = sum(1 for c, likely in unread
                 if not any(lab in likely and _other_corner(c, r) for r, lab, _ in reads))
    return reads, doubts


def _distinct(corners: list[Corner]) -> list[Corner]:
    """The strongest detection of each index (the list comes strongest first)."""
    kept: list[Corner] = []
    for c in corners:
        if all(np.hypot(c.centre[0] - k.centre[0], c.centre[1] - k.centre[1]) > SAME_INDEX * k.height for k in kept):
            kept.append(c)
    return kept


def verdict(lp: np.ndarray, accept: float = ACCEPT, margin: float = MARGIN,
            dissent: int = DISSENT) -> tuple[int, float] | None:
    """(label, confidence) from the committee's (members, 55) log-probabilities; None unless all
    members but ``dissent`` pick the same card, the pool is ``accept`` sure of it and ``margin`` ahead
    of the next card, and "no card" is unlikely."""
    picks = lp[:, :NONE_CLASS].argmax(axis=1)
    pooled = lp.mean(axis=0)
    p = np.exp(pooled - pooled.max())
    p /= p.sum()
    cards = p[:NONE_CLASS]
    best = int(cards.argmax())
    if int((picks == best).sum()) < len(picks) - dissent or p[NONE_CLASS] > 0.3:
        return None
    second = float(np.partition(cards, -2)[-2])
    if cards[best] < accept or cards[best] - second < margin:
        return None
    return best, float(cards[best])


def read_cuts(cuts: list[np.ndarray], lax: tuple[int, ...] = ()) -> tuple[int, float] | None:
    """(label, confidence) of one index from the committee's (members, 55) log-probabilities at each
    cut, or None. Never when the cuts' pooled first choices differ (a cut that leans to another card);
    else a cut's unanimous :func:`verdict`, or, at :data:`LAX_CUTS` cuts at least, a verdict where one
    of the ``lax`` members alone picks another card (its confidence the least of theirs)."""
    firsts = {int(np.argmax(lp[:, :NONE_CLASS].mean(axis=0))) for lp in cuts}
    if len(firsts) > 1:
        return None
    said = _either([verdict(lp) for lp in cuts])
    if said is not None or not lax:
        return said
    firm = [k for k in range(cuts[0].shape[0]) if k not in lax]
    lenient = [v for lp in cuts if (v := verdict(lp, dissent=1)) is not None
               and (lp[firm, :NONE_CLASS].argmax(axis=1) == v[0]).all()]
    if len(lenient) < LAX_CUTS:
        return None
    return lenient[0][0], min(conf for _, conf in lenient)


def _either(verdicts: list) -> tuple[int, float] | None:
    """One cut's verdict when the cuts that read the index all name the same card."""
    said = [v for v in verdicts if v is not None]
    if not said or len({lab for lab, _ in said}) > 1:
        return None
    return max(said, key=lambda v: v[1])


def _within(p: tuple[float, float], c: Corner) -> bool:
    """Whether the point lies on the card ``c`` is an index of: the rectangle about its card's centre,
    turned as the index is, that reaches a little past the index (a design may print its index at all
    four corners, and the detector learnt only two of them)."""
    up = np.array(c.up)
    right = np.array([-up[1], up[0]])
    to_card = np.array(c.card) - np.array(c.centre)
    half_w = abs(float(to_card @ right)) + REACH * c.width
    half_h = abs(float(to_card @ up)) + REACH * c.height
    d = np.array(p) - np.array(c.card)
    return abs(float(d @ right)) <= half_w and abs(float(d @ up)) <= half_h


def _other_corner(c: Corner, read: Corner) -> bool:
    """Whether ``c`` lies on the card ``read`` is an index of, facing the other way (its other corner)."""
    return float(np.dot(c.up, read.up)) <= -0.8 and _within(c.centre, read)


def _one_per_card(reads: list[tuple[Corner, int, float]]) -> list[tuple[Corner, int, float]]:
    """Readings of one card counted once: two readings of a label where one's index lies on the card
    the other's index belongs to. (Two copies of a card, from two decks, seldom lie so.)"""
    used = [False] * len(reads)
    out = []
    for i, (a, lab, conf) in enumerate(reads):
        if used[i]:
            continue
        used[i] = True
        out.append((a, lab, conf))
        for j in range(i + 1, len(reads)):
            b, lab_b, _ = reads[j]
            if not used[j] and lab_b == lab and (_within(b.centre, a) or _within(a.centre, b)):
                used[j] = True
    return out


def _beyond_card(cards: list[tuple[Corner, int, float]]) -> int:
    """How many pairs of cards read as two copies of one label lie as one card's two corners would, were
    the card bigger than the detector says: facing apart, each on the way to its own card's centre from
    the other (:data:`ALONG`). A card past the sizes the detector learnt (a close-up) reads so; two
    copies seldom lie so."""
    return sum(1 for a, b in _facing_pairs(cards) if _toward(a, b.centre) and _toward(b, a.centre))


def _too_big(reads: list[tuple[Corner, int, float]], scale: float) -> int:
    """How many pairs of readings of one label, facing apart and lying as one card's two corners (joined,
    or each on the way to the other's card), are farther apart than :data:`FARTHEST` at the detector's
    ``scale``: a card bigger than any it learnt, whose geometry and figures it may misread."""
    n = 0
    for a, b in _facing_pairs(reads):
        one = _within(b.centre, a) or _within(a.centre, b) or (_toward(a, b.centre) and _toward(b, a.centre))
        if one and np.hypot(b.centre[0] - a.centre[0], b.centre[1] - a.centre[1]) * scale > FARTHEST:
            n += 1
    return n


def _facing_pairs(reads: list[tuple[Corner, int, float]]):
    """Each pair of readings of one label whose indices face apart (as one card's two corners do)."""
    for i, (a, lab, _) in enumerate(reads):
        for b, lab_b, _ in reads[i + 1:]:
            if lab_b == lab and float(np.dot(a.up, b.up)) <= -0.8:
                yield a, b


def _toward(c: Corner, p: tuple[float, float]) -> bool:
    """Whether the point lies on the way from the index ``c`` to its card's centre, :data:`ALONG` at most."""
    to_card = np.array(c.card) - np.array(c.centre)
    to_p = np.array(p) - np.array(c.centre)
    norm = float(np.linalg.norm(to_card) * np.linalg.norm(to_p))
    return norm > 0 and float(to_card @ to_p) / norm >= np.cos(np.deg2rad(ALONG))


def _box(c: Corner) -> tuple[float, float, float, float]:
    r = max(c.height, c.width) / 2
    return (c.centre[0] - r, c.centre[1] - r, c.centre[0] + r, c.centre[1] + r)
