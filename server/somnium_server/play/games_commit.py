"""The game service's one write path, the server's own moves, and finding a game."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import orjson

from somnium_desktop.game import (
    Action,
    GameState,
    TimeOut,
    action_to_dict,
    apply,
    event_to_dict,
    state_to_dict,
    view_of,
    view_to_dict,
)
from somnium_server.api.apierror import ApiError
from somnium_server.play import clocks
from somnium_server.play.computer import choose
from somnium_server.play.games_base import (
    COMPUTER_LEASE,
    COMPUTER_USER,
    SNAPSHOT_EVERY,
    log,
    numbered_events,
    rated_game,
    seated_people,
    spliced_answer,
)
from somnium_server.play.games_catchup import CatchUpPart
from somnium_server.play.ratings import RatedGame
from somnium_server.play.rooms import GameRoom
from somnium_server.storage import (
    GameRecord,
    GameUpdate,
    StoredAction,
    StoredEvent,
    VersionConflict,
)


class CommitPart(CatchUpPart):
    """Stores every change of a game before anyone hears of it."""

    # -- reading ------------------------------------------------------------------------------
    async def find(self, game_id: str, fresh: bool = False) -> GameRoom:
        """The game's room, read from the database if it was made by another instance;
        `fresh`: brought up to the stored game first when instances share the database.

        A finished game's room may be light (its state in storage only): what needs the state
        (its detail, a stream's snapshot, a replay built, an action) calls ensure_whole, the
        rest (its lobby line, chat, log, a stored analysis) goes without reading it back."""
        room = self.rooms.get(game_id.upper())
        if room is None:
            record = await self.storage.get_game(game_id.upper())
            if record is None:
                raise ApiError(404, "unknown_game", f"there is no game {game_id}")
            room = await self._adopt(record)
        elif fresh and self.storage.shared and room.status != "finished":
            async with room.lock:
                await self.catch_up(room)
        if fresh and clocks.overdue(room, time.time()):  # read: the clock is judged too
            await self.time_out(room.id)
        return room

    async def find_whole(self, game_id: str, fresh: bool = False) -> GameRoom:
        """The game's room (see find) with its state, read back if it was let go."""
        room = await self.find(game_id, fresh)
        await self.ensure_whole(room)  # (last: a finished game's may be let go again later)
        return room

    async def have(self, game_ids: list[str]) -> None:
        """Load the named games this instance does not hold yet (play/lobby.py tells of them
        next), a finished one light (its lobby line only); one that cannot be read now is
        left to its own notice."""
        for game_id in game_ids:
            if game_id.upper() in self.rooms:
                continue
            try:
                record = await self.storage.get_game(game_id.upper())
                if record is not None:
                    await self._adopt(record, light=True)
            except Exception as error:
                log.warning("could not read game %s for the lobby: %r", game_id, error)

    async def _play(
        self,
        room: GameRoom,
        seat: int,
        action: Action,
        state: GameState,
        engine_events: list[Any],
        user_id: str,
        action_id: str,
        before: dict[str, Any] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> bytes:
        """Commit an action the engine accepted; the answer is stored for retries. `before` is
        a table event told ahead of the engine's, and `meta` the table's new notes (a claimed
        win: both only with an action that ends the game, which stores a snapshot)."""
        version = room.version + 1
        view = view_to_dict(view_of(state))
        view_json = orjson.dumps(view)
        told = [before] if before is not None else []
        events = numbered_events(
            told + [event_to_dict(e) for e in engine_events], room.seq, version, view, view_json
        )
        result = spliced_answer(version, events, view_json)
        was_turn = room.state.turn
        # the answer is not stored: a restart rebuilds it from the events (see rebuilt_answers)
        stored = StoredAction(action_id, user_id, seat, version, action_to_dict(action), b"")
        notes: dict[str, Any] = {} if meta is None else {"meta": meta}
        await self._commit(
            room, [], state=state, status="finished" if state.over else "playing",
            numbered=events, action=stored, rated=rated_game(room, state),
            snapshot=state.over or version - room.snapshot[0] >= SNAPSHOT_EVERY, **notes,
        )
        room.actions[action_id] = (user_id, result)  # (kept before anything else is awaited)
        room.seed_view(view)
        if state.over:
            await self._read_rating_changes(room)
            self.lobby.publish("game_finished", {"game": room.summary()})
            self._presence_changed(room)
            self._let_go_later(room)
        elif state.turn != was_turn:
            self.lobby.publish("turn_passed", {"game": room.summary()})
        self._wake_computer(room)
        return result

    async def _computer_move(self, game_id: str) -> bool:
        """The computer to move takes one action; True if a computer is to move again."""
        room = self.rooms[game_id]
        if self.storage.shared and not await self.storage.hold_computer(game_id, COMPUTER_LEASE):
            return self._computer_to_move(room)  # another instance drives: ask again later
        async with room.lock:
            if not self._computer_to_move(room):
                return False
            seat = room.state.turn
            level = room.seats[seat].level or ""
            bot = room.bots.get(seat)
            if bot is None:
                bot = room.bots[seat] = self.computers.make(level, room.bot_seed + seat)
            # in a thread: a strong bot may think for tens of milliseconds, and the event loop
            # keeps serving everyone else meanwhile (the room's lock keeps the state still)
            action = await asyncio.to_thread(choose, bot, room.state, seat, room.id)
            state, events = apply(room.state, seat, action)
            # another instance may move first: the room then caught up (VersionConflict)
            with contextlib.suppress(VersionConflict):
                await self._play(
                    room, seat, action, state, events, COMPUTER_USER,
                    f"computer/{room.version + 1}",
                )
        return self._computer_to_move(room)


    # -- the one write path ---------------------------------------------------------------------
    async def _commit(
        self,
        room: GameRoom,
        table_events: list[dict[str, Any]],
        *,
        numbered: list[StoredEvent] | None = None,
        action: StoredAction | None = None,
        snapshot: bool = True,
        rated: RatedGame | None = None,
        opened: tuple[GameRecord, list[StoredEvent]] | None = None,
        **changes: Any,
    ) -> None:
        """Store a change (caller holds the room's lock), then apply it and tell the listeners.

        A changed state is stored in full only with `snapshot`; otherwise the stored snapshot
        stays and `action` (which made the state) is what the storage keeps of the change.
        """
        version = room.version + 1
        events = (
            numbered if numbered is not None
            else numbered_events(table_events, room.seq, version, room.view())
        )
        seq = events[-1].seq if events else room.seq
        stored_changes = dict(changes)
        if "seats" in stored_changes:
            stored_changes["seats"] = [s.to_dict() for s in stored_changes["seats"]]
        if "state" in stored_changes:
            # seats and meta are stored with snapshots only (see GameUpdate)
            if snapshot or action is None or "seats" in changes or "meta" in changes:
                stored_changes["state"] = state_to_dict(stored_changes["state"])
                stored_changes["state_version"] = version
            else:
                stored_changes["state_version"], stored_changes["state"] = room.snapshot
        deadline = clocks.deadline_of(
            changes.get("meta", room.meta), changes.get("status", room.status),
            changes.get("state", room.state), changes.get("seats", room.seats), time.time(),
        )  # every change of a game in play passes a decision to a player: a fresh clock
        record = room.record(version=version, seq=seq, deadline=deadline, **stored_changes)
        try:
            await self.storage.update_game(GameUpdate(
                record=record, expected_version=room.version, events=events, action=action,
                rated=rated, opened=opened,
            ))
        except VersionConflict:  # another instance wrote first: the room takes its changes
            await self.catch_up(room)
            raise
        if record.snapshot_version == version:
            room.snapshot = (version, record.state)
        seated = seated_people(room)
        for key, value in changes.items():
            setattr(room, key, value)
        if "seats" in changes or "status" in changes:
            self._seat_index(room, seated)
        room.version = version
        room.seq = seq
        room.deadline = deadline
        room.remember(events)
        self._clock_moved(room)

    # -- clocks (clocks.py) ------------------------------------------------------------------------
    async def time_out(self, game_id: str, version: int | None = None) -> bool:
        """The player to move loses on time if their clock ran out (at `version`, if given:
        what the sweeper found overdue; a game moved on since is left alone). True if this
        call timed them out."""
        room = await self.find(game_id)
        async with room.lock:
            if version is not None and version > room.version:
                await self.catch_up(room)
            if version is not None and version != room.version:
                return False
            return await self._time_out_now(room)

    async def _time_out_now(self, room: GameRoom) -> bool:
        """Time out the player to move if overdue (the caller holds the room's lock); the
        engine ends the game (a `timed_out` event). False if not overdue or another instance
        wrote the game first (the room then caught up)."""
        if not clocks.overdue(room, time.time()):
            return False
        seat = room.state.turn
        action = TimeOut()
        state, events = apply(room.state, seat, action)
        try:
            await self._play(
                room, seat, action, state, events, clocks.CLOCK_USER,
                f"clock/{room.version + 1}",
            )
        except VersionConflict:
            return False
        return True
