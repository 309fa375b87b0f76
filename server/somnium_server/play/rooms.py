"""A game in memory: its seats, state, recent events, stored answers and listeners."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import orjson

from somnium_desktop.game import GameState, state_from_dict, state_to_dict, view_of, view_to_dict
from somnium_desktop.game.bots import Bot
from somnium_server.live.events import Channel, Subscriber, event_number, missed
from somnium_server.live.presence import Presence
from somnium_server.storage import GameRecord, StoredEvent

ID_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L: easy to read out and type
ID_LENGTH = 7


def new_game_id(taken: set[str] | dict[str, Any]) -> str:
    """A short id people can read out; unique among `taken`."""
    while True:
        game_id = "".join(secrets.choice(ID_ALPHABET) for _ in range(ID_LENGTH))
        if game_id not in taken:
            return game_id


@dataclass(slots=True)
class Seat:
    """Who sits in a seat: an open chair, a person or a computer of some level."""

    kind: str  # "open", "person" or "computer"
    user_id: str | None = None
    name: str | None = None
    level: str | None = None
    rating: dict[str, Any] | None = None  # a person's rating as they sat down

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "user_id": self.user_id, "name": self.name,
                "level": self.level, "rating": self.rating}


class LetGo(RuntimeError):
    """A finished game's state was asked of its room after the room let it go."""


@dataclass
class Whole:
    """What a room holds of its game's state while the game is in play or in use."""

    state: GameState
    initial_state: dict[str, Any]
    # the state as last stored and the version it was taken at (see GameRecord.state_version)
    snapshot: tuple[int, dict[str, Any]]

    @classmethod
    def of(cls, record: GameRecord, state: GameState) -> Whole:
        """The record's, with `state` the state it is at (its snapshot and later actions)."""
        return cls(state, record.initial_state, (record.snapshot_version, record.state))


