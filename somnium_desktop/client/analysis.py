"""A finished game's analysis as the app tells it: where getting it stands, accuracy in words."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any


class AnalysisState(enum.Enum):
    """Where the analysis of the game on the table stands."""

    NONE = "not asked for (the game is not over)"
    WORKING = "being computed or fetched"
    READY = "here"
    FAILED = "could not be got"


def percent(accuracy: float | None) -> str:
    """An accuracy in words: "98.7%", or "no choices" for a player who had none."""
    return "no choices" if accuracy is None else f"{accuracy:.1f}%"


def accuracy_line(
    data: dict[str, Any], names: Sequence[str], my_seat: int | None, between: str = ", "
) -> str:
    """"Accuracy: you 91.0%, Computer 84.2%": the player first (seat order when watching);
    `between` the two ("\n" puts them on two lines)."""
    accuracy: list[float | None] = list(data.get("accuracy", [None, None]))
    seats = [0, 1] if my_seat is None else [my_seat, 1 - my_seat]
    parts = [
        f"{'you' if seat == my_seat else names[seat]} {percent(accuracy[seat])}"
        for seat in seats
    ]
    return "Accuracy: " + between.join(parts)


def decision_words(decision: dict[str, Any], names: Sequence[str]) -> tuple[str, ...]:
    """A decision as a row: move number, player, what they did, the expert's choice, the
    chance of winning before and after, and its mark."""
    best = "" if decision["best"] == decision["action"] else decision["best_label"]
    before, after = decision["before"], decision["after"]
    return (
        str(decision["step"] + 1),
        names[decision["seat"]],
        decision["action_label"],
        best or "(the same)",
        f"{before:.0%} → {after:.0%}",
        "forced" if decision["forced"] else (decision["mark"] or ""),
    )
