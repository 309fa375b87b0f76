"""The lobby: the list of games and its live stream (created, seat taken, finished, observers)."""

from __future__ import annotations

import asyncio
import logging
import secrets
import uuid
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from somnium_server.live.events import Channel, Subscriber, event_number, frame, missed
from somnium_server.play.backoff import pauses
from somnium_server.storage import LobbyLog

log = logging.getLogger("somnium_server.play.lobby")

SNAPSHOT_GAMES = 200
RETRY_FIRST = 0.1  # seconds before storing (or reading) lobby events again after a failure
STOP_WAIT = 5.0  # seconds a stopping server waits for its lobby events to be stored
# Lobby events reach the lobby's streams at most this many seconds apart, those published
# meanwhile together: under load every turn passed is an event to every open lobby, and one
# write to each per tenth of a second costs far less than one per event. Shared (PostgreSQL),
# an instance stores its lobby events at most this often too: one transaction, one notice and
# one read by each instance per tenth of a second, not per event.
LOBBY_PACE = 0.1
READY_WAIT = 2.0  # seconds the lobby waits for the games a batch names to load, at most
TOLD_GAMES = 10_000  # games whose last told line a shared lobby remembers (newest kept)
# A game's line told again by the instances that find the lobby never told its last change:
# the instance that made the change stopped before storing its lobby event.
RESTATED = "game_changed"
PRESENCE = "presence"
# a game's line as the lobby compares it: version, away, status, turn, winner, seats
Line = tuple[int, Any, Any, Any, Any, bytes]


