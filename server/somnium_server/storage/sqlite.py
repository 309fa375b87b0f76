"""The default storage: one SQLite file in WAL mode, migrated from its first table on.

Writes from one event-loop tick are committed together (group commit) and each caller resumes
only once its write is committed, so every acknowledged change survives a killed process.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import orjson

from somnium_server.play.ratings import RatedGame, Rating
from somnium_server.storage import (
    ChatMessage,
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
    analysis_rows,
    chat_rows,
    rating_rows,
    sqlite_signin,
)
from somnium_server.storage.game_rows import (
    DEADLINE_MIGRATION,
    GAME_COLUMNS,
    OVERDUE,
    dumps,
    game_from_row,
    game_row,
)
from somnium_server.storage.sqlite_signin import SQLiteSignin

T = TypeVar("T")
log = logging.getLogger("somnium_server.storage")
CHECKPOINT_INTERVAL = 1.0  # seconds between WAL checkpoints, made off the event loop
# Sessions and users found are kept this long before the file is asked again: every request
# looked both up. Sign-out and revoking go through delete_session, which forgets at once;
# only a change made by another process on the same file waits out this recheck.
RECHECK = 5.0
CACHE_LIMIT = 100_000
CACHE_KB = 32_768  # SQLite's page cache for the event loop's connection

# Each entry moves the schema one version on; PRAGMA user_version counts those applied.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE users (
        id TEXT PRIMARY KEY,
        display_name TEXT NOT NULL,
        created_at REAL NOT NULL
    );
    CREATE TABLE identities (
        provider TEXT NOT NULL,
        subject TEXT NOT NULL,
        user_id TEXT NOT NULL REFERENCES users(id),
        PRIMARY KEY (provider, subject)
    );
    CREATE TABLE sessions (
        token_hash TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id),
        created_at REAL NOT NULL,
        expires_at REAL NOT NULL
    );
    CREATE INDEX sessions_by_user ON sessions(user_id);
    CREATE TABLE games (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        created_at REAL NOT NULL,
        created_by TEXT NOT NULL,
        seats TEXT NOT NULL,
        status TEXT NOT NULL,
        state TEXT NOT NULL,
        initial_state TEXT NOT NULL,
        version INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        meta TEXT NOT NULL,
        bot_seed INTEGER NOT NULL
    );
    CREATE TABLE events (
        game_id TEXT NOT NULL REFERENCES games(id),
        seq INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (game_id, seq)
    ) WITHOUT ROWID;
    CREATE TABLE actions (
        game_id TEXT NOT NULL REFERENCES games(id),
        action_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        seat INTEGER NOT NULL,
        version INTEGER NOT NULL,
        action TEXT NOT NULL,
        result BLOB NOT NULL,
        PRIMARY KEY (game_id, action_id)
    ) WITHOUT ROWID;
    CREATE INDEX actions_by_version ON actions(game_id, version);
    """,
    sqlite_signin.MIGRATION,
    # the state is stored as a snapshot every few actions; state_version says when it was taken
    """
    ALTER TABLE games ADD COLUMN state_version INTEGER NOT NULL DEFAULT 0;
    UPDATE games SET state_version = version;
    """,
    # a game's actions are found through the primary key (game_id first) and sorted in memory;
    # the index cost every action one more page written to the WAL and checkpointed
    """
    DROP INDEX actions_by_version;
    """,
    rating_rows.MIGRATION,
    # chat at the table (play/chat.py) and who blocked whom
    """
    CREATE TABLE chat (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        game_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        name TEXT NOT NULL,
        role TEXT NOT NULL,
        text TEXT NOT NULL,
        at REAL NOT NULL,
        at_seq INTEGER NOT NULL
    );
    CREATE INDEX chat_by_game ON chat(game_id, id);
    CREATE TABLE blocks (
        user_id TEXT NOT NULL,
        blocked TEXT NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (user_id, blocked)
    ) WITHOUT ROWID;
    """,
    # when each player last had a signed stream open (live/presence.py)
    """
    CREATE TABLE last_seen (user_id TEXT PRIMARY KEY, at REAL NOT NULL) WITHOUT ROWID;
    """,
    analysis_rows.MIGRATION,  # the finished games' analyses (play/analyses.py)
    # the clock of the player to move (play/clocks.py)
    DEADLINE_MIGRATION.format(real="REAL"),
)

