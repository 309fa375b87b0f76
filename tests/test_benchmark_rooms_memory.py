"""benchmarks/rooms_memory.py: finished games are stored, and a real server starts on them."""

from __future__ import annotations

import asyncio
from pathlib import Path

from benchmarks import rooms_memory
from somnium_server.storage import GameRecord

from .server.helpers import open_test_storage


def test_the_games_are_played_to_the_end_and_a_server_starts_on_them(tmp_path: Path) -> None:
    database = rooms_memory.database_of(tmp_path, 12)
    assert database.exists() and not list(tmp_path.glob("*.partial.*"))

    async def stored() -> list[GameRecord]:
        storage = open_test_storage(database)
        try:
            return list(await storage.list_games())
        finally:
            await storage.close()

    records = asyncio.run(stored())
    assert len(records) == 12 and all(r.status == "finished" for r in records)
    seconds, kib = rooms_memory.start_server(database, rooms_memory.ROOT)
    assert 0 < seconds < 60 and kib > 10_000
