"""Deck-consistency decoding: the most likely labels for a whole deal, given the deck's composition.

Each dealt card has the reader's probabilities over the 54 labels. A deck holds each label a known
number of times (52, 54 or 108 cards). The decoder finds the min-cost matching of cards to the deck's
slots (cost = -log p), where any card may instead be declared *not in the deck* at the cost of a deck
fault (``fault_prior``, 1e-4 by default). So:

- an unsure read is corrected to the label the rest of the deal leaves free (``corrected``);
- a card read *confidently* twice is not quietly relabelled as the missing one: when the reader gives the
  missing label less than ``fault_prior``, the decoder reports ``duplicated`` and ``missing`` instead;
- a card that is not in the deck at all (a joker in a 52-card deal) is reported in ``extra``;
- ``unsure`` lists the cards whose label rests on little evidence, or that could swap labels with
  another card at little cost (two jokers seen only in greyscale): the ones worth a second look.

Usage::

    result = decode_deal(probs, Counter({label: 1 for label in LABELS[:52]}))
    result.labels       # one label per card (None: unreadable and not in the deck)
    result.corrected    # indices whose label differs from the reader's first choice
    result.missing, result.duplicated, result.extra, result.unsure

The assignment is the Hungarian algorithm (shortest augmenting paths with potentials) in numpy.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from vision.labels import LABELS, index

EPS = 1e-9


@dataclass
class DecodeResult:
    labels: list[str | None]
    corrected: list[int] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    duplicated: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    unsure: list[int] = field(default_factory=list)

    @property
    def consistent(self) -> bool:
        """True when the deal matches the deck exactly (nothing missing, duplicated or extra)."""
        return not (self.missing or self.duplicated or self.extra)


def linear_assignment(cost: np.ndarray) -> np.ndarray:
    """For an (n, m) cost matrix with n <= m: the column of each row in a min-cost matching."""
    cost = np.asarray(cost, dtype=np.float64)
    n, m = cost.shape
    if n > m:
        raise ValueError(f"linear_assignment needs rows <= columns, got {n} x {m}")
    u = np.zeros(n + 1)
    v = np.zeros(m + 1)
    p = np.zeros(m + 1, dtype=np.int64)  # p[j]: the row (1-based) matched to column j; 0 = free
    way = np.zeros(m + 1, dtype=np.int64)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = np.full(m + 1, np.inf)
        used = np.zeros(m + 1, dtype=bool)
        while True:
            used[j0] = True
            i0 = p[j0]
            cur = cost[i0 - 1] - u[i0] - v[1:]
            free = ~used[1:]
            better = free & (cur < minv[1:])
            minv[1:][better] = cur[better]
            way[1:][better] = j0
            masked = np.where(free, minv[1:], np.inf)
            j1 = int(np.argmin(masked)) + 1
            delta = masked[j1 - 1]
            u[p[used]] += delta
            v[used] -= delta
            minv[1:][free] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    cols = np.full(n, -1, dtype=np.int64)
    for j in range(1, m + 1):
        if p[j]:
            cols[p[j] - 1] = j - 1
    return cols


def _composition(composition: Mapping[str, int]) -> list[str]:
    slots: list[str] = []
    for label, count in composition.items():
        index(label)  # KeyError for an unknown label
        if count < 0:
            raise ValueError(f"negative count for {label}")
        slots += [label] * int(count)
    return slots


def decode_deal(probs: np.ndarray, composition: Counter[str] | Mapping[str, int], *,
                fault_prior: float = 1e-4, unsure_below: float = 0.05, readable: float = 0.5,
                swap_margin: float = float(np.log(20.0))) -> DecodeResult:
    """The most likely labels of a deal's ``n`` cards (``probs``: (n, 54)) from a deck of ``composition``.

    ``fault_prior``: how likely a deck fault (a card missing, doubled or foreign) is against a misread;
    ``unsure_below``: a card whose decoded label the reader gave less than this is listed as unsure;
    ``readable``: a card outside the deck keeps its read label only if the reader gave it at least this;
    ``swap_margin``: two cards whose labels swapped would be less than this much less likely (in log
    terms; 20x by default) are both listed as unsure.
    """
    probs = np.asarray(probs, dtype=np.float64)
    if probs.ndim != 2 or probs.shape[1] != len(LABELS):
        raise ValueError(f"probs must be (n, {len(LABELS)}), got {probs.shape}")
    n = len(probs)
    slots = _composition(composition)
    m = len(slots)
    slot_idx = np.array([index(s) for s in slots], dtype=np.int64)
    logp = -np.log(np.clip(probs, EPS, 1.0))
    cost = np.concatenate([logp[:, slot_idx], np.full((n, n), -np.log(fault_prior))], axis=1)
    cols = linear_assignment(cost) if n else np.zeros(0, np.int64)
    first = probs.argmax(axis=1) if n else np.zeros(0, np.int64)

    labels: list[str | None] = []
    corrected, unsure, duplicated, extra = [], [], [], []
    counts = Counter(slots)
    for i, j in enumerate(cols):
        if j < m:
            label = slots[j]
            labels.append(label)
            if index(label) != first[i]:
                corrected.append(i)
            if probs[i, index(label)] < unsure_below:
                unsure.append(i)
        else:  # not in the deck: keep what the reader saw
            label = LABELS[first[i]] if probs[i, first[i]] >= readable else None
            labels.append(label)
            if label is not None and counts[label] > 0:
                duplicated.append(label)
            else:
                extra.append(label if label is not None else "?")
                unsure.append(i)
    # Two cards whose labels could be swapped at little loss of likelihood (e.g. both jokers seen only
    # in greyscale) are unsure as well: the deck cannot tell them apart.
    matched = np.array([i for i, j in enumerate(cols) if j < m], dtype=np.int64)
    if len(matched) > 1:
        lab = slot_idx[cols[matched]]
        c = logp[np.ix_(matched, lab)]  # c[a, b]: card a given card b's label
        own = np.diag(c)
        loss = c + c.T - own[:, None] - own[None, :]
        np.fill_diagonal(loss, np.inf)
        loss[lab[:, None] == lab[None, :]] = np.inf  # two copies of one label: no real swap
        close = matched[(loss < swap_margin).any(axis=1)]
        unsure = sorted(set(unsure) | set(close.tolist()))
    used = Counter(slots[j] for j in cols if j < m)
    missing = sorted((counts - used).elements(), key=index)
    return DecodeResult(labels=labels, corrected=corrected, missing=missing, duplicated=duplicated,
                        extra=extra, unsure=unsure)
