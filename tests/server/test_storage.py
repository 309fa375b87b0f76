"""The SQLite storage: migrations, WAL, version-checked writes, sessions kept only as hashes."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from dataclasses import replace
from pathlib import Path

import pytest

from somnium_server.sessions import hash_token, issue_session, revoke_session, user_for_token
from somnium_server.sqlite_storage import MIGRATIONS, SQLiteStorage
from somnium_server.storage import (
    GameRecord,
    GameUpdate,
    Identity,
    StoredAction,
    StoredEvent,
    VersionConflict,
)


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


def test_updates_are_version_checked_and_atomic(tmp_path: Path) -> None:
    async def work() -> None:
        storage = SQLiteStorage(tmp_path / "db.sqlite3")
        await storage.create_game(_record(), [StoredEvent(1, {"a": 1})])
        action = StoredAction("a1", "u", 0, 2, {"type": "draw"}, b"{}")
        await storage.update_game(GameUpdate(_record(2, 2), 1, [StoredEvent(2, {"b": 2})], action))
        stale = GameUpdate(_record(3, 3), 1, [StoredEvent(3, {"c": 3})])
        with pytest.raises(VersionConflict):
            await storage.update_game(stale)
        # concurrent writes in one tick: each stands or falls alone
        results = await asyncio.gather(
            storage.update_game(GameUpdate(_record(3, 3), 2, [StoredEvent(3, {"c": 3})])),
            storage.update_game(GameUpdate(_record(3, 4), 2, [StoredEvent(4, {"d": 4})])),
            return_exceptions=True,
        )
        assert results[0] is None and isinstance(results[1], VersionConflict)
        stored = await storage.get_game("ABC2345")
        assert stored is not None and stored.version == 3
        assert [e.seq for e in await storage.get_events("ABC2345")] == [1, 2, 3]
        assert [e.seq for e in await storage.get_events("ABC2345", after=2)] == [3]
        assert [a.action_id for a in await storage.get_actions("ABC2345")] == ["a1"]
        await storage.close()

    asyncio.run(work())


def test_sessions_are_stored_only_as_hashes_and_expire(tmp_path: Path) -> None:
    database = tmp_path / "db.sqlite3"

    async def work() -> tuple[str, str]:
        storage = SQLiteStorage(database)
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
    raw = b"".join(path.read_bytes() for path in tmp_path.iterdir())
    assert token.encode() not in raw and short.encode() not in raw
    assert hash_token(token).encode() in raw


def test_an_update_between_snapshots_keeps_the_stored_state(tmp_path: Path) -> None:
    async def work() -> None:
        storage = SQLiteStorage(tmp_path / "db.sqlite3")
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
