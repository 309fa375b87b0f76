"""Sign-in's part of the PostgreSQL storage (SigninStorage): its tables and their migration.

PostgresStorage takes these methods in (the single statements from signin_statements.py).
Reads that decide a write (a code redeemed, a refresh token spent) lock their row first, so
two instances cannot both use one secret.
"""

from __future__ import annotations

from somnium_server.storage import AuthRequest, CodeGrant, PendingLogin, Refresh, RefreshToken
from somnium_server.storage.postgres_pool import PooledDatabase
from somnium_server.storage.signin_statements import REQUEST_COLUMNS, SigninStatements

# Part of schema version 1 (postgres_schema.MIGRATIONS).
MIGRATION = """
    CREATE TABLE signin_requests (
        id TEXT PRIMARY KEY,
        browser_hash TEXT NOT NULL,
        client_id TEXT NOT NULL,
        redirect_uri TEXT NOT NULL,
        app_state TEXT NOT NULL,
        code_challenge TEXT NOT NULL,
        expires_at DOUBLE PRECISION NOT NULL,
        provider TEXT,
        provider_state_hash TEXT UNIQUE,
        nonce TEXT,
        code_verifier TEXT
    );
    CREATE TABLE signin_codes (
        code_hash TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        client_id TEXT NOT NULL,
        redirect_uri TEXT NOT NULL,
        code_challenge TEXT NOT NULL,
        expires_at DOUBLE PRECISION NOT NULL,
        family_id TEXT
    );
    CREATE TABLE signin_families (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        client_id TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        revoked_at DOUBLE PRECISION
    );
    CREATE TABLE signin_refresh_tokens (
        token_hash TEXT PRIMARY KEY,
        family_id TEXT NOT NULL REFERENCES signin_families(id),
        expires_at DOUBLE PRECISION NOT NULL,
        used_at DOUBLE PRECISION
    );
    CREATE INDEX signin_refresh_by_family ON signin_refresh_tokens(family_id);
    CREATE TABLE signin_family_sessions (
        family_id TEXT NOT NULL REFERENCES signin_families(id),
        session_hash TEXT NOT NULL,
        PRIMARY KEY (family_id, session_hash)
    );
    CREATE INDEX signin_sessions_by_hash ON signin_family_sessions(session_hash);
"""


class PostgresSignin(PooledDatabase, SigninStatements):
    """SigninStorage over the pooled connections of PostgresStorage (its subclass)."""

    # -- browser sign-ins under way ---------------------------------------------------------
    async def take_login(self, state_hash: str) -> PendingLogin | None:
        row = await self._one(
            f"DELETE FROM signin_requests WHERE provider_state_hash = ?"
            f" RETURNING {REQUEST_COLUMNS}, provider, nonce, code_verifier",
            state_hash,
        )
        if row is None:
            return None
        return PendingLogin(AuthRequest(*row[:7]), provider=row[7], nonce=row[8],
                            code_verifier=row[9])

    # -- one-time codes ---------------------------------------------------------------------
    async def redeem_code(
        self, code_hash: str, family_id: str, now: float
    ) -> tuple[CodeGrant | None, str | None]:
        async with self._transaction() as conn:
            cursor = await conn.execute(
                "SELECT user_id, client_id, redirect_uri, code_challenge, expires_at,"
                " family_id FROM signin_codes WHERE code_hash = %s FOR UPDATE",
                (code_hash,),
            )
            row = await cursor.fetchone()
            if row is None:
                return None, None
            if row[5] is not None:
                return None, str(row[5])
            await conn.execute("UPDATE signin_codes SET family_id = %s WHERE code_hash = %s",
                               (family_id, code_hash))
            await conn.execute(
                "INSERT INTO signin_families (id, user_id, client_id, created_at)"
                " VALUES (%s, %s, %s, %s)", (family_id, row[0], row[1], now),
            )
            return CodeGrant(*row[:5]), None

    # -- refresh-token families -------------------------------------------------------------
    async def spend_refresh_token(self, token_hash: str, now: float) -> RefreshToken | None:
        async with self._transaction() as conn:
            cursor = await conn.execute(
                "SELECT r.family_id, r.expires_at, r.used_at, f.user_id, f.client_id,"
                " f.revoked_at FROM signin_refresh_tokens r"
                " JOIN signin_families f ON f.id = r.family_id WHERE r.token_hash = %s"
                " FOR UPDATE OF r",
                (token_hash,),
            )
            row = await cursor.fetchone()
            if row is None:
                return None
            token = RefreshToken(*row)
            if Refresh.of(token, now) is Refresh.OK:
                await conn.execute(
                    "UPDATE signin_refresh_tokens SET used_at = %s WHERE token_hash = %s",
                    (now, token_hash),
                )
            return token

    async def revoke_family(self, family_id: str, now: float) -> list[str]:
        async with self._transaction() as conn:
            await conn.execute(
                "UPDATE signin_families SET revoked_at = %s WHERE id = %s AND revoked_at IS NULL",
                (now, family_id),
            )
            cursor = await conn.execute(
                "SELECT session_hash FROM signin_family_sessions WHERE family_id = %s",
                (family_id,),
            )
            return [str(r[0]) for r in await cursor.fetchall()]

    async def purge_signin(self, now: float) -> None:
        async with self._transaction() as conn:
            await conn.execute("DELETE FROM signin_requests WHERE expires_at <= %s", (now,))
            await conn.execute("DELETE FROM signin_codes WHERE expires_at <= %s", (now - 3600,))
            await conn.execute("DELETE FROM signin_refresh_tokens WHERE expires_at <= %s",
                               (now - 86400,))
            await conn.execute(
                "DELETE FROM signin_family_sessions s WHERE NOT EXISTS"
                " (SELECT 1 FROM sessions WHERE token_hash = s.session_hash)"
            )
            await conn.execute(
                "DELETE FROM signin_families f WHERE created_at <= %s"
                " AND NOT EXISTS (SELECT 1 FROM signin_refresh_tokens r WHERE r.family_id = f.id)"
                " AND NOT EXISTS (SELECT 1 FROM signin_family_sessions s WHERE s.family_id = f.id)",
                (now - 86400,),
            )
