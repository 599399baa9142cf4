"""Random draws of the engines' hot loops: the same results from the same generator state as
``random.Random``'s own methods (CPython 3.11's ``shuffle`` and ``_randbelow_with_getrandbits``), with the
per-draw Python calls inlined for an exact ``random.Random``; any other generator is asked as usual."""

from __future__ import annotations

import random
from typing import Any


def shuffle(deck: list[Any], rng: random.Random) -> None:
    """``rng.shuffle(deck)``: the same order from the same draws, with ``_randbelow`` inlined for an exact
    ``random.Random`` (``Random.shuffle`` and ``_randbelow_with_getrandbits`` of CPython 3.11)."""
    if type(rng) is not random.Random:
        rng.shuffle(deck)
        return
    bits = rng.getrandbits
    steps = _SHUFFLE_STEPS.get(len(deck)) or _shuffle_steps(len(deck))
    for i, n, k in steps:
        j = bits(k)
        while j >= n:
            j = bits(k)
        deck[i], deck[j] = deck[j], deck[i]


_SHUFFLE_STEPS: dict[int, tuple[tuple[int, int, int], ...]] = {}


def _shuffle_steps(size: int) -> tuple[tuple[int, int, int], ...]:
    """:func:`shuffle`'s (i, n = i + 1, n.bit_length()) for each i from the top down, worked out once per size."""
    steps = _SHUFFLE_STEPS[size] = tuple((i, i + 1, (i + 1).bit_length()) for i in range(size - 1, 0, -1))
    return steps
