"""The default storage: one SQLite file in WAL mode, migrated from its first table on.

Writes from one event-loop tick are committed together (group commit) and each caller resumes
only once its write is committed, so every acknowledged change survives a killed process.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import orjson

from somnium_server.play.ratings import RatedGame, Rating
from somnium_server.storage import (
    GameNotices,
    GameRecord,
    GameUpdate,
    Identity,
    RatingChange,
    Session,
    StoredAction,
    StoredEvent,
    User,
    VersionConflict,
    rating_rows,
)
from somnium_server.storage.game_rows import (
    GAME_COLUMNS,
    OVERDUE,
    dumps,
    game_from_row,
    game_row,
    games_from_rows,
)
from somnium_server.storage.sqlite_file import Checkpointer, connect
from somnium_server.storage.sqlite_signin import SQLiteSignin
from somnium_server.storage.sqlite_table import SQLiteTable

T = TypeVar("T")
log = logging.getLogger("somnium_server.storage")
# Sessions and users found are kept this long before the file is asked again: every request
# looked both up. Sign-out and revoking go through delete_session, which forgets at once;
# only a change made by another process on the same file waits out this recheck.
RECHECK = 5.0
CACHE_LIMIT = 100_000


class SQLiteStorage(SQLiteSignin, SQLiteTable):
    """Storage in one SQLite file; safe to open from several processes (WAL)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn = connect(path)
        self._pending: list[tuple[Callable[[sqlite3.Connection], Any], asyncio.Future[Any]]] = []
        self._flush_scheduled = False
        self._sessions: dict[str, tuple[float, Session]] = {}  # token hash -> (until, found)
        self._users: dict[str, tuple[float, User]] = {}
        self._checkpointer = Checkpointer(path)
        self._checkpointer.start()

    # -- group commit ---------------------------------------------------------------------
    async def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._pending.append((work, future))
        if not self._flush_scheduled:
            self._flush_scheduled = True
            loop.call_soon(self._flush)
        return await future

    def _flush(self) -> None:
        self._flush_scheduled = False
        batch, self._pending = self._pending, []
        outcomes: list[tuple[asyncio.Future[Any], bool, Any]] = []
        conn = self._conn
        if len(batch) == 1:  # alone in its transaction: no savepoint needed
            work, future = batch[0]
            try:
                conn.execute("BEGIN IMMEDIATE")
                value = work(conn)
                conn.execute("COMMIT")
            except Exception as error:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                if not future.done():
                    future.set_exception(error)
            else:
                if not future.done():
                    future.set_result(value)
            return
        if self._all_at_once(batch):
            return
        try:
            conn.execute("BEGIN IMMEDIATE")
            for work, future in batch:
                conn.execute("SAVEPOINT one")
                try:
                    value = work(conn)
                except Exception as error:  # this write alone fails; the batch goes on
                    conn.execute("ROLLBACK TO one")
                    conn.execute("RELEASE one")
                    outcomes.append((future, False, error))
                else:
                    conn.execute("RELEASE one")
                    outcomes.append((future, True, value))
            conn.execute("COMMIT")
        except Exception as error:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            outcomes = [(future, False, error) for _, future in batch]
        for future, ok, value in outcomes:
            if future.done():
                continue
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)

    def _all_at_once(
        self, batch: list[tuple[Callable[[sqlite3.Connection], Any], asyncio.Future[Any]]]
    ) -> bool:
        """The whole batch in one transaction without a savepoint per write (the usual case).

        False, with nothing written, if any write failed: the caller then runs the batch
        again with savepoints, so that only the failing writes fail.
        """
        conn = self._conn
        values: list[Any] = []
        try:
            conn.execute("BEGIN IMMEDIATE")
            for work, _ in batch:
                values.append(work(conn))
            conn.execute("COMMIT")
        except Exception:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            return False
        for (_, future), value in zip(batch, values, strict=True):
            if not future.done():
                future.set_result(value)
        return True

    # -- users and sessions -----------------------------------------------------------------
    async def create_user(self, display_name: str) -> User:
        user = User(id=uuid.uuid4().hex, display_name=display_name, created_at=time.time())
        await self._write(
            lambda c: c.execute(
                "INSERT INTO users (id, display_name, created_at) VALUES (?, ?, ?)",
                (user.id, user.display_name, user.created_at),
            )
        )
        return user

    async def get_user(self, user_id: str) -> User | None:
        now = time.monotonic()
        kept = self._users.get(user_id)
        if kept is not None and kept[0] > now:
            return kept[1]
        row = self._conn.execute(
            "SELECT id, display_name, created_at FROM users WHERE id = ?", (user_id,)
        ).fetchone()
        if row is None:
            return None
        user = User(*row)
        _keep(self._users, user_id, (now + RECHECK, user))
        return user

    async def get_users(self, user_ids: Sequence[str]) -> dict[str, User]:
        found: dict[str, User] = {}
        for user_id in set(user_ids):
            user = await self.get_user(user_id)
            if user is not None:
                found[user_id] = user
        return found

    async def rename_user(self, user_id: str, display_name: str) -> None:
        self._users.pop(user_id, None)
        await self._write(
            lambda c: c.execute(
                "UPDATE users SET display_name = ? WHERE id = ?", (display_name, user_id)
            )
        )
        self._users.pop(user_id, None)  # a read meanwhile may have kept the old name

    async def add_identity(self, identity: Identity) -> None:
        await self._write(
            lambda c: c.execute(
                "INSERT INTO identities (provider, subject, user_id) VALUES (?, ?, ?)",
                (identity.provider, identity.subject, identity.user_id),
            )
        )

    async def find_identity(self, provider: str, subject: str) -> Identity | None:
        row = self._conn.execute(
            "SELECT provider, subject, user_id FROM identities WHERE provider = ? AND subject = ?",
            (provider, subject),
        ).fetchone()
        return Identity(*row) if row else None

    async def create_session(self, session: Session) -> None:
        await self._write(
            lambda c: c.execute(
                "INSERT INTO sessions (token_hash, user_id, created_at, expires_at) "
                "VALUES (?, ?, ?, ?)",
                (session.token_hash, session.user_id, session.created_at, session.expires_at),
            )
        )

    async def get_session(self, token_hash: str) -> Session | None:
        now = time.monotonic()
        kept = self._sessions.get(token_hash)
        if kept is not None and kept[0] > now:
            return kept[1]
        row = self._conn.execute(
            "SELECT token_hash, user_id, created_at, expires_at FROM sessions "
            "WHERE token_hash = ?",
            (token_hash,),
        ).fetchone()
        if row is None:  # not kept: a session made meanwhile by another process counts
            return None
        session = Session(*row)
        _keep(self._sessions, token_hash, (now + RECHECK, session))
        return session

    async def session_user(self, token_hash: str, now: float) -> User | None:
        session = await self.get_session(token_hash)
        if session is None or session.expires_at <= now:
            return None
        return await self.get_user(session.user_id)

    async def delete_session(self, token_hash: str) -> None:
        self._sessions.pop(token_hash, None)
        await self._write(
            lambda c: c.execute("DELETE FROM sessions WHERE token_hash = ?", (token_hash,))
        )
        self._sessions.pop(token_hash, None)  # a read meanwhile saw the row still there

    async def purge_sessions(self, now: float) -> int:
        return await self._write(
            lambda c: c.execute("DELETE FROM sessions WHERE expires_at <= ?", (now,)).rowcount
        )

    # -- games --------------------------------------------------------------------------------
    async def create_game(self, record: GameRecord, events: Sequence[StoredEvent]) -> None:
        await self._write(lambda c: _insert_game(c, record, events))

    async def update_game(self, update: GameUpdate) -> None:
        record = update.record

        def work(c: sqlite3.Connection) -> None:
            # name, creation, initial state and bot seed never change after create_game
            if record.snapshot_version == record.version:
                cursor = c.execute(
                    "UPDATE games SET seats=?, status=?, state=?, state_version=?, version=?, "
                    "seq=?, meta=?, deadline=? WHERE id=? AND version=?",
                    (dumps(record.seats), record.status, dumps(record.state), record.version,
                     record.version, record.seq, dumps(record.meta), record.deadline,
                     record.id, update.expected_version),
                )
            else:  # an action between snapshots: its own row records the change
                cursor = c.execute(
                    "UPDATE games SET status=?, version=?, seq=?, deadline=? "
                    "WHERE id=? AND version=?",
                    (record.status, record.version, record.seq, record.deadline, record.id,
                     update.expected_version),
                )
            if cursor.rowcount != 1:
                raise VersionConflict(record.id)
            _insert_events(c, record.id, update.events)
            action = update.action
            if action is not None:
                c.execute(
                    "INSERT INTO actions (game_id, action_id, user_id, seat, version, action, "
                    "result) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (record.id, action.action_id, action.user_id, action.seat, action.version,
                     dumps(action.action), action.result),
                )
            if update.rated is not None:
                _rate(c, update.rated)
            if update.opened is not None:
                _insert_game(c, *update.opened)

        await self._write(work)

    async def get_ratings(self, user_ids: Sequence[str]) -> dict[str, Rating]:
        rows = self._conn.execute(
            rating_rows.SELECT_RATINGS + rating_rows.marks(len(user_ids)), tuple(user_ids)
        ).fetchall()
        return dict(rating_rows.rating_from_row(row) for row in rows)

    async def rating_history(self, user_id: str, limit: int) -> list[RatingChange]:
        rows = self._conn.execute(rating_rows.HISTORY, (user_id, limit)).fetchall()
        return [rating_rows.change_from_row(row) for row in rows]

    async def game_rating_changes(self, game_id: str) -> list[RatingChange]:
        rows = self._conn.execute(rating_rows.GAME_CHANGES, (game_id,)).fetchall()
        return [rating_rows.change_from_row(row) for row in rows]

    async def leaderboard(self, limit: int, min_games: int) -> list[tuple[str, Rating]]:
        rows = self._conn.execute(rating_rows.LEADERBOARD, (min_games, limit)).fetchall()
        return [rating_rows.rating_from_row(row) for row in rows]

    async def get_game(self, game_id: str) -> GameRecord | None:
        row = self._conn.execute(
            f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        return game_from_row(row) if row else None

    async def list_games(self) -> Iterator[GameRecord]:
        rows = self._conn.execute(
            f"SELECT {GAME_COLUMNS} FROM games ORDER BY created_at"
        ).fetchall()
        return games_from_rows(rows)

    async def game_versions(self) -> dict[str, int]:
        return dict(self._conn.execute("SELECT id, version FROM games").fetchall())

    async def overdue_games(self, now: float) -> list[tuple[str, int]]:
        return [(row[0], row[1]) for row in self._conn.execute(OVERDUE, (now,))]

    async def get_events(self, game_id: str, after: int = 0) -> list[StoredEvent]:
        rows = self._conn.execute(
            "SELECT seq, data FROM events WHERE game_id = ? AND seq > ? ORDER BY seq",
            (game_id, after),
        ).fetchall()
        return [StoredEvent(seq, orjson.loads(data), data.encode()) for seq, data in rows]

    async def get_actions(self, game_id: str, after: int = 0) -> list[StoredAction]:
        rows = self._conn.execute(
            "SELECT action_id, user_id, seat, version, action, result FROM actions "
            "WHERE game_id = ? AND version > ? ORDER BY version",
            (game_id, after),
        ).fetchall()
        return [
            StoredAction(aid, uid, seat, version, orjson.loads(action), bytes(result))
            for aid, uid, seat, version, action, result in rows
        ]

    shared = False  # one instance only serves an SQLite file

    async def announce(self, kind: str, argument: str) -> None:
        """No other instance to tell."""

    async def hold_computer(self, game_id: str, seconds: float) -> bool:
        return True  # the one instance drives every computer

    def lobby_log(self) -> None:
        return None  # the lobby's events stay in the one instance's memory

    async def follow_games(self, notices: GameNotices) -> None:
        """One instance only serves an SQLite file: no other instance changes its games."""

    async def close(self) -> None:
        if self._pending:
            self._flush()
        self._checkpointer.stop()
        with contextlib.suppress(sqlite3.Error):
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self._conn.close()


def _keep(cache: dict[str, T], key: str, value: T) -> None:
    if len(cache) >= CACHE_LIMIT:
        cache.clear()
    cache[key] = value


def _insert_game(c: sqlite3.Connection, record: GameRecord, events: Sequence[StoredEvent]) -> None:
    c.execute(
        f"INSERT INTO games ({GAME_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        game_row(record),
    )
    _insert_events(c, record.id, events)


def _insert_events(c: sqlite3.Connection, game_id: str, events: Sequence[StoredEvent]) -> None:
    c.executemany(
        "INSERT INTO events (game_id, seq, data) VALUES (?, ?, ?)",
        [(game_id, event.seq, event.json().decode()) for event in events],
    )


def _rate(c: sqlite3.Connection, game: RatedGame) -> None:
    """Count a finished rated game, in the transaction that stores its end (SQLite has one
    writer: the ratings read here cannot change before the commit)."""
    found = dict(
        rating_rows.rating_from_row(row)
        for row in c.execute(
            rating_rows.SELECT_RATINGS + rating_rows.marks(2), game.players
        ).fetchall()
    )
    for sql, values in rating_rows.rating_writes(game, found, time.time()):
        c.execute(sql, values)
