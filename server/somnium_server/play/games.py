"""Games: the stored games, each cached in memory as a room with a single writer.

Every change goes through `GameService._commit`: under the room's lock, checked against the
version, written to storage (and committed) before anyone hears of it. The database is the
truth: several instances may share it, so a room is brought up to the stored game
(`catch_up`) when another instance wrote it (a VersionConflict, or a notice of a change), and
a game made elsewhere is read from the database when first asked for.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import math
import secrets
import time
from collections import deque
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

import orjson

from somnium_desktop.game import (
    Action,
    Concede,
    GameState,
    IllegalAction,
    TimeOut,
    action_from_dict,
    action_to_dict,
    apply,
    event_to_dict,
    new_game,
    replay,
    state_from_dict,
    state_to_dict,
    view_of,
    view_to_dict,
)
from somnium_server.api.apierror import ApiError, illegal
from somnium_server.api.models import ActRequest, ComputerOpponent, PersonOpponent
from somnium_server.live import peers
from somnium_server.live.events import StreamHub, Subscriber, frame
from somnium_server.live.presence import Attendance, Timing, clock, on_clock
from somnium_server.play import clocks
from somnium_server.play.computer import ComputerRunner, Computers, choose
from somnium_server.play.lobby import Lobby
from somnium_server.play.ratings import RatedGame, Rating, score_of_first
from somnium_server.play.rooms import GameRoom, Seat, event_frame, missed_since, new_game_id
from somnium_server.storage import (
    GameRecord,
    GameUpdate,
    Storage,
    StoredAction,
    StoredEvent,
    User,
    VersionConflict,
)

log = logging.getLogger("somnium_server.play.games")

COMPUTER_USER = "computer"
# The server's own actions (a computer's, a claimed win's) are stored under ids with a "/",
# which a player's action id may not hold (models.ActRequest): the two never clash.

# The full state is stored every this many actions (and when a game ends); in between an
# action writes only its own row, and loading replays the actions after the snapshot.
SNAPSHOT_EVERY = 32
# With several instances, one drives a game's computers: it holds a lease this many seconds,
# renewed at each move; the others, woken too, take over once it has run out.
COMPUTER_LEASE = 3.0
HISTORY_GRACE = 600.0  # seconds a finished game's events and answers stay in memory
SEEN_EVERY = 5.0  # seconds between two notes in storage of the players whose streams are open


class GameService:
    """Creates, joins, plays and replays games; the only writer of game state."""

    def __init__(
        self,
        storage: Storage,
        lobby: Lobby,
        hub: StreamHub,
        computers: Computers,
        *,
        event_window: int,
        computer_pause: float,
        observer_flush: float,
        timing: Timing | None = None,
        clock_min: int = 10,
    ) -> None:
        self.storage = storage
        self.lobby = lobby
        self.hub = hub
        self.computers = computers
        self.event_window = event_window
        self.observer_flush = observer_flush
        self.timing = timing or Timing()
        self.clock_min = clock_min  # the shortest per-move clock offered (seconds)
        self.attendance = Attendance()
        self.tables: dict[str, set[str]] = {}  # user id -> the unfinished games they sit at
        self.rooms: dict[str, GameRoom] = {}
        self.history_grace = HISTORY_GRACE
        self.runner = ComputerRunner(computer_pause, self._computer_move)
        self._notices: set[asyncio.Task[None]] = set()
        # set by chat.py's ChatService: hears the chat notices (peers.CHAT_KINDS)
        self.chat_heard: Callable[[str, str], None] | None = None

    # -- start and stop -----------------------------------------------------------------------
    async def load(self) -> None:
        """Bring every stored game back; computers resume the turns that are theirs."""
        for record in await self.storage.list_games():
            room = GameRoom.from_record(record, self.event_window)
            if record.snapshot_version < record.version:
                room.state = await stored_state(self.storage, record)
            if record.status != "finished":  # finished ones: on demand (ensure_history)
                await self._load_history(room)
            await self._read_rating_changes(room)
            _stored_times(room)
            self.rooms[room.id] = room
            self._seat_index(room, set())
        await self._recall(list(self.tables))
        for room in self.rooms.values():
            self._presence_changed(room)
            self._wake_computer(room)

    async def stop(self) -> None:
        await self.runner.stop()
        if self._notices:  # (notes of streams just closed among them)
            await asyncio.wait(set(self._notices), timeout=2.0)
        if self.attendance.streams:  # those here until the server stopped
            with contextlib.suppress(Exception):
                await self.storage.mark_seen(list(self.attendance.streams), time.time())

    # -- reading ------------------------------------------------------------------------------
    async def find(self, game_id: str, fresh: bool = False) -> GameRoom:
        """The game's room, read from the database if it was made by another instance;
        `fresh`: brought up to the stored game first when instances share the database."""
        room = self.rooms.get(game_id.upper())
        if room is not None:
            if fresh and self.storage.shared and room.status != "finished":
                async with room.lock:
                    await self.catch_up(room)
            if fresh and clocks.overdue(room, time.time()):  # read: the clock is judged too
                await self.time_out(room.id)
            return room
        record = await self.storage.get_game(game_id.upper())
        if record is None:
            raise ApiError(404, "unknown_game", f"there is no game {game_id}")
        return await self._adopt(record)

    async def _adopt(self, record: GameRecord) -> GameRoom:
        """Keep a stored game this instance did not have as a room (once, if raced)."""
        room = GameRoom.from_record(record, self.event_window)
        if record.snapshot_version < record.version:
            room.state = await stored_state(self.storage, record)
        if record.status != "finished":
            await self._load_history(room)
        await self._read_rating_changes(room)
        _stored_times(room)
        await self._recall(list(_seated(room)))
        known = self.rooms.get(room.id)
        if known is not None:  # adopted meanwhile by another request
            return known
        self.rooms[room.id] = room
        room.elsewhere = self.attendance.peers.observers(room.id)
        self._seat_index(room, set())
        self._presence_changed(room)
        self._wake_computer(room)
        return room

    def notice(self, game_id: str, version: int) -> None:
        """A notice from the database: another instance committed `version` of a game."""
        self._spawn(self.changed(game_id, version))

    def lobby_moved(self) -> None:
        self.lobby.moved()

    def resync(self) -> None:
        """Notices may have been missed (the listening connection was lost): every
        unfinished game is compared with the database."""
        for room in list(self.rooms.values()):
            if room.status != "finished":
                self.notice(room.id, room.version + 1)

    async def changed(self, game_id: str, version: int) -> None:
        """Another instance committed `version` of a game: bring this instance's room (and
        its streams) up to it; a game new here joins this instance's lobby list. (The lobby's
        events come through the database: the instance that made the change told them.)"""
        room = self.rooms.get(game_id)
        if room is None:
            record = await self.storage.get_game(game_id)
            if record is not None and game_id not in self.rooms:
                await self._adopt(record)
            return
        if room.version >= version:
            return
        async with room.lock:
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
        if [a.version for a in actions] == list(range(room.version + 1, record.version + 1)):
            state = replay(room.state, ((a.seat, action_from_dict(a.action)) for a in actions))
        else:  # a change other than an action (a join, a rematch) stored a snapshot
            state = await stored_state(self.storage, record)
        seated = _seated(room)
        began = room.status == "waiting" and record.status == "playing"
        room.seats = [Seat(**s) for s in record.seats]
        room.status, room.meta, room.state = record.status, record.meta, state
        if began:  # (a join through another instance)
            _stored_times(room)
            await self._recall(list(_seated(room) - seated))
        room.version, room.seq = record.version, record.seq
        room.snapshot = (record.snapshot_version, record.state)
        room.deadline = record.deadline
        answers = _answers(events) if any(not a.result for a in actions) else {}
        room.actions.update(
            {a.action_id: (a.user_id, a.result or answers[a.version]) for a in actions}
        )
        room.remember(events)
        self._clock_moved(room)
        self._seat_index(room, seated)
        self._presence_changed(room)
        if room.status == "finished":
            await self._read_rating_changes(room)
            self._let_go_later(room)
        self._wake_computer(room)  # (the lease decides which instance moves)
        return True

    def newest_first(self) -> Iterator[dict[str, Any]]:
        """Lobby lines, newest game first (built as they are read)."""
        return (room.summary() for room in reversed(self.rooms.values()))

    async def ensure_history(self, room: GameRoom) -> None:
        """Reload a finished game's recent events and action answers if they were let go."""
        if room.status == "finished" and not room.window and room.seq:
            await self._load_history(room)
            self._let_go_later(room)

    async def _load_history(self, room: GameRoom) -> None:
        """The recent events (for Last-Event-ID resume) and the answers given (for retries)."""
        actions = await self.storage.get_actions(room.id)
        rebuild = any(not a.result for a in actions)
        after = 0 if rebuild else max(0, room.seq - self.event_window)
        events = await self.storage.get_events(room.id, after=after)
        if room.window:  # loaded by someone else meanwhile
            return
        answers = _answers(events) if rebuild else {}
        room.window.extend(
            (event.seq, event_frame(event)) for event in events
            if event.seq > room.seq - self.event_window
        )
        room.actions.update(
            {a.action_id: (a.user_id, a.result or answers[a.version]) for a in actions}
        )

    def _let_go_later(self, room: GameRoom) -> None:
        """A finished game keeps its history in memory a while, then only in storage."""
        asyncio.get_running_loop().call_later(self.history_grace, self._let_go, room)

    @staticmethod
    def _let_go(room: GameRoom) -> None:
        if room.status == "finished":
            room.window.clear()
            room.actions.clear()

    async def log(self, game_id: str) -> bytes:
        room = await self.find(game_id)
        events = await self.storage.get_events(room.id)
        return orjson.dumps([event.data for event in events])

    async def replay(self, game_id: str) -> bytes:
        """The public view after every action of a finished game, rebuilt by the engine."""
        room = await self.find(game_id)
        if room.status != "finished":
            raise ApiError(409, "game_not_finished", "replays open once the game has ended")
        state = state_from_dict(room.initial_state)
        actions = await self.storage.get_actions(room.id)
        start_version = actions[0].version - 1 if actions else room.version
        steps: list[dict[str, Any]] = [
            {"version": start_version, "seat": None, "action": None,
             "view": view_to_dict(view_of(state))}
        ]
        for stored in actions:
            state, _ = apply(state, stored.seat, action_from_dict(stored.action))
            steps.append({"version": stored.version, "seat": stored.seat,
                          "action": stored.action, "view": view_to_dict(view_of(state))})
        return orjson.dumps({"game_id": room.id, "steps": steps})

    # -- creating, joining, leaving -------------------------------------------------------------
    def _seat_for(self, kind: str, level: str | None, user: User | None) -> Seat:
        if kind == "computer":
            offered = self.computers.available()
            if level is None or level not in offered:
                known = ", ".join(offered) or "none"
                raise ApiError(
                    422, "unknown_level", f"no computer level {level!r} (offered: {known})"
                )
            return Seat("computer", name=f"Computer ({offered[level]})", level=level)
        if user is None:
            return Seat("open")
        return Seat("person", user_id=user.id, name=user.display_name)

    async def create(self, user: User, request: PersonOpponent | ComputerOpponent) -> GameRoom:
        host = (
            self._seat_for("computer", request.host_level, None)
            if request.host_level is not None
            else self._seat_for("person", None, user)
        )
        level = request.level if isinstance(request, ComputerOpponent) else None
        other = self._seat_for(request.opponent, level, None)
        # only games between two people are rated
        rated = isinstance(request, PersonOpponent) and request.rated and host.kind == "person"
        if request.odds and rated:
            raise ApiError(422, "odds_in_rated_game",
                           "the odds are never shown in a rated game: create a casual one")
        move_seconds = self._move_seconds(request.move_seconds)
        return await self._open_game(request.name, user.id, [host, other], rated, move_seconds,
                                     odds=request.odds)

    def _move_seconds(self, asked: int | None) -> int | None:
        """The time control asked for at Create, checked against this server's shortest."""
        shortest = self.clock_min
        if asked is not None and not shortest <= asked <= clocks.MAX_MOVE_SECONDS:
            raise ApiError(422, "bad_clock", f"a move clock is {shortest} to "
                           f"{clocks.MAX_MOVE_SECONDS} seconds, not {asked}")
        return asked

    async def _with_ratings(self, seats: list[Seat]) -> list[Seat]:
        """The seats with each person's rating as they sit down (shown beside their name)."""
        people = [seat.user_id for seat in seats if seat.kind == "person" and seat.user_id]
        found = await self.storage.get_ratings(people) if people else {}
        return [
            dataclasses.replace(seat, rating=found.get(seat.user_id, Rating()).public())
            if seat.kind == "person" and seat.user_id else seat
            for seat in seats
        ]

    async def _read_rating_changes(self, room: GameRoom) -> None:
        """What a finished rated game changed, for its detail."""
        if room.status == "finished" and room.meta.get("rated"):
            room.rating_changes = [
                {"seat": c.seat, "before": round(c.before), "after": round(c.after),
                 "change": round(c.after) - round(c.before)}
                for c in await self.storage.game_rating_changes(room.id)
            ]

    async def _open_game(
        self, name: str, created_by: str, seats: list[Seat], rated: bool = False,
        move_seconds: int | None = None, *, odds: bool = False,
    ) -> GameRoom:
        seats = await self._with_ratings(seats)
        game_id = new_game_id(self.rooms)
        state = new_game(secrets.randbits(63))
        playing = all(seat.kind != "open" for seat in seats)
        room = GameRoom(
            id=game_id, name=name, created_at=time.time(), created_by=created_by,
            seats=seats, status="playing" if playing else "waiting", state=state,
            initial_state=state_to_dict(state), version=1, seq=0,
            meta={"agreed": [], "rematch": None, "closed": False, "rated": rated,
                  "move_seconds": move_seconds, "odds": odds},
            bot_seed=secrets.randbits(31), window=deque(maxlen=self.event_window),
        )
        room.deadline = clocks.deadline_of(room.meta, room.status, state, seats, time.time())
        table_events: list[dict[str, Any]] = [
            {"type": "game_created", "name": name, "players": room.players()}
        ]
        if playing:
            table_events.append({"type": "game_started", "first": state.first})
        events = _number(table_events, room.seq, room.version, room.view())
        room.seq = events[-1].seq
        room.snapshot = (room.version, room.initial_state)
        await self.storage.create_game(room.record(), events)
        self.rooms[game_id] = room
        self._seat_index(room, set())
        room.remember(events)
        self._presence_changed(room)
        self.lobby.publish("game_created", {"game": room.summary()})
        self._wake_computer(room)
        return room

    async def join(self, user: User, game_id: str) -> GameRoom:
        room = await self.find(game_id)
        async with room.lock:
            if room.status != "waiting":
                raise ApiError(409, "game_started", "this game has already started")
            if room.seat_of(user.id) is not None:
                raise ApiError(409, "already_seated", "you already sit at this table")
            open_seats = [n for n, seat in enumerate(room.seats) if seat.kind == "open"]
            if not open_seats:
                raise ApiError(409, "seat_taken", "no seat is open at this table")
            now = clock()
            if any(room.presence.seat_state(seat, False, self.attendance, self.timing, now)[0]
                   for seat in room.seats):
                raise ApiError(409, "host_away",
                               "the host has left this table: you can join once they are back")
            seat = open_seats[0]
            seats = list(room.seats)
            (seats[seat],) = await self._with_ratings(
                [Seat("person", user_id=user.id, name=user.display_name)]
            )
            playing = all(s.kind != "open" for s in seats)
            events: list[dict[str, Any]] = [
                {"type": "seat_taken", "seat": seat,
                 "player": {"seat": seat, **seats[seat].to_dict()}}
            ]
            if playing:
                events.append({"type": "game_started", "first": room.state.first})
            # the start is stored with the game: the claim counts from it on every instance
            began: dict[str, Any] = (
                {"meta": {**room.meta, "started_at": time.time()}} if playing else {}
            )
            await self._commit(
                room, events, seats=seats, status="playing" if playing else "waiting", **began
            )
            now = clock()
            room.presence.seated[user.id] = now
            if playing:
                room.presence.started = now
            self._presence_changed(room)
        self.lobby.publish("seat_taken", {"game": room.summary()})
        self._wake_computer(room)
        return room

    async def leave(self, user: User, game_id: str) -> GameRoom:
        """Leave a game before it starts; a table with no person left is closed."""
        room = await self.find(game_id)
        async with room.lock:
            if room.status != "waiting":
                raise ApiError(409, "game_started", "you can only leave a game before it starts")
            seat = room.seat_of(user.id)
            if seat is None and user.id != room.created_by:
                raise ApiError(403, "not_a_player", "you do not sit at this table")
            seats = list(room.seats)
            events: list[dict[str, Any]] = []
            if seat is not None:
                seats[seat] = Seat("open")
                events.append({"type": "seat_left", "seat": seat})
            closed = not any(s.kind == "person" for s in seats)
            meta = dict(room.meta)
            if closed:
                meta["closed"] = True
                events.append({"type": "game_closed"})
            await self._commit(
                room, events, seats=seats, status="finished" if closed else "waiting", meta=meta
            )
            self._presence_changed(room)
        self.lobby.publish("game_closed" if closed else "seat_left", {"game": room.summary()})
        return room

    # -- playing -------------------------------------------------------------------------------
    async def act(self, user: User, game_id: str, request: ActRequest) -> bytes:
        """One player's action: exactly once per action id, only against the current version."""
        room = await self.find(game_id)
        if room.status == "finished":
            await self.ensure_history(room)
        async with room.lock:
            if request.version > room.version:  # another instance may have moved it on
                await self.catch_up(room)
            answered = _answered(room, user, request.action_id)
            if answered is not None:
                return answered
            seat = room.seat_of(user.id)
            if seat is None:
                raise ApiError(403, "not_a_player", "only the two seated players can act")
            if room.status == "waiting":
                raise ApiError(409, "game_not_started", "the game has not started yet")
            if clocks.overdue(room, time.time()) and await self._time_out_now(room):
                raise ApiError(409, "timed_out", "the clock of the player to move ran out: "
                               "the game is over", version=room.version)
            _check_version(room, request.version)
            # the action model's fields as a dict (a plain copy: model_dump walks the schema)
            action = action_from_dict(dict(request.action.__dict__))
            try:
                state, events = apply(room.state, seat, action)
            except IllegalAction as error:
                raise illegal(error) from None
            try:
                return await self._play(
                    room, seat, action, state, events, user.id, request.action_id
                )
            except VersionConflict:  # another instance wrote the game first (room caught up)
                return await self._act_again(user, room, request)

    async def _act_again(self, user: User, room: GameRoom, request: ActRequest) -> bytes:
        """After catching up with another instance's writes: the answer already given to
        this action id, or the stale version's 409 (never a second application)."""
        answered = _answered(room, user, request.action_id)
        if answered is not None:
            return answered
        _check_version(room, request.version)
        raise ApiError(409, "stale_version", "the game changed meanwhile: fetch it and retry",
                       version=room.version)

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
        events = _number(
            told + [event_to_dict(e) for e in engine_events], room.seq, version, view, view_json
        )
        result = _answer(version, events, view_json)
        was_turn = room.state.turn
        # the answer is not stored: a restart rebuilds it from the events (see _answers)
        stored = StoredAction(action_id, user_id, seat, version, action_to_dict(action), b"")
        notes = {} if meta is None else {"meta": meta}
        await self._commit(
            room, [], state=state, status="finished" if state.over else "playing",
            numbered=events, action=stored, rated=_rated(room, state),
            snapshot=state.over or version - room.snapshot[0] >= SNAPSHOT_EVERY, **notes,
        )
        if state.over:
            await self._read_rating_changes(room)
        room.actions[action_id] = (user_id, result)
        room.seed_view(view)
        if state.over:
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

    async def rematch(self, user: User, game_id: str) -> GameRoom:
        """Ask for a rematch; once every person at the table agreed, a new game opens."""
        room = await self.find(game_id)
        for _ in range(3):  # the other player's ask through another instance came first:
            try:  # the room caught up with it, so ask again (now both may have agreed)
                return await self._ask_rematch(user, room)
            except VersionConflict:
                continue
        return await self._ask_rematch(user, room)

    async def _ask_rematch(self, user: User, room: GameRoom) -> GameRoom:
        async with room.lock:
            if room.status != "finished" or room.meta.get("closed"):
                raise ApiError(409, "game_not_finished", "a rematch is offered once a game ends")
            seat = room.seat_of(user.id)
            if seat is None:
                raise ApiError(403, "not_a_player", "only the two seated players can ask")
            if room.meta.get("rematch"):
                return room
            agreed = set(room.meta.get("agreed", [])) | {seat}
            agreed |= {n for n, s in enumerate(room.seats) if s.kind == "computer"}
            meta = {**room.meta, "agreed": sorted(agreed)}
            events: list[dict[str, Any]] = [{"type": "rematch_offered", "seat": seat}]
            if len(agreed) == len(room.seats):
                new = await self._open_game(
                    room.name, room.created_by, [Seat(**s.to_dict()) for s in room.seats],
                    bool(room.meta.get("rated")), room.meta.get("move_seconds"),
                    odds=bool(room.meta.get("odds")),
                )
                meta["rematch"] = new.id
                events.append({"type": "rematch", "game_id": new.id})
            await self._commit(room, events, meta=meta)
        return room

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
        **changes: Any,
    ) -> None:
        """Store a change (caller holds the room's lock), then apply it and tell the listeners.

        A changed state is stored in full only with `snapshot`; otherwise the stored snapshot
        stays and `action` (which made the state) is what the storage keeps of the change.
        """
        version = room.version + 1
        events = (
            numbered if numbered is not None
            else _number(table_events, room.seq, version, room.view())
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
                rated=rated,
            ))
        except VersionConflict:  # another instance wrote first: the room takes its changes
            await self.catch_up(room)
            raise
        if record.snapshot_version == version:
            room.snapshot = (version, record.state)
        seated = _seated(room)
        for key, value in changes.items():
            setattr(room, key, value)
        if "seats" in changes or "status" in changes:
            self._seat_index(room, seated)
        room.version = version
        room.seq = seq
        room.deadline = deadline
        room.remember(events)
        self._clock_moved(room)

    # -- listeners: observers and the players' presence -------------------------------------------
    def watch(
        self, room: GameRoom, last_event_id: str | None, user: str | None, observer: bool
    ) -> Subscriber:
        """A stream of a game: missed events after Last-Event-ID, else a snapshot first.

        `user` signed the stream (None: nobody did); `observer` unless it is one of the game's
        players. Anyone signed in is present in all their games while any stream of theirs
        (this one, another game's, the lobby's) is open.
        """
        first = missed_since(room, last_event_id)
        if first is None:
            game = {"now": time.time(), **room.detail()}
            first = [frame("snapshot", {"type": "snapshot", "game": game}, room.seq)]
        subscriber = Subscriber(first)
        room.channel.add(subscriber, player=not observer)  # (a player's stream goes first)
        if observer:
            room.observers += 1
            self._observers_changed(room)
        if user is not None:
            self.attend(user)
        subscriber.push(frame("observers", {"type": "observers", "count": room.watchers()}))
        subscriber.push(self._presence_frame(room))
        if room.meta.get("move_seconds"):
            subscriber.push(clocks.clock_frame(room))
        return subscriber

    def unwatch(
        self, room: GameRoom, subscriber: Subscriber, user: str | None, observer: bool
    ) -> None:
        room.channel.discard(subscriber)
        if observer:
            room.observers -= 1
            self._observers_changed(room)
        if user is not None:
            self.unattend(user)

    def attend(self, user: str) -> None:
        """A signed stream of `user` opened (the lobby's or a game's)."""
        if self.attendance.opened(user):
            self._spawn(self.storage.mark_seen([user], time.time()))
            self._tell_peers(peers.HERE, user)
            self._attendance_changed(user)

    def unattend(self, user: str) -> None:
        if self.attendance.closed(user, clock()):
            self._spawn(self.storage.mark_seen([user], time.time()))
            self._tell_peers(peers.GONE, user)
            self._attendance_changed(user)

    async def _recall(self, users: list[str]) -> set[str]:
        """Read when these users were last seen, as stored (by any instance, before a
        restart): their absence counts from then. Those found."""
        if not users:
            return set()
        found = await self.storage.last_seen(users)
        for user, at in found.items():
            self.attendance.seen[user] = on_clock(at)
        return set(found)

    async def keep_seen(self) -> None:
        """Note in storage, now and then, who has a signed stream open here: if this
        instance dies, their absence counts from its last note."""
        while True:
            await asyncio.sleep(SEEN_EVERY)
            if self.attendance.streams:
                try:
                    await self.storage.mark_seen(list(self.attendance.streams), time.time())
                except Exception as error:
                    log.warning("could not note who is at the tables: %r", error)

    # -- the other instances' streams (live/peers.py) ----------------------------------------------
    def _tell_peers(self, kind: str, argument: str) -> None:
        if self.storage.shared:
            self._spawn(self.storage.announce(kind, argument))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run work for the other instances (or from them) beside the requests."""
        task = asyncio.get_running_loop().create_task(work)
        self._notices.add(task)
        task.add_done_callback(self._spawned_done)

    def _spawned_done(self, task: asyncio.Task[None]) -> None:
        self._notices.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("work shared with the other instances failed: %r", task.exception())

    def peer(self, instance: str, kind: str, argument: str) -> None:
        """Another instance told of its streams: presence and observer counts follow."""
        if kind in peers.CHAT_KINDS:  # (this instance's own chat notices too)
            if self.chat_heard is not None:
                self.chat_heard(kind, argument)
            return
        known = self.attendance.peers
        known.seen[instance] = clock()
        if kind == peers.HERE:
            was_here = self.attendance.here(argument)
            known.arrived(instance, argument)
            if not was_here:
                self._attendance_changed(argument)
        elif kind == peers.GONE:
            if known.left(instance, argument) and not self.attendance.here(argument):
                self.attendance.gone[argument] = clock()
                self._attendance_changed(argument)
        elif kind == peers.WATCH:
            game_id, _, count = argument.partition(":")
            known.watch(instance, game_id, int(count))
            self._elsewhere_changed(game_id)
        elif kind == peers.HELLO:  # a new instance: what this one holds
            for user in self.attendance.streams:
                self._tell_peers(peers.HERE, user)
            for room in self.rooms.values():
                if room.observers:
                    self._tell_peers(peers.WATCH, f"{room.id}:{room.observers}")

    def _elsewhere_changed(self, game_id: str) -> None:
        room = self.rooms.get(game_id)
        if room is not None:
            room.elsewhere = self.attendance.peers.observers(game_id)
            self._observers_changed(room)

    async def heartbeat(self) -> None:
        """While instances share the database: tell the others this one runs, and forget
        the streams of those not heard of for a while (killed, or cut off)."""
        if not self.storage.shared:
            return
        while True:
            try:
                await self.storage.announce(peers.ALIVE, "-")
            except Exception as error:  # the database is away: the others will expire us
                log.warning("could not tell the other instances this one runs: %r", error)
            now = clock()
            users, games = self.attendance.peers.expire(now)
            gone = [user for user in users if not self.attendance.here(user)]
            noted: set[str] = set()
            try:  # the dead instance's last note of them, as every instance reads it
                noted = await self._recall(gone)
            except Exception as error:
                log.warning("could not read when players were last seen: %r", error)
            for user in gone:
                if user not in noted:
                    self.attendance.gone[user] = now
                self._attendance_changed(user)
            for game_id in games:
                self._elsewhere_changed(game_id)
            await asyncio.sleep(peers.HEARTBEAT)

    def _attendance_changed(self, user: str) -> None:
        """The user came or went: the games they play may say so."""
        for game_id in list(self.tables.get(user, ())):
            self._presence_changed(self.rooms[game_id])

    def _seat_index(self, room: GameRoom, before: set[str]) -> None:
        """Keep `tables` right after a room's seats or status changed (`before`: who sat
        there, unfinished, before the change)."""
        now = _seated(room)
        for user in before - now:
            held = self.tables.get(user)
            if held is not None:
                held.discard(room.id)
                if not held:
                    del self.tables[user]
        for user in now - before:
            self.tables.setdefault(user, set()).add(room.id)

    def _observers_changed(self, room: GameRoom) -> None:
        """Gather observer-count changes into one event per game per flush interval."""
        if room.observer_flush is None:
            room.observer_flush = asyncio.get_running_loop().call_later(
                self.observer_flush, self._announce_observers, room
            )

    def _announce_observers(self, room: GameRoom) -> None:
        """Tell the game's streams the count of everyone watching it; the lobby and the
        other instances hear from the instance whose own count changed."""
        room.observer_flush = None
        if room.observers != room.told_observers:
            room.told_observers = room.observers
            self._tell_peers(peers.WATCH, f"{room.id}:{room.observers}")
            local = True
        else:
            local = False
        count = room.watchers()
        if count == room.announced_observers:
            return
        room.announced_observers = count
        room.channel.publish(frame("observers", {"type": "observers", "count": count}))
        if local:
            self.lobby.publish("observers", {"game_id": room.id, "observers": count})

    def _presence_changed(self, room: GameRoom) -> None:
        """Work out who is away now, tell the game's listeners if that changed, and wake up
        again when it next changes by itself."""
        presence = room.presence
        if presence.timer is not None:
            presence.timer.cancel()
            presence.timer = None
        now = clock()
        shown, next_at = presence.state(room.seats, room.status, self.attendance, self.timing, now)
        if next_at is not None:
            presence.timer = asyncio.get_running_loop().call_later(
                next_at - now + 0.005, self._presence_changed, room
            )
        if shown != presence.shown:
            told = bool(presence.shown)  # (not a game just made or loaded)
            presence.shown = shown
            presence.revision += 1
            room.channel.publish(self._presence_frame(room))
            if told and room.status != "finished":
                self.lobby.publish("presence", {"game": room.summary()})

    def _presence_frame(self, room: GameRoom) -> bytes:
        """Who is away, as an SSE message (not numbered: no part of the game's history). A
        player away from a running game comes with `claim_in`: the seconds before the other
        may claim the win (counted when sent)."""
        players = room.presence.players()
        if room.status == "playing":
            now = clock()
            for player in players:
                if player["away"] and not player["claimable"]:
                    _, _, at = room.presence.seat_state(
                        room.seats[player["seat"]], True, self.attendance, self.timing, now
                    )
                    player["claim_in"] = None if at is None else max(0, math.ceil(at - now))
        return frame("presence", {"type": "presence", "players": players})

    async def claim(self, user: User, game_id: str) -> GameRoom:
        """Claim the win from an opponent who left the table and stayed away long enough: the
        game is conceded for them. Asking again once it is won answers the game as it is."""
        room = await self.find(game_id)
        async with room.lock:
            seat = room.seat_of(user.id)
            if seat is None:
                raise ApiError(403, "not_a_player", "only the two seated players can claim")
            if room.status != "playing":
                if room.state.over and room.state.winner == seat:
                    return room
                raise ApiError(409, "game_not_running", "the game is not being played")
            other = 1 - seat
            away_user = room.seats[other].user_id
            if away_user is not None and not self.attendance.here(away_user):
                await self._recall([away_user])  # (another instance may have seen them since)
            now = clock()
            away, claimable, claim_at = room.presence.seat_state(
                room.seats[other], True, self.attendance, self.timing, now
            )
            if not away:
                raise ApiError(409, "opponent_here", "your opponent is at the table")
            if not claimable:
                wait = max(1, math.ceil((claim_at or now) - now))
                raise ApiError(
                    409, "too_early",
                    f"your opponent has not been away long enough: you may claim the win "
                    f"in {wait} s", headers={"Retry-After": str(wait)},
                )
            action = Concede()
            state, events = apply(room.state, other, action)
            await self._play(
                room, other, action, state, events, user.id, f"claim/{room.version + 1}",
                before={"type": "win_claimed", "seat": seat, "away": other},
                meta={**room.meta, "claimed_from": other},
            )
        return room

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

    def _clock_moved(self, room: GameRoom) -> None:
        """Tell the game's streams the clock of a timed game (after each change)."""
        if room.meta.get("move_seconds"):
            room.channel.publish(clocks.clock_frame(room))


def _stored_times(room: GameRoom) -> None:
    """A game read from storage: its players count as seen when it began (when it was
    created, while it waits), on this instance's clock."""
    began = room.meta.get("started_at", room.created_at) if room.status != "waiting" else None
    room.presence.since = on_clock(room.created_at if began is None else float(began))
    room.presence.started = room.presence.since


def _answered(room: GameRoom, user: User, action_id: str) -> bytes | None:
    """The answer given to an action id already applied, if any (409 if another's)."""
    seen = room.actions.get(action_id)
    if seen is None:
        return None
    if seen[0] != user.id:
        raise ApiError(409, "action_id_taken", "that action id was used by another player")
    return seen[1]


def _check_version(room: GameRoom, version: int) -> None:
    """409 unless an action is made against the version the game is at."""
    if version != room.version:
        raise ApiError(
            409, "stale_version", f"the game is at version {room.version}, not {version}",
            version=room.version,
        )


def _seated(room: GameRoom) -> set[str]:
    """The people seated at a game still to be played out."""
    if room.status == "finished":
        return set()
    return {seat.user_id for seat in room.seats if seat.kind == "person" and seat.user_id}


async def stored_state(storage: Storage, record: GameRecord) -> GameState:
    """The state a stored game is at: its snapshot, then the actions after it replayed."""
    state = state_from_dict(record.state)
    if record.snapshot_version == record.version:
        return state
    actions = await storage.get_actions(record.id, after=record.snapshot_version)
    return replay(state, ((a.seat, action_from_dict(a.action)) for a in actions))


def _answer(version: int, events: list[StoredEvent], view_json: bytes) -> bytes:
    """An action's answer, spliced from its events' and the view's JSON (encoded once)."""
    return b'{"version":%d,"seq":%d,"events":[%s],"view":%s}' % (
        version, events[-1].seq, b",".join(e.json() for e in events), view_json
    )


def _answers(events: list[StoredEvent]) -> dict[int, bytes]:
    """Each version's answer rebuilt from the stored events, byte for byte as first given."""
    by_version: dict[int, list[StoredEvent]] = {}
    for event in events:
        by_version.setdefault(event.data["version"], []).append(event)
    return {
        version: _answer(version, made, orjson.dumps(made[-1].data.get("view")))
        for version, made in by_version.items()
    }


def _number(
    table_events: list[dict[str, Any]], last_seq: int, version: int,
    view: dict[str, Any] | None = None, view_json: bytes | None = None,
) -> list[StoredEvent]:
    """Give events their sequence numbers; the last one carries the view after the change.

    Each is encoded to JSON here, once; `view_json`, if given, is `view` already encoded.
    """
    numbered = []
    for n, event in enumerate(table_events, start=1):
        data: dict[str, Any] = {"seq": last_seq + n, "version": version, "event": event}
        if n == len(table_events) and view is not None:
            raw = orjson.dumps(data)
            data["view"] = view
            if view_json is None:
                view_json = orjson.dumps(view)
            raw = raw[:-1] + b',"view":' + view_json + b"}"
        else:
            raw = orjson.dumps(data)
        numbered.append(StoredEvent(last_seq + n, data, raw))
    return numbered


def _rated(room: GameRoom, state: GameState) -> RatedGame | None:
    """The rated game that `state` finishes, if it does (two people, chosen rated)."""
    players = [seat.user_id for seat in room.seats if seat.kind == "person" and seat.user_id]
    if not state.over or not room.meta.get("rated") or len(players) != 2:
        return None
    return RatedGame(room.id, (players[0], players[1]), score_of_first(state.winner))
