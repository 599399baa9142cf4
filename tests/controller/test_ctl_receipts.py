"""Receipts: the journal's head at the end of every deal and hand, signed by the rig's Ed25519 key.
A rollback (the last rows cut off) or a forgery (two cards' labels, crops and record swapped, every hash
recomputed) verifies as a bare chain, but fails `hongsi log verify --receipt`; the journal's files are 0600."""

import json
import shutil
import sqlite3
import stat

import pytest
from typer.testing import CliRunner

from controller import keys, receipts
from controller.cli import app
from controller.journal import Journal, canonical, row_hash

runner = CliRunner()


def _deal(tmp_path, name="j"):
    """A small deal as the dealer journals it: reads with crops, seats, deal_end, then the reveal."""
    j = Journal(tmp_path / name / "journal.db", durable=False)
    r = j.new_round({"game": "hongsi"})
    labels = ["S2", "H4", "DA", "CK"]
    for i, label in enumerate(labels):
        j.append(r, "card_read", {"index": i, "label": label, "confidence": 0.99}, image=f"crop {label}".encode())
        j.append(r, "eject_done", {"index": i, "seat": i % 2})
    record = {"game": "hongsi", "hands": [["S2", "DA"], ["H4", "CK"]], "bottom": [], "deal": {"commitment": "c"}}
    j.append(r, "deal_end", {"status": "done", "record": record})
    j.append(r, "reveal", {"proof": {"seed": "00"}})
    return j, r


def _verify(j, *receipt_args):
    args = ["log", "verify", "--journal", str(j.path)]
    for hex_ in receipt_args:
        args += ["--receipt", hex_]
    return runner.invoke(app, args)


def _unguarded(path):
    db = sqlite3.connect(path)
    db.execute("DROP TRIGGER journal_no_update")
    db.execute("DROP TRIGGER journal_no_delete")
    return db


def test_every_deal_end_and_reveal_gets_a_signed_receipt(tmp_path):
    j, r = _deal(tmp_path)
    rows = j.rows(r)
    kinds = [row.kind for row in rows]
    assert kinds[-4:] == ["deal_end", "receipt", "reveal", "receipt"]
    got = receipts.of_rows(rows)
    assert [x["at"] for x in got] == ["deal_end", "reveal"]
    deal_end = next(row for row in rows if row.kind == "deal_end")
    assert got[0]["receipt"] == deal_end.hash and got[0]["short"].replace(" ", "") == deal_end.hash[:16]
    key = keys.public_key_of(j.path.parent)
    assert key is not None and all(receipts.verify_receipt(x, key) for x in got)
    assert j.receipt(r) == got[-1]
    # the signature binds the hash: another head under the same signature fails
    assert not receipts.verify_receipt({**got[0], "receipt": got[1]["receipt"]}, key)
    # the key is the rig's, kept owner-only, and `hongsi log key` shows its public half
    assert stat.S_IMODE((j.path.parent / keys.KEY_FILE).stat().st_mode) == 0o600
    shown = runner.invoke(app, ["log", "key", "--journal", str(j.path)])
    assert shown.exit_code == 0 and shown.output.strip() == key
    assert _verify(j, got[0]["receipt"], got[1]["short"]).exit_code == 0


def test_the_journal_and_its_wal_and_shm_are_owner_only(tmp_path):
    j, _ = _deal(tmp_path)
    for suffix in ("", "-wal", "-shm"):
        path = j.path.with_name(j.path.name + suffix)
        assert path.exists() and stat.S_IMODE(path.stat().st_mode) == 0o600, suffix


def test_a_rollback_verifies_as_a_chain_but_fails_against_the_receipt(tmp_path):
    j, r = _deal(tmp_path)
    held = j.receipt(r)["receipt"]                      # a seat page showed it; a player kept it
    cut = next(row.seq for row in j.rows(r) if row.kind == "deal_end")
    j.close()
    db = _unguarded(j.path)
    db.execute("DELETE FROM journal WHERE seq >= ?", (cut,))   # the hand 'never ended'
    db.commit()
    db.close()
    assert _verify(j).exit_code == 0                    # the bare chain cannot tell
    result = _verify(j, held)
    assert result.exit_code == 1 and "rollback" in result.output
    assert len(result.stderr.strip().splitlines()) == 1


