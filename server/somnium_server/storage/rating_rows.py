"""The ratings' tables and statements, the same for SQLite and PostgreSQL (? marks)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from somnium_server.play.ratings import RatedGame, Rating, after_game
from somnium_server.storage import RatingChange

# One row per player who has played a rated game; one per player and rated game, whose
# primary key also guards against counting a game twice.
MIGRATION = """
CREATE TABLE ratings (
    user_id TEXT PRIMARY KEY,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    games INTEGER NOT NULL,
    won INTEGER NOT NULL,
    lost INTEGER NOT NULL,
    drawn INTEGER NOT NULL
);
CREATE INDEX ratings_by_rating ON ratings(rating);
CREATE TABLE rating_changes (
    game_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    score DOUBLE PRECISION NOT NULL,
    rating_before DOUBLE PRECISION NOT NULL,
    rating_after DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    finished_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game_id, user_id)
);
CREATE INDEX rating_changes_by_user ON rating_changes(user_id, finished_at);
"""

RATING_COLUMNS = "user_id, rating, deviation, volatility, games, won, lost, drawn"
SELECT_RATINGS = f"SELECT {RATING_COLUMNS} FROM ratings WHERE user_id IN "
UPSERT_RATING = (
    f"INSERT INTO ratings ({RATING_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (user_id) DO UPDATE SET rating = excluded.rating, "
    "deviation = excluded.deviation, volatility = excluded.volatility, "
    "games = excluded.games, won = excluded.won, lost = excluded.lost, drawn = excluded.drawn"
)
LEADERBOARD = (
    f"SELECT {RATING_COLUMNS} FROM ratings WHERE games >= ? "
    "ORDER BY rating DESC, user_id LIMIT ?"
)
CHANGE_COLUMNS = (
    "game_id, user_id, seat, score, rating_before, rating_after, deviation, finished_at"
)
HISTORY = (
    f"SELECT {CHANGE_COLUMNS} FROM rating_changes WHERE user_id = ? "
    "ORDER BY finished_at DESC LIMIT ?"
)
GAME_CHANGES = f"SELECT {CHANGE_COLUMNS} FROM rating_changes WHERE game_id = ? ORDER BY seat"
INSERT_CHANGE = (
    f"INSERT INTO rating_changes ({CHANGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)


def marks(count: int) -> str:
    """`(?, ?, ...)` for an IN list of `count` values."""
    return "(" + ", ".join("?" * count) + ")"


def rating_from_row(row: Sequence[Any]) -> tuple[str, Rating]:
    user_id, rating, deviation, volatility, games, won, lost, drawn = row
    return user_id, Rating(rating, deviation, volatility, games, won, lost, drawn)


def change_from_row(row: Sequence[Any]) -> RatingChange:
    return RatingChange(*row)


def rating_writes(
    game: RatedGame, found: dict[str, Rating], now: float
) -> list[tuple[str, tuple[Any, ...]]]:
    """The statements that count `game`, given both players' ratings before it (`found`;
    a player absent there starts afresh)."""
    first, second = (found.get(user, Rating()) for user in game.players)
    new = after_game(first, second, game.score)
    writes: list[tuple[str, tuple[Any, ...]]] = []
    olds = (first, second)
    for seat, (user, old, rating) in enumerate(zip(game.players, olds, new, strict=True)):
        score = game.score if seat == 0 else 1 - game.score
        writes.append((INSERT_CHANGE, (game.game_id, user, seat, score, old.rating,
                                       rating.rating, rating.deviation, now)))
        writes.append((UPSERT_RATING, (user, rating.rating, rating.deviation,
                                       rating.volatility, rating.games, rating.won,
                                       rating.lost, rating.drawn)))
    return writes
