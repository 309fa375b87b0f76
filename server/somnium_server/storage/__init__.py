"""The one storage interface the server talks to, and the records it stores.

Game logic and sign-in only ever see `Storage` (sign-in's part of it is `SigninStorage`,
with its records in signin_records.py);
SQLite (sqlite.py) is the default backend; PostgreSQL (postgres.py) is chosen
with `database_url` (backend.py picks). The games, the lobby, sign-in and the routes
see no difference.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from somnium_server.play.ratings import RatedGame, Rating
from somnium_server.storage.signin_records import (
    AuthRequest,
    CodeGrant,
    PendingLogin,
    Refresh,
    RefreshToken,
    SigninStorage,
)

__all__ = [
    "AnalysisStorage", "AuthRequest", "CarriedChange", "ChatMessage", "ChatStorage",
    "CodeGrant", "DatabaseUnavailable", "GameNotices", "GameRecord", "GameUpdate", "Identity",
    "LobbyLog", "PendingLogin", "RatingChange", "Refresh", "RefreshToken", "Session",
    "SigninStorage", "Storage", "StoredAction", "StoredEvent", "User", "VersionConflict",
]


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
    # when the clock of the player to move runs out (the server's time.time()); None: no
    # clock, or no person to move
    deadline: float | None = None

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
class CarriedChange:
    """An action another instance committed, as the notice of its commit carries it: enough
    for a room one version behind to take the change without reading the database."""

    status: str
    seq: int
    deadline: float | None
    action: StoredAction  # its result is empty: the answer is rebuilt from the events
    events: list[StoredEvent]
    # with an action whose commit stored a snapshot (every few actions, and the game's end):
    # the seats and meta stored with it, which such a change may also set; None otherwise
    seats: list[dict[str, Any]] | None = None
    meta: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class GameUpdate:
    """Everything one accepted change writes, committed together or not at all.

    The stored game is replaced in full only if the record's state is a fresh snapshot
    (taken at the record's version). Otherwise the change is an action between snapshots:
    the stored snapshot, seats and meta stay, only status, version, seq and deadline are
    written, and the action is what records the change.
    """

    record: GameRecord
    expected_version: int
    events: Sequence[StoredEvent]
    action: StoredAction | None = None
    # a rated game this change finishes: both ratings are updated in the same transaction
    rated: RatedGame | None = None
    # a game this change opens (a rematch), with its first events: stored in the same
    # transaction, so a change refused at its version leaves no game behind
    opened: tuple[GameRecord, Sequence[StoredEvent]] | None = None


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One player's rating before and after one rated game."""

    game_id: str
    user_id: str
    seat: int
    score: float
    before: float
    after: float
    deviation: float
    finished_at: float


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One message written at a table: who wrote it (player or watcher), when, and the text.

    `id` is numbered by the storage across all games; `at_seq` is the game's event number
    when it was written (a stream resuming after that event is sent the messages since).
    """

    id: int
    game_id: str
    user_id: str
    name: str
    role: str  # "player" or "watcher"
    text: str
    at: float
    at_seq: int


class ChatStorage(Protocol):
    """The messages written at tables, and who blocked whom."""

    async def add_chat(
        self, game_id: str, user_id: str, name: str, role: str, text: str, at: float,
        at_seq: int,
    ) -> ChatMessage:
        """Store a message; it comes back numbered."""
        ...

    async def chat_of(self, game_id: str, after: int = 0, at_seq: int | None = None,
                      last: int | None = None, before: int | None = None) -> list[ChatMessage]:
        """The game's messages numbered after `after` (or, given `at_seq`, written at or
        after that event) and before `before` when given, oldest first; only the `last`
        newest of them when given."""
        ...

    async def chat_message(self, message_id: int) -> ChatMessage | None: ...

    async def block(self, user_id: str, blocked: str) -> None:
        """`user_id` no longer sees `blocked`'s messages (blocking twice is one block)."""
        ...

    async def unblock(self, user_id: str, blocked: str) -> None: ...

    async def blocked_by(self, user_id: str) -> list[str]:
        """The users `user_id` blocked, in the order they were blocked."""
        ...


class GameNotices(Protocol):
    """Who hears of games changed by other instances sharing the database."""

    def notice(
        self, game_id: str, version: int, change: CarriedChange | None = None
    ) -> None:
        """Another instance committed `version` of the game (or made it: version 1); a plain
        action's notice carries the `change` itself."""
        ...

    def lobby_moved(self) -> None:
        """The lobby has new events (from any instance, this one included)."""
        ...

    def peer(self, instance: str, kind: str, argument: str) -> None:
        """Another instance told of its streams (live/peers.py names the kinds)."""
        ...

    def resync(self) -> None:
        """Some notices may have been lost: compare every game with the database, and forget
        what the other instances told of their streams (they tell it again on `hello`)."""
        ...


