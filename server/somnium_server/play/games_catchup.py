"""The game service's reading: games loaded, caught up with other instances, history kept."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator
from typing import Any

from somnium_desktop.game import action_from_dict, replay, state_to_dict
from somnium_server.play import clocks
from somnium_server.play.backoff import pauses
from somnium_server.play.games_base import (
    log,
    rebuilt_answers,
    seated_people,
    stored_state,
    stored_times,
)
from somnium_server.play.games_presence import PresencePart
from somnium_server.play.rooms import GameRoom, Seat, Whole, event_frame
from somnium_server.storage import CarriedChange, GameRecord, StoredAction, StoredEvent

HEAR_RETRY_FIRST = 0.2  # seconds before a notice whose reading failed is read again
HEAR_TRIES = 10  # reads again before giving up (about half a minute)


class CatchUpPart(PresencePart):
    """Brings rooms up to the stored games; wakes the computers whose turn it is."""

    # -- start and stop -----------------------------------------------------------------------
    async def load(self) -> None:
        """Bring every stored game back; computers resume the turns that are theirs."""
        for record in await self.storage.list_games():
            room = GameRoom.from_record(record, self.event_window)
            if record.snapshot_version < record.version:
                room.state = await stored_state(self.storage, record)
            if record.status == "finished":  # the rest on demand (ensure_history, _whole)
                room.let_go_whole()
            else:
                await self._load_history(room)
            stored_times(room)
            self.rooms[room.id] = room
            self._seat_index(room, set())
        await self._recall(list(self.tables))
        for room in self.rooms.values():
            self._presence_changed(room)
            self._wake_computer(room)

    async def _adopt(self, record: GameRecord, light: bool = False) -> GameRoom:
        """Keep a stored game this instance did not have as a room (once, if raced); a
        finished one `light`: its lobby line only, as `load` keeps it."""
        room = GameRoom.from_record(record, self.event_window)
        light = light and record.status == "finished"
        if record.snapshot_version < record.version and not light:
            room.state = await stored_state(self.storage, record)
        if record.status != "finished":
            await self._load_history(room)
        if light:  # (the rest on demand: ensure_whole)
            room.let_go_whole()
        else:
            await self._read_rating_changes(room)
        stored_times(room)
        await self._recall(list(seated_people(room)))
        known = self.rooms.get(room.id)
        if known is not None:  # adopted meanwhile by another request, maybe at an older
            if known.version < record.version:  # version: the newer one is not lost
                async with known.lock:
                    await self.catch_up(known)
            return known
        self.rooms[room.id] = room
        if room.whole is not None and room.status == "finished":
            self._let_go_later(room)
        room.elsewhere = self.attendance.peers.observers(room.id)
        self._seat_index(room, set())
        self._presence_changed(room)
        self._wake_computer(room)
        return room

    def notice(
        self, game_id: str, version: int, change: CarriedChange | None = None
    ) -> None:
        """A notice from the database: another instance committed `version` of a game (an
        action's notice carries the `change`)."""
        self._spawn(self._hear(game_id, version, change))

    async def _hear(
        self, game_id: str, version: int, change: CarriedChange | None
    ) -> None:
        """Take a notice in. If that fails (the database away while the game is read), the
        game is read again after a pause that doubles each time, until the room has the
        newest version a failed notice named: no other notice may come to bring this
        instance's streams up to it. One such loop a game; it gives up after HEAR_TRIES (a
        longer outage cuts the listening connection too, and listening again compares every
        game with the database)."""
        try:
            await self.changed(game_id, version, change)
            return
        except Exception as error:
            log.warning("could not take in version %d of game %s (%r); reading it again",
                        version, game_id, error)
        if game_id in self._reading_again:  # (a loop reads it already: it reads this too)
            self._reading_again[game_id] = max(self._reading_again[game_id], version)
            return
        self._reading_again[game_id] = version
        try:
            for pause in itertools.islice(pauses(HEAR_RETRY_FIRST), HEAR_TRIES):
                await asyncio.sleep(pause)
                wanted = self._reading_again[game_id]
                room = self.rooms.get(game_id)
                if room is not None and room.version >= wanted:
                    return
                try:
                    await self.changed(game_id, wanted)
                    return
                except Exception as error:
                    log.warning("could not read game %s again (%r)", game_id, error)
            log.error("gave up reading game %s after %d tries: it catches up at its next "
                      "notice or request", game_id, HEAR_TRIES)
        finally:
            del self._reading_again[game_id]

    def lobby_moved(self) -> None:
        self.lobby.moved()

    def resync(self) -> None:
        """Notices may have been missed (this instance was not listening: at start, or its
        listening connection was lost): every game is compared with the database, and what
        the other instances told of their streams is forgotten, to be told again (the
        listener says `hello` next)."""
        self._spawn(self._resync())
        self._peers_forgotten()
        if self.chat_missed is not None:
            self.chat_missed()

    async def _resync(self) -> None:
        """Games made or changed unheard are read: a game made meanwhile joins the lobby."""
        for game_id, version in (await self.storage.game_versions()).items():
            room = self.rooms.get(game_id)
            if room is None or room.version < version:
                self.notice(game_id, version)

    async def changed(
        self, game_id: str, version: int, change: CarriedChange | None = None
    ) -> None:
        """Another instance committed `version` of a game: bring this instance's room (and
        its streams) up to it; a game new here joins this instance's lobby list. (The lobby's
        events come through the database: the instance that made the change told them.) A
        carried change is taken as it is when the room is just one version behind; else the
        room reads the game from the database."""
        room = self.rooms.get(game_id)
        if room is None:
            record = await self.storage.get_game(game_id)
            if record is None:
                return
            room = self.rooms.get(game_id)
            if room is None:
                await self._adopt(record)
                return
            # adopted meanwhile by a request, maybe at a version before this one: go on
        if room.version >= version:
            return
        async with room.lock:
            if room.version >= version:
                return  # (caught up meanwhile)
            if change is not None and room.version == version - 1 and room.whole is not None:
                await self._take_carried(room, version, change)
            else:
                await self.catch_up(room)

    async def catch_up(self, room: GameRoom) -> bool:
        """Bring a room up to its stored game (the caller holds its lock): the changes
        another instance committed are applied and their events told to this instance's
        listeners, in order. True if the room moved on."""
        record = await self.storage.get_game(room.id)
        if record is None or record.version <= room.version:
            return False
        events = [e for e in await self.storage.get_events(room.id, after=room.seq)
                  if e.seq <= record.seq]
        actions = [a for a in await self.storage.get_actions(room.id, after=room.version)
                   if a.version <= record.version]
        played = [a.version for a in actions] == list(range(room.version + 1, record.version + 1))
        if played and room.whole is not None:
            state = replay(room.state, ((a.seat, action_from_dict(a.action)) for a in actions))
        else:  # a change other than an action (a join, a rematch) stored a snapshot
            state = await stored_state(self.storage, record)
        seated = seated_people(room)
        began = room.status == "waiting" and record.status == "playing"
        room.seats = [Seat(**s) for s in record.seats]
        room.status, room.meta, room.whole = record.status, record.meta, Whole.of(record, state)
        if began:  # (a join through another instance)
            stored_times(room)
        self._moved_on(room, record.version, record.seq, record.deadline, events, actions)
        self._seat_index(room, seated)
        if began:  # (the room is whole first: a failed read leaves no version half taken)
            try:
                await self._recall(list(seated_people(room) - seated))
            except Exception as error:  # (they count as seen when the game began)
                log.warning("could not read when the players of game %s were last seen: "
                            "%r", room.id, error)
        self._presence_changed(room)
        if room.status == "finished":
            await self._read_rating_changes(room)
            self._let_go_later(room)
        self._wake_computer(room)  # (the lease decides which instance moves)
        return True

    async def _take_carried(self, room: GameRoom, version: int, change: CarriedChange) -> None:
        """Take an action another instance committed, as its notice carried it (the caller
        holds the room's lock; the room is at the version before): the engine plays the
        action on the room's state, the events are the stored ones. Between snapshots seats
        and meta did not change (see GameUpdate); an action stored with a snapshot carries
        them, and the room's snapshot becomes its new state, as stored."""
        action = change.action
        seated = seated_people(room)
        room.state = replay(room.state, [(action.seat, action_from_dict(action.action))])
        room.status = change.status
        if change.seats is not None and change.meta is not None:
            room.seats = [Seat(**seat) for seat in change.seats]
            room.meta = change.meta
            room.snapshot = (version, state_to_dict(room.state))
        self._moved_on(room, version, change.seq, change.deadline, change.events, [action])
        self._seat_index(room, seated)
        self._presence_changed(room)
        if room.status == "finished":
            await self._read_rating_changes(room)
            self._let_go_later(room)
        self._wake_computer(room)

    def _moved_on(
        self, room: GameRoom, version: int, seq: int, deadline: float | None,
        events: list[StoredEvent], actions: list[StoredAction],
    ) -> None:
        """The room's version, events and action answers move on to a committed change."""
        room.version, room.seq, room.deadline = version, seq, deadline
        answers = rebuilt_answers(events) if any(not a.result for a in actions) else {}
        room.actions.update(
            {a.action_id: (a.user_id, a.result or answers[a.version]) for a in actions}
        )
        room.remember(events)
        self._clock_moved(room)

    def newest_first(self) -> Iterator[dict[str, Any]]:
        """Lobby lines, newest game first (built as they are read)."""
        return (room.summary() for room in reversed(self.rooms.values()))

    def lines(self, status: str | None, player: str | None, limit: int) -> list[dict[str, Any]]:
        """At most `limit` lobby lines, newest first, of the games in `status` with `player`
        (a user id, or a name in any case) in a seat. Each game is looked at by its room's
        own fields: only the lines chosen are built."""
        name = player.casefold() if player is not None else None
        chosen: list[dict[str, Any]] = []
        for room in reversed(self.rooms.values()):
            if status is not None and room.status != status:
                continue
            if name is not None and not any(
                seat.user_id == player or (seat.name or "").casefold() == name
                for seat in room.seats
            ):
                continue
            chosen.append(room.summary())
            if len(chosen) >= limit:
                break
        return chosen

    def games_of(self, user_id: str) -> Iterator[dict[str, Any]]:
        """Lobby lines of the games the user sits at (or sat at), newest first."""
        return (room.summary() for room in reversed(self.rooms.values())
                if room.seat_of(user_id) is not None)

    async def ensure_history(self, room: GameRoom) -> None:
        """Reload a finished game's recent events and action answers if they were let go
        (and its state: see ensure_whole)."""
        while room.status == "finished" and not (room.history and room.whole is not None):
            if not room.history:  # (let go again while the state was read: read again)
                await self._load_history(room)
            await self.ensure_whole(room)
            self._let_go_later(room)

    async def ensure_whole(self, room: GameRoom) -> None:
        """Read a finished game's state back from storage if its room let it go (a finished
        game's state never changes: any stored version of it is the one the room had), and
        what a rated game changed. The room lets it go again a while after its last use."""
        while room.whole is None:  # (let go again while it was read: read again)
            record = await self.storage.get_game(room.id)
            self.read_back += 1
            if record is None:
                raise LookupError(f"game {room.id} is no longer stored")
            state = await stored_state(self.storage, record)
            await self._read_rating_changes(room)
            if room.whole is None:  # (else read back by another request meanwhile)
                room.whole = Whole.of(record, state)
            self._let_go_later(room)

    async def _load_history(self, room: GameRoom) -> None:
        """The recent events (for Last-Event-ID resume) and the answers given (for retries)."""
        actions = await self.storage.get_actions(room.id)
        rebuild = any(not a.result for a in actions)
        after = 0 if rebuild else max(0, room.seq - self.event_window)
        events = await self.storage.get_events(room.id, after=after)
        if room.history:  # loaded by someone else meanwhile
            return
        # (what another instance stored since the room's record was read comes by catch-up)
        events = [event for event in events if event.seq <= room.seq]
        actions = [action for action in actions if action.version <= room.version]
        answers = rebuilt_answers(events) if rebuild else {}
        loaded = [(event.seq, event_frame(event)) for event in events
                  if event.seq > room.seq - self.event_window]
        # the events remembered since the history was let go (a rematch asked) follow on
        newest = loaded[-1][0] if loaded else 0
        later = [(seq, message) for seq, message in room.window if seq > newest]
        room.window.clear()
        room.window.extend(loaded + later)
        room.actions.update(
            {a.action_id: (a.user_id, a.result or answers[a.version]) for a in actions}
        )
        room.history = True

    def _let_go_later(self, room: GameRoom) -> None:
        """A finished game keeps its history in memory a while (from its last use), then
        only in storage."""
        if room.let_go is not None:
            room.let_go.cancel()
        room.let_go = asyncio.get_running_loop().call_later(
            self.history_grace, self._let_go, room
        )

    def _let_go(self, room: GameRoom) -> None:
        room.let_go = None
        if room.busy():  # (a change of the game, a rematch, is being made)
            self._let_go_later(room)
        elif room.status == "finished":
            room.forget_history()
            room.let_go_whole()

    async def _read_rating_changes(self, room: GameRoom) -> None:
        """What a finished rated game changed, for its detail. The ratings themselves were
        counted with the game's end: if they cannot be read now, the detail goes without
        (and the game's end is told all the same)."""
        if room.status == "finished" and room.meta.get("rated"):
            try:
                changes = await self.storage.game_rating_changes(room.id)
            except Exception as error:
                log.warning("could not read the rating changes of game %s: %r", room.id, error)
                return
            room.rating_changes = [
                {"seat": c.seat, "before": round(c.before), "after": round(c.after),
                 "change": round(c.after) - round(c.before)}
                for c in changes
            ]

    @staticmethod
    def _computer_to_move(room: GameRoom) -> bool:
        return (
            room.status == "playing"
            and not room.state.over
            and room.seats[room.state.turn].kind == "computer"
        )

    def _wake_computer(self, room: GameRoom) -> None:
        if self._computer_to_move(room):
            self.runner.wake(room.id)

    def _clock_moved(self, room: GameRoom) -> None:
        """Tell the game's streams the clock of a timed game (after each change)."""
        if room.meta.get("move_seconds"):
            room.publish(clocks.clock_frame(room))
