"""Games: the stored games, each cached in memory as a room with a single writer.

Every change goes through `GameService._commit`: under the room's lock, checked against the
version, written to storage (and committed) before anyone hears of it. The database is the
truth: several instances may share it, so a room is brought up to the stored game
(`catch_up`) when another instance wrote it (a VersionConflict, or a notice of a change), and
a game made elsewhere is read from the database when first asked for.

`GameService` is built of parts, each extending the one before: its state and the helpers on
stored games (games_base.py), the listeners and presence (games_presence.py), reading and
catching up (games_catchup.py), the write path (games_commit.py); here, what the players ask:
tables created, joined, left, played on, claimed and rematched.
"""

from __future__ import annotations

import dataclasses
import math
import secrets
import time
from typing import Any

import orjson

from somnium_desktop.game import (
    Concede,
    IllegalAction,
    action_from_dict,
    apply,
    new_game,
    state_from_dict,
    state_to_dict,
    view_of,
    view_to_dict,
)
from somnium_server.api.apierror import ApiError, illegal
from somnium_server.api.models import ActRequest, ComputerOpponent, PersonOpponent
from somnium_server.live.presence import clock
from somnium_server.play import clocks
from somnium_server.play.games_base import (
    COMPUTER_USER,
    REPLAYS_KEPT,
    SNAPSHOT_EVERY,
    answer_given,
    check_version,
    numbered_events,
    stored_state,
)
from somnium_server.play.games_commit import CommitPart
from somnium_server.play.ratings import Rating
from somnium_server.play.rooms import GameRoom, Seat, Whole, new_game_id
from somnium_server.storage import StoredEvent, User, VersionConflict

__all__ = ["COMPUTER_USER", "SNAPSHOT_EVERY", "GameService", "stored_state"]


