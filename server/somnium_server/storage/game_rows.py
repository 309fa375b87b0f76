"""How a game is laid out in a row of the games table, the same in both storages."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import orjson

from somnium_server.storage import GameRecord

GAME_COLUMNS = (
    "id, name, created_at, created_by, seats, status, state, initial_state, version, seq, "
    "meta, bot_seed, state_version, deadline"
)
# the games being played whose clock ran out (an index holds only the games with a deadline)
OVERDUE = "SELECT id, version FROM games WHERE deadline <= ? AND status = 'playing'"
DEADLINE_MIGRATION = """
    ALTER TABLE games ADD COLUMN deadline {real};
    CREATE INDEX games_by_deadline ON games(deadline) WHERE deadline IS NOT NULL;
"""


def dumps(value: Any) -> str:
    """JSON as text, the way both storages keep seats, states, meta and actions."""
    return orjson.dumps(value).decode()


def game_row(record: GameRecord) -> tuple[Any, ...]:
    """A record's values in the order of GAME_COLUMNS."""
    return (
        record.id, record.name, record.created_at, record.created_by, dumps(record.seats),
        record.status, dumps(record.state), dumps(record.initial_state), record.version,
        record.seq, dumps(record.meta), record.bot_seed, record.snapshot_version,
        record.deadline,
    )


def game_from_row(row: Sequence[Any]) -> GameRecord:
    """The record read back from a row of GAME_COLUMNS."""
    return GameRecord(
        id=row[0], name=row[1], created_at=row[2], created_by=row[3],
        seats=orjson.loads(row[4]), status=row[5], state=orjson.loads(row[6]),
        initial_state=orjson.loads(row[7]), version=row[8], seq=row[9],
        meta=orjson.loads(row[10]), bot_seed=row[11], state_version=row[12],
        deadline=row[13],
    )


def games_from_rows(rows: list[tuple[Any, ...]]) -> Iterator[GameRecord]:
    """The records of `rows` (GAME_COLUMNS), each parsed as it is asked for, its row let go:
    every stored game's row is in memory at first (its JSON as text, fetched in one query,
    so no cursor stays open), but never every game's parsed state at once."""
    rows.reverse()
    while rows:
        yield game_from_row(rows.pop())