class Lobby:
    """Numbers lobby events `<epoch>-<seq>`.

    With one instance (SQLite) the lobby's events live in memory only, so their numbers start
    again with each server start; the epoch, 64 random bits drawn at each start, keeps an id
    from before a restart (or from another server) from naming one of now: such an id is
    answered with a snapshot. Given a shared `LobbyLog` (PostgreSQL), every event is written
    to the database, numbered there under the database's one epoch, and told to this
    instance's streams once read back (`moved`): every instance tells the same events with
    the same ids, in the same order, across restarts.

    Instances store the events each published in their own order, so one game's events may
    be stored out of the game's order (a turn passed on one instance, the game conceded on
    another a moment later, stored first). Every event naming a game carries its version:
    one older than what was told of that game is passed over, and so is a `presence` event
    that says again what was told (every instance sees the same change). All instances read
    the same log in the same order, so all pass over the same events.
    """

    def __init__(self, window: int, shared: LobbyLog | None = None) -> None:
        self.channel = Channel(LOBBY_PACE)
        self.epoch = secrets.token_hex(8)
        self.seq = 0
        self.window: deque[tuple[int, bytes]] = deque(maxlen=window)
        self.shared = shared
        self._outbox: list[bytes] = []
        self._writer: asyncio.Task[None] | None = None
        self._reader: asyncio.Task[None] | None = None
        self._behind = False
        self._stored = -LOBBY_PACE  # when the last batch was stored (the loop's clock)
        self._told: dict[str, Line] = {}  # game id -> its line last told
        # set by the game service (shared only): loads the games that stored events name and
        # this instance does not hold yet, so that a snapshot, labelled with the id of the
        # last event told, holds every game told of
        self.ready: Callable[[list[str]], Awaitable[None]] | None = None

    async def open(self) -> None:
        """Take up the stored lobby where it is (shared only): its epoch and recent events."""
        if self.shared is not None:
            self.epoch = await self.shared.lobby_epoch()
            for seq, data in await self.shared.lobby_recent(self.window.maxlen or 0):
                event = lobby_event(data)
                if event is not None:
                    self._tell(seq, data, event)

    def publish(self, kind: str, data: dict[str, Any]) -> None:
        """Send a lobby event to every lobby stream (of every instance, if shared)."""
        data = {"type": kind, **data}
        if self.shared is not None:
            self._outbox.append(orjson.dumps(data))
            if self._writer is None or self._writer.done():
                self._writer = asyncio.get_running_loop().create_task(self._write())
            return
        self.seq += 1
        message = frame(kind, data, f"{self.epoch}-{self.seq}")
        self.window.append((self.seq, message))
        self.channel.publish(message)

    async def _write(self) -> None:
        """Store the waiting events, in the order published (one writer per instance), at
        most every LOBBY_PACE seconds.

        A batch that fails (the connection dropped, the database away) is written again,
        whole and first, after a pause that doubles each time: nothing is dropped and the
        order holds. Its key makes a retry of a batch whose commit did happen store nothing.
        """
        assert self.shared is not None
        loop = asyncio.get_running_loop()
        while self._outbox:
            wait = self._stored + LOBBY_PACE - loop.time()
            if wait > 0:  # what is published meanwhile joins the batch
                await asyncio.sleep(wait)
            batch, self._outbox = self._outbox, []
            key = uuid.uuid4().hex
            waits = pauses(RETRY_FIRST)
            while True:
                try:
                    await self.shared.add_lobby_events(batch, key)
                    self._stored = loop.time()
                    break
                except Exception as error:
                    pause = next(waits)
                    log.warning("could not store %d lobby events (%r); trying again in %.1f s",
                                len(batch), error, pause)
                    await asyncio.sleep(pause)

    def moved(self) -> None:
        """The stored lobby has new events: read them and tell this instance's streams."""
        self._behind = True
        if self._reader is None or self._reader.done():
            self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        """Tell the stored events after the last one told, until nothing new is heard of. A
        read that fails is made again after a pause (the events wait in the database); a
        row this server cannot read (another version's) is passed over."""
        assert self.shared is not None
        waits = pauses(RETRY_FIRST)
        while self._behind:
            self._behind = False
            try:
                rows = await self.shared.lobby_events_after(self.seq)
            except Exception as error:
                pause = next(waits)
                log.warning("could not read the lobby's events (%r); trying again in %.1f s",
                            error, pause)
                self._behind = True
                await asyncio.sleep(pause)
                continue
            waits = pauses(RETRY_FIRST)
            stored = [(seq, data, lobby_event(data)) for seq, data in rows]
            if self.ready is not None and stored:
                named_games = (named(event) for _, _, event in stored if event is not None)
                try:
                    await asyncio.wait_for(self.ready(list(dict.fromkeys(
                        game_id for game_id in named_games if game_id is not None
                    ))), READY_WAIT)
                except Exception as error:  # (told all the same: the games follow)
                    log.warning("could not load the games the lobby names: %r", error)
            for seq, data, event in stored:
                if event is None:
                    log.warning("a lobby event this server cannot read: %.80r", data)
                    self.seq = max(self.seq, seq)
                else:
                    self._tell(seq, data, event)

    def _tell(self, seq: int, data: bytes, event: dict[str, Any]) -> None:
        if seq <= self.seq:
            return
        self.seq = seq
        kind = str(event["type"])
        if self._outdated(kind, event.get("game")):
            return
        message = b"id: %s-%d\nevent: %s\ndata: %s\n\n" % (
            self.epoch.encode(), seq, kind.encode(), data
        )
        self.window.append((seq, message))
        self.channel.publish(message)

    def _outdated(self, kind: str, game: Any) -> bool:
        """True if a stored event's game line is older than the one told last, or a
        presence event (or a line restated) says only what was told last; else it is the
        game's line now."""
        if not (isinstance(game, dict) and isinstance(game.get("version"), int)
                and isinstance(game.get("id"), str)):
            return False
        line = line_of(game)
        told = self._told.pop(game["id"], None)
        if told is not None and (
            line[0] < told[0] or (kind in (PRESENCE, RESTATED) and line == told)
        ):
            self._told[game["id"]] = told
            return True
        self._told[game["id"]] = line  # (the latest at the end: the oldest are let go first)
        if len(self._told) > TOLD_GAMES:
            del self._told[next(iter(self._told))]
        return False

    async def caught_up(self) -> None:
        """Every event stored until now read and told (shared only)."""
        if self.shared is not None:
            self.moved()
            assert self._reader is not None
            await asyncio.shield(self._reader)

    def told_version(self, game_id: str) -> int | None:
        """The version of the game's line told last (shared only; None: none remembered)."""
        told = self._told.get(game_id)
        return None if told is None else told[0]

    def untold(self, game: dict[str, Any], since: float) -> bool:
        """True if this game line (the game as it is) says what the lobby's streams were
        never told: its status, turn, winner or seats changed after the line told last or,
        none remembered, the game was made at `since` or later (shared only)."""
        told = self._told.get(game["id"])
        if told is None:
            return bool(game["created_at"] >= since)
        line = line_of(game)
        return line[0] > told[0] and line[2:] != told[2:]

    async def stop(self) -> None:
        """Let the events published last reach the database (a while, if it is away)."""
        if self._writer is not None and not self._writer.done():
            try:
                await asyncio.wait_for(self._writer, STOP_WAIT)
            except TimeoutError:
                log.error("stopped before every lobby event was stored (the database is away)")

    def subscribe(
        self, last_event_id: str | None, snapshot: Callable[[], list[dict[str, Any]]]
    ) -> Subscriber:
        """A new lobby stream: the missed events if it can resume, else a snapshot first."""
        missed = self._missed(last_event_id)
        if missed is None:
            first = [
                frame("snapshot", {"type": "snapshot", "games": snapshot()},
                      f"{self.epoch}-{self.seq}")
            ]
        else:
            first = missed
        subscriber = Subscriber(first)
        self.channel.add(subscriber)
        return subscriber

    def _missed(self, last_event_id: str | None) -> list[bytes] | None:
        if not last_event_id:
            return None
        epoch, _, seq_text = last_event_id.partition("-")
        last_seen = event_number(seq_text)
        if epoch != self.epoch or last_seen is None:
            return None
        oldest = self.window[0][0] if self.window else None
        return missed(last_seen, self.seq, self.window, oldest)


def line_of(game: dict[str, Any]) -> Line:
    """What the lobby compares of a game's line (its version first)."""
    return (game["version"], game.get("away"), game.get("status"), game.get("turn"),
            game.get("winner"), orjson.dumps(game.get("players")))


def lobby_event(data: bytes) -> dict[str, Any] | None:
    """A stored lobby event, or None if it is none this server can tell (not JSON, no type)."""
    try:
        event = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    return event if isinstance(event, dict) and isinstance(event.get("type"), str) else None


def named(event: dict[str, Any]) -> str | None:
    """The id of the game a lobby event is about, if any."""
    game = event.get("game")
    found = game.get("id") if isinstance(game, dict) else event.get("game_id")
    return found if isinstance(found, str) else None