class LobbyLog(Protocol):
    """The lobby's events, numbered by a database several instances share."""

    async def lobby_epoch(self) -> str:
        """The database's lobby epoch: drawn once, the first part of every lobby event id."""
        ...

    async def add_lobby_events(self, events: list[bytes], key: str) -> None:
        """Store lobby events (JSON), numbered in the order given, after any stored; a
        batch whose `key` is stored already is not stored again (a retried write)."""
        ...

    async def lobby_events_after(self, after: int) -> list[tuple[int, bytes]]: ...

    async def lobby_recent(self, count: int) -> list[tuple[int, bytes]]:
        """The last `count` lobby events, oldest first."""
        ...


class VersionConflict(Exception):
    """The stored game moved on since the version an update was made against."""


class DatabaseUnavailable(RuntimeError):
    """The database the settings name cannot be reached or used (said at start-up)."""


class AnalysisStorage(Protocol):
    """The finished games' analyses, kept once computed (play/analyses.py)."""

    async def get_analysis(self, game_id: str) -> bytes | None:
        """The stored analysis of a game as JSON, if it has been computed."""
        ...

    async def add_analysis(
        self, game_id: str, data: bytes, accuracy: tuple[float | None, float | None]
    ) -> None:
        """Keep a game's analysis (a second one for the same game is ignored)."""
        ...

    async def accuracies(
        self, game_ids: Sequence[str]
    ) -> dict[str, tuple[float | None, float | None]]:
        """Each seat's accuracy in those of the games that have been analysed."""
        ...


class Storage(SigninStorage, ChatStorage, AnalysisStorage, Protocol):
    """Users, sessions, games, their event logs and actions, and what sign-in keeps.

    Writes are durable once awaited. `shared`: other instances may write the same games.
    """

    shared: bool

    async def create_user(self, display_name: str) -> User: ...

    async def get_user(self, user_id: str) -> User | None: ...

    async def get_users(self, user_ids: Sequence[str]) -> dict[str, User]: ...

    async def rename_user(self, user_id: str, display_name: str) -> None: ...

    async def add_identity(self, identity: Identity) -> None: ...

    async def find_identity(self, provider: str, subject: str) -> Identity | None: ...

    async def create_session(self, session: Session) -> None: ...

    async def get_session(self, token_hash: str) -> Session | None: ...

    async def session_user(self, token_hash: str, now: float) -> User | None:
        """The user of the session with this token hash, unless it expired by `now`."""
        ...

    async def delete_session(self, token_hash: str) -> None: ...

    async def purge_sessions(self, now: float) -> int:
        """Delete the sessions expired by `now`; how many."""
        ...

    async def create_game(self, record: GameRecord, events: Sequence[StoredEvent]) -> None: ...

    async def update_game(self, update: GameUpdate) -> None:
        """Write a change made against `expected_version`; VersionConflict if stale."""
        ...

    async def get_game(self, game_id: str) -> GameRecord | None: ...

    async def get_ratings(self, user_ids: Sequence[str]) -> dict[str, Rating]:
        """The ratings of those of these users who have played a rated game."""
        ...

    async def rating_history(self, user_id: str, limit: int) -> list[RatingChange]:
        """A user's latest rating changes, newest first."""
        ...

    async def game_rating_changes(self, game_id: str) -> list[RatingChange]:
        """What a finished rated game changed (nothing for any other game)."""
        ...

    async def leaderboard(self, limit: int, min_games: int) -> list[tuple[str, Rating]]:
        """The best rated users with at least `min_games` rated games, best first."""
        ...

    async def list_games(self) -> Iterator[GameRecord]:
        """Every stored game, oldest first: the rows fetched in one query, each parsed into
        its record as it is asked for (the storage may be used meanwhile)."""
        ...

    async def game_versions(self) -> dict[str, int]:
        """Every stored game's id and version: what an instance that missed notices checks
        its games against."""
        ...

    async def overdue_games(self, now: float) -> list[tuple[str, int]]:
        """The games being played whose deadline is `now` or earlier: (id, version)."""
        ...

    async def get_events(self, game_id: str, after: int = 0) -> list[StoredEvent]: ...

    async def get_actions(self, game_id: str, after: int = 0) -> list[StoredAction]:
        """The game's actions that made versions after `after`, in order."""
        ...

    async def mark_seen(self, user_ids: Sequence[str], at: float) -> None:
        """These users had a signed stream open at `at` (time.time()); a later time known
        already stays."""
        ...

    async def last_seen(self, user_ids: Sequence[str]) -> dict[str, float]:
        """When those of these users ever seen last had a signed stream open (time.time())."""
        ...

    async def announce(self, kind: str, argument: str) -> None:
        """Tell the other instances something of this one's streams (live/peers.py)."""
        ...

    async def hold_computer(self, game_id: str, seconds: float) -> bool:
        """Take or renew this instance's lease on driving the game's computer players for
        `seconds`; False while another instance holds it (always True with one instance)."""
        ...

    def lobby_log(self) -> LobbyLog | None:
        """Where the lobby's events are numbered when instances share the storage."""
        ...

    async def follow_games(self, notices: GameNotices) -> None:
        """Tell `notices` of the games other instances change, until cancelled; returns at
        once when no other instance can share the storage (SQLite)."""
        ...

    async def close(self) -> None: ...
