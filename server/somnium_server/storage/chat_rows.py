"""The SQL both storage backends use for chat messages and blocks (written with ? marks)."""

from __future__ import annotations

from typing import Any

from somnium_server.storage import ChatMessage

CHAT_COLUMNS = "id, game_id, user_id, name, role, text, at, at_seq"
INSERT_CHAT = (
    "INSERT INTO chat (game_id, user_id, name, role, text, at, at_seq)"
    " VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id"
)
NO_LIMIT = 1_000_000_000
NO_END = 2**62  # above every message id
SELECT_CHAT = (
    f"SELECT {CHAT_COLUMNS} FROM chat WHERE game_id = ? AND id > ? AND id < ? AND at_seq >= ?"
    " ORDER BY id DESC LIMIT ?"
)
SELECT_MESSAGE = f"SELECT {CHAT_COLUMNS} FROM chat WHERE id = ?"
INSERT_BLOCK = (
    "INSERT INTO blocks (user_id, blocked, at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"
)
DELETE_BLOCK = "DELETE FROM blocks WHERE user_id = ? AND blocked = ?"
SELECT_BLOCKS = "SELECT blocked FROM blocks WHERE user_id = ? ORDER BY at, blocked"


def chat_arguments(
    game_id: str, after: int, at_seq: int | None, last: int | None, before: int | None = None
) -> tuple[Any, ...]:
    """SELECT_CHAT's arguments."""
    return (game_id, after, NO_END if before is None else before,
            -1 if at_seq is None else at_seq, NO_LIMIT if last is None else last)


def messages(rows: list[tuple[Any, ...]]) -> list[ChatMessage]:
    """SELECT_CHAT's rows (newest first) as messages, oldest first."""
    return [ChatMessage(*row) for row in reversed(rows)]
