"""Storage in PostgreSQL (psycopg 3 and its pool), for one or several server instances.

Chosen with `database_url`. The schema is migrated at start-up, under an advisory lock so that
instances starting together migrate once. Every write is one transaction, committed before the
caller resumes; a game's row changes only at the version the change was made against, which
is what keeps one writer per game when several instances share the database.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

import orjson
import psycopg
from psycopg.conninfo import conninfo_to_dict

from somnium_server.live.events import event_number
from somnium_server.live.peers import CHAT, HELLO
from somnium_server.live.peers import KINDS as PEER_KINDS
from somnium_server.play.ratings import RatedGame, Rating
from somnium_server.storage import (
    DatabaseUnavailable,
    GameNotices,
    GameRecord,
    GameUpdate,
    RatingChange,
    StoredAction,
    StoredEvent,
    VersionConflict,
    rating_rows,
)
from somnium_server.storage.carried import carried, read_carried
from somnium_server.storage.game_rows import (
    GAME_COLUMNS,
    OVERDUE,
    dumps,
    game_from_row,
    game_row,
    games_from_rows,
)
from somnium_server.storage.postgres_limits import PostgresLimits
from somnium_server.storage.postgres_lobby import PostgresLobby
from somnium_server.storage.postgres_pool import marked
from somnium_server.storage.postgres_schema import CHANNEL, LOBBY_NOTICE, migrate
from somnium_server.storage.postgres_signin import PostgresSignin
from somnium_server.storage.postgres_table import PostgresTable
from somnium_server.storage.postgres_users import FORGET_KINDS, PostgresUsers

log = logging.getLogger("somnium_server.postgres")

CONNECT_TIMEOUT = 10  # seconds, at start-up and for each new pooled connection
RELISTEN_PAUSE = 1.0  # seconds between attempts to listen again after the connection was lost

RATING_LOCK = 0x52_41_54_45  # pg_advisory_xact_lock(key, user): "RATE", while counting a game

@functools.cache
def _update_statement(snapshot: bool, with_action: bool) -> str:
    """update_game's writes as one statement (one round trip, atomic by itself).

    The game's row moves on only at the expected version; the events and the action are
    inserted for the rows the UPDATE returned, so at a stale version nothing is written and
    the count is 0. Name, creation, initial state and bot seed never change after create_game;
    between snapshots only status, version, seq and deadline do (the action's own row records
    the rest).
    """
    changes = ("status = %(status)s, version = %(version)s, seq = %(seq)s,"
               " deadline = %(deadline)s")
    if snapshot:
        changes += (", seats = %(seats)s, state = %(state)s, meta = %(meta)s,"
                    " state_version = %(version)s")
    parts = [
        f"moved AS (UPDATE games SET {changes}"
        " WHERE id = %(id)s AND version = %(expected)s RETURNING id)",
        "added AS (INSERT INTO events (game_id, seq, data) SELECT moved.id, e.seq, e.data"
        " FROM moved, unnest(%(seqs)b::integer[], %(events)b::text[]) AS e(seq, data))",
    ]
    if with_action:
        parts.append(
            "acted AS (INSERT INTO actions (game_id, action_id, user_id, seat, version, action,"
            " result) SELECT moved.id, %(action_id)s, %(user_id)s, %(seat)s,"
            " %(action_version)s, %(action)s, %(result)s FROM moved)"
        )
    # every instance listening hears of the change once it is committed (ids, and a plain
    # action's change itself: storage/carried.py)
    return (f"WITH {', '.join(parts)} SELECT count(pg_notify({CHANNEL!r},"
            " %(instance)s || ' ' || moved.id || ' ' || %(version)s::text || %(carried)s)::text)"
            " FROM moved")


def describe(url: str) -> str:
    """Where a URL points, without its password: user@host:port/database."""
    parts = conninfo_to_dict(url)
    host = parts.get("host") or "localhost"
    port = parts.get("port") or "5432"
    return f"{parts.get('user') or ''}@{host}:{port}/{parts.get('dbname') or ''}".lstrip("@")


class PostgresStorage(
    PostgresUsers, PostgresSignin, PostgresLimits, PostgresTable, PostgresLobby
):
    """Storage in one PostgreSQL database; any number of instances may share it.

    Constructing it connects once and migrates (DatabaseUnavailable if that fails); the pool
    of connections the server then uses opens on first use, in the event loop.
    """

    shared = True  # any number of instances

    def __init__(self, url: str, pool_size: int = 10) -> None:
        super().__init__(url, pool_size)
        self.instance = uuid.uuid4().hex[:12]  # tells this instance's own notices apart
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT) as conn:
                migrate(conn)
        except (psycopg.Error, RuntimeError) as error:  # unreachable, refused, or too new
            raise DatabaseUnavailable(
                f"cannot use the database {describe(url)}: {error}".strip()
            ) from None

    # -- games --------------------------------------------------------------------------------
    async def create_game(self, record: GameRecord, events: Sequence[StoredEvent]) -> None:
        async with self._transaction() as conn:
            await self._insert_game(conn, record, events)

    async def _insert_game(
        self, conn: psycopg.AsyncConnection[Any], record: GameRecord,
        events: Sequence[StoredEvent],
    ) -> None:
        """A new game's row and first events, told to every instance (in a transaction)."""
        await conn.execute(
            f"INSERT INTO games ({GAME_COLUMNS}) VALUES ({', '.join(['%s'] * 14)})",
            game_row(record),
        )
        await _insert_events(conn, record.id, events)
        await conn.execute(
            "SELECT pg_notify(%s, %s)", (CHANNEL, f"{self.instance} {record.id} 1")
        )

    async def update_game(self, update: GameUpdate) -> None:
        record, action = update.record, update.action
        snapshot = record.snapshot_version == record.version
        values: dict[str, Any] = {
            "id": record.id, "instance": self.instance, "expected": update.expected_version,
            "status": record.status,
            "version": record.version, "seq": record.seq, "deadline": record.deadline,
            "seqs": [event.seq for event in update.events],
            "events": [event.json().decode() for event in update.events],
            "carried": carried(update),
        }
        if snapshot:
            values |= {"seats": dumps(record.seats), "state": dumps(record.state),
                       "meta": dumps(record.meta)}
        if action is not None:
            values |= {"action_id": action.action_id, "user_id": action.user_id,
                       "seat": action.seat, "action_version": action.version,
                       "action": dumps(action.action), "result": action.result}
        statement = _update_statement(snapshot, action is not None)
        if update.rated is not None or update.opened is not None:
            await self._update_with(statement, values, update)
            return
        pool = await self._opened()
        async with pool.connection() as conn:
            cursor = await conn.execute(statement, values)
            row = await cursor.fetchone()
        if row is None or row[0] != 1:
            raise VersionConflict(record.id)

    async def _update_with(
        self, statement: str, values: dict[str, Any], update: GameUpdate
    ) -> None:
        """Store a change with what it brings, in one transaction: the rematch it opens,
        the rated game's end it counts. Both are written only if the version-checked update
        applied: a rematch is opened once and ratings change once, whichever instance wins."""
        async with self._transaction() as conn:
            cursor = await conn.execute(statement, values)
            row = await cursor.fetchone()
            if row is None or row[0] != 1:
                raise VersionConflict(values["id"])
            if update.opened is not None:
                await self._insert_game(conn, *update.opened)
            if update.rated is not None:
                await self._count_rated(conn, update.rated)

    async def _count_rated(self, conn: psycopg.AsyncConnection[Any], game: RatedGame) -> None:
        """Both players' new ratings after a rated game (in the transaction storing its end)."""
        # each player's games are counted one at a time, whichever instance counts them
        for user in sorted(set(game.players)):
            await conn.execute(
                "SELECT pg_advisory_xact_lock(%s::int, hashtext(%s))", (RATING_LOCK, user)
            )
        cursor = await conn.execute(
            marked(rating_rows.SELECT_RATINGS + rating_rows.marks(2)), game.players
        )
        found = dict(rating_rows.rating_from_row(r) for r in await cursor.fetchall())
        for sql, args in rating_rows.rating_writes(game, found, time.time()):
            await conn.execute(marked(sql), args)

    async def get_ratings(self, user_ids: Sequence[str]) -> dict[str, Rating]:
        if not user_ids:
            return {}
        rows = await self._all(
            rating_rows.SELECT_RATINGS + rating_rows.marks(len(user_ids)), *user_ids
        )
        return dict(rating_rows.rating_from_row(row) for row in rows)

    async def rating_history(self, user_id: str, limit: int) -> list[RatingChange]:
        rows = await self._all(rating_rows.HISTORY, user_id, limit)
        return [rating_rows.change_from_row(row) for row in rows]

    async def game_rating_changes(self, game_id: str) -> list[RatingChange]:
        rows = await self._all(rating_rows.GAME_CHANGES, game_id)
        return [rating_rows.change_from_row(row) for row in rows]

    async def leaderboard(self, limit: int, min_games: int) -> list[tuple[str, Rating]]:
        rows = await self._all(rating_rows.LEADERBOARD, min_games, limit)
        return [rating_rows.rating_from_row(row) for row in rows]

    async def follow_games(self, notices: GameNotices) -> None:
        """Hear every other instance's committed game changes (LISTEN), until cancelled.

        A lost connection is opened again; notices sent meanwhile are lost, so each time it
        listens (the first time too: the games were loaded before) `notices.resync()` compares
        the games with the database.
        """
        try:
            while True:
                try:
                    await self._listen(notices)
                except psycopg.OperationalError as error:
                    self.hear(False)  # sign-outs elsewhere go unheard: keep no token meanwhile
                    log.warning("lost the database's notices (%s); listening again", error)
                    await asyncio.sleep(RELISTEN_PAUSE)
        finally:  # (stopped, or an error no new connection mends): nothing more is heard
            self.hear(False)

    async def _listen(self, notices: GameNotices) -> None:
        """One listening connection, telling `notices` what it hears until it is lost."""
        async with await psycopg.AsyncConnection.connect(
            self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT
        ) as conn:
            await conn.execute(f"LISTEN {CHANNEL}")
            self.hear(True)  # (what was kept may have changed unheard)
            # what was committed before this listened (lost with a connection, or since the
            # games were loaded at start) is read from the database; what the others told of
            # their streams, they tell again on this `hello`
            notices.resync()
            notices.lobby_moved()
            await self.announce(HELLO, "-")
            async for notify in conn.notifies():
                self._tell(notify.payload, notices)

    def _tell(self, payload: str, notices: GameNotices) -> None:
        """Pass one notice on: "<instance> <kind or game id> <argument or version>", and
        after a line break the change an action's notice carries."""
        head, _, change = payload.partition("\n")
        parts = head.split(" ", 2)
        if len(parts) < 3:  # (a kind some other version of the server sends)
            log.warning("a notice this instance cannot read: %.80r", head)
            return
        instance, game_id, version = parts
        if game_id in FORGET_KINDS:  # (kind and argument in these two places)
            self.forget(game_id, version)
        elif game_id == LOBBY_NOTICE:  # this instance's too: it reads them
            notices.lobby_moved()
        elif instance == self.instance and game_id != CHAT:
            return  # (its own chat notices: play/chat.py streams in their order)
        elif game_id in PEER_KINDS:
            notices.peer(instance, game_id, version)
        elif (number := event_number(version)) is not None:
            notices.notice(game_id, number, read_carried(change, number))
        else:
            log.warning("a notice this instance cannot read: %.80r", head)

    async def hold_computer(self, game_id: str, seconds: float) -> bool:
        """Take or renew the lease on driving the game's computers for `seconds` (by the
        database's clock); False while another instance holds an unexpired one."""
        row = await self._one(
            "INSERT INTO computer_leases (game_id, instance, expires_at)"
            " VALUES (?, ?, extract(epoch FROM clock_timestamp()) + ?)"
            " ON CONFLICT (game_id) DO UPDATE SET instance = excluded.instance,"
            " expires_at = excluded.expires_at"
            " WHERE computer_leases.instance = excluded.instance"
            " OR computer_leases.expires_at < extract(epoch FROM clock_timestamp())"
            " RETURNING 1",
            game_id, self.instance, seconds,
        )
        return row is not None

    # -- the lobby's events -------------------------------------------------------------------
    async def announce(self, kind: str, argument: str) -> None:
        await self._one("SELECT pg_notify(?, ?)", CHANNEL, f"{self.instance} {kind} {argument}")

    def lobby_log(self) -> PostgresStorage:
        return self

    async def get_game(self, game_id: str) -> GameRecord | None:
        row = await self._one(f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?", game_id)
        return game_from_row(row) if row else None

    async def list_games(self) -> Iterator[GameRecord]:
        rows = await self._all(f"SELECT {GAME_COLUMNS} FROM games ORDER BY created_at")
        return games_from_rows(rows)

    async def game_versions(self) -> dict[str, int]:
        return {game_id: version
                for game_id, version in await self._all("SELECT id, version FROM games")}

    async def overdue_games(self, now: float) -> list[tuple[str, int]]:
        return [(row[0], row[1]) for row in await self._all(OVERDUE, now)]

    async def get_events(self, game_id: str, after: int = 0) -> list[StoredEvent]:
        rows = await self._all(
            "SELECT seq, data FROM events WHERE game_id = ? AND seq > ? ORDER BY seq",
            game_id, after,
        )
        return [StoredEvent(seq, orjson.loads(data), data.encode()) for seq, data in rows]

    async def get_actions(self, game_id: str, after: int = 0) -> list[StoredAction]:
        rows = await self._all(
            "SELECT action_id, user_id, seat, version, action, result FROM actions"
            " WHERE game_id = ? AND version > ? ORDER BY version",
            game_id, after,
        )
        return [
            StoredAction(aid, uid, seat, version, orjson.loads(action), bytes(result))
            for aid, uid, seat, version, action, result in rows
        ]


async def _insert_events(
    conn: psycopg.AsyncConnection[Any], game_id: str, events: Sequence[StoredEvent]
) -> None:
    if not events:
        return
    async with conn.cursor() as cursor:
        await cursor.executemany(
            "INSERT INTO events (game_id, seq, data) VALUES (%s, %s, %s)",
            [(game_id, event.seq, event.json().decode()) for event in events],
        )
