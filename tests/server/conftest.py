"""Fixtures: a fresh server (real uvicorn) per test that asks for one, on each storage backend."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ..conftest import Database
from .helpers import LiveServer, server_settings


@pytest.fixture
def server(database: Database) -> Iterator[LiveServer]:
    running = LiveServer(server_settings(database))
    try:
        yield running
    finally:
        running.stop()
