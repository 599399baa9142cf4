"""Issue 31, finding 6: the table takes part in the seed. A deal on the virtual rig (real pty, MJPEG,
ONNX reader) with the rig's seed and two seats' contributions: the seats follow all of them, the
journal keeps each contribution, the revealed proof names them, and the deal check accepts it and
rejects a proof that leaves one out or changes one."""

import secrets

import pytest
from ctl_simrig import Table, simulator

from controller import fair_deal
from controller.fair_deal import check_deal


@pytest.fixture(scope="module")
def reader():
    from vision.reader import CardReader

    return CardReader(threads=1)


def _rows(journal, rid):
    return journal.rows(rid)


def test_the_seats_follow_the_rig_seed_and_every_contribution(tmp_path, reader):
    seed = fair_deal.new_seed()
    shares = {0: secrets.token_hex(32), 2: secrets.token_hex(16)}
    with simulator(tmp_path, seed=5) as (ends, _truth):
        table = Table(ends, tmp_path / "journal.db", reader)
        try:
            dealer = table.dealer()
            result = dealer.run("hongsi", first_seat=0, fair=True, seed=seed, contributions=shares)
            assert result.status == "done", table.why_stopped(result)
            proof = dealer.reveal(result.round)
            rows = _rows(table.journal, result.round)
            dealer.close()
        finally:
            table.close()
    alone = fair_deal.assignment(seed, fair_deal.slots([13] * 4, 0))
    assert proof["seats"] == fair_deal.shared_assignment(seed, shares, [13] * 4, 0) != alone
    assert proof["contributions"] == {"0": shares[0], "2": shares[2]}
    journalled = [r for r in rows if r.kind == "contribution"]
    assert {r.data["seat"]: r.data["value"] for r in journalled} == shares
    assert all(r.data["commitment"] == proof["commitment"] for r in journalled)
    assert check_deal(result.record, proof, rows).ok, check_deal(result.record, proof, rows).problems

    left_out = {**proof, "contributions": {"0": shares[0]}}
    assert "seat 2's contribution is not in the proof" in check_deal(result.record, left_out, rows).problems
    changed = {**proof, "contributions": {"0": shares[0], "2": secrets.token_hex(16)}}
    problems = check_deal(result.record, changed, rows).problems
    assert "seat 2's contribution differs from the one journalled" in problems
    assert any("the seed says" in p for p in problems)            # and the seats no longer follow
