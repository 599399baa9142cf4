"""Fixtures of the table-service tests: a service on a software deal, and a live uvicorn server."""

from __future__ import annotations

from pathlib import Path

import pytest
from svc_helpers import LiveServer

from controller.service.app import create_app
from controller.service.deal import SoftwareDealSource
from controller.service.table import TableService


@pytest.fixture
def service(tmp_path: Path):
    svc = TableService(tmp_path / "data", SoftwareDealSource(card_delay=0.0, seed=7), bot_delay=0.0, seed=3)
    yield svc
    svc.close()


@pytest.fixture
def live(tmp_path: Path):
    """A live server on a free loopback port, on a software deal with a visible pace."""
    svc = TableService(tmp_path / "data", SoftwareDealSource(card_delay=0.0, seed=11), bot_delay=0.0, seed=5)
    srv = LiveServer(create_app(svc), svc).start()
    yield srv
    srv.stop()
    svc.close()