class GameService(CommitPart):
    """Creates, joins, plays and replays games; the only writer of game state."""


    async def log(self, game_id: str) -> bytes:
        room = await self.find(game_id)
        events = await self.storage.get_events(room.id)
        return orjson.dumps([event.data for event in events])

    async def replay(self, game_id: str) -> bytes:
        """The public view after every action of a finished game, rebuilt by the engine once
        (the REPLAYS_KEPT latest asked for are kept: a replay never changes)."""
        room = await self.find(game_id, fresh=True)  # (ended a moment ago on another instance)
        if room.status != "finished":
            raise ApiError(409, "game_not_finished", "replays open once the game has ended")
        key = (room.id, room.version)
        kept = self.replays.pop(key, None)
        if kept is None:
            kept = await self._built_replay(room)
        self.replays[key] = kept
        while len(self.replays) > REPLAYS_KEPT:
            self.replays.popitem(last=False)
        return kept

    async def _built_replay(self, room: GameRoom) -> bytes:
        await self.ensure_whole(room)
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

    async def _open_game(
        self, name: str, created_by: str, seats: list[Seat], rated: bool = False,
        move_seconds: int | None = None, *, odds: bool = False,
    ) -> GameRoom:
        room, events = await self._new_room(
            name, created_by, seats, rated, move_seconds, odds=odds
        )
        await self.storage.create_game(room.record(), events)
        self._opened(room, events)
        return room

    async def _new_room(
        self, name: str, created_by: str, seats: list[Seat], rated: bool,
        move_seconds: int | None, *, odds: bool,
    ) -> tuple[GameRoom, list[StoredEvent]]:
        """A new game's room and first events, not yet stored nor told."""
        seats = await self._with_ratings(seats)
        game_id = new_game_id(self.rooms)
        state = new_game(secrets.randbits(63))
        first = state_to_dict(state)
        playing = all(seat.kind != "open" for seat in seats)
        room = GameRoom(
            id=game_id, name=name, created_at=time.time(), created_by=created_by,
            seats=seats, status="playing" if playing else "waiting",
            whole=Whole(state, first, (1, first)), version=1, seq=0,
            meta={"agreed": [], "rematch": None, "closed": False, "rated": rated,
                  "move_seconds": move_seconds, "odds": odds},
            bot_seed=secrets.randbits(31), window_size=self.event_window,
        )
        room.deadline = clocks.deadline_of(room.meta, room.status, state, seats, time.time())
        table_events: list[dict[str, Any]] = [
            {"type": "game_created", "name": name, "players": room.players()}
        ]
        if playing:
            table_events.append({"type": "game_started", "first": state.first})
        events = numbered_events(table_events, room.seq, room.version, room.view())
        room.seq = events[-1].seq
        return room, events

    def _opened(self, room: GameRoom, events: list[StoredEvent]) -> None:
        """A new game is stored: it joins the rooms, its streams and the lobby."""
        self.rooms[room.id] = room
        self._seat_index(room, set())
        room.remember(events)
        self._presence_changed(room)
        self.lobby.publish("game_created", {"game": room.summary()})
        self._wake_computer(room)

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
            await self.ensure_whole(room)  # (a finished game's, for the engine's refusal)
            if request.version > room.version:  # another instance may have moved it on
                await self.catch_up(room)
            answered = answer_given(room, user, request.action_id)
            if answered is not None:
                return answered
            seat = room.seat_of(user.id)
            if seat is None:
                raise ApiError(403, "not_a_player", "only the two seated players can act")
            if room.status == "waiting":
                raise ApiError(409, "game_not_started", "the game has not started yet")
            if clocks.overdue(room, time.time()):
                if await self._time_out_now(room):
                    raise ApiError(409, "timed_out", "the clock of the player to move ran "
                                   "out: the game is over", version=room.version)
                # another instance wrote first, maybe this very action in time: the room
                # caught up with it
                answered = answer_given(room, user, request.action_id)
                if answered is not None:
                    return answered
            check_version(room, request.version)
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
        answered = answer_given(room, user, request.action_id)
        if answered is not None:
            return answered
        check_version(room, request.version)
        raise ApiError(409, "stale_version", "the game changed meanwhile: fetch it and retry",
                       version=room.version)

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
            await self.ensure_whole(room)  # (stored with the change: see GameRoom.record)
            if room.status != "finished" or room.meta.get("closed"):
                raise ApiError(409, "game_not_finished", "a rematch is offered once a game ends")
            seat = room.seat_of(user.id)
            if seat is None:
                raise ApiError(403, "not_a_player", "only the two seated players can ask")
            asked = seat in room.meta.get("agreed", [])
            if asked and not room.meta.get("rematch") and self.storage.shared:
                await self.catch_up(room)  # (the other's ask may have opened it elsewhere)
            if room.meta.get("rematch") or asked:
                return room  # (asked already)
            agreed = set(room.meta.get("agreed", [])) | {seat}
            agreed |= {n for n, s in enumerate(room.seats) if s.kind == "computer"}
            meta = {**room.meta, "agreed": sorted(agreed)}
            events: list[dict[str, Any]] = [{"type": "rematch_offered", "seat": seat}]
            if len(agreed) < len(room.seats):
                await self._commit(room, events, meta=meta)
                return room
            # everyone agreed: the new game is stored with this change or not at all (another
            # instance may have changed the table first)
            new, first = await self._new_room(
                room.name, room.created_by, [Seat(**s.to_dict()) for s in room.seats],
                bool(room.meta.get("rated")), room.meta.get("move_seconds"),
                odds=bool(room.meta.get("odds")),
            )
            meta["rematch"] = new.id
            events.append({"type": "rematch", "game_id": new.id})
            await self._commit(room, events, meta=meta, opened=(new.record(), first))
        self._opened(new, first)
        return room



    async def claim(self, user: User, game_id: str) -> GameRoom:
        """Claim the win from an opponent who left the table and stayed away long enough: the
        game is conceded for them. Asking again once it is won answers the game as it is."""
        room = await self.find(game_id)
        async with room.lock:
            await self.ensure_whole(room)  # (a game won already is answered as it is)
            seat = room.seat_of(user.id)
            if seat is None:
                raise ApiError(403, "not_a_player", "only the two seated players can claim")
            if clocks.overdue(room, time.time()):  # (the clock first: rule 19)
                await self._time_out_now(room)  # (or another instance did: caught up)
                if room.state.over and room.state.winner != seat:
                    raise ApiError(409, "timed_out", "your clock ran out: the game is over",
                                   version=room.version)
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

