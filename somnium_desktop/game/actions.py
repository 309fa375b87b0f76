"""What a player can do: draw, end the turn, steal a suit, concede (and run out of time)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .cards import Suit


@dataclass(frozen=True, slots=True)
class Draw:
    """Turn over the top card of the deck onto the table."""

    type: Literal["draw"] = "draw"


@dataclass(frozen=True, slots=True)
class EndTurn:
    """Bank every card on the table and pass the turn."""

    type: Literal["end_turn"] = "end_turn"


@dataclass(frozen=True, slots=True)
class Steal:
    """After a Fool: take the opponent's highest card of a suit onto the table."""

    suit: Suit
    type: Literal["steal"] = "steal"


@dataclass(frozen=True, slots=True)
class Concede:
    """Give up the game; allowed to either player at any time before it ends."""

    type: Literal["concede"] = "concede"


@dataclass(frozen=True, slots=True)
class TimeOut:
    """The player to move let their clock run out: taken for them by the clock that timed the
    game (the server's), never chosen by a player."""

    type: Literal["time_out"] = "time_out"


Action = Draw | EndTurn | Steal | Concede | TimeOut
ACTION_TYPES = ("draw", "end_turn", "steal", "concede", "time_out")


def action_to_dict(action: Action) -> dict[str, Any]:
    """The action as plain JSON data."""
    if isinstance(action, Steal):
        return {"type": action.type, "suit": action.suit.code}
    return {"type": action.type}


def action_from_dict(data: dict[str, Any]) -> Action:
    """Parse an action from JSON data; raises ValueError on anything malformed."""
    kind = data.get("type")
    if kind == "steal":
        suit = data.get("suit")
        if not isinstance(suit, str):
            raise ValueError("a steal names a suit")
        return Steal(Suit.from_code(suit))
    if kind == "draw":
        return Draw()
    if kind == "end_turn":
        return EndTurn()
    if kind == "concede":
        return Concede()
    if kind == "time_out":
        return TimeOut()
    raise ValueError(f"unknown action type {kind!r}")
