"""Chat, blocks, when players were last seen, and analyses, in the SQLite file."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

from somnium_server.storage import ChatMessage, analysis_rows, chat_rows, rating_rows

T = TypeVar("T")


class SQLiteTable:
    """What is said and noted around the games, over the connection and group commit of
    SQLiteStorage (its subclass)."""

    _conn: sqlite3.Connection

    async def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        raise NotImplementedError  # SQLiteStorage's group commit

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
                      last: int | None = None, before: int | None = None) -> list[ChatMessage]:
        rows = self._conn.execute(
            chat_rows.SELECT_CHAT, chat_rows.chat_arguments(game_id, after, at_seq, last, before)
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
