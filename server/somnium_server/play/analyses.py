"""Finished games' analyses: judged in a worker process from public views only, kept in the
database (every instance shares them), and rate-limited when one must be computed.

The event loop only replays the stored actions to build the public views (as /replay does)
and hands those to the worker: the deck order never leaves this process, and the judging,
hundreds of milliseconds of pure Python, never holds the loop (nor, being in another
process, its interpreter lock), so the action path is not slowed by it.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import orjson

from somnium_desktop.game import IllegalAction, action_from_dict, state_from_dict
from somnium_desktop.game.analysis import PublicGame, public_game
from somnium_desktop.game.analysis_data import analysed
from somnium_server.api.apierror import ApiError
from somnium_server.api.ratelimit import RateLimiter
from somnium_server.play.games import GameService
from somnium_server.play.rooms import GameRoom
from somnium_server.play.worker import yield_cores
from somnium_server.storage import Storage

WORKER_TRIES = 2  # a worker that died (idle too, before it was asked) is replaced once


class AnalysisService:
    """Serves analyses: stored ones at once, others computed once (per instance at a time)."""

    def __init__(self, storage: Storage, games: GameService, workers: int = 1) -> None:
        self.storage = storage
        self.games = games
        self.workers = workers
        self.computed = 0  # analyses this instance has computed (not found stored)
        self._running: dict[str, asyncio.Future[bytes]] = {}
        self._pool: Executor | None = None

    async def analysis(self, game_id: str, limit: RateLimiter, key: str) -> bytes:
        """A finished game's analysis as JSON: stored, else computed and stored (spending one
        request of `key`'s `limit` first). 404 unknown, 409 not finished or never played."""
        room = await self.games.find(game_id, fresh=True)  # (ended a moment ago elsewhere)
        if room.status != "finished":
            raise ApiError(409, "game_not_finished", "a game is analysed once it has ended")
        if room.meta.get("closed"):
            raise ApiError(409, "game_not_played", "the game was closed before it was played")
        stored = await self.storage.get_analysis(room.id)
        if stored is not None:
            return stored
        await limit.check(key)
        running = self._running.get(room.id)
        if running is None:
            running = asyncio.ensure_future(self._compute(room))
            self._running[room.id] = running
            running.add_done_callback(lambda _: self._running.pop(room.id, None))
        return await asyncio.shield(running)

    async def public_game(self, room: GameRoom) -> PublicGame:
        """The analysis input of a finished game: its public views and actions, no deck."""
        await self.games.ensure_whole(room)
        first = state_from_dict(room.initial_state)
        actions = await self.storage.get_actions(room.id)
        try:
            return public_game(
                first,
                [(stored.seat, action_from_dict(stored.action)) for stored in actions],
            )
        except (IllegalAction, ValueError):
            raise ApiError(409, "game_not_played", "the game did not end in play") from None

    async def _compute(self, room: GameRoom) -> bytes:
        game = await self.public_game(room)
        loop = asyncio.get_running_loop()
        for tries_left in reversed(range(WORKER_TRIES)):
            pool = self._executor()
            try:
                data: dict[str, Any] = await loop.run_in_executor(pool, analysed, game)
                break
            except BrokenProcessPool:  # a worker died (killed, out of memory), maybe idle
                self._let_go(pool)  # (a new one for the next try)
                if not tries_left:
                    raise ApiError(503, "analysis_failed",
                                   "the analysis failed: try again") from None
        data = {"game_id": room.id, "names": [seat.name for seat in room.seats], **data}
        body = orjson.dumps(data)
        await self.storage.add_analysis(room.id, body, (data["accuracy"][0], data["accuracy"][1]))
        self.computed += 1
        return body

    def _executor(self) -> Executor:
        if self._pool is None:
            # spawn: a fork of a process with threads (the storage's, uvicorn's) is unsafe;
            # yield_cores: the players' moves get the cores first
            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=yield_cores,
            )
        return self._pool

    def _let_go(self, pool: Executor) -> None:
        """A broken pool: its processes ended and reaped, the next analysis starts anew."""
        if self._pool is pool:
            self._pool = None
        with contextlib.suppress(RuntimeError):
            pool.shutdown(wait=False, cancel_futures=True)

    def stop(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            with contextlib.suppress(RuntimeError):
                pool.shutdown(wait=True, cancel_futures=True)  # (at most one analysis)
