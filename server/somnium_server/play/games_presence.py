"""The game service's listeners: streams, observers and who is at the tables, on all instances."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Coroutine
from typing import Any

from somnium_server.live import peers
from somnium_server.live.events import Subscriber, frame
from somnium_server.live.presence import clock, on_clock
from somnium_server.play import clocks, lobby
from somnium_server.play.games_base import SEEN_EVERY, ServiceBase, log, seated_people
from somnium_server.play.rooms import GameRoom, missed_since

# how old a game the lobby never told of may be for an instance to tell it, when another dies
RESTATE_RECENT = 120.0
RESTATE_WAIT = 5.0  # seconds to read the lobby's stored events before that, at most
RESTATE_SETTLE = 1.0  # seconds the running instances get to store what they published


class PresencePart(ServiceBase):
    """Who watches a game and who is at its table, here and on the other instances."""

    # -- listeners: observers and the players' presence -------------------------------------------
    def watch(self, room: GameRoom, last_event_id: str | None, user: str | None) -> Subscriber:
        """A stream of a game: missed events after Last-Event-ID, else a snapshot first.

        `user` signed the stream (None: nobody did); it is an observer's unless `user` sits at
        the table (which follows the seats: see `_reseat`). Anyone signed in is present in all
        their games while any stream of theirs (this one, another game's, the lobby's) is open.
        """
        observer = user is None or room.seat_of(user) is None
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
            room.signed[subscriber] = user
            self.attend(user)
        subscriber.push(frame("observers", {"type": "observers", "count": room.watchers()}))
        subscriber.push(self._presence_frame(room))
        if room.meta.get("move_seconds"):
            subscriber.push(clocks.clock_frame(room))
        return subscriber

    def unwatch(self, room: GameRoom, subscriber: Subscriber, user: str | None) -> None:
        if subscriber not in room.channel.players:  # (an observer, whatever it opened as)
            room.observers -= 1
            self._observers_changed(room)
        room.channel.discard(subscriber)
        room.signed.pop(subscriber, None)
        if user is not None:
            self.unattend(user)

    def _reseat(self, room: GameRoom) -> None:
        """The game's seats changed: a signed stream of one who sat down there is a player's
        from now on (no observer any more), and one of a player who left it an observer's."""
        changed = False
        for subscriber, user in room.signed.items():
            player = room.seat_of(user) is not None
            if room.channel.seat(subscriber, player):
                room.observers += -1 if player else 1
                changed = True
        if changed:
            self._observers_changed(room)

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
        if self.storage.shared and self.outbox.tell(kind, argument):
            self._spawn(self.outbox.send_all(self.storage.announce))

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
        returning = instance not in known.seen and kind != peers.HELLO
        known.seen[instance] = clock()
        if returning:  # first heard of, or again after it was taken as gone (it stalled, or
            # was cut off: what it holds was forgotten here): every instance says it again
            self._tell_peers(peers.HELLO, "-")
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

    def _peers_forgotten(self) -> None:
        """Forget the other instances' streams (a `gone` or `watch` sent while this one was
        not listening was lost): they tell them again when they hear this one's `hello`, in
        a few milliseconds. A user held only there counts as having left now, so no one shows
        as away meanwhile, and their absence, if real, counts from now."""
        known = self.attendance.peers
        users, games = list(known.users), list(known.watching)
        self.attendance.peers = peers.Peers()
        now = clock()
        for user in users:
            if not self.attendance.here(user):
                self.attendance.gone[user] = now
                self._attendance_changed(user)
        for game_id in games:
            self._elsewhere_changed(game_id)

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
            dead, users, games = self.attendance.peers.expire(now)
            if dead:  # (their lobby events not yet stored when they died are lost)
                self._spawn(self.restate_lobby(time.time() - RESTATE_RECENT))
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

    async def restate_lobby(self, since: float) -> None:
        """Tell the lobby again each game whose last change its streams never heard of, as
        this instance holds it: the instance that made the change stopped before its lobby
        event was stored. A game made at `since` or later that the lobby never told of is
        told too. A game found so is looked at again after RESTATE_SETTLE seconds, once what
        the running instances published meanwhile is stored; told then only if still untold.
        Every instance that finds one tells it; the lobby passes over the copies."""
        if not self.storage.shared or not await self._lobby_read():
            return
        found = [(room, room.summary()) for room in list(self.rooms.values())
                 if self._maybe_untold(room, since)]
        found = [(room, line) for room, line in found if self.lobby.untold(line, since)]
        if not found:
            return
        await asyncio.sleep(RESTATE_SETTLE)
        if not await self._lobby_read():
            return
        for room, line in found:
            if self.lobby.untold(line, since):
                log.info("the lobby never heard of version %d of game %s: told again",
                         line["version"], room.id)
                kind = "game_closed" if room.meta.get("closed") else lobby.RESTATED
                self.lobby.publish(kind, {"game": room.summary()})

    def _maybe_untold(self, room: GameRoom, since: float) -> bool:
        """A cheap first look: the room is newer than its line told last (or made at `since`
        or later, none told)."""
        told = self.lobby.told_version(room.id)
        return room.created_at >= since if told is None else room.version > told

    async def _lobby_read(self) -> bool:
        """The stored lobby events read to their end; False if they could not be."""
        try:
            await asyncio.wait_for(self.lobby.caught_up(), RESTATE_WAIT)
        except TimeoutError:  # (the reader goes on; the next death or start tries again)
            log.warning("the lobby's events could not be read: no game told again")
            return False
        return True

    def _attendance_changed(self, user: str) -> None:
        """The user came or went: the games they play may say so."""
        for game_id in list(self.tables.get(user, ())):
            self._presence_changed(self.rooms[game_id])

    def _seat_index(self, room: GameRoom, before: set[str]) -> None:
        """Keep `tables` right after a room's seats or status changed (`before`: who sat
        there, unfinished, before the change)."""
        now = seated_people(room)
        for user in before - now:
            held = self.tables.get(user)
            if held is not None:
                held.discard(room.id)
                if not held:
                    del self.tables[user]
        for user in now - before:
            self.tables.setdefault(user, set()).add(room.id)
        if now != before and room.signed:
            self._reseat(room)

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
        room.publish(frame("observers", {"type": "observers", "count": count}))
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
            room.publish(self._presence_frame(room))
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
