"""The README's dispute flow on a real CLI deal (`hongsi simulate` + `hongsi deal`): `log export N --out
DIR` then `verify-deal DIR/record.json` accepts the honest deal and rejects swapped hands, re-sorted
hands and a fresh seed and commitment, naming the first card that disagrees; the export's receipt
holds under `log verify --receipt` until the hand's rows are cut off."""

import hashlib
import json
import shutil
import sqlite3
import subprocess

from ctl_simrig import HONGSI, ROOT, _env, run_deal, simulator

from controller import fair_deal, receipts


def _hongsi(*args):
    return subprocess.run([*HONGSI, *args], capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=60)


def _rewrite(out, change):
    record = json.loads((out / "record.json").read_text())
    change(record)
    bad = out.parent / f"{out.name}-bad"
    shutil.rmtree(bad, ignore_errors=True)
    shutil.copytree(out, bad)
    (bad / "record.json").write_text(json.dumps(record))
    return _hongsi("verify-deal", str(bad / "record.json"))


def test_export_then_verify_deal_on_a_cli_deal(tmp_path):
    journal = tmp_path / "journal.db"
    with simulator(tmp_path, seed=33) as (ends, _truth):
        proc = run_deal(ends, journal, "--json", "--first-seat", "0", "--frames", "1", "--fair")
        assert proc.returncode == 0, proc.stderr[-3000:]
    out = tmp_path / "round-1"
    exported = _hongsi("log", "export", "1", "--journal", str(journal), "--out", str(out))
    assert exported.returncode == 0, exported.stderr
    ok = _hongsi("verify-deal", str(out / "record.json"))
    assert ok.returncode == 0 and "camera" in ok.stdout, ok.stdout + ok.stderr

    # hands swapped between two seats
    def swap(rec):
        rec["hands"][0], rec["hands"][1] = rec["hands"][1], rec["hands"][0]

    bad = _rewrite(out, swap)
    assert bad.returncode == 1 and "seat 0's card 1 is" in bad.stderr and len(bad.stderr.splitlines()) == 1

    # a hand re-sorted (same cards, not in the order dealt)
    def resort(rec):
        rec["hands"][2] = sorted(rec["hands"][2], reverse=rec["hands"][2] == sorted(rec["hands"][2]))

    bad = _rewrite(out, resort)
    assert bad.returncode == 1 and "seat 2's card" in bad.stderr

    # a fresh seed and commitment, self-consistent, with seats that fit the record's hands
    def fresh(rec):
        seed = hashlib.sha256(b"another seed").digest()
        proof = rec["deal"]["proof"]
        proof.update(seed=seed.hex(), commitment=fair_deal.commitment(seed),
                     seats=fair_deal.assignment(seed, fair_deal.slots(proof["cards_per_seat"], proof["bottom"])))
        rec["deal"]["commitment"] = proof["commitment"]

    bad = _rewrite(out, fresh)
    assert bad.returncode == 1 and "journalled before the deal" in bad.stdout

    # the export's receipt holds; cutting the hand's end off the journal breaks it
    held = json.loads((out / "receipts.json").read_text())
    assert [r["at"] for r in held] == ["deal_end", "reveal"]
    assert _hongsi("log", "verify", "--journal", str(journal), "--receipt", held[0]["receipt"]).returncode == 0
    db = sqlite3.connect(journal)
    db.execute("DROP TRIGGER journal_no_delete")
    db.execute("DELETE FROM journal WHERE seq >= ?", (held[0]["seq"],))
    db.commit()
    db.close()
    assert _hongsi("log", "verify", "--journal", str(journal)).returncode == 0
    gone = _hongsi("log", "verify", "--journal", str(journal), "--receipt", held[0]["short"])
    assert gone.returncode == 1 and receipts.short(held[0]["receipt"]) in gone.stdout
