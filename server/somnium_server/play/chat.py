"""Chat at the table: messages written, cleaned and limited, stored, streamed to each
listener of the game (minus the authors they blocked), and passed to the other instances."""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections import deque
from typing import Any

import orjson

from somnium_server.api.apierror import ApiError
from somnium_server.live import peers
from somnium_server.live.events import Subscriber, event_number
from somnium_server.play.backoff import pauses
from somnium_server.play.games import GameService
from somnium_server.play.games_catchup import HEAR_RETRY_FIRST, HEAR_TRIES
from somnium_server.play.names import clean_name
from somnium_server.play.rooms import GameRoom
from somnium_server.storage import ChatMessage, Storage, User

log = logging.getLogger("somnium_server.play.chat")

LONGEST = 500  # characters a message may hold, once cleaned
HISTORY = 50  # messages a stream opened without Last-Event-ID starts with
# messages a resuming stream is sent at most of those it missed (the newest): more would not
# fit in what a stream may have waiting (events.MAX_BEHIND); GET .../chat pages the rest
CATCH_UP = 200
RECENT = 64  # messages published here kept to close the gap while a stream opens
MISSED = 0  # in the relay's inbox, no message's id: read what the streams here may have missed


def clean_text(raw: str) -> str:
    """`raw` cleaned as names are (names.py: format characters such as bidi overrides
    dropped, white space collapsed); 422 if that leaves nothing, more than LONGEST characters,
    or a control character. (The request's schema refuses most of these already.)"""
    text = clean_name(raw, LONGEST)
    if text is None:
        raise ApiError(
            422, "bad_message",
            f"a message holds 1 to {LONGEST} visible characters and no control characters",
        )
    return text


def split_event_id(last_event_id: str | None) -> tuple[str | None, int | None, bool]:
    """A game stream's Last-Event-ID as (the game event part, the last chat message seen,
    whether the chat part was given). Chat events are numbered `<game seq>.<message id>`."""
    if last_event_id is None:
        return None, None, False
    game, dot, chat = last_event_id.partition(".")
    if not dot:
        return game, None, False
    return game, event_number(chat), True


def message_dict(message: ChatMessage) -> dict[str, Any]:
    return {"id": message.id, "user_id": message.user_id, "name": message.name,
            "role": message.role, "text": message.text, "at": message.at}


def chat_frame(message: ChatMessage, seq: int) -> bytes:
    """A chat message as SSE: event `chat`, numbered after the game event last sent."""
    data = orjson.dumps({"type": "chat", "message": message_dict(message)})
    return b"id: %d.%d\nevent: chat\ndata: %s\n\n" % (seq, message.id, data)


