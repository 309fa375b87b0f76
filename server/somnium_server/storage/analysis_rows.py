"""The finished games' analyses table and statements, the same for SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# One row per finished game analysed: its analysis as JSON (it never changes once the game
# has ended) and each seat's accuracy, read apart for the player pages.
MIGRATION = """
CREATE TABLE analyses (
    game_id TEXT PRIMARY KEY,
    data TEXT NOT NULL,
    accuracy_0 DOUBLE PRECISION,
    accuracy_1 DOUBLE PRECISION,
    made_at DOUBLE PRECISION NOT NULL
);
"""

SELECT_ANALYSIS = "SELECT data FROM analyses WHERE game_id = ?"
INSERT_ANALYSIS = (
    "INSERT INTO analyses (game_id, data, accuracy_0, accuracy_1, made_at)"
    " VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"
)
SELECT_ACCURACIES = "SELECT game_id, accuracy_0, accuracy_1 FROM analyses WHERE game_id IN "

Accuracy = tuple[float | None, float | None]


def accuracies(rows: Sequence[Sequence[Any]]) -> dict[str, Accuracy]:
    """SELECT_ACCURACIES's rows by game id."""
    return {row[0]: (row[1], row[2]) for row in rows}
