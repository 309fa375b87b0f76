"""Fixtures: a fresh server (real uvicorn, real SQLite file) per test that asks for one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .helpers import LiveServer, server_settings


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    running = LiveServer(server_settings(tmp_path / "somnium.sqlite3"))
    try:
        yield running
    finally:
        running.stop()
