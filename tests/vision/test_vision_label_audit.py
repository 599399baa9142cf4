"""The audit of the real photos' labels: applied to training rows only on request, checked against the
source, and refusing a malformed row."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

import vision.train as train
from vision.train import AUDIT_PATH, REAL_DIR, label_audit, real_rows


def _write(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def test_committed_audit_is_well_formed():
    fixes = label_audit()
    assert len(fixes) >= 20
    with AUDIT_PATH.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(fixes), "a crop is audited twice"
    assert all(r["why"].strip() for r in rows), "every change says what the crop shows"


def test_audited_rows_carry_both_labels(tmp_path, monkeypatch):
    _write(tmp_path / "labels.csv", [
        {"file": "crops/a.jpg", "label": "S4", "subset": "s", "frame": "f1", "split": "fit"},
        {"file": "crops/b.jpg", "label": "H7", "subset": "s", "frame": "f1", "split": "fit"},
        {"file": "crops/c.jpg", "label": "S4", "subset": "s", "frame": "f2", "split": "eval"},
    ])
    audit = tmp_path / "audit.csv"
    _write(audit, [{"file": "crops/a.jpg", "source_label": "S4", "label": "S3", "why": "a 3"}])
    plain = real_rows("fit", tmp_path)
    assert [r["label"] for r in plain] == ["S4", "H7"] and "source_label" not in plain[0]
    monkeypatch.setattr(train, "AUDIT_PATH", audit)
    fixed = real_rows("fit", tmp_path, audited=True)
    assert [(r["label"], r.get("source_label")) for r in fixed] == [("S3", "S4"), ("H7", None)]


@pytest.mark.parametrize("row", [
    {"file": "x.jpg", "source_label": "S4", "label": "S11", "why": "no such card"},
    {"file": "x.jpg", "source_label": "S4", "label": "S4", "why": "no change"},
])
def test_a_malformed_audit_row_is_refused(tmp_path, row):
    _write(tmp_path / "audit.csv", [row])
    with pytest.raises(ValueError, match="bad label audit row"):
        label_audit(tmp_path / "audit.csv")


def test_audit_matches_the_source_labels():
    path = REAL_DIR / "labels.csv"
    if not path.exists():
        pytest.skip(f"the real photos are not beside the repository ({REAL_DIR})")
    with path.open(newline="") as fh:
        source = {r["file"]: r["label"] for r in csv.DictReader(fh)}
    with AUDIT_PATH.open(newline="") as fh:
        for r in csv.DictReader(fh):
            assert source.get(r["file"]) == r["source_label"], r["file"]
            assert (REAL_DIR / r["file"]).exists()
