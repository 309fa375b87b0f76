"""The connection pool PostgreSQL storage runs its statements through, opened on first use."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

POOL_TIMEOUT = 10.0  # seconds a statement may wait for a free connection


@functools.lru_cache(maxsize=256)
def marked(sql: str) -> bytes:
    """A statement written with ? marks, in psycopg's %s marks (no statement here has a ?
    or a % of its own)."""
    return sql.replace("?", "%s").encode()


class PooledDatabase:
    """Runs statements on pooled connections: each write one committed transaction.

    Connections are in autocommit mode, so a read is one round trip; `_transaction()` wraps
    several statements in BEGIN ... COMMIT (ROLLBACK if the block raises). `_run`, `_one` and
    `_all` take statements written with ? marks, as SQLite's are (signin_statements.py shares
    some); statements run on a connection directly use psycopg's %s.
    """

    def __init__(self, url: str, pool_size: int) -> None:
        self.url = url
        self.pool_size = pool_size
        self._pool: AsyncConnectionPool[psycopg.AsyncConnection[Any]] | None = None
        self._opening = asyncio.Lock()

    async def _opened(self) -> AsyncConnectionPool[psycopg.AsyncConnection[Any]]:
        pool = self._pool
        if pool is not None:
            return pool
        async with self._opening:
            if self._pool is None:
                pool = AsyncConnectionPool(
                    self.url, min_size=1, max_size=self.pool_size, open=False,
                    kwargs={"autocommit": True}, timeout=POOL_TIMEOUT,
                )
                await pool.open(wait=True, timeout=POOL_TIMEOUT)
                self._pool = pool
            return self._pool

    @contextlib.asynccontextmanager
    async def _transaction(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        pool = await self._opened()
        async with pool.connection() as conn, conn.transaction():
            yield conn

    async def _run(self, sql: str, *args: Any) -> int:
        """One write statement, committed; its row count."""
        pool = await self._opened()
        async with pool.connection() as conn:
            cursor = await conn.execute(marked(sql), args)
            return cursor.rowcount

    async def _one(self, sql: str, *args: Any) -> tuple[Any, ...] | None:
        pool = await self._opened()
        async with pool.connection() as conn:
            cursor = await conn.execute(marked(sql), args)
            row: tuple[Any, ...] | None = await cursor.fetchone()
            return row

    async def _all(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        pool = await self._opened()
        async with pool.connection() as conn:
            cursor = await conn.execute(marked(sql), args)
            return list(await cursor.fetchall())

    async def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()