class ChatService:
    """Posts, history and the chat part of every game stream on this instance."""

    def __init__(self, storage: Storage, games: GameService) -> None:
        self.storage = storage
        self.games = games
        self.readers: dict[str, dict[Subscriber, str | None]] = {}  # game -> stream -> viewer
        self.blocks: dict[str, set[str]] = {}  # viewer with a stream here -> blocked users
        self.streams: dict[str, int] = {}  # viewer -> their game streams open here
        self.recent: dict[str, deque[tuple[int, ChatMessage]]] = {}
        self.published = 0  # counts messages published here
        self.told: dict[Subscriber, int] = {}  # stream -> the newest message id it was sent
        self._inbox: deque[int] = deque()  # message ids heard of, to stream in that order
        self._relay: asyncio.Task[None] | None = None
        games.chat_heard = self.heard
        games.chat_missed = self.notices_lost

    # -- writing ------------------------------------------------------------------------------
    async def post(self, user: User, game_id: str, raw: str) -> ChatMessage:
        text = clean_text(raw)
        room = await self.games.find(game_id)
        role = "player" if room.seat_of(user.id) is not None else "watcher"
        message = await self.storage.add_chat(
            room.id, user.id, user.display_name, role, text, time.time(), room.seq
        )
        if not self.storage.shared:  # (shared: every instance streams it on its notice)
            self.publish(message)
        return message

    def heard(self, kind: str, argument: str) -> None:
        """Another instance stored a message (peers.CHAT): read it and stream it here; or
        a user blocked or unblocked another there: their streams here follow."""
        first, _, number = argument.partition(":")
        if kind != peers.CHAT:
            held = self.blocks.get(first)
            if held is not None:  # (else no stream of theirs is open here)
                (held.add if kind == peers.BLOCK else held.discard)(number)
            return
        message_id = event_number(number)
        if message_id is not None:
            self._relay_next(message_id)

    def _relay_next(self, message_id: int) -> None:
        """Queue a message id (or MISSED) for the relay, started if it is not running."""
        self._inbox.append(message_id)
        if self._relay is None or self._relay.done():
            self._relay = asyncio.get_running_loop().create_task(self._relay_all())

    async def _relay_all(self) -> None:
        """Read and stream the messages heard of, one at a time in the order heard: the
        order they were committed, which for each game is their ids' order.

        A message that cannot be read (the database away) is read again, first, after a
        pause: a later one sent ahead of it would move its streams past it for good (they
        resume after the newest message they were sent). After HEAR_TRIES it is given up.
        """
        waits = itertools.islice(pauses(HEAR_RETRY_FIRST), HEAR_TRIES)
        while self._inbox:
            message_id = self._inbox[0]
            try:
                if message_id == MISSED:
                    messages = await self._missed_unheard()
                else:
                    found = await self.storage.chat_message(message_id)
                    messages = [] if found is None else [found]
            except Exception as error:
                pause = next(waits, None)
                if pause is not None:
                    log.warning("could not read chat message %d (%r); trying again in %.1f s",
                                message_id, error, pause)
                    await asyncio.sleep(pause)
                    continue
                log.error("gave up reading chat message %d: %r", message_id, error)
                messages = []
            self._inbox.popleft()
            waits = itertools.islice(pauses(HEAR_RETRY_FIRST), HEAR_TRIES)
            for message in messages:
                self.publish(message)

    def notices_lost(self) -> None:
        """Chat notices may have been lost (the listening connection was): the messages of
        the games streamed here since the oldest each stream was sent are read, in their
        turn among the messages heard of."""
        self._relay_next(MISSED)

    async def _missed_unheard(self) -> list[ChatMessage]:
        found: list[ChatMessage] = []
        for game_id, readers in list(self.readers.items()):
            oldest = min((self.told.get(subscriber, 0) for subscriber in readers), default=0)
            found += await self.storage.chat_of(game_id, after=oldest, last=CATCH_UP)
        return found

    def publish(self, message: ChatMessage) -> None:
        """Send a message to every stream of its game here, except those blocking its author."""
        self.published += 1
        self.recent.setdefault(message.game_id, deque(maxlen=RECENT)).append(
            (self.published, message)
        )
        room = self.games.rooms.get(message.game_id)
        readers = self.readers.get(message.game_id)
        if room is None or not readers:
            return
        room.channel.settle()  # game events published before go first, to the crowd too
        data = chat_frame(message, room.seq)
        told = self.told
        for subscriber, viewer in readers.items():
            if told.get(subscriber, 0) < message.id:  # (read already when it opened: sent)
                told[subscriber] = message.id
                if not self.hides(viewer, message.user_id):
                    subscriber.push(data)

    def hides(self, viewer: str | None, author: str) -> bool:
        return viewer is not None and author in self.blocks.get(viewer, ())

    # -- reading --------------------------------------------------------------------------------
    async def history(
        self, game_id: str, viewer: str | None, last: int, before: int | None = None
    ) -> list[ChatMessage]:
        """The `last` messages (before the message `before`, when given), oldest first,
        less those of users `viewer` blocked."""
        room = await self.games.find(game_id)
        blocked = set(await self.storage.blocked_by(viewer)) if viewer is not None else set()
        found = await self.storage.chat_of(room.id, last=last, before=before)
        return [m for m in found if m.user_id not in blocked]

    async def missed(
        self, room: GameRoom, last_event_id: str | None, viewer: str | None
    ) -> tuple[list[ChatMessage], int]:
        """What a stream opening after `last_event_id` missed of the chat (the newest
        CATCH_UP of them; the last HISTORY messages without an id), and the publish count it
        was read at (for `join`)."""
        mark = self.published
        if viewer is not None:
            self.blocks[viewer] = set(await self.storage.blocked_by(viewer))
        game_part, chat_seen, chat_given = split_event_id(last_event_id)
        game_seen = None if game_part is None else event_number(game_part)
        if chat_given and chat_seen is not None:
            found = await self.storage.chat_of(room.id, after=chat_seen, last=CATCH_UP)
        elif game_seen is not None and not chat_given:
            found = await self.storage.chat_of(room.id, at_seq=game_seen, last=CATCH_UP)
        else:
            found = await self.storage.chat_of(room.id, last=HISTORY)
        return found, mark

    def join(
        self, room: GameRoom, subscriber: Subscriber, viewer: str | None,
        found: list[ChatMessage], mark: int,
    ) -> None:
        """Add an opened stream: the messages it missed first, then each new one."""
        seen = {m.id for m in found}
        later = [m for n, m in self.recent.get(room.id, ()) if n > mark and m.id not in seen]
        for message in sorted([*found, *later], key=lambda m: m.id):
            self.told[subscriber] = message.id
            if not self.hides(viewer, message.user_id):
                subscriber.push(chat_frame(message, room.seq))
        self.readers.setdefault(room.id, {})[subscriber] = viewer
        if viewer is not None:
            self.streams[viewer] = self.streams.get(viewer, 0) + 1

    def leave(self, room: GameRoom, subscriber: Subscriber) -> None:
        readers = self.readers.get(room.id)
        viewer = readers.pop(subscriber, None) if readers is not None else None
        self.told.pop(subscriber, None)
        if readers is not None and not readers:
            del self.readers[room.id]
        if viewer is not None:
            self.streams[viewer] -= 1
            if not self.streams[viewer]:  # their blocks are read again when one opens
                del self.streams[viewer]
                self.blocks.pop(viewer, None)

    # -- blocks ---------------------------------------------------------------------------------
    async def block(self, user: User, other: str) -> None:
        if other == user.id:
            raise ApiError(403, "block_self", "you cannot block yourself")
        if await self.storage.get_user(other) is None:
            raise ApiError(404, "unknown_user", f"there is no user {other}")
        await self.storage.block(user.id, other)
        self.blocks.setdefault(user.id, set()).add(other)
        if self.storage.shared:
            await self.storage.announce(peers.BLOCK, f"{user.id}:{other}")

    async def unblock(self, user: User, other: str) -> None:
        await self.storage.unblock(user.id, other)
        self.blocks.get(user.id, set()).discard(other)
        if self.storage.shared:
            await self.storage.announce(peers.UNBLOCK, f"{user.id}:{other}")

    async def blocked(self, user: User) -> list[User]:
        ids = await self.storage.blocked_by(user.id)
        found = await self.storage.get_users(ids)
        return [found[i] for i in ids if i in found]
