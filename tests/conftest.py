"""Every test: the table's search bots think 25 ms a move instead of the table's 200 ms. Their play is
measured in tests/engine and benchmarks/bots.py; elsewhere a whole hand of bot moves need not take minutes."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="session")
def _quick_bots():
    from controller.service import bots

    before = bots.SETTINGS.budget_ms
    bots.configure(budget_ms=25.0)
    yield
    bots.configure(budget_ms=before)
