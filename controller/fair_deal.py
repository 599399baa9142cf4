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
        contributions = proof_contributions(proof)
    except (KeyError, TypeError, ValueError) as exc:
        return ProofCheck(False, [f"not a deal proof: {exc!r} (needs commitment, seed, cards_per_seat, "
                                  "bottom, seats)"])
    if commitment(seed) != committed:
        problems.append("the revealed seed does not match the commitment published before the deal")
    expected = assignment(combined_seed(seed, contributions), slots(per_seat, bottom))
    if len(seats) != len(expected):
        problems.append(f"{len(seats)} cards were dealt but the plan has {len(expected)}")
    for i, (got, want) in enumerate(zip(seats, expected, strict=False)):
        if got != want:
            where = "the bottom" if want == BOTTOM else f"seat {want}"
            went = "the bottom" if got == BOTTOM else f"seat {got}"
            problems.append(f"card {i + 1} went to {went} but the seed says {where}")
    return ProofCheck(not problems, problems)


# ---------------------------------------------------------------------------------------- the whole deal
MAX_PROBLEMS = 12  # the first disagreements are what a person reads; the rest say nothing new


def exported_rows(path: Any) -> list[Any] | None:
    """The rows of an export's ``journal.jsonl`` (journal rows); None if
    there is no such file. ValueError if a line is not a journal row."""
    import json
    from pathlib import Path

    from controller.journal import Row

    path = Path(path)
    if not path.is_file():
        return None
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            o = json.loads(line)
            out.append(Row(int(o["seq"]), int(o["round"]), str(o["kind"]), float(o["t"]), dict(o["data"]),
                                   o.get("image"), str(o["prev"]), str(o["hash"])))
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"line {n} is not a journal row ({exc!r})") from None
    return out


def check_deal(record: dict[str, Any] | None, proof: dict[str, Any], rows: list[Any] | None) -> ProofCheck:
    """Everything ``hongsi verify-deal`` checks, first disagreement first: the proof against its
    commitment; the record's commitment; and, with the round's journal rows, that those rows are the
    journal's (every hash), that the commitment is the one journalled before the deal, that every card
    went to the seat the seed names, and that each seat's hand in the record is, card by card and in
    the order dealt, what the camera read at the positions the seed gave that seat."""
    check = verify_proof(proof)
    # a contribution left out or changed is the cause of every seat that then disagrees: named first
    problems = (_contribution_problems(proof, rows) if rows is not None else []) + list(check.problems)
    if record is not None:
        deal = record.get("deal") if isinstance(record.get("deal"), dict) else {}
        if "commitment" in deal and deal["commitment"] != proof.get("commitment"):
            problems.insert(0, "the proof's commitment is not the one the record says was published before the "
                               "deal (a fresh seed and commitment?)")
    if rows is not None:
        problems += _journal_problems(proof, rows)
        if record is not None:
            problems += _hand_problems(record, proof, rows)
    return ProofCheck(not problems, problems[:MAX_PROBLEMS])


def _journal_problems(proof: dict[str, Any], rows: list[Any]) -> list[str]:
    from controller.journal import canonical, row_hash

    problems = []
    for before, row in zip([None, *rows], rows, strict=False):
        if row_hash(row.seq, row.round, row.kind, row.t, canonical(row.data), row.image, row.prev) != row.hash:
            problems.append(f"journal row {row.seq} ({row.kind}) does not match its hash (it was changed)")
        elif before is not None and before.seq + 1 == row.seq and row.prev != before.hash:
            problems.append(f"journal row {row.seq} does not link to row {before.seq} (the chain was changed)")
    plan = next((r for r in rows if r.kind == "deal_plan"), None)
    if plan is None:
        return problems + ["the exported rows have no deal plan (the commitment made before the deal)"]
    if plan.data.get("commitment") != proof.get("commitment"):
        problems.append("the proof's commitment is not the one journalled before the deal "
                        f"({str(plan.data.get('commitment'))[:16]}…)")
    seats = _journalled_seats(rows)
    for i, seat in enumerate(int(s) for s in proof.get("seats", [])):
        if i in seats and seats[i] != seat:
            problems.append(f"card {i + 1}: the rig journalled it going to {_place(seats[i])}, but the proof says "
                            f"{_place(seat)}")
    return problems


def _contribution_problems(proof: dict[str, Any], rows: list[Any]) -> list[str]:
    """Every contribution the journal took (``contribution`` rows: seat, value) is in the proof, and
    the proof has no other: a contribution left out or made up after the fact changes the seats."""
    journalled = {int(r.data["seat"]): str(r.data["value"]) for r in rows if r.kind == "contribution"}
    try:
        claimed = proof_contributions(proof) or {}
    except ValueError as exc:
        return [f"the proof's contributions: {exc}"]
    problems = []
    for seat in sorted(set(journalled) | set(claimed)):
        if journalled.get(seat) != claimed.get(seat):
            what = ("is not in the proof" if seat not in claimed else
                    "was never journalled" if seat not in journalled else "differs from the one journalled")
            problems.append(f"seat {seat}'s contribution {what}")
    return problems


