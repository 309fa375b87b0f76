"""Fixtures shared by the server and sign-in tests: one database per test, on each backend.

A test that asks for `database` (or `new_database`) runs twice: on an SQLite file in its temp
dir and on a fresh database of a throw-away PostgreSQL cluster, started once per test run
(tests/postgres.py). Without PostgreSQL's binaries those tests fail: they never skip.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from .postgres import Cluster

# Where a test's storage lives: an SQLite file, or a postgresql:// URL.
Database = Path | str
BACKENDS = ("sqlite", "postgresql")


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    cluster = Cluster()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(params=BACKENDS)
def new_database(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], Database]:
    """Makes empty databases on the test's backend (each call a new one)."""
    if request.param == "postgresql":
        cluster: Cluster = request.getfixturevalue("pg_cluster")
        return cluster.new_database
    numbers = itertools.count()
    return lambda: tmp_path / f"somnium{next(numbers) or ''}.sqlite3"


@pytest.fixture
def database(new_database: Callable[[], Database]) -> Database:
    """An empty database on the test's backend."""
    return new_database()
