"""Rate-limit buckets in PostgreSQL: one upsert per request, shared by every instance."""

from __future__ import annotations

import itertools

from somnium_server.config import RateLimit
from somnium_server.storage.postgres_pool import PooledDatabase

# Schema version 2 (postgres_schema.MIGRATIONS). UNLOGGED: counts need no crash safety (a
# crash forgets them, as a restart forgets memory's) and skip the write-ahead log.
MIGRATION = """
    CREATE UNLOGGED TABLE rate_limits (
        kind TEXT NOT NULL,
        key TEXT NOT NULL,
        full_at DOUBLE PRECISION NOT NULL,
        wait DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (kind, key)
    );
    CREATE INDEX rate_limits_by_full_at ON rate_limits(full_at);
"""

# ratelimit.gcra as one statement, on the database's clock (instances' clocks may differ):
# the first request of a key inserts its row, later ones move it on only when allowed.
# `wait` records this request's answer, which RETURNING reads.
_NOW = "extract(epoch FROM statement_timestamp())::double precision"
_AFTER = f"GREATEST(r.full_at, {_NOW}) + %(interval)s"
_ALLOWED = f"{_AFTER} - {_NOW} <= %(seconds)s * (1 + 1e-9)"
SPEND = f"""
    INSERT INTO rate_limits AS r (kind, key, full_at, wait)
    VALUES (%(kind)s, %(key)s, {_NOW} + %(interval)s, 0)
    ON CONFLICT (kind, key) DO UPDATE SET
        full_at = CASE WHEN {_ALLOWED} THEN {_AFTER} ELSE r.full_at END,
        wait = CASE WHEN {_ALLOWED} THEN 0 ELSE {_AFTER} - %(seconds)s - {_NOW} END
    RETURNING wait
""".encode()
FORGET = f"DELETE FROM rate_limits WHERE full_at < {_NOW}".encode()
FORGET_EVERY = 10_000  # requests of one instance between two sweeps of the full buckets


class PostgresLimits(PooledDatabase):
    """The Buckets of api/ratelimit.py, for PostgresStorage."""

    _spent = itertools.count(1)

    async def spend(self, kind: str, key: str, limit: RateLimit) -> float:
        pool = await self._opened()
        async with pool.connection() as conn:
            cursor = await conn.execute(SPEND, {
                "kind": kind, "key": key,
                "interval": limit.seconds / limit.count, "seconds": limit.seconds,
            })
            row = await cursor.fetchone()
            if next(self._spent) % FORGET_EVERY == 0:
                await conn.execute(FORGET)  # full buckets hold no information
        return float(row[0]) if row else 0.0