def _forge(j, r, resign_with=None):
    """Swap cards 0 and 1: labels, crops and the record; recompute every hash; optionally re-sign the
    receipts with a new key put in the rig's place."""
    rows = j.rows()
    reads = {row.data["index"]: row for row in rows if row.kind == "card_read"}
    swap = {0: reads[1], 1: reads[0]}
    out, prev = [], "0" * 64
    for row in rows:
        data, image = dict(row.data), row.image
        if row.kind == "card_read" and row.data["index"] in swap:
            other = swap[row.data["index"]]
            data["label"], image = other.data["label"], other.image
        elif row.kind == "deal_end":
            hands = data["record"]["hands"]
            hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
        elif row.kind == "receipt" and resign_with is not None:
            named = next(o for o in out if o[0] == data["of"])
            data = receipts.row_data(named[0], named[7], data["at"], resign_with)
        text = canonical(data)
        h = row_hash(row.seq, row.round, row.kind, row.t, text, image, prev)
        out.append((row.seq, row.round, row.kind, row.t, text, image, prev, h))
        prev = h
    j.close()
    db = _unguarded(j.path)
    db.execute("DELETE FROM journal")
    db.executemany("INSERT INTO journal VALUES (?,?,?,?,?,?,?,?)", out)
    db.commit()
    db.close()


def test_a_forgery_with_every_hash_recomputed_fails_against_the_receipt(tmp_path):
    j, r = _deal(tmp_path)
    held = j.receipt(r)
    _forge(j, r)
    plain = _verify(j)            # the receipts in the journal name hashes the chain no longer has
    assert plain.exit_code == 1 and "rewritten" in plain.output
    assert _verify(j, held["receipt"]).exit_code == 1


def test_a_forger_who_re_signs_with_a_new_key_still_fails_the_held_receipt(tmp_path):
    j, r = _deal(tmp_path)
    held = j.receipt(r)
    rig_public = keys.public_key_of(j.path.parent)
    for name in (keys.KEY_FILE, keys.PUB_FILE):
        (j.path.parent / name).unlink()
    _forge(j, r, resign_with=keys.RigKey.load_or_create(j.path.parent))
    assert _verify(j).exit_code == 0             # a self-consistent rewrite, signed by the forger's new key
    result = _verify(j, held["short"])
    assert result.exit_code == 1 and "no row of the journal has that hash" in result.output
    # the held receipt still proves what the rig said, without any journal
    assert receipts.verify_receipt(held, rig_public)
    forged = Journal(j.path, readonly=True)
    assert not any(receipts.verify_receipt(x, rig_public) for x in receipts.of_rows(forged.rows(r)))
    forged.close()


def test_a_receipt_row_signed_by_another_key_fails_verify(tmp_path):
    j, r = _deal(tmp_path)
    other = tmp_path / "other"
    shutil.copytree(j.path.parent, other)
    for name in (keys.KEY_FILE, keys.PUB_FILE):
        (other / name).unlink()
    key_b = keys.RigKey.load_or_create(other)        # a second rig's key
    head = j.head()
    j.append(r, "receipt", receipts.row_data(head.seq, head.hash, head.kind, key_b))
    result = _verify(j)
    assert result.exit_code == 1 and "another key" in result.output


@pytest.mark.parametrize("bad", ["xyz", "abc", "", "0" * 65])
def test_a_malformed_receipt_is_one_clear_line(tmp_path, bad):
    j, _ = _deal(tmp_path)
    result = _verify(j, bad)
    assert result.exit_code == 2 and "--receipt" in result.output and "Traceback" not in result.output


def test_export_includes_the_receipts_and_the_revealed_proof(tmp_path):
    j, r = _deal(tmp_path)
    out = tmp_path / "out"
    assert runner.invoke(app, ["log", "export", str(r), "--journal", str(j.path), "--out", str(out)]).exit_code == 0
    exported = json.loads((out / "receipts.json").read_text())
    assert exported == receipts.of_rows(j.rows(r)) and len(exported) == 2
    # a CLI deal writes its record at deal_end and the proof after it: the export carries both
    assert json.loads((out / "record.json").read_text())["deal"] == {"commitment": "c", "proof": {"seed": "00"}}
