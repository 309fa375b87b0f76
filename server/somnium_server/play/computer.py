"""Computer players: the server takes a computer seat's turns itself, pausing between actions."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from somnium_desktop.game import (
    Action,
    Concede,
    GameState,
    IllegalAction,
    check,
    legal_actions,
    view_of,
)
from somnium_desktop.game.bots import Bot, levels, make_bot
from somnium_server.play.backoff import pauses

log = logging.getLogger("somnium_server.play.computer")


@dataclass(frozen=True)
class Computers:
    """Where computer players come from: the engine's levels unless a test brings its own."""

    make: Callable[[str, int], Bot] = make_bot
    available: Callable[[], dict[str, str]] = lambda: {lv.key: lv.label for lv in levels()}


def choose(bot: Bot, state: GameState, seat: int, game_id: str) -> Action:
    """The bot's action from the public view; if it errs, the engine's first legal move."""
    try:
        action = bot.choose(view_of(state), seat)
        check(state, seat, action)
        return action
    except IllegalAction as error:
        log.warning("computer in game %s chose an illegal action: %s", game_id, error.code)
    except Exception:
        log.exception("computer in game %s failed to choose", game_id)
    moves = [a for a in legal_actions(state, seat) if not isinstance(a, Concede)]
    return moves[0] if moves else Concede()


RETRY_FIRST = 0.2  # seconds before a computer tries again after a failed move


class ComputerRunner:
    """One task per game whose turn belongs to a computer; it ends when a person is to move.

    A move that fails (the database away, the connection dropped) is tried again after a
    pause that doubles each time: nothing else would wake the computer, and its opponent
    cannot move in its place.
    """

    def __init__(self, pause: float, play: Callable[[str], Awaitable[bool]]) -> None:
        self.pause = pause
        self.play = play  # takes one computer action; True while a computer is still to move
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._stopped = False

    def wake(self, game_id: str) -> None:
        """Make sure a computer to move in `game_id` will move (until the server stops)."""
        if game_id not in self._tasks and not self._stopped:
            task = asyncio.get_running_loop().create_task(self._run(game_id))
            self._tasks[game_id] = task

    async def _run(self, game_id: str) -> None:
        pause, waits = self.pause, pauses(RETRY_FIRST)
        try:
            while True:
                await asyncio.sleep(pause)
                try:
                    if not await self.play(game_id):
                        return
                    pause, waits = self.pause, pauses(RETRY_FIRST)
                except Exception as error:
                    pause = next(waits)
                    log.warning("the computer of game %s could not move (%r); trying again "
                                "in %.1f s", game_id, error, pause)
        finally:
            self._tasks.pop(game_id, None)

    async def stop(self) -> None:
        self._stopped = True
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