def connect(path: Path) -> sqlite3.Connection:
    """Open (creating if needed) and migrate the database file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    # NORMAL in WAL mode: a commit is in the OS before we answer, so it survives a killed
    # process; only a power loss may drop the last commits.
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA busy_timeout=5000")
    # no checkpoints on the event loop's connection: they fsync; Checkpointer does them
    conn.execute("PRAGMA wal_autocheckpoint=0")
    # the pages of the games being played stay in memory: with SQLite's default 2 MB, most
    # actions read their game's pages back from the file (a few system calls each)
    conn.execute(f"PRAGMA cache_size=-{CACHE_KB}")
    migrate(conn)
    return conn


def migrate(conn: sqlite3.Connection) -> int:
    """Apply the migrations this file lacks; returns the schema version now in force."""
    (current,) = conn.execute("PRAGMA user_version").fetchone()
    if current > len(MIGRATIONS):
        raise RuntimeError(
            f"the database has schema version {current}, newer than this server's "
            f"{len(MIGRATIONS)}"
        )
    for version in range(current, len(MIGRATIONS)):
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in MIGRATIONS[version].split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version={version + 1}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return len(MIGRATIONS)


class Checkpointer(threading.Thread):
    """Copies the WAL back into the database file now and then, in its own thread."""

    def __init__(self, path: Path, interval: float = CHECKPOINT_INTERVAL) -> None:
        super().__init__(name="sqlite-checkpoint", daemon=True)
        self.path = path
        self.interval = interval
        self.stopping = threading.Event()

    def run(self) -> None:
        conn = sqlite3.connect(self.path, isolation_level=None)
        try:
            conn.execute("PRAGMA busy_timeout=1000")
            while not self.stopping.wait(self.interval):
                self.checkpoint(conn)
            self.checkpoint(conn)
        finally:
            conn.close()

    @staticmethod
    def checkpoint(conn: sqlite3.Connection) -> None:
        try:
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        except sqlite3.Error as error:  # busy now: the next round catches up
            log.debug("checkpoint skipped: %s", error)

    def stop(self) -> None:
        self.stopping.set()
        self.join()


class SQLiteStorage(SQLiteSignin):
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
        def work(c: sqlite3.Connection) -> None:
            c.execute(
                f"INSERT INTO games ({GAME_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                game_row(record),
            )
            _insert_events(c, record.id, events)

        await self._write(work)

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

    async def list_games(self) -> list[GameRecord]:
        rows = self._conn.execute(
            f"SELECT {GAME_COLUMNS} FROM games ORDER BY created_at"
        ).fetchall()
        return [game_from_row(row) for row in rows]

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

    # -- chat and blocks ------------------------------------------------------------------------
    async def add_chat(
        self, game_id: str, user_id: str, name: str, role: str, text: str, at: float,
        at_seq: int,
    ) -> ChatMessage:
        def work(c: sqlite3.Connection) -> int:
            (number,) = c.execute(
                chat_rows.INSERT_CHAT, (game_id, user_id, name, role, text, at, at_seq)
            ).fetchone()
            return int(number)

        number = await self._write(work)
        return ChatMessage(number, game_id, user_id, name, role, text, at, at_seq)

    async def chat_of(self, game_id: str, after: int = 0, at_seq: int | None = None,
                      last: int | None = None) -> list[ChatMessage]:
        rows = self._conn.execute(
            chat_rows.SELECT_CHAT, chat_rows.chat_arguments(game_id, after, at_seq, last)
        ).fetchall()
        return chat_rows.messages(rows)

    async def chat_message(self, message_id: int) -> ChatMessage | None:
        row = self._conn.execute(chat_rows.SELECT_MESSAGE, (message_id,)).fetchone()
        return ChatMessage(*row) if row else None

    async def block(self, user_id: str, blocked: str) -> None:
        row = (user_id, blocked, time.time())
        await self._write(lambda c: c.execute(chat_rows.INSERT_BLOCK, row))

    async def unblock(self, user_id: str, blocked: str) -> None:
        await self._write(lambda c: c.execute(chat_rows.DELETE_BLOCK, (user_id, blocked)))

    async def blocked_by(self, user_id: str) -> list[str]:
        return [row[0] for row in self._conn.execute(chat_rows.SELECT_BLOCKS, (user_id,))]

    # -- presence -------------------------------------------------------------------------------
    async def mark_seen(self, user_ids: Sequence[str], at: float) -> None:
        rows = [(user, at) for user in sorted(set(user_ids))]
        await self._write(lambda c: c.executemany(
            "INSERT INTO last_seen (user_id, at) VALUES (?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET at = max(at, excluded.at)", rows,
        ))

    async def last_seen(self, user_ids: Sequence[str]) -> dict[str, float]:
        wanted = sorted(set(user_ids))
        rows = self._conn.execute(
            f"SELECT user_id, at FROM last_seen WHERE user_id IN ({', '.join('?' * len(wanted))})",
            wanted,
        ).fetchall() if wanted else []
        return {user: float(at) for user, at in rows}

    # -- analyses -------------------------------------------------------------------------------
    async def get_analysis(self, game_id: str) -> bytes | None:
        row = self._conn.execute(analysis_rows.SELECT_ANALYSIS, (game_id,)).fetchone()
        return row[0].encode() if row else None

    async def add_analysis(
        self, game_id: str, data: bytes, accuracy: tuple[float | None, float | None]
    ) -> None:
        row = (game_id, data.decode(), *accuracy, time.time())
        await self._write(lambda c: c.execute(analysis_rows.INSERT_ANALYSIS, row))

    async def accuracies(
        self, game_ids: Sequence[str]
    ) -> dict[str, tuple[float | None, float | None]]:
        if not game_ids:
            return {}
        rows = self._conn.execute(
            analysis_rows.SELECT_ACCURACIES + rating_rows.marks(len(game_ids)), tuple(game_ids)
        ).fetchall()
        return analysis_rows.accuracies(rows)

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
