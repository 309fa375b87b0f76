"""Rate-limit buckets in PostgreSQL, shared by every instance: the requests of one kind that
reach an instance in the same event-loop round are spent together, in one statement."""

from __future__ import annotations

import asyncio
import itertools
import logging

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

# ratelimit.gcra as one statement, on the database's clock (instances' clocks may differ), for
# several keys of one kind: the first request of a key inserts its row, later ones move it on
# only when allowed. `wait` records this request's answer, which RETURNING reads. A statement
# may change a row only once, so each key appears in it once; rows are taken in key order, so
# that two statements sharing keys (two rounds, two instances) never wait for each other.
_NOW = "extract(epoch FROM statement_timestamp())::double precision"
_AFTER = f"GREATEST(r.full_at, {_NOW}) + %(interval)s"
_ALLOWED = f"{_AFTER} - {_NOW} <= %(seconds)s * (1 + 1e-9)"
SPEND = f"""
    INSERT INTO rate_limits AS r (kind, key, full_at, wait)
    SELECT %(kind)s, asked.key, {_NOW} + %(interval)s, 0
    FROM unnest(%(keys)b::text[]) AS asked(key) ORDER BY asked.key
    ON CONFLICT (kind, key) DO UPDATE SET
        full_at = CASE WHEN {_ALLOWED} THEN {_AFTER} ELSE r.full_at END,
        wait = CASE WHEN {_ALLOWED} THEN 0 ELSE {_AFTER} - %(seconds)s - {_NOW} END
    RETURNING key, wait
""".encode()
FORGET = f"DELETE FROM rate_limits WHERE full_at < {_NOW}"
log = logging.getLogger("somnium_server.storage")
FORGET_EVERY = 10_000  # statements of one instance between two sweeps of the full buckets

Asked = dict[str, "asyncio.Future[float]"]  # key -> the request waiting for its answer


class PostgresLimits(PooledDatabase):
    """The Buckets of api/ratelimit.py, for PostgresStorage.

    A spend waits for the end of the event-loop round it was asked in; the round's requests
    of each kind then go in one statement (a key asked twice in a round waits for the next).
    Under load many requests arrive in a round, and each round trip costs the server more
    CPU than the statement costs the database.
    """

    _spent = itertools.count(1)

    def __init__(self, url: str, pool_size: int) -> None:
        super().__init__(url, pool_size)
        self._asking: dict[tuple[str, RateLimit], Asked] = {}
        self._again: list[tuple[str, str, RateLimit, asyncio.Future[float]]] = []
        self._round_ends = False  # the end of this round is already called for
        self._spending: set[asyncio.Task[None]] = set()

    async def spend(self, kind: str, key: str, limit: RateLimit) -> float:
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self._ask(kind, key, limit, future)
        return await future

    def _ask(self, kind: str, key: str, limit: RateLimit, future: asyncio.Future[float]) -> None:
        asked = self._asking.setdefault((kind, limit), {})
        if key in asked:
            self._again.append((kind, key, limit, future))
        else:
            asked[key] = future
        if not self._round_ends:
            self._round_ends = True
            asyncio.get_running_loop().call_soon(self._end_round)

    def _end_round(self) -> None:
        self._round_ends = False
        asking, self._asking = self._asking, {}
        again, self._again = self._again, []
        for (kind, limit), asked in asking.items():
            task = asyncio.create_task(self._spend_all(kind, limit, asked))
            self._spending.add(task)
            task.add_done_callback(self._spending.discard)
        for kind, key, limit, future in again:
            self._ask(kind, key, limit, future)

    async def _spend_all(self, kind: str, limit: RateLimit, asked: Asked) -> None:
        waits: dict[str, float] | None = None
        try:
            pool = await self._opened()
            async with pool.connection() as conn:
                cursor = await conn.execute(SPEND, {
                    "kind": kind, "keys": sorted(asked),
                    "interval": limit.seconds / limit.count, "seconds": limit.seconds,
                })
                waits = {str(key): float(wait) for key, wait in await cursor.fetchall()}
        except Exception as error:
            for future in asked.values():
                if not future.done():
                    future.set_exception(error)
        finally:
            for key, future in asked.items():
                if future.done():  # failed above, or the request was given up meanwhile
                    continue
                if waits is None:  # this task was cancelled: the server stops
                    future.cancel()
                elif key in waits:
                    future.set_result(waits[key])
                else:
                    future.set_exception(RuntimeError(f"no rate-limit row for {kind} {key}"))
        if next(self._spent) % FORGET_EVERY == 0:
            await self._forget_full()

    async def _forget_full(self) -> None:
        """Delete the full buckets (they hold no information), once the requests are answered."""
        try:
            await self._run(FORGET)
        except Exception as error:  # busy, or in a deadlock with a spend: next time
            log.warning("sweeping full rate-limit buckets failed: %s", error)
