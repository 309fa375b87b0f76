"""Sign-in's one-statement reads and writes, in SQL that SQLite and PostgreSQL both take.

SQLiteSignin and PostgresSignin inherit these and add what needs a transaction of several
statements; each backend supplies `_run` and `_one` (statements written with ? marks).
"""

from __future__ import annotations

from typing import Any

from somnium_server.storage import AuthRequest, CodeGrant

REQUEST_COLUMNS = (
    "id, browser_hash, client_id, redirect_uri, app_state, code_challenge, expires_at"
)


class SigninStatements:
    """The part of SigninStorage made of single statements."""

    async def _run(self, sql: str, *args: Any) -> int:
        """One write statement in its own transaction, committed; its row count."""
        raise NotImplementedError

    async def _one(self, sql: str, *args: Any) -> tuple[Any, ...] | None:
        """The first row of one read, if any."""
        raise NotImplementedError

    # -- browser sign-ins under way ---------------------------------------------------------
    async def add_signin_request(self, request: AuthRequest) -> None:
        await self._run(
            f"INSERT INTO signin_requests ({REQUEST_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
            request.id, request.browser_hash, request.client_id, request.redirect_uri,
            request.app_state, request.code_challenge, request.expires_at,
        )

    async def get_signin_request(self, request_id: str, now: float) -> AuthRequest | None:
        row = await self._one(
            f"SELECT {REQUEST_COLUMNS} FROM signin_requests WHERE id = ? AND expires_at > ?",
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
            "INSERT INTO signin_family_sessions (family_id, session_hash) VALUES (?, ?)"
            " ON CONFLICT DO NOTHING",
            family_id, session_hash,
        )

    async def family_of_session(self, session_hash: str) -> str | None:
        row = await self._one(
            "SELECT family_id FROM signin_family_sessions WHERE session_hash = ?", session_hash
        )
        return str(row[0]) if row else None

    async def family_revoked(self, family_id: str) -> bool:
        row = await self._one(
            "SELECT revoked_at FROM signin_families WHERE id = ?", family_id
        )
        return row is None or row[0] is not None

    async def family_of_refresh_token(self, token_hash: str) -> str | None:
        row = await self._one(
            "SELECT family_id FROM signin_refresh_tokens WHERE token_hash = ?", token_hash
        )
        return str(row[0]) if row else None
