"""The pieces for a deal the table takes part in (seat contributions on top of the rig's committed seed)
and for a journal the operator reads while a hand is live (no hidden card in it)."""

from __future__ import annotations

import hashlib
from collections import Counter
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller import fair_deal, redact
from controller.journal import Journal


def _seed(n: int) -> bytes:
    return hashlib.sha256(f"rig {n}".encode()).digest()


contribution = st.binary(min_size=16, max_size=64).map(bytes.hex)


@settings(max_examples=40, deadline=None)
@given(rig=st.binary(min_size=32, max_size=32), contribs=st.dictionaries(st.integers(0, 3), contribution, max_size=4))
def test_every_contribution_changes_the_seats_and_the_proof_checks_them(rig, contribs):
    seats = fair_deal.shared_assignment(rig, contribs, [13, 13, 13, 13], 0)
    assert Counter(seats) == Counter(fair_deal.slots([13, 13, 13, 13], 0))
    proof = fair_deal.make_shared_proof(rig, contribs, [13, 13, 13, 13], 0, seats)
    assert fair_deal.verify_proof(proof).ok
    if contribs:
        seat = min(contribs)
        other = {**contribs, seat: hashlib.sha256(contribs[seat].encode()).hexdigest()}
        assert fair_deal.combined_seed(rig, other) != fair_deal.combined_seed(rig, contribs)
        changed = {**proof, "contributions": {str(s): c for s, c in other.items()}}
        assert not fair_deal.verify_proof(changed).ok        # a contribution swapped after the fact
        dropped = {**proof, "contributions": {str(s): c for s, c in contribs.items() if s != seat}}
        assert not fair_deal.verify_proof(dropped).ok        # or left out


def test_without_contributions_it_is_the_v1_deal():
    rig = _seed(1)
    assert fair_deal.combined_seed(rig, {}) == rig
    assert fair_deal.shared_assignment(rig, None, [16, 16, 16], 4) == \
        fair_deal.assignment(rig, fair_deal.slots([16, 16, 16], 4))


@pytest.mark.parametrize("bad", ["zz" * 16, "ab" * 15, "ab" * 65, "", None])
def test_a_malformed_contribution_is_refused(bad):
    with pytest.raises(ValueError):
        fair_deal.check_contribution(bad)


def _rows(rig, contribs, journalled):
    seats = fair_deal.shared_assignment(rig, contribs, [2, 2], 0)
    plan = SimpleNamespace(kind="deal_plan", seq=1, data={"commitment": fair_deal.commitment(rig)})
    rows = [plan] + [SimpleNamespace(kind="contribution", seq=2 + s, data={"seat": s, "value": v})
                     for s, v in journalled.items()]
    return seats, rows


def test_check_deal_wants_every_journalled_contribution_in_the_proof():
    rig, contribs = _seed(2), {0: "11" * 16, 1: "22" * 16}
    seats, rows = _rows(rig, contribs, contribs)
    proof = fair_deal.make_shared_proof(rig, contribs, [2, 2], 0, seats)
    problems = fair_deal._contribution_problems(proof, rows)
    assert problems == []
    # the rig leaves seat 1's contribution out and deals by the rest: the proof is self-consistent...
    fewer = {0: contribs[0]}
    seats2 = fair_deal.shared_assignment(rig, fewer, [2, 2], 0)
    cheat = fair_deal.make_shared_proof(rig, fewer, [2, 2], 0, seats2)
    assert fair_deal.verify_proof(cheat).ok
    # ...but not with the journal, which took seat 1's contribution
    assert fair_deal._contribution_problems(cheat, rows) == ["seat 1's contribution is not in the proof"]


# ------------------------------------------------------------------------------------- redaction
def _live_hand(tmp_path):
    j = Journal(tmp_path / "journal.db", durable=False)
    r = j.new_round({"game": "hongsi"})
    j.append(r, "deal_plan", {"plan": {"seed": "aa" * 32, "order": [0, 1, 2, 3], "seats": 4}, "commitment": "c"})
    j.append(r, "card_read", {"index": 0, "label": "HA", "probs": [0.9], "confidence": 0.9}, image=b"crop")
    j.append(r, "eject_intent", {"index": 0, "seat": 2, "label": "HA"})
    j.append(r, "eject_done", {"index": 0, "seat": 2})
    j.append(r, "placed", {"by": "operator", "cards": {"0": "HA"}, "flag": "seat 2 holds HA"})
    j.append(r, "deal_end", {"status": "done", "record": {"hands": [["HA"], [], [], []]}, "flags": ["HA"]})
    j.append(r, "action", {"index": 0, "event": {"seat": 2, "action": "expose", "cards": ["HA"], "hidden": True},
                           "violations": [{"message": "HA"}]})
    return j, r


def test_a_live_hand_shows_no_card_to_the_operator_then_everything_after(tmp_path):
    j, r = _live_hand(tmp_path)
    shown = redact.redact_rows(j.rows(r), j.rows)
    text = repr(shown)
    assert "HA" not in text and "aa" * 32 not in text and "crop" not in text
    assert all(row["image"] is None for row in shown)
    assert next(row for row in shown if row["kind"] == "action")["data"]["event"] == {"seat": 2, "action": "expose"}
    assert next(row for row in shown if row["kind"] == "eject_done")["data"] == {"index": 0, "seat": 2}
    assert all(row["redacted"] for row in shown)
    j.append(r, "round_end", {"status": "done"})
    after = redact.redact_rows(j.rows(r), j.rows)
    assert "HA" in repr(after) and not any(row.get("redacted") for row in after)
