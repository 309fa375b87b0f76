"""Ratings as the app shows them: "1500?" while provisional, "1612" once settled."""

from __future__ import annotations

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
