"""Sign-in's records behind the storage interface: migrated, hashed, swept once run out."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

from somnium_server.signin.sessions import hash_token, issue_session, user_for_token
from somnium_server.signin.store import SigninStore, digest
from somnium_server.storage import AuthRequest, CodeGrant, Refresh, sqlite_signin
from somnium_server.storage.sqlite import SQLiteStorage
from somnium_server.storage.sqlite_file import MIGRATIONS

from ..conftest import Database
from .helpers import LiveServer, make_user, open_test_storage, query, server_settings, stored_text

# What sign-in made in the server's file before its tables joined the storage's migrations:
# the same tables, created by itself, with their own version table.
OLD_SIGNIN_TABLES = sqlite_signin.MIGRATION.replace(" IF NOT EXISTS", "").replace(
    "DROP TABLE signin_schema;", "CREATE TABLE signin_schema (version INTEGER NOT NULL);"
    " INSERT INTO signin_schema VALUES (1);"
)


def _request(request_id: str, expires_in: float = 60.0) -> AuthRequest:
    return AuthRequest(
        id=request_id, browser_hash=digest("browser"), client_id="somnium-desktop",
        redirect_uri="http://127.0.0.1:5000/callback", app_state="s", code_challenge="c" * 43,
        expires_at=time.time() + expires_in,
    )


def _grant(user_id: str) -> CodeGrant:
    return CodeGrant(user_id=user_id, client_id="somnium-desktop",
                     redirect_uri="http://127.0.0.1:5000/callback", code_challenge="c" * 43,
                     expires_at=time.time() + 60)


def test_a_file_from_before_keeps_its_sign_ins(tmp_path: Path) -> None:
    """Schema 1 plus sign-in's own tables (as the server made them then) migrate to the
    storage's schema, and a refresh token issued then still works once."""
    database = tmp_path / "db.sqlite3"
    conn = sqlite3.connect(database)
    for statement in (MIGRATIONS[0] + OLD_SIGNIN_TABLES).split(";"):
        if statement.strip():
            conn.execute(statement)
    conn.execute("PRAGMA user_version=1")
    conn.execute("INSERT INTO users VALUES ('u1', 'Ann', 0)")
    conn.execute("INSERT INTO signin_families VALUES ('fam', 'u1', 'somnium-desktop', 0, NULL)")
    conn.execute("INSERT INTO signin_refresh_tokens VALUES (?, 'fam', ?, NULL)",
                 (digest("old-refresh"), time.time() + 3600))
    conn.commit()
    conn.close()

    async def work() -> None:
        storage = SQLiteStorage(database)
        store = SigninStore(storage)
        try:
            first = await store.use_refresh_token("old-refresh")
            assert (first.outcome, first.family_id, first.user_id) == (Refresh.OK, "fam", "u1")
            assert (await store.use_refresh_token("old-refresh")).outcome is Refresh.REUSED
        finally:
            await storage.close()

    asyncio.run(work())
    conn = sqlite3.connect(database)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "signin_schema" not in tables and "signin_families" in tables
    conn.close()


