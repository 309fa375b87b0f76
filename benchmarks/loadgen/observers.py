"""Observers: event streams watching games, in a process of their own.

Thousands of streams cost their reader CPU; in a separate process that cost does not delay
the players' own requests and streams. Each observer notes when each game event arrives
(time.perf_counter: the same monotonic clock in every process of the machine) and, like the
app, follows the players to a rematch.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

import orjson

from somnium_desktop.client.sse import ServerEvent

from .client import open_stream, raise_file_limit, read_events, session
from .servers import BenchError

BATCH = 500  # streams opened at once


@dataclass
class Watched:
    """What all observers saw: arrival times by (game, seq), and who watched which game
    from which sequence number on."""

    arrivals: dict[tuple[str, int], list[float]] = field(default_factory=dict)
    watchers: dict[str, list[int]] = field(default_factory=dict)
    followed: int = 0  # rematches followed

    def expected(self, game_id: str, seq: int) -> int:
        return sum(1 for first in self.watchers.get(game_id, ()) if first < seq)


class Observer:
    def __init__(self, base: str, watched: Watched) -> None:
        self.base = base
        self.watched = watched
        self.game_id = ""
        self.next_game: str | None = None

    def take(self, event: ServerEvent, now: float) -> None:
        if event.id is None:
            return
        seq = int(event.id)
        if event.event == "snapshot":
            self.watched.watchers.setdefault(self.game_id, []).append(seq)
            return
        self.watched.arrivals.setdefault((self.game_id, seq), []).append(now)
        if event.event == "rematch":
            self.next_game = orjson.loads(event.data)["event"]["game_id"]

    async def watch(self, http: Any, game_id: str, ready: asyncio.Future[None] | None) -> None:
        """Watch a game, then each rematch after it, until cancelled."""
        while True:
            self.game_id, self.next_game = game_id, None
            response = await open_stream(http, f"{self.base}/games/{game_id}/events")
            if ready is not None and not ready.done():
                ready.set_result(None)
            await read_events(response, self.take)
            if self.next_game is None:
                return  # the stream ended for good
            game_id = self.next_game
            self.watched.followed += 1


async def _observe(targets: list[tuple[str, str]], conn: Connection) -> None:
    raise_file_limit()
    watched = Watched()
    tasks: list[asyncio.Task[None]] = []
    loop = asyncio.get_running_loop()
    async with session() as http:
        try:
            for start in range(0, len(targets), BATCH):
                batch = []
                for base, game_id in targets[start:start + BATCH]:
                    ready: asyncio.Future[None] = loop.create_future()
                    tasks.append(asyncio.create_task(
                        Observer(base, watched).watch(http, game_id, ready)))
                    batch.append(ready)
                await asyncio.wait_for(asyncio.gather(*batch), 120)
            await asyncio.sleep(0.5)  # until the snapshots of the last batch are read
            conn.send(("ready", len(tasks)))
        except (BenchError, OSError, TimeoutError) as error:
            conn.send(("error", str(error) or repr(error)))
            return
        await loop.run_in_executor(None, conn.recv)  # "stop"
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    conn.send(("done", watched))


def observe(targets: list[tuple[str, str]], conn: Connection) -> None:
    """The observer process's entry point: `targets` are (server base URL, game id) pairs."""
    try:
        import uvloop

        uvloop.run(_observe(targets, conn))
    except ImportError:
        asyncio.run(_observe(targets, conn))


class ObserverProcess:
    """Starts the observers in a process of their own and brings back what they saw."""

    def __init__(self, targets: list[tuple[str, str]]) -> None:
        context = multiprocessing.get_context("spawn")
        self.conn, child = context.Pipe()
        self.process = context.Process(target=observe, args=(targets, child), daemon=True)
        self.process.start()

    @property
    def pid(self) -> int:
        pid = self.process.pid
        assert pid is not None
        return pid

    async def _receive(self, timeout: float) -> Any:
        loop = asyncio.get_running_loop()
        ready = await loop.run_in_executor(None, self.conn.poll, timeout)
        if not ready:
            raise BenchError(f"the observers did not answer within {timeout:.0f} s")
        return self.conn.recv()

    async def connected(self) -> int:
        kind, value = await self._receive(300)
        if kind != "ready":
            raise BenchError(f"the observers could not connect: {value}")
        return int(value)

    async def stop(self) -> Watched:
        self.conn.send("stop")
        kind, watched = await self._receive(120)
        self.process.join(30)
        assert kind == "done" and isinstance(watched, Watched)
        return watched

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
            self.process.join(5)
