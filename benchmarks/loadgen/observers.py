"""Observers: event streams watching games, in a process of their own.

Thousands of streams cost their reader CPU; in a separate process that cost does not delay
the players' own requests and streams. Each observer notes when each game event arrives
(time.perf_counter: the same monotonic clock in every process of the machine) and, like the
app, follows the players to a rematch.

Each stream is a plain asyncio protocol on its own connection, its HTTP answer parsed by
httptools (uvicorn's parser) and split into events at their blank lines: a few microseconds an
event, where an aiohttp stream with the app's SSE parser took several times that and, with
10,000 streams, kept the observers' process busy far behind the server (the delays it
measured were its own). Only a rematch's data is decoded (to follow it).
"""

from __future__ import annotations

import asyncio
import functools
import gc
import multiprocessing
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any, cast
from urllib.parse import urlsplit

import httptools
import orjson

from .client import raise_file_limit
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


class EventStream(asyncio.Protocol):
    """One game's event stream: the request, then each event handed to `take` with the time
    the bytes holding its end arrived."""

    def __init__(self, request: bytes, take: Any) -> None:
        self.request = request
        self.take = take
        self.parser = httptools.HttpResponseParser(self)
        self.buffer = b""
        self.now = 0.0
        self.transport: asyncio.Transport | None = None
        loop = asyncio.get_running_loop()
        self.answered: asyncio.Future[None] = loop.create_future()  # status 200 and headers
        self.ended: asyncio.Future[None] = loop.create_future()

    # asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # (uvloop's is not a subclass)
        self.transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        self.now = time.perf_counter()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as error:
            self._fail(BenchError(f"an event stream's answer could not be read: {error}"))

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(BenchError("the event stream closed before its answer"))
        if not self.ended.done():
            self.ended.set_result(None)

    # httptools callbacks
    def on_headers_complete(self) -> None:
        status = self.parser.get_status_code()
        if status != 200:
            hint = " (raise the server's --max-streams)" if status == 429 else ""
            self._fail(BenchError(f"an event stream got status {status}{hint}"))
        elif not self.answered.done():
            self.answered.set_result(None)

    def on_body(self, body: bytes) -> None:
        buffer = self.buffer + body if self.buffer else body
        end = buffer.rfind(b"\n\n")
        if end < 0:
            self.buffer = buffer
            return
        self.buffer = buffer[end + 2:]
        for frame in buffer[:end].split(b"\n\n"):
            if frame.startswith(b"id: "):  # (keep-alive comments and other frames: no id)
                self.take(frame, self.now)

    def on_message_complete(self) -> None:
        if self.transport is not None:
            self.transport.close()

    def _fail(self, error: BenchError) -> None:
        if not self.answered.done():
            self.answered.set_exception(error)
            if self.transport is not None:
                self.transport.close()

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


def event_of(frame: bytes) -> tuple[int, bytes, bytes]:
    """A frame's id, event name and data: b"id: N\\nevent: NAME\\ndata: JSON"."""
    head, _, rest = frame.partition(b"\n")
    name, _, data = rest.partition(b"\n")
    return int(head[4:]), name[7:], data[6:]


class Observer:
    def __init__(self, base: str, watched: Watched) -> None:
        parts = urlsplit(base)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.watched = watched
        self.game_id = ""
        self.next_game: str | None = None
        self.stream: EventStream | None = None

    def take(self, frame: bytes, now: float) -> None:
        try:
            seq, name, data = event_of(frame)
        except ValueError:  # not a game event (a chat message's id is "<seq>.<n>")
            return
        if name == b"snapshot":
            self.watched.watchers.setdefault(self.game_id, []).append(seq)
            return
        self.watched.arrivals.setdefault((self.game_id, seq), []).append(now)
        if name == b"rematch":
            self.next_game = orjson.loads(data)["event"]["game_id"]

    async def watch(self, game_id: str, ready: asyncio.Future[None] | None) -> None:
        """Watch a game, then each rematch after it, until cancelled."""
        loop = asyncio.get_running_loop()
        try:
            while True:
                self.game_id, self.next_game = game_id, None
                request = (f"GET /games/{game_id}/events HTTP/1.1\r\n"
                           f"Host: {self.host}:{self.port}\r\n"
                           "Accept: text/event-stream\r\n\r\n").encode()
                _, stream = await loop.create_connection(
                    functools.partial(EventStream, request, self.take), self.host, self.port)
                self.stream = stream
                await stream.answered
                if ready is not None and not ready.done():
                    ready.set_result(None)
                await stream.ended
                if self.next_game is None:
                    return  # the stream ended for good
                game_id = self.next_game
                self.watched.followed += 1
        except (BenchError, OSError) as error:
            if ready is not None and not ready.done():
                ready.set_exception(error)
        finally:
            if self.stream is not None:
                self.stream.close()


async def _observe(targets: list[tuple[str, str]], conn: Connection) -> None:
    raise_file_limit()
    watched = Watched()
    tasks: list[asyncio.Task[None]] = []
    loop = asyncio.get_running_loop()
    try:
        for start in range(0, len(targets), BATCH):
            batch = []
            for base, game_id in targets[start:start + BATCH]:
                ready: asyncio.Future[None] = loop.create_future()
                tasks.append(asyncio.create_task(Observer(base, watched).watch(game_id, ready)))
                batch.append(ready)
            await asyncio.wait_for(asyncio.gather(*batch), 120)
        await asyncio.sleep(0.5)  # until the snapshots of the last batch are read
        conn.send(("ready", len(tasks)))
    except (BenchError, OSError, TimeoutError) as error:
        conn.send(("error", str(error) or repr(error)))
        return
    gc.collect()
    gc.disable()  # its pauses would count as delays of the server: collected after the run
    await loop.run_in_executor(None, conn.recv)  # "stop"
    gc.enable()
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