def test_sign_in_secrets_reach_the_storage_only_hashed_and_work_once(database: Database) -> None:
    async def work() -> None:
        storage = open_test_storage(database)
        store = SigninStore(storage)
        try:
            user = await storage.create_user("Ann")
            await store.add_request(_request("req"))
            assert await store.send_to_provider("req", "test", "our-state", "nonce", "verifier")
            pending = await store.take_login("our-state")
            assert pending is not None and pending.request.id == "req"
            assert (pending.nonce, pending.code_verifier) == ("nonce", "verifier")
            assert await store.take_login("our-state") is None  # single use
            assert await store.get_request("req") is None
            await store.add_request(_request("waiting"))
            assert await store.send_to_provider("waiting", "test", "state-2", "n", "v")

            await store.add_request(_request("gone", expires_in=-1))
            assert await store.get_request("gone") is None  # expired
            assert not await store.send_to_provider("gone", "test", "s2", "n", "v")

            await store.add_code("the-code", _grant(user.id))
            grant, before = await store.take_code("the-code", "fam")
            assert grant is not None and grant.user_id == user.id and before is None
            assert await store.take_code("the-code", "other") == (None, "fam")
            assert await store.take_code("no-such-code", "fam") == (None, None)

            assert not await store.family_revoked("fam")  # (made as the code was redeemed)
            await store.add_refresh_token("refresh-1", "fam", time.time() + 60)
            await store.add_family_session("fam", "session-hash")
            assert await store.family_of_refresh_token("refresh-1") == "fam"
            assert await store.family_of_session("session-hash") == "fam"
            assert await store.revoke_family("fam") == ["session-hash"]
            assert await store.family_revoked("fam") and await store.family_revoked("stranger")
            assert (await store.use_refresh_token("refresh-1")).outcome is Refresh.REVOKED
            assert (await store.use_refresh_token("stranger")).outcome is Refresh.UNKNOWN
        finally:
            await storage.close()

    asyncio.run(work())
    dump = stored_text(database)
    for secret in ("state-2", "the-code", "refresh-1"):
        assert secret not in dump and digest(secret) in dump


def test_what_has_run_out_is_swept_and_the_rest_kept(database: Database) -> None:
    now = time.time()
    day = 86400.0

    async def work() -> None:
        storage = open_test_storage(database)
        store = SigninStore(storage)
        try:
            user = await storage.create_user("Ann")
            live = await issue_session(storage, user.id, 3600)
            await issue_session(storage, user.id, -1)  # already expired
            for family in ("old", "new"):
                await store.add_family(family, user.id, "somnium-desktop")
            await store.add_family_session("old", "hash of a session long gone")
            await store.add_family_session("new", hash_token(live))
            await store.add_refresh_token("long-expired", "old", now - 2 * day)
            await store.add_refresh_token("current", "new", now + 30 * day)
            await store.add_request(_request("stale", expires_in=-1))
            await store.add_request(_request("open"))
            assert await storage.purge_sessions(now) == 1
            await storage.purge_signin(now)
            assert (await user_for_token(storage, live)) is not None
            assert await store.family_of_session(hash_token(live)) == "new"
            assert await store.family_of_session("hash of a session long gone") is None
            assert (await store.use_refresh_token("long-expired")).outcome is Refresh.UNKNOWN
            assert await store.get_request("open") is not None
            # "old" has nothing left but is kept a day: a family just made has its tokens on
            # their way. Two days on, it goes; "new" stays for its refresh token.
            assert await store.revoke_family("old") == []
            later = now + 2 * day
            assert await storage.purge_sessions(later) == 1
            await storage.purge_signin(later)
            assert await store.family_of_session(hash_token(live)) is None
            assert (await store.use_refresh_token("current")).outcome is Refresh.OK
        finally:
            await storage.close()

    asyncio.run(work())
    counts = {table: query(database, f"SELECT count(*) FROM {table}")[0][0]
              for table in ("sessions", "signin_requests", "signin_families",
                            "signin_refresh_tokens", "signin_family_sessions")}
    assert counts == {"sessions": 0, "signin_requests": 0, "signin_families": 1,
                      "signin_refresh_tokens": 1, "signin_family_sessions": 0}


def test_the_server_sweeps_expired_sessions_when_it_starts(database: Database) -> None:
    make_user(database, "Gone", lifetime=-1)
    _, token = make_user(database, "Here")
    server = LiveServer(server_settings(database))
    try:
        assert server.get("/me", headers={"Authorization": f"Bearer {token}"}).ok
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            left = query(database, "SELECT count(*) FROM sessions")[0][0]
            if left == 1:
                break
            time.sleep(0.05)
        assert left == 1
    finally:
        server.stop()
