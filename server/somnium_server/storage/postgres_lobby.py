"""The lobby's events in PostgreSQL, numbered by the database for every instance."""

from __future__ import annotations

from somnium_server.storage.postgres_pool import PooledDatabase
from somnium_server.storage.postgres_schema import CHANNEL, LOBBY_NOTICE, MIGRATION_LOCK

LOBBY_LOCK = MIGRATION_LOCK + 1  # held while lobby events are numbered and committed
LOBBY_KEPT = 10_000  # lobby events kept for resuming; older ones are deleted as new ones come


class PostgresLobby(PooledDatabase):
    """The lobby's log (PostgresStorage's part; see play/lobby.py)."""

    instance: str  # the instance's name in its notices (PostgresStorage sets it)

    async def lobby_epoch(self) -> str:
        row = await self._one("SELECT epoch FROM lobby")
        return str(row[0]) if row else ""

    async def add_lobby_events(self, events: list[bytes], key: str) -> None:
        """Numbered under a lock held to the commit: ids become visible in their order, so
        a reader reading after its newest id never skips one. A batch is stored once: a
        retry whose first try did commit finds its key and adds nothing (its notice then
        makes the readers find nothing new).

        The statements go in one pipeline (one wait for the database, not one each); the
        server still runs them in order, each reading the table as it is once the ones
        before it are done, so the numbering sees every id committed before the lock."""
        async with self._transaction() as conn, conn.pipeline():
            await conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOBBY_LOCK,))
            await conn.execute(
                "INSERT INTO lobby_events (id, data, batch) SELECT"
                " coalesce((SELECT max(id) FROM lobby_events), 0) + n, e, %s"
                " FROM unnest(%b::text[]) WITH ORDINALITY AS t(e, n)"
                " WHERE NOT EXISTS (SELECT 1 FROM lobby_events WHERE batch = %s)",
                (key, [event.decode() for event in events], key),
            )
            await conn.execute(
                "DELETE FROM lobby_events WHERE id <= (SELECT max(id) FROM lobby_events) - %s",
                (LOBBY_KEPT,),
            )
            await conn.execute(
                "SELECT pg_notify(%s, %s)", (CHANNEL, f"{self.instance} {LOBBY_NOTICE} 0")
            )

    async def lobby_events_after(self, after: int) -> list[tuple[int, bytes]]:
        rows = await self._all(
            "SELECT id, data FROM lobby_events WHERE id > ? ORDER BY id", after
        )
        return [(seq, data.encode()) for seq, data in rows]

    async def lobby_recent(self, count: int) -> list[tuple[int, bytes]]:
        rows = await self._all(
            "SELECT id, data FROM (SELECT id, data FROM lobby_events ORDER BY id DESC LIMIT ?)"
            " AS recent ORDER BY id", count,
        )
        return [(seq, data.encode()) for seq, data in rows]
