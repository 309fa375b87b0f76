"""Sign-in's part of the SQLite storage (SigninStorage): its tables and their migration.

SQLiteStorage takes these methods in (the single statements from signin_statements.py); they
share its connection and its group commit, so a sign-in write is as durable as a game's.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

from somnium_server.storage import AuthRequest, CodeGrant, PendingLogin, Refresh, RefreshToken
from somnium_server.storage.signin_statements import REQUEST_COLUMNS, SigninStatements

T = TypeVar("T")

# Schema version 2. Until it, sign-in kept these same tables in the same file itself, with
# its own version table: a file from then already has them (and their rows), hence IF NOT EXISTS.
MIGRATION = """
    CREATE TABLE IF NOT EXISTS signin_requests (
        id TEXT PRIMARY KEY,
        browser_hash TEXT NOT NULL,
        client_id TEXT NOT NULL,
        redirect_uri TEXT NOT NULL,
        app_state TEXT NOT NULL,
        code_challenge TEXT NOT NULL,
        expires_at REAL NOT NULL,
        provider TEXT,
        provider_state_hash TEXT UNIQUE,
        nonce TEXT,
        code_verifier TEXT
    );
    CREATE TABLE IF NOT EXISTS signin_codes (
        code_hash TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        client_id TEXT NOT NULL,
        redirect_uri TEXT NOT NULL,
        code_challenge TEXT NOT NULL,
        expires_at REAL NOT NULL,
        family_id TEXT
    );
    CREATE TABLE IF NOT EXISTS signin_families (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        client_id TEXT NOT NULL,
        created_at REAL NOT NULL,
        revoked_at REAL
    );
    CREATE TABLE IF NOT EXISTS signin_refresh_tokens (
        token_hash TEXT PRIMARY KEY,
        family_id TEXT NOT NULL REFERENCES signin_families(id),
        expires_at REAL NOT NULL,
        used_at REAL
    );
    CREATE INDEX IF NOT EXISTS signin_refresh_by_family ON signin_refresh_tokens(family_id);
    CREATE TABLE IF NOT EXISTS signin_family_sessions (
        family_id TEXT NOT NULL REFERENCES signin_families(id),
        session_hash TEXT NOT NULL,
        PRIMARY KEY (family_id, session_hash)
    );
    CREATE INDEX IF NOT EXISTS signin_sessions_by_hash ON signin_family_sessions(session_hash);
    DROP TABLE IF EXISTS signin_schema;
"""


class SQLiteSignin(SigninStatements):
    """SigninStorage over the connection and group commit of SQLiteStorage (its subclass)."""

    _conn: sqlite3.Connection

    async def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        raise NotImplementedError  # SQLiteStorage's group commit

    async def _run(self, sql: str, *args: Any) -> int:
        """One write statement in its own (group-committed) transaction; its row count."""
        return await self._write(lambda c: c.execute(sql, args).rowcount)

    async def _one(self, sql: str, *args: Any) -> tuple[Any, ...] | None:
        row: tuple[Any, ...] | None = self._conn.execute(sql, args).fetchone()
        return row

    # -- browser sign-ins under way ---------------------------------------------------------
    async def take_login(self, state_hash: str) -> PendingLogin | None:
        def work(c: sqlite3.Connection) -> PendingLogin | None:
            row = c.execute(
                f"SELECT {REQUEST_COLUMNS}, provider, nonce, code_verifier"
                " FROM signin_requests WHERE provider_state_hash = ?",
                (state_hash,),
            ).fetchone()
            if row is None:
                return None
            c.execute("DELETE FROM signin_requests WHERE id = ?", (row[0],))
            return PendingLogin(AuthRequest(*row[:7]), provider=row[7], nonce=row[8],
                                code_verifier=row[9])

        return await self._write(work)

    # -- one-time codes ---------------------------------------------------------------------
    async def redeem_code(
        self, code_hash: str, family_id: str, now: float
    ) -> tuple[CodeGrant | None, str | None]:
        def work(c: sqlite3.Connection) -> tuple[CodeGrant | None, str | None]:
            row = c.execute(
                "SELECT user_id, client_id, redirect_uri, code_challenge, expires_at,"
                " family_id FROM signin_codes WHERE code_hash = ?",
                (code_hash,),
            ).fetchone()
            if row is None:
                return None, None
            if row[5] is not None:
                return None, str(row[5])
            c.execute("UPDATE signin_codes SET family_id = ? WHERE code_hash = ?",
                      (family_id, code_hash))
            c.execute("INSERT INTO signin_families (id, user_id, client_id, created_at)"
                      " VALUES (?, ?, ?, ?)", (family_id, row[0], row[1], now))
            return CodeGrant(*row[:5]), None

        return await self._write(work)

    # -- refresh-token families -------------------------------------------------------------
    async def spend_refresh_token(self, token_hash: str, now: float) -> RefreshToken | None:
        def work(c: sqlite3.Connection) -> RefreshToken | None:
            row = c.execute(
                "SELECT r.family_id, r.expires_at, r.used_at, f.user_id, f.client_id,"
                " f.revoked_at FROM signin_refresh_tokens r"
                " JOIN signin_families f ON f.id = r.family_id WHERE r.token_hash = ?",
                (token_hash,),
            ).fetchone()
            if row is None:
                return None
            token = RefreshToken(*row)
            if Refresh.of(token, now) is Refresh.OK:
                c.execute("UPDATE signin_refresh_tokens SET used_at = ? WHERE token_hash = ?",
                          (now, token_hash))
            return token

        return await self._write(work)

    async def revoke_family(self, family_id: str, now: float) -> list[str]:
        def work(c: sqlite3.Connection) -> list[str]:
            c.execute(
                "UPDATE signin_families SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                (now, family_id),
            )
            rows = c.execute(
                "SELECT session_hash FROM signin_family_sessions WHERE family_id = ?",
                (family_id,),
            ).fetchall()
            return [str(r[0]) for r in rows]

        return await self._write(work)

    async def purge_signin(self, now: float) -> None:
        def work(c: sqlite3.Connection) -> None:
            c.execute("DELETE FROM signin_requests WHERE expires_at <= ?", (now,))
            c.execute("DELETE FROM signin_codes WHERE expires_at <= ?", (now - 3600,))
            c.execute("DELETE FROM signin_refresh_tokens WHERE expires_at <= ?", (now - 86400,))
            c.execute(
                "DELETE FROM signin_family_sessions"
                " WHERE session_hash NOT IN (SELECT token_hash FROM sessions)"
            )
            c.execute(
                "DELETE FROM signin_families WHERE created_at <= ?"
                " AND id NOT IN (SELECT family_id FROM signin_refresh_tokens)"
                " AND id NOT IN (SELECT family_id FROM signin_family_sessions)",
                (now - 86400,),
            )

        await self._write(work)
