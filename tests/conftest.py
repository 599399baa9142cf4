"""Every test: the table's empty seats play the greedy bot (25 ms if a test picks the search bot), as
before the search bot: its play is tested in tests/engine and measured in benchmarks/bots.py; the service
tests are about the table, and a search bot's 200 ms a move would make their hands take minutes."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="session")
def _quick_bots():
    from controller.service import bots

    before = bots.SETTINGS.bot, bots.SETTINGS.budget_ms
    bots.configure(bot="greedy", budget_ms=25.0)
    yield
    bots.configure(*before)
