"""An enrolled deck's whole-card looks: the outline of every pip, court and index, matched by normalised
cross-correlation of edge pictures.

The corner embeddings tell indices in general; on a design whose index sits where no model looks (KDE's
oxygen decks: the rank in one corner, a small suit in another) they confuse hearts with diamonds. The whole
card does not: its pips and its art differ. So a deck read ranks the deck's nearest cards by the corner
embeddings, and the :data:`CANDIDATES` nearest are compared whole with the enrolled pictures.

A look is the card's gradient magnitude at :data:`SIZE`, kept at three scales of the found outline (the
localizer sometimes takes a frame printed inside the card for its edge) and both ways up (a deck goes into
the hopper either way); matching slides the picture :data:`MARGIN` px each way.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.labels import JOKERS, LABELS
from vision.localize import Localized, localize, nominal_window_cards, warp_card

SIZE = (48, 68)  # width, height of the edge picture
MARGIN = 3  # the templates are cut this much smaller on each side: the slide allowed
SCALES = (0.92, 1.0, 1.08)  # the enrolled outline, shrunk and grown about its centre
CANDIDATES = 6  # the deck's nearest cards by corner embeddings that are compared whole
WITHIN, MOST = 0.08, 20
SIBLINGS_OF = 2  # ... and the same rank's other suits of the nearest two
NO_MATCH = -1.0  # the score of a card not compared


def found_card(image: np.ndarray, kind: str, outlines: dict | None = None) -> Localized | None:
    """The card found in ``image``, once per picture (kept in ``outlines`` by ``id(image)``, which
    :class:`vision.reader.CardReader` shares between the deck and the models); a window frame falls back
    to the card's nominal place."""
    outlines = {} if outlines is None else outlines
    if id(image) not in outlines:
        outlines[id(image)] = localize(image)
    found = outlines[id(image)]
    if found is None and kind == "window":
        found = nominal_window_cards(image)[0]
    return found


def card_quad(image: np.ndarray, kind: str, outlines: dict | None = None) -> np.ndarray | None:
    """The card's outline in ``image`` (:func:`found_card`); None for a corner crop or no card."""
    found = found_card(image, kind, outlines) if kind in ("window", "frame") else None
    return None if found is None else found.quad


def edges(card: np.ndarray) -> np.ndarray:
    """The warped card's gradient magnitude at :data:`SIZE` (float32): lighting-proof, unlike its grey."""
    g = cv2.cvtColor(card, cv2.COLOR_BGR2GRAY) if card.ndim == 3 else card
    g = cv2.resize(g, SIZE, interpolation=cv2.INTER_AREA).astype(np.float32)
    return cv2.magnitude(cv2.Sobel(g, cv2.CV_32F, 1, 0), cv2.Sobel(g, cv2.CV_32F, 0, 1))


def templates(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """(2 * len(SCALES), h, w) float16: the card inside ``quad`` at each scale, upright and turned 180°,
    cut by :data:`MARGIN`."""
    centre = quad.mean(axis=0)
    out = []
    for s in SCALES:
        e = edges(warp_card(image, (centre + (quad - centre) * s).astype(np.float32))[0])
        for t in (e, e[::-1, ::-1]):
            out.append(t[MARGIN:-MARGIN, MARGIN:-MARGIN])
    return np.stack(out).astype(np.float16)


def look_scores(image: np.ndarray, quad: np.ndarray, looks: np.ndarray, look_labels: np.ndarray,
                candidates: np.ndarray) -> np.ndarray:
    """(54,) the best correlation of the picture's card with each candidate card's enrolled looks;
    :data:`NO_MATCH` for the cards not compared."""
    picture = edges(warp_card(image, quad)[0])
    out = np.full(len(LABELS), NO_MATCH, np.float32)
    for c in candidates:
        for look in looks[look_labels == c]:
            for t in look.astype(np.float32):
                out[c] = max(out[c], float(cv2.matchTemplate(picture, t, cv2.TM_CCOEFF_NORMED).max()))
    return out


def nearest(scores: np.ndarray) -> np.ndarray:
    """The :data:`CANDIDATES` cards with the highest corner scores (more, up to :data:`MOST`, when more are
    within :data:`WITHIN` of the best: corners that cannot tell the cards apart), and the other suits of the same rank as
    the first :data:`SIBLINGS_OF` (what corners confuse most on an unknown index: ♥ with ♦, ♠ with ♣)."""
    order = [int(i) for i in np.argsort(scores)[::-1]]
    close = int(np.sum(scores >= scores[order[0]] - WITHIN))
    out = order[:min(max(CANDIDATES, close), MOST)]
    for i in order[:SIBLINGS_OF]:
        if LABELS[i] not in JOKERS:
            rank = LABELS[i][1:]
            out += [j for j, lab in enumerate(LABELS) if lab[1:] == rank and lab not in JOKERS and j not in out]
    return np.asarray(out)