@dataclass(slots=True)
class GameRoom:
    """A game in memory: its state, recent events, retried-action answers and listeners.

    Slotted, and what only a game in use needs (its lock, its listeners' channel, its
    recent events) is made on first use: a finished game's room holds its lobby line."""

    id: str
    name: str
    created_at: float
    created_by: str
    seats: list[Seat]
    status: str
    # the engine's state, the first state and the snapshot: in storage only once a finished
    # game is let go (None), read back by GameService.ensure_whole whenever one is needed
    whole: Whole | None
    version: int
    seq: int
    meta: dict[str, Any]
    bot_seed: int
    window_size: int  # the recent events kept for Last-Event-ID resume, at most
    actions: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    # whether `window` and `actions` hold the game's recent history (a finished game's is
    # let go after a while and read again on demand: games_catchup.ensure_history)
    history: bool = True
    let_go: asyncio.TimerHandle | None = None  # when a finished game's history is let go
    observers: int = 0  # watching through this instance
    signed: dict[Subscriber, str] = field(default_factory=dict)  # its signed streams' users
    elsewhere: int = 0  # watching through the other instances sharing the database
    announced_observers: int = 0
    told_observers: int = 0  # the count of `observers` the other instances last heard
    observer_flush: asyncio.TimerHandle | None = None
    bots: dict[int, Bot] = field(default_factory=dict)
    presence: Presence = field(default_factory=Presence)
    # the winner's seat of a game let go (its lobby line's `winner`; None: a draw, or not won)
    kept_winner: int | None = None
    # per seat, what a finished rated game changed (ratings.py)
    rating_changes: list[dict[str, Any]] | None = None
    # when the clock of the player to move runs out (clocks.py); None: no clock running
    deadline: float | None = None
    _view: tuple[int, dict[str, Any]] | None = None
    _detail: tuple[tuple[int, int, int, bool], bytes] | None = None
    _seat_dicts: tuple[list[Seat], list[dict[str, Any]]] | None = None
    _window: deque[tuple[int, bytes]] | None = None
    _lock: asyncio.Lock | None = None
    _channel: Channel | None = None

    @classmethod
    def from_record(cls, record: GameRecord, window: int) -> GameRoom:
        """The room as stored; its state is the snapshot's, before any actions made after it,
        and its history not read yet."""
        return cls(
            id=record.id, name=record.name, created_at=record.created_at,
            created_by=record.created_by, seats=[Seat(**s) for s in record.seats],
            status=record.status, whole=Whole.of(record, state_from_dict(record.state)),
            version=record.version, seq=record.seq, meta=record.meta,
            bot_seed=record.bot_seed, window_size=window, deadline=record.deadline,
            history=False,
        )

    @property
    def window(self) -> deque[tuple[int, bytes]]:
        """The recent events, (seq, SSE message), oldest first."""
        if self._window is None:
            self._window = deque(maxlen=self.window_size)
        return self._window

    @property
    def lock(self) -> asyncio.Lock:
        """Held while the game is changed (one writer per game)."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    def busy(self) -> bool:
        """Whether the game is being changed (its lock held), without making a lock."""
        return self._lock is not None and self._lock.locked()

    def lock_made(self) -> bool:
        """Whether the game's lock was made (a finished game untouched has none)."""
        return self._lock is not None

    @property
    def channel(self) -> Channel:
        """The game's listeners on this instance."""
        if self._channel is None:
            self._channel = Channel()
        return self._channel

    def publish(self, data: bytes) -> None:
        """Send a message to the game's listeners (none ever: no one to tell; a listener
        hears only what is published once it listens)."""
        if self._channel is not None:
            self._channel.publish(data)

    def forget_history(self) -> None:
        """Let the recent events and the answers given go (in storage only from now on),
        and the listeners' channel if none is left."""
        self._window = None
        self.actions.clear()
        self.history = False
        if self._channel is not None and not self._channel.subscribers:
            self._channel = None

    @property
    def state(self) -> GameState:
        """The engine's state now (deck and seed included: it never leaves the server)."""
        return self._whole().state

    @state.setter
    def state(self, state: GameState) -> None:
        self._whole().state = state

    @property
    def initial_state(self) -> dict[str, Any]:
        """The stored form of the state the game was dealt in (replays start there)."""
        return self._whole().initial_state

    @property
    def snapshot(self) -> tuple[int, dict[str, Any]]:
        """The state as last stored and the version it was taken at (GameRecord's)."""
        return self._whole().snapshot

    @snapshot.setter
    def snapshot(self, snapshot: tuple[int, dict[str, Any]]) -> None:
        self._whole().snapshot = snapshot

    def _whole(self) -> Whole:
        if self.whole is None:
            raise LetGo(f"game {self.id} is in storage only: GameService.ensure_whole first")
        return self.whole

    def winner(self) -> int | None:
        """The winner's seat, once the game is won (None: not over, or a draw)."""
        if self.whole is None:
            return self.kept_winner
        state = self.whole.state
        return state.winner if state.over else None

    def let_go_whole(self) -> None:
        """Keep only what the lobby's lines need of a finished game; the rest (state, first
        state, snapshot, the views and answers built of them) stays in storage."""
        self.kept_winner = self.winner()
        self.whole = None
        self.bots.clear()
        self.rating_changes = None
        self._view = self._detail = None

    def record(self, **changes: Any) -> GameRecord:
        """The stored form of this room, with some fields changed."""
        values: dict[str, Any] = {
            "id": self.id, "name": self.name, "created_at": self.created_at,
            "created_by": self.created_by, "status": self.status,
            "initial_state": self.initial_state, "version": self.version, "seq": self.seq,
            "meta": self.meta, "bot_seed": self.bot_seed, "deadline": self.deadline,
        }
        values.update(changes)
        if "seats" not in values:
            values["seats"] = self.seat_dicts()
        if "state" not in values:  # a snapshot of the state now
            values["state"] = state_to_dict(self.state)
            values["state_version"] = values["version"]
        return GameRecord(**values)

    def seat_dicts(self) -> list[dict[str, Any]]:
        """The seats in their stored form, worked out again only when they change (a change
        puts a new list in `seats`; a Seat is never changed in place)."""
        kept = self._seat_dicts
        if kept is None or kept[0] is not self.seats:
            kept = self._seat_dicts = (self.seats, [seat.to_dict() for seat in self.seats])
        return list(kept[1])

    def watchers(self) -> int:
        """Everyone watching the game, on every instance."""
        return self.observers + self.elsewhere

    def seat_of(self, user_id: str) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat.kind == "person" and seat.user_id == user_id:
                return index
        return None

    def view(self) -> dict[str, Any]:
        """The public view now (the only picture of the game that leaves the server)."""
        if self._view is None or self._view[0] != self.version:
            self._view = (self.version, view_to_dict(view_of(self.state)))
        return self._view[1]

    def seed_view(self, view: dict[str, Any]) -> None:
        """Keep a view already built for the current version."""
        self._view = (self.version, view)

    def players(self) -> list[dict[str, Any]]:
        return [{"seat": n, **seat} for n, seat in enumerate(self.seat_dicts())]

    def summary(self) -> dict[str, Any]:
        playing = self.status == "playing"
        return {
            "id": self.id, "name": self.name, "created_at": self.created_at,
            "version": self.version, "status": self.status, "players": self.players(),
            "turn": self.state.turn if playing else None, "observers": self.watchers(),
            "winner": self.winner(),
            "away": [away for away, _ in self.presence.shown],
            "rated": bool(self.meta.get("rated")),
            "odds": bool(self.meta.get("odds")),
            # the time control (seconds a decision, None: none) and when the clock of the
            # player to move runs out (the server's time; the detail says `now`)
            "move_seconds": self.meta.get("move_seconds"), "deadline": self.deadline,
        }

    def detail(self) -> dict[str, Any]:
        return {
            **self.summary(), "seq": self.seq, "view": self.view(),
            "rematch": {"agreed": list(self.meta.get("agreed", [])),
                        "game_id": self.meta.get("rematch")},
            "closed": bool(self.meta.get("closed")),
            "presence": self.presence.players(),
            "claimed_from": self.meta.get("claimed_from"),
            "rating_changes": self.rating_changes,
        }

    def detail_bytes(self) -> bytes:
        """The detail as JSON, with the server's time `now` (to count a deadline down by)."""
        key = (self.version, self.watchers(), self.presence.revision,
               self.rating_changes is not None)
        if self._detail is None or self._detail[0] != key:
            self._detail = (key, orjson.dumps(self.detail()))
        return b'{"now":%.3f,%s' % (time.time(), self._detail[1][1:])

    def remember(self, events: list[StoredEvent]) -> None:
        """Send events to the game's listeners and keep them for Last-Event-ID resume."""
        messages = []
        for event in events:
            message = event_frame(event)
            self.window.append((event.seq, message))
            messages.append(message)
        if messages:  # one write per listener for the whole change
            self.publish(b"".join(messages))


def event_frame(event: StoredEvent) -> bytes:
    """A numbered game event as SSE: its type as the event name, its seq as the id."""
    name = str(event.data["event"]["type"]).encode()
    return b"id: %d\nevent: %s\ndata: %s\n\n" % (event.seq, name, event.json())


def missed_since(room: GameRoom, last_event_id: str | None) -> list[bytes] | None:
    """What a stream resuming after `last_event_id` missed, or None: it needs a snapshot
    (no id, one that is not a plain number, or one this game's recent history cannot answer)."""
    last_seen = None if last_event_id is None else event_number(last_event_id)
    if last_seen is None:
        return None
    oldest = room.window[0][0] if room.window else None
    return missed(last_seen, room.seq, room.window, oldest)
