"""The one storage interface the server talks to, and the records it stores.

Game logic only ever sees `Storage`; SQLite (sqlite_storage.py) is the default backend and a
PostgreSQL one can be added beside it without touching the games, the lobby or the routes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson


@dataclass(frozen=True, slots=True)
class User:
    """A person who can sit at a table: an id and the name others see."""

    id: str
    display_name: str
    created_at: float


@dataclass(frozen=True, slots=True)
class Identity:
    """One way of signing in as a user: a provider and that provider's subject."""

    provider: str
    subject: str
    user_id: str


@dataclass(frozen=True, slots=True)
class Session:
    """A bearer session; only the SHA-256 hash of its token is ever stored."""

    token_hash: str
    user_id: str
    created_at: float
    expires_at: float


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A game as stored: `state` is the engine's full state (deck and seed included).

    `state` is the state as it was at version `state_version` (None: at `version`). The
    actions numbered after it are not in it: replaying them with the engine gives the state
    now. A snapshot every few actions spares each action rewriting the whole state.
    """

    id: str
    name: str
    created_at: float
    created_by: str
    seats: list[dict[str, Any]]  # per seat: {"kind": "person"|"computer"|"open", ...}
    status: str  # "waiting", "playing" or "finished"
    state: dict[str, Any]
    initial_state: dict[str, Any]
    version: int
    seq: int
    meta: dict[str, Any]  # {"agreed": [seats], "rematch": game id or None, "closed": bool}
    bot_seed: int
    state_version: int | None = None

    @property
    def snapshot_version(self) -> int:
        """The version `state` was taken at."""
        return self.version if self.state_version is None else self.state_version


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One numbered entry of a game's event log (public data only).

    `raw`, when set, is `data` already encoded as JSON: encoded once, stored, streamed and
    answered as it is.
    """

    seq: int
    data: dict[str, Any]
    raw: bytes | None = field(default=None, compare=False)

    def json(self) -> bytes:
        return self.raw if self.raw is not None else orjson.dumps(self.data)


@dataclass(frozen=True, slots=True)
class StoredAction:
    """An accepted action: who, which, the version it made, and the exact answer given.

    `result` may be empty when the answer can be rebuilt from the events of its version (the
    server does so on load); older rows hold it in full.
    """

    action_id: str
    user_id: str
    seat: int
    version: int
    action: dict[str, Any]
    result: bytes


@dataclass(frozen=True, slots=True)
class GameUpdate:
    """Everything one accepted change writes, committed together or not at all.

    The stored game is replaced in full only if the record's state is a fresh snapshot
    (taken at the record's version). Otherwise the change is an action between snapshots:
    the stored snapshot, seats and meta stay, only status, version and seq are written, and
    the action is what records the change.
    """

    record: GameRecord
    expected_version: int
    events: Sequence[StoredEvent]
    action: StoredAction | None = None


class VersionConflict(Exception):
    """The stored game moved on since the version an update was made against."""


class Storage(Protocol):
    """Users, sessions, games, their event logs and actions. Writes are durable once awaited."""

    async def create_user(self, display_name: str) -> User: ...

    async def get_user(self, user_id: str) -> User | None: ...

    async def get_users(self, user_ids: Sequence[str]) -> dict[str, User]: ...

    async def rename_user(self, user_id: str, display_name: str) -> None: ...

    async def add_identity(self, identity: Identity) -> None: ...

    async def find_identity(self, provider: str, subject: str) -> Identity | None: ...

    async def create_session(self, session: Session) -> None: ...

    async def get_session(self, token_hash: str) -> Session | None: ...

    async def delete_session(self, token_hash: str) -> None: ...

    async def create_game(self, record: GameRecord, events: Sequence[StoredEvent]) -> None: ...

    async def update_game(self, update: GameUpdate) -> None:
        """Write a change made against `expected_version`; VersionConflict if stale."""
        ...

    async def get_game(self, game_id: str) -> GameRecord | None: ...

    async def list_games(self) -> list[GameRecord]: ...

    async def get_events(self, game_id: str, after: int = 0) -> list[StoredEvent]: ...

    async def get_actions(self, game_id: str, after: int = 0) -> list[StoredAction]:
        """The game's actions that made versions after `after`, in order."""
        ...

    async def close(self) -> None: ...
