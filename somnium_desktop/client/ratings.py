"""Ratings as the app shows them ("1500?" while provisional) and what a rated game changed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


def rating_text(rating: Any) -> str:
    """A seat's or a player's rating from the server (`{"rating", "deviation",
    "provisional"}`), as shown beside a name; "" for none (computers, open seats)."""
    if not isinstance(rating, dict) or not isinstance(rating.get("rating"), int):
        return ""
    return f"{rating['rating']}{'?' if rating.get('provisional') else ''}"


def with_rating(name: str, rating: str) -> str:
    """A name with its rating beside it, when there is one."""
    return f"{name} ({rating})" if rating else name


@dataclass(frozen=True, slots=True)
class RatingChange:
    """What a finished rated game did to one seat's rating."""

    seat: int
    before: int
    after: int

    @property
    def change(self) -> int:
        return self.after - self.before


def rating_changes_of(data: Any) -> tuple[RatingChange, ...] | None:
    """A game's `rating_changes` from the server (None: not a finished rated game)."""
    if not isinstance(data, list):
        return None
    return tuple(RatingChange(int(c["seat"]), int(c["before"]), int(c["after"])) for c in data)


def change_text(name: str, change: RatingChange) -> str:
    """One player's line at the end of a rated game: "Ana 1512 → 1527 (+15)"."""
    return f"{name} {change.before} → {change.after} ({change.change:+d})"
