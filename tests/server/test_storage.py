"""Both storages: migrations, version-checked writes, sessions kept only as hashes; SQLite's WAL."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from dataclasses import replace
from pathlib import Path

import pytest

from somnium_server.signin.sessions import hash_token, issue_session, revoke_session, user_for_token
from somnium_server.storage import (
    DatabaseUnavailable,
    GameRecord,
    GameUpdate,
    Identity,
    StoredAction,
    StoredEvent,
    VersionConflict,
    postgres_schema,
)
from somnium_server.storage.postgres import PostgresStorage
from somnium_server.storage.sqlite import SQLiteStorage
from somnium_server.storage.sqlite_file import MIGRATIONS

from ..conftest import Database
from ..postgres import Cluster
from .helpers import open_test_storage, query, stored_text


def _record(version: int = 1, seq: int = 1) -> GameRecord:
    return GameRecord(
        id="ABC2345", name="t", created_at=time.time(), created_by="u", seats=[], status="waiting",
        state={"x": 1}, initial_state={"x": 0}, version=version, seq=seq, meta={}, bot_seed=1,
    )


def test_a_new_file_is_migrated_to_the_latest_schema_in_wal_mode(tmp_path: Path) -> None:
    database = tmp_path / "new" / "db.sqlite3"

    async def work() -> None:
        storage = SQLiteStorage(database)
        await storage.close()
        again = SQLiteStorage(database)  # reopening migrates nothing twice
        await again.close()

    asyncio.run(work())
    conn = sqlite3.connect(database)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"users", "identities", "sessions", "games", "events", "actions"} <= tables
    conn.close()


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    database = tmp_path / "db.sqlite3"
    conn = sqlite3.connect(database)
    conn.execute(f"PRAGMA user_version={len(MIGRATIONS) + 1}")
    conn.close()
    with pytest.raises(RuntimeError, match="newer"):
        SQLiteStorage(database)


def test_updates_are_version_checked_and_atomic(database: Database) -> None:
    async def work() -> None:
        storage = open_test_storage(database)
        await storage.create_game(_record(), [StoredEvent(1, {"a": 1})])
        action = StoredAction("a1", "u", 0, 2, {"type": "draw"}, b"{}")
        await storage.update_game(GameUpdate(_record(2, 2), 1, [StoredEvent(2, {"b": 2})], action))
        stale = GameUpdate(_record(3, 3), 1, [StoredEvent(3, {"c": 3})])
        with pytest.raises(VersionConflict):
            await storage.update_game(stale)
        # concurrent writes at one version: each stands or falls alone, exactly one stands
        results = await asyncio.gather(
            storage.update_game(GameUpdate(_record(3, 3), 2, [StoredEvent(3, {"c": 3})])),
            storage.update_game(GameUpdate(_record(3, 4), 2, [StoredEvent(4, {"d": 4})])),
            return_exceptions=True,
        )
        assert sorted(type(r).__name__ for r in results) == ["NoneType", "VersionConflict"]
        won = 3 if results[0] is None else 4
        stored = await storage.get_game("ABC2345")
        assert stored is not None and (stored.version, stored.seq) == (3, won)
        assert [e.seq for e in await storage.get_events("ABC2345")] == [1, 2, won]
        assert [e.seq for e in await storage.get_events("ABC2345", after=2)] == [won]
        assert [a.action_id for a in await storage.get_actions("ABC2345")] == ["a1"]
        # an action id is answered once per game: a second row for it is refused
        again = GameUpdate(_record(4, won + 1), 3, [], replace(action, version=4))
        with pytest.raises(Exception, match=r"(?i)unique|duplicate"):
            await storage.update_game(again)
        stored = await storage.get_game("ABC2345")
        assert stored is not None and stored.version == 3  # nothing of it was kept
        await storage.close()

    asyncio.run(work())


def test_sessions_are_stored_only_as_hashes_and_expire(database: Database) -> None:
    async def work() -> tuple[str, str]:
        storage = open_test_storage(database)
        user = await storage.create_user("Ann")
        await storage.add_identity(Identity("example", "sub-1", user.id))
        found = await storage.find_identity("example", "sub-1")
        assert found is not None and found.user_id == user.id
        token = await issue_session(storage, user.id, 3600)
        signed_in = await user_for_token(storage, token)
        assert signed_in is not None and signed_in.display_name == "Ann"
        assert await user_for_token(storage, token + "x") is None
        short = await issue_session(storage, user.id, 0.05)
        await asyncio.sleep(0.1)
        assert await user_for_token(storage, short) is None
        revoked = await issue_session(storage, user.id, 3600)
        assert await user_for_token(storage, revoked) is not None  # now remembered in memory
        await revoke_session(storage, revoked)
        assert await user_for_token(storage, revoked) is None
        await storage.rename_user(user.id, "Bea")
        renamed = await user_for_token(storage, token)
        assert renamed is not None and renamed.display_name == "Bea"
        await storage.close()
        return token, short

    token, short = asyncio.run(work())
    if isinstance(database, Path):  # the files' bytes, free pages and the WAL included
        raw = b"".join(path.read_bytes() for path in database.parent.iterdir())
    else:
        raw = stored_text(database).encode()
    assert token.encode() not in raw and short.encode() not in raw
    assert hash_token(token).encode() in raw


def test_an_update_between_snapshots_keeps_the_stored_state(database: Database) -> None:
    async def work() -> None:
        storage = open_test_storage(database)
        await storage.create_game(_record(), [StoredEvent(1, {"a": 1})])
        between = replace(_record(2, 2), state={"x": 99}, state_version=1, status="playing")
        await storage.update_game(GameUpdate(between, 1, [StoredEvent(2, {"b": 2})]))
        stored = await storage.get_game("ABC2345")
        assert stored is not None
        assert (stored.version, stored.status, stored.state, stored.snapshot_version) == (
            2, "playing", {"x": 1}, 1
        )
        fresh = replace(_record(3, 3), state={"x": 3}, state_version=3)
        await storage.update_game(GameUpdate(fresh, 2, [StoredEvent(3, {"c": 3})]))
        stored = await storage.get_game("ABC2345")
        assert stored is not None and (stored.state, stored.snapshot_version) == ({"x": 3}, 3)
        await storage.close()

    asyncio.run(work())


def test_games_stored_before_snapshots_count_their_state_as_current(tmp_path: Path) -> None:
    database = tmp_path / "db.sqlite3"
    conn = sqlite3.connect(database, isolation_level=None)
    for statement in MIGRATIONS[0].split(";"):
        if statement.strip():
            conn.execute(statement)
    conn.execute("PRAGMA user_version=1")
    conn.execute(
        "INSERT INTO games VALUES ('ABC2345', 't', 0, 'u', '[]', 'playing', '{\"x\": 5}', "
        "'{\"x\": 0}', 7, 9, '{}', 1)"
    )
    conn.close()

    async def work() -> None:
        storage = SQLiteStorage(database)
        stored = await storage.get_game("ABC2345")
        assert stored is not None
        assert (stored.version, stored.snapshot_version, stored.state) == (7, 7, {"x": 5})
        await storage.close()

    asyncio.run(work())


def test_a_file_made_by_the_schema_4_server_keeps_its_games(tmp_path: Path) -> None:
    """data/schema-4.sql is the dump of a file the server of schema version 4 made (a finished
    game, one in play after 7 actions, one open seat): opened now, it is migrated in place and
    the games come back as they were."""
    database = tmp_path / "somnium.sqlite3"
    conn = sqlite3.connect(database)
    conn.executescript((Path(__file__).parent / "data" / "schema-4.sql").read_text())
    conn.execute("PRAGMA user_version=4")
    conn.close()
    before = query(database, "SELECT id, status, version, seq, state FROM games ORDER BY id")
    events = query(database, "SELECT count(*) FROM events")[0][0]

    async def work() -> None:
        storage = SQLiteStorage(database)
        try:
            games = {g.id: g for g in await storage.list_games()}
            assert {g.name: (g.status, g.version) for g in games.values()} == {
                "Finished table": ("finished", games["46RG93M"].version),
                "Game in play": ("playing", 9), "Open seat": ("waiting", 1),
            }
            assert len(await storage.get_events("3JX5XUE")) == games["3JX5XUE"].seq
            assert [a.version for a in await storage.get_actions("3JX5XUE")] == list(range(3, 10))
        finally:
            await storage.close()

    asyncio.run(work())
    assert query(database, "PRAGMA user_version")[0][0] == len(MIGRATIONS)
    assert query(database, "SELECT id, status, version, seq, state FROM games ORDER BY id") == (
        before
    )
    assert query(database, "SELECT count(*) FROM events")[0][0] == events


def test_a_new_postgresql_database_is_migrated_once_even_by_instances_at_once(
    pg_cluster: Cluster,
) -> None:
    url = pg_cluster.new_database()

    async def open_at_once() -> None:
        opened = await asyncio.gather(*(asyncio.to_thread(PostgresStorage, url) for _ in range(4)))
        for storage in opened:
            await storage.close()

    asyncio.run(open_at_once())
    assert query(url, "SELECT version FROM schema_version") == [
        (len(postgres_schema.MIGRATIONS),)
    ]
    tables = {row[0] for row in query(url, "SELECT tablename FROM pg_tables")}
    assert {"users", "identities", "sessions", "games", "events", "actions",
            "signin_requests", "signin_codes", "signin_families", "signin_refresh_tokens",
            "signin_family_sessions"} <= tables


def test_a_newer_postgresql_schema_is_refused(pg_cluster: Cluster) -> None:
    url = pg_cluster.new_database()
    PostgresStorage(url)  # migrated; no pool was opened, nothing to close
    query(url, "UPDATE schema_version SET version = version + 1")
    with pytest.raises(DatabaseUnavailable, match="newer"):
        PostgresStorage(url)


def test_an_unreachable_database_is_a_clear_error_that_shows_no_password(
    pg_cluster: Cluster,
) -> None:
    with pytest.raises(DatabaseUnavailable, match=r"somnium@127\.0\.0\.1:1/x") as caught:
        PostgresStorage("postgresql://somnium:secret-word@127.0.0.1:1/x")
    assert "secret-word" not in str(caught.value)
    missing = pg_cluster.url("no_such_database").replace("somnium@", "somnium:pw@")
    with pytest.raises(DatabaseUnavailable, match="no_such_database") as caught:
        PostgresStorage(missing)
    assert "pw" not in str(caught.value).replace("no_such", "")


def test_without_postgresqls_binaries_the_cluster_fails_loudly(tmp_path: Path) -> None:
    """The fixture behind every PostgreSQL test raises (an error, never a skip)."""
    with pytest.raises(RuntimeError, match=r"binaries are not in .*install Debian's `postgresql`"):
        Cluster(bin_dir=tmp_path / "no-postgresql")


def test_two_storages_on_one_database_keep_one_writer_per_game(database: Database) -> None:
    """Two servers on one database (instances on PostgreSQL, processes on one SQLite file)
    racing the same version: exactly one change is kept, the other is a VersionConflict."""

    async def work() -> None:
        first, second = open_test_storage(database), open_test_storage(database)
        try:
            await first.create_game(_record(), [StoredEvent(1, {"a": 1})])
            for version in range(1, 21):
                results = await asyncio.gather(
                    *(storage.update_game(GameUpdate(
                        _record(version + 1, version + 1), version,
                        [StoredEvent(version + 1, {"by": n})],
                        StoredAction(f"a{version}-{n}", "u", 0, version + 1, {}, b"{}"),
                    )) for n, storage in enumerate((first, second))),
                    return_exceptions=True,
                )
                assert sorted(type(r).__name__ for r in results) == [
                    "NoneType", "VersionConflict"
                ], results
            for storage in (first, second):
                stored = await storage.get_game("ABC2345")
                assert stored is not None and stored.version == 21
                assert [e.seq for e in await storage.get_events("ABC2345")] == list(range(1, 22))
                assert len(await storage.get_actions("ABC2345")) == 20
        finally:
            await first.close()
            await second.close()

    asyncio.run(work())
