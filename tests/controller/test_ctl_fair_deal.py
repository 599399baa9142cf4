"""The fair deal: uniform (χ² over 100,000 assignments), balanced, reproducible, and checkable."""

import hashlib
import json
import math
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from controller import fair_deal
from controller.cli import app

N = 100_000


def _seed(i: int) -> bytes:
    return hashlib.sha256(b"chi2-%d" % i).digest()


def _chi2_z(observed: list[int], expected: list[float]) -> float:
    """χ² statistic as a standard-normal z (Wilson–Hilferty); z > 4.5 means p < 4e-6."""
    chi2 = sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))
    k = len(observed) - 1
    return ((chi2 / k) ** (1 / 3) - (1 - 2 / (9 * k))) / math.sqrt(2 / (9 * k))


def _tables(assign, n: int):
    slots = fair_deal.slots([13, 13, 13, 13], 0)
    per_position = Counter()
    pairs = Counter()
    for i in range(n):
        seats = assign(_seed(i), slots)
        for pos, seat in enumerate(seats):
            per_position[pos, seat] += 1
        pairs[seats[0], seats[1]] += 1
    return per_position, pairs


def _z_scores(per_position, pairs, n: int) -> tuple[float, float]:
    cells = [(p, s) for p in range(52) for s in range(4)]
    z_pos = _chi2_z([per_position[c] for c in cells], [n / 4] * len(cells))
    pair_cells = [(a, b) for a in range(4) for b in range(4)]
    expected = [n * (13 / 52) * ((12 if a == b else 13) / 51) for a, b in pair_cells]
    observed = [pairs[c] for c in pair_cells]
    z_pair = _chi2_z(observed, expected)
    return z_pos, z_pair


def test_assignment_is_uniform_chi_square_over_100k():
    per_position, pairs = _tables(fair_deal.assignment, N)
    z_pos, z_pair = _z_scores(per_position, pairs, N)
    assert z_pos < 4.5 and z_pair < 4.5, (z_pos, z_pair)


def test_the_chi_square_check_catches_a_biased_shuffle():
    """Negative control: Sattolo's off-by-one Fisher–Yates (never leaves a slot in place) is caught."""

    def sattolo(seed, destinations):
        out = list(destinations)
        stream = fair_deal._stream(seed)
        for i in range(len(out) - 1, 0, -1):
            j = fair_deal._below(stream, i)  # the bug: 0..i-1
            out[i], out[j] = out[j], out[i]
        return out

    n = 20_000
    per_position, pairs = _tables(sattolo, n)
    z_pos, z_pair = _z_scores(per_position, pairs, n)
    assert max(z_pos, z_pair) > 4.5


@settings(max_examples=60, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32),
       per_seat=st.lists(st.integers(0, 30), min_size=2, max_size=6), bottom=st.integers(0, 8))
def test_assignment_is_balanced_and_reproducible(seed, per_seat, bottom):
    destinations = fair_deal.slots(per_seat, bottom)
    seats = fair_deal.assignment(seed, destinations)
    assert Counter(seats) == Counter(destinations)            # every seat gets exactly its count
    assert seats == fair_deal.assignment(seed, destinations)  # the same seed, the same deal
    proof = fair_deal.make_proof(seed, per_seat, bottom, seats)
    assert fair_deal.verify_proof(proof).ok


def test_round_robin_goes_counter_clockwise_from_the_first_seat_with_the_bottom_last():
    order = fair_deal.round_robin([16, 16, 16], 4, first_seat=2)
    assert order[:5] == [2, 0, 1, 2, 0]
    assert order[-4:] == [fair_deal.BOTTOM] * 4 and Counter(order[:-4]) == {0: 16, 1: 16, 2: 16}
    uneven = fair_deal.round_robin([14, 14, 13, 13], 0, first_seat=0)
    assert Counter(uneven) == {0: 14, 1: 14, 2: 13, 3: 13}


def test_commitment_binds_the_seed():
    seed = _seed(1)
    assert fair_deal.commitment(seed) != fair_deal.commitment(_seed(2))
    assert len(fair_deal.commitment(seed)) == 64 and seed.hex() not in fair_deal.commitment(seed)


def test_verify_deal_accepts_the_honest_deal_and_rejects_changed_ones(tmp_path):
    runner = CliRunner()
    seed = _seed(7)
    seats = fair_deal.assignment(seed, fair_deal.slots([16, 16, 16], 4))
    proof = fair_deal.make_proof(seed, [16, 16, 16], 4, seats)
    honest = tmp_path / "record.json"
    honest.write_text(json.dumps({"game": "wakeng", "hands": [[], [], []], "deal": {"proof": proof}}))
    result = runner.invoke(app, ["verify-deal", str(honest)])
    assert result.exit_code == 0 and "ok" in result.output

    swapped = list(seats)
    k = next(i for i in range(1, len(swapped)) if swapped[i] != swapped[0])
    swapped[0], swapped[k] = swapped[k], swapped[0]          # two cards' seats exchanged: still balanced
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps({**proof, "seats": swapped}))
    result = runner.invoke(app, ["verify-deal", str(changed)])
    assert result.exit_code == 1 and "card 1 went to" in result.output

    other_seed = tmp_path / "other-seed.json"
    other_seed.write_text(json.dumps({**proof, "seed": _seed(8).hex()}))
    result = runner.invoke(app, ["verify-deal", str(other_seed)])
    assert result.exit_code == 1 and "commitment" in result.output

    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    result = runner.invoke(app, ["verify-deal", str(junk)])
    assert result.exit_code == 2 and "not valid JSON" in result.output
