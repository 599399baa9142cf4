"""Fixtures of the club tests: a REAL PostgreSQL (one cluster per run, a fresh database per test) and a
REAL mosquitto (TLS, passwords, the project's ACL) per test. Skipped, with the reason, only when the
Debian packages are not installed."""

from __future__ import annotations

import itertools
import shutil
import tempfile
from pathlib import Path

import psycopg
import pytest
from club_helpers import ROOM, USERS

from controller.club.local import LocalBroker, LocalPostgres, ServiceMissing

_db_names = itertools.count(1)


@pytest.fixture(scope="session")
def pg_cluster():
    folder = Path(tempfile.mkdtemp(prefix="hongsi-pg-"))   # not under pytest's 0700 tmp: postgres must enter
    try:
        pg = LocalPostgres(folder, fast=True).start()
    except ServiceMissing as exc:
        shutil.rmtree(folder, ignore_errors=True)
        pytest.skip(str(exc))
    yield pg
    pg.stop("immediate")
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def dsn(pg_cluster):
    """A fresh, empty database on the run's cluster."""
    name = f"club_{next(_db_names)}"
    with psycopg.connect(pg_cluster.dsn, autocommit=True) as db:
        db.execute(f"DROP DATABASE IF EXISTS {name}")
        db.execute(f"CREATE DATABASE {name}")
    return pg_cluster.dsn.rsplit("/", 1)[0] + f"/{name}"


@pytest.fixture
def broker(tmp_path: Path):
    try:
        b = LocalBroker(tmp_path / "broker", ROOM, USERS).start()
    except ServiceMissing as exc:
        pytest.skip(str(exc))
    yield b
    b.stop()
