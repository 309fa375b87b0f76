"""The SQLite file: its schema's numbered migrations, its connections, its WAL checkpoints."""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

from somnium_server.private import private_file, private_folder, tighten_file
from somnium_server.storage import analysis_rows, rating_rows, sqlite_signin
from somnium_server.storage.game_rows import DEADLINE_MIGRATION

log = logging.getLogger("somnium_server.storage")
CHECKPOINT_INTERVAL = 1.0  # seconds between WAL checkpoints, made off the event loop
# Frames (pages) in the WAL past which a checkpoint also waits for writers to pause, so that
# SQLite starts the WAL over: 65,536 pages of 4 KB, 256 MB
WAL_LIMIT = 65_536
RESTART_WAIT_MS = 50  # the longest a RESTART checkpoint waits for the writer and readers
RESTART_REST = 10  # rounds without a RESTART after one found the file busy
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
    """Open (creating if needed: 0600, in a folder made 0700) and migrate the database file.

    SQLite gives the -wal and -shm files it makes the database file's mode; ones already
    there (a crash's) are made 0600 too, as is a file an older release made 0644."""
    private_folder(path.parent, tighten=False)
    private_file(path)
    for leftover in ("-wal", "-shm"):
        tighten_file(path.with_name(path.name + leftover))
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    # NORMAL in WAL mode: a commit is in the OS before we answer, so it survives a killed
    # process; only a power loss may drop the last commits.
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA busy_timeout=5000")
    # no checkpoints on the event loop's connection: they fsync; Checkpointer does them
    conn.execute("PRAGMA wal_autocheckpoint=0")
    # the WAL file is cut back to the limit's size each time SQLite starts it over
    conn.execute(f"PRAGMA journal_size_limit={WAL_LIMIT * 4096}")
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
    """Copies the WAL back into the database file now and then, in its own thread.

    A passive checkpoint never waits for the writer, but SQLite starts the WAL over only when
    a write begins after every frame was copied: under writes without a pause (a busy
    server) that never happens and the file grows without end, about 16 KB per action. So
    once the WAL holds more than `limit` frames, the passive copy (most of the work) is
    followed by a RESTART checkpoint, which holds writers off while it copies what came in
    meanwhile and syncs the file (about 20 ms here); the next write then starts the WAL over,
    and `journal_size_limit` gives the file back. The RESTART waits at most RESTART_WAIT_MS
    for the writer and for readers (another process may hold a read open for long); one that
    found the file busy is not tried again for RESTART_REST rounds, so the event loop's
    writer is never held off for long or often.
    """

    def __init__(
        self, path: Path, interval: float = CHECKPOINT_INTERVAL, limit: int = WAL_LIMIT
    ) -> None:
        super().__init__(name="sqlite-checkpoint", daemon=True)
        self.path = path
        self.interval = interval
        self.limit = limit
        self.stopping = threading.Event()
        self._resting = 0  # rounds left without a RESTART

    def run(self) -> None:
        conn = sqlite3.connect(self.path, isolation_level=None)
        try:
            conn.execute(f"PRAGMA busy_timeout={RESTART_WAIT_MS}")
            while not self.stopping.wait(self.interval):
                self.checkpoint(conn)
            self.checkpoint(conn)
        finally:
            conn.close()

    def checkpoint(self, conn: sqlite3.Connection) -> None:
        try:
            _, frames, _ = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            if self._resting:
                self._resting -= 1
            elif frames > self.limit:
                busy, _, _ = conn.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()
                if busy:
                    self._resting = RESTART_REST
        except sqlite3.Error as error:  # busy now: the next round catches up
            log.debug("checkpoint skipped: %s", error)

    def stop(self) -> None:
        self.stopping.set()
        self.join()
