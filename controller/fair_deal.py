"""Fair deal: which seat each card goes to comes from a cryptographic RNG, not from the shuffle.

However poor the physical shuffle, if the *positions* in the deck are given to seats by a uniformly
random balanced assignment, every seat's hand is a uniformly random set of cards. The seed is drawn
from the OS's CSPRNG, a SHA-256 commitment to it is published *before* the deal, and the seed is
revealed *after* the hand, so that anyone can check that the seats followed it (``hongsi verify-deal``).

The assignment: the plan's slots (seat 0 × its card count, seat 1 × …, then the bottom) are put in a
uniformly random order by Fisher–Yates, drawing from HMAC-SHA256(seed, counter) with rejection
sampling, so each distinct balanced assignment is equally likely and the result is the same on every
machine for the same seed.

>>> seed = bytes(32)
>>> seats = assignment(seed, slots([13, 13, 13, 13], 0))
>>> len(seats), sorted(set(seats)), seats.count(2)
(52, [0, 1, 2, 3], 13)
>>> verify_proof(make_proof(seed, [13, 13, 13, 13], 0, seats)).ok
True
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

BOTTOM = -1  # the destination of a bottom card (底牌), in assignments
DOMAIN = b"hongsi fair deal v1"


def new_seed() -> bytes:
    """32 bytes from the operating system's CSPRNG."""
    return secrets.token_bytes(32)


def commitment(seed: bytes) -> str:
    """The public SHA-256 commitment to a seed (hex)."""
    return hashlib.sha256(DOMAIN + b"|" + seed).hexdigest()


def slots(cards_per_seat: Sequence[int], bottom: int) -> list[int]:
    """The plan's destinations in canonical order: seat 0's slots, seat 1's, …, then the bottom's."""
    out = [seat for seat, n in enumerate(cards_per_seat) for _ in range(n)]
    return out + [BOTTOM] * bottom


def _stream(seed: bytes) -> Iterator[int]:
    """An endless stream of 64-bit integers from HMAC-SHA256(seed, counter)."""
    counter = 0
    while True:
        block = hmac.new(seed, DOMAIN + counter.to_bytes(8, "big"), hashlib.sha256).digest()
        counter += 1
        for i in range(0, 32, 8):
            yield int.from_bytes(block[i:i + 8], "big")


def _below(stream: Iterator[int], n: int) -> int:
    """A uniform integer in 0..n-1 (rejection sampling: no modulo bias)."""
    limit = (1 << 64) - (1 << 64) % n
    while True:
        x = next(stream)
        if x < limit:
            return x % n


def assignment(seed: bytes, destinations: Sequence[int]) -> list[int]:
    """The seat (or :data:`BOTTOM`) of each card position 0..n-1: a uniform shuffle of ``destinations``."""
    out = list(destinations)
    stream = _stream(seed)
    for i in range(len(out) - 1, 0, -1):
        j = _below(stream, i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def round_robin(cards_per_seat: Sequence[int], bottom: int, first_seat: int = 0) -> list[int]:
    """The traditional order: one card a seat, counter-clockwise (seat +1) from ``first_seat``, skipping
    seats that are full; the bottom cards last."""
    seats = len(cards_per_seat)
    left = list(cards_per_seat)
    out: list[int] = []
    seat = first_seat % seats
    while any(left):
        if left[seat]:
            out.append(seat)
            left[seat] -= 1
        seat = (seat + 1) % seats
    return out + [BOTTOM] * bottom


# ---------------------------------------------------------------------------------------- proofs
@dataclass
class ProofCheck:
    ok: bool
    problems: list[str] = field(default_factory=list)


def make_proof(seed: bytes, cards_per_seat: Sequence[int], bottom: int, seats: Sequence[int]) -> dict[str, Any]:
    """What ``hongsi verify-deal`` checks: the commitment, the revealed seed, the plan, and the seat each
    card position really went to (``-1`` for the bottom)."""
    return {"commitment": commitment(seed), "seed": seed.hex(), "cards_per_seat": list(cards_per_seat),
            "bottom": bottom, "seats": list(seats)}


def verify_proof(proof: Any) -> ProofCheck:
    """Check a proof: the seed matches the commitment, and every card went where the seed said."""
    problems: list[str] = []
    try:
        seed = bytes.fromhex(str(proof["seed"]))
        committed = str(proof["commitment"])
        per_seat = [int(n) for n in proof["cards_per_seat"]]
        bottom = int(proof["bottom"])
        seats = [int(s) for s in proof["seats"]]
    except (KeyError, TypeError, ValueError) as exc:
        return ProofCheck(False, [f"not a deal proof: {exc!r} (needs commitment, seed, cards_per_seat, "
                                  "bottom, seats)"])
    if commitment(seed) != committed:
        problems.append("the revealed seed does not match the commitment published before the deal")
    expected = assignment(seed, slots(per_seat, bottom))
    if len(seats) != len(expected):
        problems.append(f"{len(seats)} cards were dealt but the plan has {len(expected)}")
    for i, (got, want) in enumerate(zip(seats, expected, strict=False)):
        if got != want:
            where = "the bottom" if want == BOTTOM else f"seat {want}"
            went = "the bottom" if got == BOTTOM else f"seat {got}"
            problems.append(f"card {i + 1} went to {went} but the seed says {where}")
    return ProofCheck(not problems, problems)