def _journalled_seats(rows: list[Any]) -> dict[int, int]:
    seats: dict[int, int] = {}
    for r in rows:
        if r.kind == "eject_done":
            seats[int(r.data["index"])] = int(r.data["seat"])
        elif r.kind == "double_feed":   # the unseen card a double feed carried along went with it
            seats[int(r.data.get("ghost", int(r.data["index"]) + 1))] = int(r.data["seat"])
    return seats


def camera_labels(rows: list[Any]) -> dict[int, str | None]:
    """What the camera read at each deck position (a person's check where one was made); None where
    deck-consistency decoding chose the label (the read was unsure or a double feed hid the card)."""
    labels: dict[int, str | None] = {}
    decoded: set[int] = set()
    for r in rows:
        d = r.data
        if r.kind == "card_read":
            labels[int(d["index"])] = None if d.get("ghost") else d.get("label")
        elif r.kind == "decoded":
            decoded |= {int(i) for i in d.get("corrected") or []}
        elif r.kind == "placed":
            decoded -= {int(k) for k in d.get("cards", {})}
    for i in decoded:
        labels[i] = None
    for r in rows:
        if r.kind == "placed":
            labels.update({int(k): str(v) for k, v in r.data.get("cards", {}).items()})
    return labels


def _hand_problems(record: dict[str, Any], proof: dict[str, Any], rows: list[Any]) -> list[str]:
    seats = [int(s) for s in proof["seats"]]
    labels = camera_labels(rows)
    hands = list(record.get("hands") or [])
    problems = []
    for seat in [*range(len(hands)), BOTTOM]:
        held = list(record.get("bottom") or []) if seat == BOTTOM else list(hands[seat])
        positions = [i for i, s in enumerate(seats) if s == seat]
        if len(held) != len(positions):
            problems.append(f"{_place(seat)} holds {len(held)} cards in the record, but the seed gives it "
                            f"{len(positions)}")
        for k, (card, i) in enumerate(zip(held, positions, strict=False)):
            read = labels.get(i)
            if read is not None and str(card) != read:
                problems.append(f"{_place(seat)}'s card {k + 1} is {card} in the record, but card {i + 1} dealt, "
                                f"which the seed sends there, was read by the camera as {read}")
    return problems


def _place(seat: int) -> str:
    return "the bottom" if seat == BOTTOM else f"seat {seat}"


# ---------------------------------------------------------------------------------------- the table's share
# Nobody steers the deal (as provably fair online games do with a server seed and client seeds): the rig
# commits to its seed first; then each seat page may add a random contribution, in the open; the seats
# follow from all of them. A seat cannot aim its contribution (it does not know the rig's seed), and the
# rig cannot pick its seed after the fact (it committed before any contribution came).
CONTRIBUTION_DOMAIN = b"hongsi fair deal v2 contributions"
MIN_CONTRIBUTION, MAX_CONTRIBUTION = 16, 64   # bytes: enough to be unguessable; short enough to journal


def check_contribution(text: Any) -> str:
    """A seat's contribution as kept: lower-case hex of 16 to 64 random bytes. ValueError otherwise."""
    value = str(text).strip().lower()
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        raise ValueError("a contribution is hex digits (16 to 64 random bytes)") from None
    if not MIN_CONTRIBUTION <= len(raw) <= MAX_CONTRIBUTION:
        raise ValueError(f"a contribution is {MIN_CONTRIBUTION} to {MAX_CONTRIBUTION} bytes, not {len(raw)}")
    return raw.hex()


def combined_seed(rig_seed: bytes, contributions: dict[int, str] | None) -> bytes:
    """The seed the seats follow: the rig's seed keyed over every seat's contribution (in seat order).
    Without contributions it is the rig's seed itself (a v1 deal)."""
    if not contributions:
        return rig_seed
    text = "|".join(f"{int(seat)}:{check_contribution(c)}" for seat, c in sorted(contributions.items()))
    return hmac.new(rig_seed, CONTRIBUTION_DOMAIN + b"|" + text.encode(), hashlib.sha256).digest()


def make_shared_proof(rig_seed: bytes, contributions: dict[int, str], cards_per_seat: Sequence[int], bottom: int,
                      seats: Sequence[int]) -> dict[str, Any]:
    """A proof for a deal the table took part in: :func:`make_proof` plus every seat's contribution."""
    proof = make_proof(rig_seed, cards_per_seat, bottom, seats)
    proof["contributions"] = {str(int(s)): check_contribution(c) for s, c in sorted(contributions.items())}
    return proof


def shared_assignment(rig_seed: bytes, contributions: dict[int, str] | None, cards_per_seat: Sequence[int],
                      bottom: int) -> list[int]:
    """The seat of each card position when the table took part (what the dealer follows)."""
    return assignment(combined_seed(rig_seed, contributions), slots(cards_per_seat, bottom))


def proof_contributions(proof: dict[str, Any]) -> dict[int, str] | None:
    """The contributions a proof names (ValueError if one is malformed); None for a v1 proof."""
    raw = proof.get("contributions")
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ValueError("contributions must map seats to hex")
    return {int(seat): check_contribution(c) for seat, c in raw.items()}
