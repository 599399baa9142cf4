"""Shared fixtures of the vision tests: the real reader (committed ONNX model) and the real photos."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.train import REAL_DIR

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def reader():
    from vision.reader import CardReader

    return CardReader(threads=1)


@pytest.fixture(scope="session")
def real_eval_rows():
    from vision.train import real_rows

    rows = real_rows("eval", REAL_DIR)
    if not rows:
        pytest.skip(f"the real photos are not beside the repository ({REAL_DIR})")
    return rows
