"""A database the server of schema version 6 made upgrades in place, on both backends."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from dataclasses import replace
from pathlib import Path

import psycopg

from somnium_server.storage import GameUpdate, StoredEvent, postgres_schema, sqlite_file
from somnium_server.storage.postgres import PostgresStorage

from ..conftest import Database
from .helpers import open_test_storage, query

# The schema of the server before last-seen presence, analyses and clocks (commit cdbd7db):
# its first six migrations, which this server's lists begin with unchanged.
OLD_SCHEMA = 6

OLD_GAME = (
    "INSERT INTO games (id, name, created_at, created_by, seats, status, state, initial_state,"
    " version, seq, meta, bot_seed, state_version) VALUES ('OLD2345', 'Old table', 1, 'u',"
    " '[]', 'playing', '{\"x\": 5}', '{\"x\": 0}', 3, 2, '{\"rated\": true}', 1, 3)"
)


def _make_old(database: Database) -> None:
    """The database as the old server left it: its migrations, a game in play, lobby events."""
    if isinstance(database, Path):
        with contextlib.closing(sqlite3.connect(database, isolation_level=None)) as conn:
            for migration in sqlite_file.MIGRATIONS[:OLD_SCHEMA]:
                for statement in migration.split(";"):
                    if statement.strip():
                        conn.execute(statement)
            conn.execute(f"PRAGMA user_version={OLD_SCHEMA}")
            conn.execute(OLD_GAME)
        return
    with psycopg.connect(database) as pg, pg.transaction():
        for migration in postgres_schema.MIGRATIONS[:OLD_SCHEMA]:
            pg.execute(migration.encode())
        pg.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        pg.execute(f"INSERT INTO schema_version VALUES ({OLD_SCHEMA})".encode())
        pg.execute(OLD_GAME.encode())
        pg.execute("INSERT INTO lobby_events (id, data) VALUES (1, '{\"old\": 1}')")


def test_a_database_of_the_schema_6_server_upgrades_and_keeps_its_games(
    database: Database,
) -> None:
    _make_old(database)

    async def work() -> None:
        storage = open_test_storage(database)
        try:
            old = await storage.get_game("OLD2345")
            assert old is not None and (old.version, old.deadline) == (3, None)
            assert old.meta == {"rated": True}
            assert await storage.overdue_games(time.time()) == []
            # the clock's deadline column: a game with one is found once it is due
            due = replace(old, version=4, seq=3, state_version=None, deadline=time.time() - 1)
            await storage.update_game(GameUpdate(due, 3, [StoredEvent(3, {"t": 1})]))
            assert await storage.overdue_games(time.time()) == [("OLD2345", 4)]
            # the analyses table and the last-seen table
            await storage.add_analysis("OLD2345", b'{"moves": []}', (0.5, None))
            assert await storage.get_analysis("OLD2345") == b'{"moves": []}'
            await storage.mark_seen(["u"], 12.5)
            assert await storage.last_seen(["u", "v"]) == {"u": 12.5}
            if isinstance(storage, PostgresStorage):  # the lobby's batches, after its old events
                await storage.add_lobby_events([b'{"new": 1}'], "batch-1")
                await storage.add_lobby_events([b'{"new": 1}'], "batch-1")  # a retry: once
                assert [i for i, _ in await storage.lobby_events_after(0)] == [1, 2]
        finally:
            await storage.close()

    asyncio.run(work())
    if isinstance(database, Path):
        assert query(database, "PRAGMA user_version")[0][0] == len(sqlite_file.MIGRATIONS)
    else:
        assert query(database, "SELECT version FROM schema_version") == [
            (len(postgres_schema.MIGRATIONS),)
        ]
