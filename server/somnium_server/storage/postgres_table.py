"""Chat, blocks, when players were last seen, and analyses, in PostgreSQL."""

from __future__ import annotations

import time
from collections.abc import Sequence

from somnium_server.live.peers import CHAT
from somnium_server.storage import ChatMessage, analysis_rows, chat_rows, rating_rows
from somnium_server.storage.postgres_pool import PooledDatabase, marked
from somnium_server.storage.postgres_schema import CHANNEL

CHAT_LOCK = 0x43_48_41_54  # pg_advisory_xact_lock(key, game): "CHAT", while a message is added


class PostgresTable(PooledDatabase):
    """What is said and noted around the games (PostgresStorage's part)."""

    instance: str  # the instance's name in its notices (PostgresStorage sets it)

    # -- chat and blocks ------------------------------------------------------------------------
    async def add_chat(
        self, game_id: str, user_id: str, name: str, role: str, text: str, at: float,
        at_seq: int,
    ) -> ChatMessage:
        """Numbered under the game's lock held to the commit, with the notice in the same
        transaction: a game's messages become visible, and are heard of, in id order."""
        async with self._transaction() as conn:
            await conn.execute(
                "SELECT pg_advisory_xact_lock(%s::int, hashtext(%s))", (CHAT_LOCK, game_id)
            )
            cursor = await conn.execute(
                marked(chat_rows.INSERT_CHAT), (game_id, user_id, name, role, text, at, at_seq)
            )
            row = await cursor.fetchone()
            assert row is not None  # RETURNING answers one row
            number = int(row[0])
            await conn.execute("SELECT pg_notify(%s, %s)", (
                CHANNEL, f"{self.instance} {CHAT} {game_id}:{number}"
            ))
        return ChatMessage(number, game_id, user_id, name, role, text, at, at_seq)

    async def chat_of(self, game_id: str, after: int = 0, at_seq: int | None = None,
                      last: int | None = None, before: int | None = None) -> list[ChatMessage]:
        arguments = chat_rows.chat_arguments(game_id, after, at_seq, last, before)
        return chat_rows.messages(await self._all(chat_rows.SELECT_CHAT, *arguments))

    async def chat_message(self, message_id: int) -> ChatMessage | None:
        row = await self._one(chat_rows.SELECT_MESSAGE, message_id)
        return ChatMessage(*row) if row else None

    async def block(self, user_id: str, blocked: str) -> None:
        await self._run(chat_rows.INSERT_BLOCK, user_id, blocked, time.time())

    async def unblock(self, user_id: str, blocked: str) -> None:
        await self._run(chat_rows.DELETE_BLOCK, user_id, blocked)

    async def blocked_by(self, user_id: str) -> list[str]:
        return [row[0] for row in await self._all(chat_rows.SELECT_BLOCKS, user_id)]

    # -- presence -------------------------------------------------------------------------------
    async def mark_seen(self, user_ids: Sequence[str], at: float) -> None:
        await self._run(
            "INSERT INTO last_seen (user_id, at) SELECT u, ? FROM unnest(?::text[]) AS u"
            " ON CONFLICT (user_id) DO UPDATE SET at = GREATEST(last_seen.at, excluded.at)",
            at, sorted(set(user_ids)),
        )

    async def last_seen(self, user_ids: Sequence[str]) -> dict[str, float]:
        rows = await self._all(
            "SELECT user_id, at FROM last_seen WHERE user_id = ANY(?)", list(set(user_ids))
        )
        return {user: float(at) for user, at in rows}

    # -- analyses -------------------------------------------------------------------------------
    async def get_analysis(self, game_id: str) -> bytes | None:
        row = await self._one(analysis_rows.SELECT_ANALYSIS, game_id)
        return str(row[0]).encode() if row else None

    async def add_analysis(
        self, game_id: str, data: bytes, accuracy: tuple[float | None, float | None]
    ) -> None:
        await self._run(
            analysis_rows.INSERT_ANALYSIS, game_id, data.decode(), *accuracy, time.time()
        )

    async def accuracies(
        self, game_ids: Sequence[str]
    ) -> dict[str, tuple[float | None, float | None]]:
        if not game_ids:
            return {}
        rows = await self._all(
            analysis_rows.SELECT_ACCURACIES + rating_rows.marks(len(game_ids)), *game_ids
        )
        return analysis_rows.accuracies(rows)
