"""Fixtures: a real lobby server (uvicorn on 127.0.0.1, SQLite file) that deals a short game."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from somnium_server.play import games
from tests.server.helpers import LiveServer, server_settings

from .helpers import short_game


@pytest.fixture
def lobby(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LiveServer]:
    """A lobby server with local accounts whose every new game is short_game()."""
    monkeypatch.setattr(games, "new_game", lambda seed: short_game())
    running = LiveServer(server_settings(tmp_path / "lobby.sqlite3", local_accounts=True))
    try:
        yield running
    finally:
        running.stop()
