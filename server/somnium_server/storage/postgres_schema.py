"""The PostgreSQL schema: its numbered migrations, how they are applied, the notice channel."""

from __future__ import annotations

from typing import Any

import psycopg

from somnium_server.storage import analysis_rows, rating_rows
from somnium_server.storage.game_rows import DEADLINE_MIGRATION
from somnium_server.storage.postgres_limits import MIGRATION as LIMITS_MIGRATION
from somnium_server.storage.postgres_signin import MIGRATION as SIGNIN_MIGRATION

MIGRATION_LOCK = 0x50_4D_4E_49_55_4D  # pg_advisory_xact_lock key: "SOMNIUM"
CHANNEL = "somnium_games"  # NOTIFY: "<instance> <game id> <version>" per commit (+ carried.py)
LOBBY_NOTICE = "lobby"  # in the game id's place: new lobby events (no game id is lowercase)

# Each entry moves the schema one version on; the schema_version table holds how many ran.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE users (
        id TEXT PRIMARY KEY,
        display_name TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL
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
        created_at DOUBLE PRECISION NOT NULL,
        expires_at DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX sessions_by_user ON sessions(user_id);
    CREATE INDEX sessions_by_expiry ON sessions(expires_at);
    CREATE TABLE games (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        created_by TEXT NOT NULL,
        seats TEXT NOT NULL,
        status TEXT NOT NULL,
        state TEXT NOT NULL,
        initial_state TEXT NOT NULL,
        version INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        meta TEXT NOT NULL,
        bot_seed BIGINT NOT NULL,
        state_version INTEGER NOT NULL
    );
    CREATE INDEX games_by_creation ON games(created_at);
    CREATE TABLE events (
        game_id TEXT NOT NULL REFERENCES games(id),
        seq INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (game_id, seq)
    );
    CREATE TABLE actions (
        game_id TEXT NOT NULL REFERENCES games(id),
        action_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        seat INTEGER NOT NULL,
        version INTEGER NOT NULL,
        action TEXT NOT NULL,
        result BYTEA NOT NULL,
        PRIMARY KEY (game_id, action_id)
    );
    CREATE INDEX actions_by_version ON actions(game_id, version);
    """
    + SIGNIN_MIGRATION,
    LIMITS_MIGRATION,
    # the lobby's events, numbered by the database for every instance (see play/lobby.py)
    """
    CREATE TABLE lobby (epoch TEXT NOT NULL);
    INSERT INTO lobby VALUES (substr(md5(random()::text || clock_timestamp()::text), 1, 16));
    CREATE TABLE lobby_events (id BIGINT PRIMARY KEY, data TEXT NOT NULL);
    """,
    # which instance drives a game's computer players, until when (see hold_computer)
    """
    CREATE TABLE computer_leases (
        game_id TEXT PRIMARY KEY,
        instance TEXT NOT NULL,
        expires_at DOUBLE PRECISION NOT NULL
    );
    """,
    rating_rows.MIGRATION,
    # chat at the table (play/chat.py) and who blocked whom
    """
    CREATE TABLE chat (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        game_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        name TEXT NOT NULL,
        role TEXT NOT NULL,
        text TEXT NOT NULL,
        at DOUBLE PRECISION NOT NULL,
        at_seq INTEGER NOT NULL
    );
    CREATE INDEX chat_by_game ON chat(game_id, id);
    CREATE TABLE blocks (
        user_id TEXT NOT NULL,
        blocked TEXT NOT NULL,
        at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (user_id, blocked)
    );
    """,
    # when each player last had a signed stream open (live/presence.py), and each stored batch
    # of lobby events named by its key (add_lobby_events stores a retried batch once)
    """
    CREATE TABLE last_seen (user_id TEXT PRIMARY KEY, at DOUBLE PRECISION NOT NULL);
    ALTER TABLE lobby_events ADD COLUMN batch TEXT;
    CREATE INDEX lobby_events_by_batch ON lobby_events(batch);
    """,
    analysis_rows.MIGRATION,  # the finished games' analyses (play/analyses.py)
    # the clock of the player to move (play/clocks.py)
    DEADLINE_MIGRATION.format(real="DOUBLE PRECISION"),
)


def migrate(conn: psycopg.Connection[Any]) -> int:
    """Apply the migrations the database lacks; returns the schema version now in force."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
        current = row[0] if row and row[0] is not None else 0
        if current > len(MIGRATIONS):
            raise RuntimeError(
                f"the database has schema version {current}, newer than this server's "
                f"{len(MIGRATIONS)}"
            )
        for version in range(current, len(MIGRATIONS)):
            conn.execute(MIGRATIONS[version].encode())
        conn.execute("DELETE FROM schema_version")
        conn.execute("INSERT INTO schema_version VALUES (%s)", (len(MIGRATIONS),))
    return len(MIGRATIONS)
