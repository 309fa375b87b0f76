"""Sign-in's part of the SQLite storage (SigninStorage): its tables and their migration.

SQLiteStorage takes these methods in; they share its connection and its group commit, so a
sign-in write is as durable as a game's.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

from .storage import AuthRequest, CodeGrant, PendingLogin, RefreshToken

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

_REQUEST_COLUMNS = (
    "id, browser_hash, client_id, redirect_uri, app_state, code_challenge, expires_at"
)


class SQLiteSignin:
    """SigninStorage over the connection and group commit of SQLiteStorage (its subclass)."""

    _conn: sqlite3.Connection

    async def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        raise NotImplementedError  # SQLiteStorage's group commit

    async def _run(self, sql: str, *args: Any) -> int:
        """One write statement in its own (group-committed) transaction; its row count."""
        return await self._write(lambda c: c.execute(sql, args).rowcount)

    def _one(self, sql: str, *args: Any) -> tuple[Any, ...] | None:
        row: tuple[Any, ...] | None = self._conn.execute(sql, args).fetchone()
        return row

    # -- browser sign-ins under way ---------------------------------------------------------
    async def add_signin_request(self, request: AuthRequest) -> None:
        await self._run(
            f"INSERT INTO signin_requests ({_REQUEST_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
            request.id, request.browser_hash, request.client_id, request.redirect_uri,
            request.app_state, request.code_challenge, request.expires_at,
        )

    async def get_signin_request(self, request_id: str, now: float) -> AuthRequest | None:
        row = self._one(
            f"SELECT {_REQUEST_COLUMNS} FROM signin_requests WHERE id = ? AND expires_at > ?",
            request_id, now,
        )
        return AuthRequest(*row) if row else None

    async def send_to_provider(
        self, request_id: str, provider: str, state_hash: str, nonce: str, code_verifier: str,
        now: float,
    ) -> bool:
        count = await self._run(
            "UPDATE signin_requests SET provider = ?, provider_state_hash = ?, nonce = ?,"
            " code_verifier = ? WHERE id = ? AND expires_at > ?",
            provider, state_hash, nonce, code_verifier, request_id, now,
        )
        return count == 1

    async def take_login(self, state_hash: str) -> PendingLogin | None:
        def work(c: sqlite3.Connection) -> PendingLogin | None:
            row = c.execute(
                f"SELECT {_REQUEST_COLUMNS}, provider, nonce, code_verifier"
                " FROM signin_requests WHERE provider_state_hash = ?",
                (state_hash,),
            ).fetchone()
            if row is None:
                return None
            c.execute("DELETE FROM signin_requests WHERE id = ?", (row[0],))
            return PendingLogin(AuthRequest(*row[:7]), provider=row[7], nonce=row[8],
                                code_verifier=row[9])

        return await self._write(work)

    async def drop_signin_request(self, request_id: str) -> None:
        await self._run("DELETE FROM signin_requests WHERE id = ?", request_id)

    # -- one-time codes ---------------------------------------------------------------------
    async def add_code(self, code_hash: str, grant: CodeGrant) -> None:
        await self._run(
            "INSERT INTO signin_codes (code_hash, user_id, client_id, redirect_uri,"
            " code_challenge, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
            code_hash, grant.user_id, grant.client_id, grant.redirect_uri,
            grant.code_challenge, grant.expires_at,
        )

    async def redeem_code(
        self, code_hash: str, family_id: str
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
            return CodeGrant(*row[:5]), None

        return await self._write(work)

    # -- refresh-token families -------------------------------------------------------------
    async def add_family(
        self, family_id: str, user_id: str, client_id: str, created_at: float
    ) -> None:
        await self._run(
            "INSERT INTO signin_families (id, user_id, client_id, created_at) VALUES (?, ?, ?, ?)",
            family_id, user_id, client_id, created_at,
        )

    async def add_refresh_token(self, token_hash: str, family_id: str, expires_at: float) -> None:
        await self._run(
            "INSERT INTO signin_refresh_tokens (token_hash, family_id, expires_at)"
            " VALUES (?, ?, ?)",
            token_hash, family_id, expires_at,
        )

    async def add_family_session(self, family_id: str, session_hash: str) -> None:
        await self._run(
            "INSERT OR IGNORE INTO signin_family_sessions (family_id, session_hash)"
            " VALUES (?, ?)",
            family_id, session_hash,
        )

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
            if token.used_at is None and token.family_revoked_at is None and (
                token.expires_at > now
            ):
                c.execute("UPDATE signin_refresh_tokens SET used_at = ? WHERE token_hash = ?",
                          (now, token_hash))
            return token

        return await self._write(work)

    async def family_of_session(self, session_hash: str) -> str | None:
        row = self._one(
            "SELECT family_id FROM signin_family_sessions WHERE session_hash = ?", session_hash
        )
        return str(row[0]) if row else None

    async def family_of_refresh_token(self, token_hash: str) -> str | None:
        row = self._one(
            "SELECT family_id FROM signin_refresh_tokens WHERE token_hash = ?", token_hash
        )
        return str(row[0]) if row else None

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
