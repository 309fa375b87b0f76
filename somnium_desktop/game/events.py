"""What an action caused, in order: the same events fill the log and travel to every viewer."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from .cards import Card, Suit


@dataclass(frozen=True, slots=True)
class CardDrawn:
    """A card came off the deck (a suit card onto the table, or a Fool or Death)."""

    type: ClassVar[str] = "card_drawn"
    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class StealRequired:
    """A Fool: the player must now steal one of these suits from the opponent."""

    type: ClassVar[str] = "steal_required"
    seat: int
    suits: tuple[Suit, ...]


@dataclass(frozen=True, slots=True)
class FoolWasted:
    """A Fool with nothing to steal: it leaves play and the turn goes on."""

    type: ClassVar[str] = "fool_wasted"
    seat: int


@dataclass(frozen=True, slots=True)
class CardStolen:
    """The opponent's highest card of a suit went from their bank onto the table."""

    type: ClassVar[str] = "card_stolen"
    seat: int
    from_seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class Bust:
    """Two cards of one suit on the table: the table is discarded."""

    type: ClassVar[str] = "bust"
    seat: int
    suit: Suit
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class DeathDrawn:
    """Death: the table and Death itself are discarded."""

    type: ClassVar[str] = "death"
    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Banked:
    """The table went into the player's bank."""

    type: ClassVar[str] = "banked"
    seat: int
    cards: tuple[Card, ...]
    score: int


@dataclass(frozen=True, slots=True)
class TurnPassed:
    """It is now this seat's turn."""

    type: ClassVar[str] = "turn_passed"
    seat: int


@dataclass(frozen=True, slots=True)
class Conceded:
    """A player gave up."""

    type: ClassVar[str] = "conceded"
    seat: int


@dataclass(frozen=True, slots=True)
class TimedOut:
    """A player's clock ran out while it was theirs to move: they lose."""

    type: ClassVar[str] = "timed_out"
    seat: int


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The game is over: the winner's seat, or None for a draw."""

    type: ClassVar[str] = "game_ended"
    winner: int | None
    scores: tuple[int, int]
    reason: str  # "deck" (the last card was resolved), "concede" or "time" (a clock ran out)


Event = (
    CardDrawn
    | StealRequired
    | FoolWasted
    | CardStolen
    | Bust
    | DeathDrawn
    | Banked
    | TurnPassed
    | Conceded
    | TimedOut
    | GameEnded
)
EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        CardDrawn, StealRequired, FoolWasted, CardStolen, Bust, DeathDrawn, Banked,
        TurnPassed, Conceded, TimedOut, GameEnded,
    )
}


_CODED = (Card, Suit)  # a tuple: `Card | Suit` would build a union type on every call


def _encode(value: object) -> Any:
    if isinstance(value, _CODED):
        return value.code
    if isinstance(value, tuple):
        return [_encode(v) for v in value]
    return value


_FIELD_NAMES: dict[type[Event], tuple[str, ...]] = {
    cls: tuple(field.name for field in dataclasses.fields(cls)) for cls in EVENT_TYPES.values()
}


def event_to_dict(event: Event) -> dict[str, Any]:
    """The event as plain JSON data, tagged with its type."""
    data: dict[str, Any] = {"type": event.type}
    for name in _FIELD_NAMES[type(event)]:
        data[name] = _encode(getattr(event, name))
    return data


_DECODERS: dict[str, Any] = {
    "card": Card.from_code,
    "cards": lambda codes: tuple(Card.from_code(c) for c in codes),
    "suit": Suit.from_code,
    "suits": lambda codes: tuple(Suit.from_code(c) for c in codes),
    "scores": tuple,
}


def event_from_dict(data: dict[str, Any]) -> Event:
    """Parse an event from JSON data; raises ValueError on an unknown type."""
    cls = EVENT_TYPES.get(data.get("type", ""))
    if cls is None:
        raise ValueError(f"unknown event type {data.get('type')!r}")
    kwargs = {}
    for field in dataclasses.fields(cls):
        raw = data[field.name]
        decode = _DECODERS.get(field.name)
        kwargs[field.name] = decode(raw) if decode is not None else raw
    return cls(**kwargs)
