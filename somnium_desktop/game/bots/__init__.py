"""Computer players: one interface (a public view in, an action out) and the named levels."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from ..actions import Action
from ..view import View


class Bot(Protocol):
    """A computer player. It sees only the public view, never the deck order."""

    def choose(self, view: View, seat: int) -> Action:
        """The action to take for `seat`, whose turn it is; deterministic for the bot's seed."""
        ...


@dataclass(frozen=True)
class Level:
    """A computer opponent users can pick: a key for the wire, a label for people."""

    key: str
    label: str
    make: Callable[[int], Bot]  # seed -> bot


LEVELS: dict[str, Level] = {}


def register(level: Level) -> None:
    """Offer a level (the bot modules call this on import)."""
    LEVELS[level.key] = level


def make_bot(key: str, seed: int = 0) -> Bot:
    """A bot of the named level; raises ValueError for an unknown level."""
    _load()
    try:
        return LEVELS[key].make(seed)
    except KeyError:
        raise ValueError(f"unknown computer level {key!r}") from None


def levels() -> list[Level]:
    """The levels on offer, weakest first."""
    _load()
    return list(LEVELS.values())


def _load() -> None:
    """Import the bot modules so they register their levels."""
    from . import classic, strong  # noqa: F401  (they register easy, normal, hard; expert)
