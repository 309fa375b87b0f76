"""What a lobby server answers, as typed records: seats, lobby lines, games, events."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ..game.events import EVENT_TYPES, Event, event_from_dict
from ..game.view import View, view_from_dict
from .ratings import RatingChange, rating_changes_of, rating_text


@dataclass(frozen=True, slots=True)
class Seat:
    """Who sits in a seat: a person, a computer, or no one yet ("open")."""

    seat: int
    kind: str
    user_id: str | None = None
    name: str | None = None
    level: str | None = None
    rating: str = ""  # a person's rating as they sat down, e.g. "1500?" (ratings.py)

    @property
    def open(self) -> bool:
        return self.kind == "open"

    @property
    def label(self) -> str:
        if self.open:
            return "Open seat"
        return self.name or ("Computer" if self.kind == "computer" else "Player")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Seat:
        return cls(int(data["seat"]), str(data["kind"]), data.get("user_id"), data.get("name"),
                   data.get("level"), rating_text(data.get("rating")))


@dataclass(frozen=True, slots=True)
class GameSummary:
    """A lobby line: a table, who sits at it, how it stands."""

    id: str
    name: str
    status: str  # "waiting", "playing" or "finished"
    players: tuple[Seat, ...]
    turn: int | None = None
    observers: int = 0
    winner: int | None = None
    created_at: float = 0.0
    away: tuple[bool, ...] = ()  # per seat: its player has left (their app is closed)
    odds: bool = False  # the tables show the odds of the next card (agreed at Create)
    rated: bool = False  # counts for both players' ratings (chosen at Create)
    move_seconds: int | None = None  # the per-move clock (None: no time control)

    def is_away(self, seat: int) -> bool:
        return seat < len(self.away) and self.away[seat]

    @property
    def host_away(self) -> bool:
        """A table waiting for a player whose host has left: it cannot be joined for now."""
        return self.status == "waiting" and any(self.away)

    @property
    def names(self) -> tuple[str, str]:
        labels = [seat.label for seat in self.players] + ["Open seat", "Open seat"]
        return (labels[0], labels[1])

    def seat_of(self, user_id: str | None) -> int | None:
        """The seat a user sits in, if any."""
        if user_id is None:
            return None
        return next((p.seat for p in self.players if p.kind == "person" and p.user_id == user_id),
                    None)

    def open_seat(self) -> int | None:
        if self.status != "waiting":
            return None
        return next((p.seat for p in self.players if p.open), None)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameSummary:
        return cls(**_summary_fields(data))


def _summary_fields(data: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": str(data["id"]),
        "name": str(data["name"]),
        "status": str(data["status"]),
        "players": tuple(Seat.from_dict(p) for p in data["players"]),
        "turn": data.get("turn"),
        "observers": int(data.get("observers", 0)),
        "winner": data.get("winner"),
        "created_at": float(data.get("created_at", 0.0)),
        "away": tuple(bool(away) for away in data.get("away") or ()),
        "odds": data.get("odds") is True,
        "rated": bool(data.get("rated", False)),
        "move_seconds": _whole_or_none(data.get("move_seconds")),
    }


def _whole_or_none(value: Any) -> int | None:
    return None if value is None else int(value)


@dataclass(frozen=True, slots=True)
class GameDetail(GameSummary):
    """A game's whole public state, as a snapshot or an answer to create, join or rematch."""

    version: int = 0
    seq: int = 0
    view: View | None = None
    rematch_agreed: tuple[int, ...] = ()
    rematch_game_id: str | None = None
    closed: bool = False
    presence: tuple[tuple[bool, bool], ...] = ()  # per seat: away, and the win claimable
    claimed_from: int | None = None  # the seat whose win was claimed while it was away
    rating_changes: tuple[RatingChange, ...] | None = None  # a finished rated game's
    clock_left: float | None = None  # seconds left to the player to move, when answered
    clock_deadline: float | None = None  # when that clock runs out, by the server's time

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameDetail:
        rematch = data.get("rematch") or {}
        claimed = data.get("claimed_from")
        return cls(
            **_summary_fields(data),
            version=int(data["version"]),
            seq=int(data["seq"]),
            view=view_from_dict(data["view"]),
            rematch_agreed=tuple(rematch.get("agreed") or ()),
            rematch_game_id=rematch.get("game_id"),
            closed=bool(data.get("closed", False)),
            presence=presence_of(data.get("presence") or ()),
            claimed_from=None if claimed is None else int(claimed),
            rating_changes=rating_changes_of(data.get("rating_changes")),
            clock_left=clock_left(data),
            clock_deadline=clock_deadline(data),
        )

    def with_changes(self, **changes: Any) -> GameDetail:
        return dataclasses.replace(self, **changes)


def clock_left(data: dict[str, Any]) -> float | None:
    """Seconds left on the clock of the player to move, by the server's own time (`deadline`
    less `now`: the computer's clock may be wrong), from a detail or a `clock` message; never
    more than the time control (`now` is rounded to the millisecond, the deadline is not)."""
    deadline, now = data.get("deadline"), data.get("now")
    if deadline is None or now is None:
        return None
    left = max(0.0, float(deadline) - float(now))
    control = data.get("move_seconds")
    return left if not control else min(left, float(control))


def clock_deadline(data: dict[str, Any]) -> float | None:
    """When the clock of the player to move runs out, by the server's time (the same for
    every message telling that clock), from a detail or a `clock` message."""
    deadline = data.get("deadline")
    return None if deadline is None else float(deadline)


def presence_of(players: Any) -> tuple[tuple[bool, bool], ...]:
    """Who is away (and whether their win may be claimed), by seat, from the server's list."""
    found: dict[int, tuple[bool, bool]] = {
        int(p["seat"]): (bool(p["away"]), bool(p["claimable"])) for p in players
    }
    return tuple(found.get(seat, (False, False)) for seat in range(max(found, default=-1) + 1))


@dataclass(frozen=True, slots=True)
class GameEvent:
    """One numbered event of a game: an engine event or a table event (seat taken, ...).

    `view` is set on the last event of each change: the view after it.
    """

    seq: int
    version: int
    data: dict[str, Any]
    view: View | None = None

    @property
    def kind(self) -> str:
        return str(self.data.get("type", ""))

    def engine_event(self) -> Event | None:
        """The engine's event, or None for a table event."""
        return event_from_dict(self.data) if self.kind in EVENT_TYPES else None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameEvent:
        view = data.get("view")
        return cls(int(data["seq"]), int(data["version"]), dict(data["event"]),
                   view_from_dict(view) if view is not None else None)


@dataclass(frozen=True, slots=True)
class ActResult:
    """What an accepted action did: the new version and the events it caused."""

    version: int
    seq: int
    events: tuple[GameEvent, ...]
    view: View


@dataclass(frozen=True, slots=True)
class LevelInfo:
    key: str
    label: str


@dataclass(frozen=True, slots=True)
class Account:
    """Who the player is signed in as."""

    id: str
    display_name: str
