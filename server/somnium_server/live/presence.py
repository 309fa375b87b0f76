"""Who is at the table: a seated player with no signed event stream open (the lobby's or any
game's: their app is gone) is away after a grace, and a while later the other player may claim
the win (the game is then conceded for the one away). When each player was last seen is kept
in storage too, so neither a restart nor another instance starts the count again."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from somnium_server.live.peers import Peers


@dataclass(frozen=True, slots=True)
class Timing:
    """How long a seated player may have no stream open before counting as away, and before
    the other player may claim the win (both counted from their last stream closing, the claim
    at the earliest from the game's start)."""

    away_after: float = 20.0
    claim_after: float = 120.0


def clock() -> float:
    """The event loop's time (what its timers count in), or the monotonic clock outside one."""
    try:
        return asyncio.get_running_loop().time()
    except RuntimeError:
        return time.monotonic()


def on_clock(wall: float) -> float:
    """A stored time (time.time()) on `clock()`."""
    return clock() - (time.time() - wall)


@dataclass
class Attendance:
    """Every user's signed streams open on this server (times on the event loop's clock).

    A player whose app runs holds the lobby's stream at least, signed: they are present in all
    their games, whichever one (if any) their table shows, and whichever instance the stream
    is on (`peers`: the other instances' streams). `seen` holds what storage said of users
    this instance did not see leave (the game service reads it: when a game is loaded, a claim is
    asked, an instance is taken as gone); one the storage never saw counts as gone since
    this instance started.
    """

    since: float = field(default_factory=clock)
    streams: dict[str, int] = field(default_factory=dict)  # user id -> signed streams open
    gone: dict[str, float] = field(default_factory=dict)  # user id -> their last one closed
    seen: dict[str, float] = field(default_factory=dict)  # user id -> last seen, as stored
    peers: Peers = field(default_factory=Peers)

    def opened(self, user_id: str) -> bool:
        """Count a stream; True if the user was not here before."""
        held = self.streams.get(user_id, 0)
        self.streams[user_id] = held + 1
        return held == 0

    def closed(self, user_id: str, now: float) -> bool:
        """Count a stream gone; True if that was the user's last."""
        held = self.streams.get(user_id, 0) - 1
        if held > 0:
            self.streams[user_id] = held
            return False
        self.streams.pop(user_id, None)
        self.gone[user_id] = now
        return True

    def here(self, user_id: str) -> bool:
        return user_id in self.streams or self.peers.here(user_id)

    def left(self, user_id: str) -> float:
        """When the user's last stream closed (the server's start if never seen)."""
        known = [at for at in (self.gone.get(user_id), self.seen.get(user_id)) if at is not None]
        return max(known) if known else self.since


class SeatLike(Protocol):
    kind: str
    user_id: str | None


Shown = tuple[tuple[bool, bool], ...]  # per seat: away, claimable


@dataclass(slots=True)
class Presence:
    """One game's view of its players' attendance: when the game began and when each player
    sat down count as times they were seen (a game loaded from storage: its start, or its
    creation while it waits for a player)."""

    since: float = field(default_factory=clock)  # the game was created (began, if loaded)
    started: float = field(default_factory=clock)  # the game began
    seated: dict[str, float] = field(default_factory=dict)  # user id -> sat down
    shown: Shown = ()
    revision: int = 0
    timer: asyncio.TimerHandle | None = None

    def seat_state(
        self, seat: SeatLike, playing: bool, attendance: Attendance, timing: Timing, now: float
    ) -> tuple[bool, bool, float | None]:
        """Away, claimable, and when that next changes by itself (None: not by time)."""
        user_id = seat.user_id
        if seat.kind != "person" or user_id is None or attendance.here(user_id):
            return False, False, None
        left = max(attendance.left(user_id), self.seated.get(user_id, self.since))
        away_at = left + timing.away_after
        claim_at = max(left, self.started) + timing.claim_after
        away = now >= away_at
        claimable = away and playing and now >= claim_at
        upcoming = [t for t, done in ((away_at, away), (claim_at, claimable or not playing))
                    if not done]
        return away, claimable, min(upcoming) if upcoming else None

    def state(
        self,
        seats: Sequence[SeatLike],
        status: str,
        attendance: Attendance,
        timing: Timing,
        now: float,
    ) -> tuple[Shown, float | None]:
        """Every seat's (away, claimable), and the next time that changes by itself. Nobody
        is away from a finished game: there is nothing left to wait for."""
        if status == "finished":
            return tuple((False, False) for _ in seats), None
        shown = []
        next_at: float | None = None
        for seat in seats:
            away, claimable, at = self.seat_state(
                seat, status == "playing", attendance, timing, now
            )
            shown.append((away, claimable))
            if at is not None and (next_at is None or at < next_at):
                next_at = at
        return tuple(shown), next_at

    def players(self) -> list[dict[str, Any]]:
        """What was last announced, as the API shows it."""
        return [{"seat": n, "away": away, "claimable": claimable}
                for n, (away, claimable) in enumerate(self.shown)]
