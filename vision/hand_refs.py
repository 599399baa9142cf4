"""A seat's hand as the dealer camera saw it: references of each of its cards, for reading its plays.

Usage::

    refs = HandRefs.from_window_frames(frames, labels, reader)   # one dealer-window frame per card
    read_play(before, after, options, reader=reader, refs=refs)  # each new index told apart among the hand
    table = HandRefs.table([refs_of_seat_0, refs_of_seat_1, ...])  # every card dealt at the table
    read_play(before, after, options, reader=reader, refs=table.for_seat(hand))  # likened to them all

At a deal the rig reads every card at the window, so when play starts it holds a picture of every card of
each seat's hand. A play is a subset of that hand, so each new index on the table need only be told apart
among the hand's cards, by likeness to their own pictures: the same deck, the same print, whatever design.

A reference is the first model's embedding (:class:`vision.enroll.Embedder`) of an index cut as the play
reader cuts one: the card's ink blobs grouped into candidate indices (:func:`vision.pile.candidates`), each
turned upright along its rank-to-pip axis both ways. Only candidates in the card's four corners are kept
(the index; oxygen designs print it in the other two corners).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.card_look import found_card
from vision.labels import LABELS, index
from vision.localize import CORNER_H, CORNER_W, warp_card

CARD_WIDTH = 150  # the card is warped this wide: its indices then are as big as a played card's at the table


@dataclass
class HandRefs:
    embeddings: np.ndarray  # (n, d) unit rows: index views of the hand's cards
    labels: np.ndarray  # (n,) their label indices
    embedder: object  # the vision.enroll.Embedder that made them (the play's views go through it too)
    hand: frozenset[str] | None = None  # the seat's own cards, when the references are the whole table's

    @property
    def cards(self) -> set[str]:
        """Every card with a picture."""
        return {LABELS[int(i)] for i in self.labels}

    @property
    def own(self) -> set[str]:
        """The seat's cards: those it may play."""
        return set(self.hand) if self.hand is not None else self.cards

    @classmethod
    def table(cls, seats: list[HandRefs]) -> HandRefs:
        """Every seat's references together. A play's index is then likened to every card dealt at the table,
        not only to the seat's: a card of another seat that shares a rank with one in the hand is likest its
        own pictures, so it cannot pass for the hand's look-alike. Give it a seat with :meth:`for_seat`."""
        if not seats:
            raise ValueError("no seat's references")
        return cls(np.concatenate([s.embeddings for s in seats]), np.concatenate([s.labels for s in seats]),
                   seats[0].embedder)

    def for_seat(self, cards) -> HandRefs:
        """The same references, with ``cards`` the seat's own (:attr:`own`)."""
        return replace(self, hand=frozenset(str(c) for c in cards))

    @classmethod
    def from_window_frames(cls, frames: list[np.ndarray], labels: list[str], reader) -> HandRefs:
        """References from one dealer-window frame per card (``labels``: what the deal read), with the
        first model of ``reader`` (a :class:`vision.reader.CardReader` or :class:`vision.pile.PileReader`)."""
        if len(frames) != len(labels):
            raise ValueError("one frame per card")
        cards = []
        for frame in frames:
            found = found_card(frame, "window")
            cards.append(None if found is None else warp_card(frame, found.quad, CARD_WIDTH)[0])
        return cls.from_cards(cards, labels, reader)

    @classmethod
    def from_cards(cls, cards: list[np.ndarray | None], labels: list[str], reader) -> HandRefs:
        """References from each card warped upright (portrait, BGR); None: a card with no picture."""
        return cls.from_views([[] if card is None else corner_views(card) for card in cards], labels, reader)

    @classmethod
    def from_corner_crops(cls, crops: list[list[np.ndarray]], labels: list[str], reader) -> HandRefs:
        """References from each card's index corner crops as the dealer's reader cut them (upright, from a
        card warped :data:`vision.localize.CARD_WIDTH` wide: what the journal keeps of each read)."""
        from vision.localize import CARD_WIDTH as READ_WIDTH

        def views(some: list[np.ndarray]) -> list[np.ndarray]:
            out = []
            for crop in some:
                crop = cv2.resize(crop, None, fx=CARD_WIDTH / READ_WIDTH, fy=CARD_WIDTH / READ_WIDTH,
                                  interpolation=cv2.INTER_LINEAR)
                out += index_views(crop if crop.ndim == 3 else cv2.cvtColor(crop, cv2.COLOR_GRAY2BGR))
            return out

        return cls.from_views([views(some) for some in crops], labels, reader)

    @classmethod
    def from_views(cls, views: list[list[np.ndarray]], labels: list[str], reader) -> HandRefs:
        """References from each card's index views (:func:`index_views`; none: a card with no picture)."""
        embedder = _embedder(reader)
        embs, labs = [], []
        for some, label in zip(views, labels, strict=True):
            if some:
                embs.append(embedder(some))
                labs += [index(label)] * len(some)
        dim = embs[0].shape[1] if embs else 1
        return cls(np.concatenate(embs) if embs else np.zeros((0, dim), np.float32), np.asarray(labs, np.int64),
                   embedder)

    def scores(self, views: list[np.ndarray], own_only: bool = False) -> np.ndarray:
        """(len(views), 54): each view's likeness (cosine) to each card's nearest reference; -1 for a card
        with none (not dealt; with ``own_only``, not the seat's)."""
        out = np.full((len(views), len(LABELS)), -1.0, np.float32)
        if not views or not len(self.labels):
            return out
        sim = np.einsum("ij,kj->ik", self.embedder(views), self.embeddings)
        own = {index(c) for c in self.own} if own_only else None
        for lab in np.unique(self.labels):
            if own is None or int(lab) in own:
                out[:, lab] = sim[:, self.labels == lab].max(axis=1)
        return out


def _embedder(reader):
    from vision.enroll import Embedder
    from vision.pile import PileReader
    from vision.reader import CardReader

    if isinstance(reader, PileReader):
        reader = reader.reader
    if reader is None:
        reader = CardReader(threads=1)
    cached = _EMBEDDERS.get(reader)
    if cached is None:  # one per reader: opening the model again per hand costs a second
        cached = _EMBEDDERS[reader] = Embedder(reader.paths[0])
    return cached


_EMBEDDERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # reader -> its first model's embedder


def corner_views(card: np.ndarray) -> list[np.ndarray]:
    """The candidate indices in the corners of an upright card, cut as the play reader cuts them."""
    h, w = card.shape[:2]
    cw, ch = CORNER_W * w, CORNER_H * w
    return index_views(card, lambda cx, cy: (cx < cw or cx > w - cw) and (cy < ch or cy > h - ch))


def index_views(image: np.ndarray, where=None) -> list[np.ndarray]:
    """Every candidate index in ``image`` (whose box centre ``where(cx, cy)`` accepts), each turned upright
    along its rank-to-pip axis both ways, its neighbours painted out: as :mod:`vision.play_weigh` cuts them."""
    from vision.pile import _union, candidates, ink_blobs
    from vision.play_weigh import SAME_SHAPE, _views

    blobs = ink_blobs(image, erase=True)
    keep = []
    for ids, axis in candidates(blobs, SAME_SHAPE):
        x0, y0, x1, y1 = _union([blobs[i] for i in ids])
        if where is None or where((x0 + x1) / 2, (y0 + y1) / 2):
            keep.append((ids, axis))
    if not keep:
        return []
    return _views(image, blobs, keep, [_union([blobs[i] for i in ids]) for ids, _ in keep])


__all__ = ["HandRefs", "corner_views", "index_views"]
