"""Who is at the table: a seated player with no event stream open is away after a grace, and a
while later the other player may claim the win (the game is then conceded for the one away)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class Timing:
    """How long a seated player may have no stream open before counting as away, and before
    the other player may claim the win (both counted from their last stream closing, the claim
    at the earliest from the game's start)."""

    away_after: float = 20.0
    claim_after: float = 120.0


class SeatLike(Protocol):
    kind: str
    user_id: str | None


Shown = tuple[tuple[bool, bool], ...]  # per seat: away, claimable


@dataclass
class Presence:
    """One game's players' streams, kept in memory only (times on the event loop's clock).

    After a restart nobody has a stream yet: everyone counts from the moment the game was
    loaded, so a player whose app reconnects in time never shows as away.
    """

    since: float  # the game was created or loaded
    started: float  # the game began (or was loaded while running)
    streams: dict[str, int] = field(default_factory=dict)  # user id -> streams open
    gone: dict[str, float] = field(default_factory=dict)  # user id -> last stream closed
    shown: Shown = ()
    revision: int = 0
    timer: asyncio.TimerHandle | None = None

    def opened(self, user_id: str) -> None:
        self.streams[user_id] = self.streams.get(user_id, 0) + 1

    def closed(self, user_id: str, now: float) -> None:
        held = self.streams.get(user_id, 0) - 1
        if held > 0:
            self.streams[user_id] = held
        else:
            self.streams.pop(user_id, None)
            self.gone[user_id] = now

    def seated(self, user_id: str, now: float) -> None:
        """A player just sat down: their stream is about to open, they are not away."""
        if user_id not in self.streams:
            self.gone[user_id] = now

    def seat_state(
        self, seat: SeatLike, playing: bool, timing: Timing, now: float
    ) -> tuple[bool, bool, float | None]:
        """Away, claimable, and when that next changes by itself (None: not by time)."""
        user_id = seat.user_id
        if seat.kind != "person" or user_id is None or user_id in self.streams:
            return False, False, None
        left = self.gone.get(user_id, self.since)
        away_at = left + timing.away_after
        claim_at = max(left, self.started) + timing.claim_after
        away = now >= away_at
        claimable = away and playing and now >= claim_at
        upcoming = [t for t, done in ((away_at, away), (claim_at, claimable or not playing))
                    if not done]
        return away, claimable, min(upcoming) if upcoming else None

    def state(
        self, seats: Sequence[SeatLike], playing: bool, timing: Timing, now: float
    ) -> tuple[Shown, float | None]:
        """Every seat's (away, claimable), and the next time that changes by itself."""
        shown = []
        next_at: float | None = None
        for seat in seats:
            away, claimable, at = self.seat_state(seat, playing, timing, now)
            shown.append((away, claimable))
            if at is not None and (next_at is None or at < next_at):
                next_at = at
        return tuple(shown), next_at

    def players(self) -> list[dict[str, Any]]:
        """What was last announced, as the API shows it."""
        return [{"seat": n, "away": away, "claimable": claimable}
                for n, (away, claimable) in enumerate(self.shown)]


def clock() -> float:
    """The event loop's time (what its timers count in), or the monotonic clock outside one."""
    try:
        return asyncio.get_running_loop().time()
    except RuntimeError:
        return time.monotonic()


def new_presence() -> Presence:
    now = clock()
    return Presence(since=now, started=now)
