"""Clocks: a game's per-move time control, the deadline of the player to move, and the sweeper
that times out a player whose clock ran out.

The deadline is stored with the game (the server's wall-clock time), so whichever instance
serves the game enforces it and a restart keeps it. Every instance sweeps; the time-out is
committed at the version the game was overdue at, so it is applied once, whoever sweeps.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import Any, Protocol

from somnium_desktop.game import GameState
from somnium_server.live.events import frame
from somnium_server.play.rooms import GameRoom, Seat
from somnium_server.storage import Storage

log = logging.getLogger("somnium_server.play.clocks")

MAX_MOVE_SECONDS = 600
CLOCK_USER = "clock"  # who stored a time-out (its action id: "clock/<version>")


def deadline_of(
    meta: dict[str, Any], status: str, state: GameState, seats: Sequence[Seat], now: float
) -> float | None:
    """When the player to move runs out of time, their clock started `now`: None without a
    time control, outside play, or when a computer is to move (a computer never times out)."""
    seconds = meta.get("move_seconds")
    if not seconds or status != "playing" or state.over:
        return None
    if seats[state.turn].kind != "person":
        return None
    return now + float(seconds)


def overdue(room: GameRoom, now: float) -> bool:
    """The player to move has let their clock run out."""
    return room.deadline is not None and room.status == "playing" and now >= room.deadline


def clock_frame(room: GameRoom) -> bytes:
    """The clock as an SSE message (not numbered: no part of the game's history): whose it is,
    when it runs out and the server's time now, so a client with a clock of its own that is
    wrong still counts down the right seconds."""
    running = room.deadline is not None
    return frame("clock", {
        "type": "clock", "move_seconds": room.meta.get("move_seconds"),
        "seat": room.state.turn if running else None, "deadline": room.deadline,
        "now": time.time(),
    })


class Timekeeper(Protocol):
    """The game service as the sweeper sees it."""

    storage: Storage

    async def time_out(self, game_id: str, version: int | None = None) -> bool: ...


async def sweep_clocks(games: Timekeeper, every: float) -> None:
    """Every `every` seconds, until cancelled: time out the players whose clocks ran out."""
    while True:
        await asyncio.sleep(every)
        try:
            found = await games.storage.overdue_games(time.time())
        except Exception as error:  # the database is away: the next round tries again
            log.warning("could not look for clocks run out: %r", error)
            continue
        for game_id, version in found:
            try:
                await games.time_out(game_id, version)
            except Exception:
                log.exception("could not time out game %s", game_id)
