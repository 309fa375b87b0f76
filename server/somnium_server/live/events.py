"""Server-sent event streams: framing, per-game and lobby channels, resume, keep-alive."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable, Iterable
from typing import Any

import orjson
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

KEEPALIVE = b": keep-alive\n\n"
# A stream this many bytes behind is closed: its client stopped reading (or reads far slower
# than the game goes), and it resumes from its Last-Event-ID when it reconnects.
MAX_BEHIND = 1 << 20
SLICE = 25  # listeners a message is handed to per turn of the event loop (see Channel)
EVENT_NUMBER = re.compile(r"[0-9]{1,18}")  # ASCII digits only: str.isdigit() takes "²" too


def frame(event: str, data: Any, event_id: str | int | None = None) -> bytes:
    """One SSE message; `data` is encoded as one line of JSON."""
    head = b"" if event_id is None else b"id: %s\n" % str(event_id).encode()
    return head + b"event: " + event.encode() + b"\ndata: " + orjson.dumps(data) + b"\n\n"


def event_number(text: str) -> int | None:
    """The event number written in `text` (a Last-Event-ID, or its part after the epoch), or
    None unless it is plain ASCII digits: no sign, no spaces, no other kinds of digit."""
    return int(text) if EVENT_NUMBER.fullmatch(text) else None


def missed(
    last_seen: int, newest: int, window: Iterable[tuple[int, bytes]], oldest: int | None
) -> list[bytes] | None:
    """The messages numbered after `last_seen`, or None if the window cannot tell them all.

    `window` holds (sequence number, message) pairs in order, the oldest numbered `oldest`.
    """
    if last_seen > newest:
        return None  # an id from some other history: start afresh
    if last_seen < (newest + 1 if oldest is None else oldest) - 1:
        return None  # too far behind
    return [message for seq, message in window if seq > last_seen]


class Subscriber:
    """One open stream: frames wait in `buffer` until its response task writes them; more
    than MAX_BEHIND bytes pushed and not yet written close it."""

    __slots__ = ("behind", "buffer", "busy", "closed", "waiter")

    def __init__(self, initial: Iterable[bytes] = ()) -> None:
        self.buffer: list[bytes] = list(initial)
        # bytes pushed since the last write (what it starts with, a snapshot or the events
        # it missed, is bounded by the game's or the lobby's window)
        self.behind = 0
        self.waiter: asyncio.Future[None] | None = None
        self.closed = False
        self.busy = False  # something was sent since the last keep-alive tick

    def push(self, data: bytes) -> None:
        if self.closed:
            return
        self.behind += len(data)
        if self.behind > MAX_BEHIND:
            self.close()
            return
        self.busy = True
        self.buffer.append(data)
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def close(self) -> None:
        self.closed = True
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)


class Channel:
    """Everyone listening to one game, or to the lobby.

    Publishing costs the publisher O(1) whatever the number of listeners: the message joins
    `pending` and one delivery is scheduled on the event loop (`loop.call_soon`). The request
    that published (a player's action) writes its own answer before it gives the loop back,
    so every listener hears of the change after the mover has its answer; the delivery then
    hands the pending messages to each listener's stream task, in order (with a `pace`, once
    that much time has passed since the last delivery). A crowd is handed a message SLICE
    listeners per turn of the event loop, so that requests (the next move) are read and
    answered between the slices rather than after the whole crowd's writes. The game's players
    (`add(..., player=True)`) are handed every message at once; the others get the next once
    the last has reached them all. One hand-out runs at a time: its next step is `turn`, and
    None means nothing is on its way to the crowd.
    """

    __slots__ = (
        "crowd", "delivered", "handing", "pace", "pending", "players", "rest", "subscribers",
        "turn",
    )

    def __init__(self, pace: float = 0.0) -> None:
        self.subscribers: set[Subscriber] = set()
        self.players: set[Subscriber] = set()  # of the subscribers, the game's players' own
        self.pending: list[bytes] = []
        # With a `pace`, deliveries come at most that many seconds apart: what is published
        # meanwhile waits and goes out together, one write to each listener (the lobby's).
        self.pace = pace
        self.delivered = -pace
        self.handing = b""  # the message being handed out, to the listeners in `rest`
        self.rest: list[Subscriber] = []
        self.crowd: list[bytes] = []  # messages the players have, the others not yet
        self.turn: asyncio.Handle | None = None  # the hand-out's next step, if one runs

    def publish(self, data: bytes) -> None:
        if not self.pending:
            loop = asyncio.get_running_loop()
            wait = self.delivered + self.pace - loop.time() if self.pace else 0.0
            if wait > 0:
                loop.call_later(wait, self.deliver)
            else:
                loop.call_soon(self.deliver)
        self.pending.append(data)

    def deliver(self) -> None:
        """Hand every pending message to every listener (scheduled by `publish`)."""
        pending = self.pending
        if not pending:
            return
        self.pending = []
        if self.pace:
            self.delivered = asyncio.get_running_loop().time()
        data = pending[0] if len(pending) == 1 else b"".join(pending)
        if len(self.subscribers) <= SLICE and self.turn is None:
            for subscriber in self.subscribers:
                subscriber.push(data)
            return
        for subscriber in self.players:
            subscriber.push(data)
        self.crowd.append(data)
        if self.turn is None:  # (else it follows what is being handed out)
            self._next()

    def _next(self) -> None:
        """Start handing the crowd (all but the players) what waits for it."""
        self.turn = None
        if not self.crowd:
            return
        self.handing = b"".join(self.crowd)
        self.crowd = []
        players = self.players
        self.rest = [s for s in self.subscribers if s not in players]
        self._hand_out()

    def _hand_out(self) -> None:
        """One slice of the crowd gets the message; the rest at the loop's next turn."""
        rest, data = self.rest, self.handing
        for subscriber in rest[-SLICE:]:
            subscriber.push(data)
        del rest[-SLICE:]
        if rest:
            self.turn = asyncio.get_running_loop().call_soon(self._hand_out)
        elif self.crowd:  # published meanwhile
            self.turn = asyncio.get_running_loop().call_soon(self._next)
        else:
            self.turn = None

    def add(self, subscriber: Subscriber, player: bool = False) -> None:
        """A new listener, which hears only of what is published from now on (what is still
        on its way reaches the others at once)."""
        self.settle()
        self.subscribers.add(subscriber)
        if player:
            self.players.add(subscriber)

    def seat(self, subscriber: Subscriber, player: bool) -> bool:
        """A listener becomes one of the game's players, or stops being one (what is on its
        way reaches everyone first); False if it already was what it is to be."""
        if subscriber not in self.subscribers or (subscriber in self.players) == player:
            return False
        self.settle()
        if player:
            self.players.add(subscriber)
        else:
            self.players.discard(subscriber)
        return True

    def settle(self) -> None:
        """Hand everything on its way to every listener now, before the listeners change."""
        self.deliver()  # (it may start a hand-out: that, too, finishes here)
        for waiting in self.rest:
            waiting.push(self.handing)
        self.rest.clear()
        if self.crowd:
            data = b"".join(self.crowd)
            self.crowd = []
            for waiting in self.subscribers - self.players:
                waiting.push(data)
        if self.turn is not None:  # (the hand-out under way has nothing left to do)
            self.turn.cancel()
            self.turn = None

    def discard(self, subscriber: Subscriber) -> None:
        self.subscribers.discard(subscriber)
        self.players.discard(subscriber)


class StreamHub:
    """All open streams: the per-client cap and the keep-alive ticker."""

    def __init__(self, keepalive: float, max_per_client: int) -> None:
        self.keepalive = keepalive
        self.max_per_client = max_per_client
        self.subscribers: set[Subscriber] = set()
        self.per_client: dict[str, int] = {}
        self._ticker: asyncio.Task[None] | None = None

    def admit(self, client: str) -> bool:
        """Count a new stream for `client`, unless it already holds its share."""
        held = self.per_client.get(client, 0)
        if held >= self.max_per_client:
            return False
        self.per_client[client] = held + 1
        return True

    def release(self, client: str) -> None:
        held = self.per_client.get(client, 0) - 1
        if held > 0:
            self.per_client[client] = held
        else:
            self.per_client.pop(client, None)

    def start(self) -> None:
        self._ticker = asyncio.get_running_loop().create_task(self._tick())

    def close_all(self) -> None:
        """End every open stream (the server is shutting down)."""
        for subscriber in list(self.subscribers):
            subscriber.close()

    async def stop(self) -> None:
        self.close_all()
        if self._ticker is not None:
            self._ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticker

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(self.keepalive)
            for subscriber in self.subscribers:
                if not subscriber.busy:
                    subscriber.push(KEEPALIVE)
                subscriber.busy = False


class EventStreamResponse(Response):
    """An endless text/event-stream answer fed by one Subscriber."""

    media_type = "text/event-stream"

    def __init__(
        self, hub: StreamHub, subscriber: Subscriber, on_close: Callable[[], None]
    ) -> None:
        # No super().__init__: it would declare a Content-Length for an endless body.
        self.status_code = 200
        self.background = None
        self.raw_headers = [
            (b"content-type", b"text/event-stream; charset=utf-8"),
            (b"cache-control", b"no-cache"),
            (b"x-accel-buffering", b"no"),
        ]
        self.hub = hub
        self.subscriber = subscriber
        self.on_close = on_close

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        subscriber = self.subscriber
        self.hub.subscribers.add(subscriber)
        loop = asyncio.get_running_loop()
        watcher = loop.create_task(_until_disconnect(receive))
        watcher.add_done_callback(lambda _: subscriber.close())
        try:
            await send(
                {"type": "http.response.start", "status": 200, "headers": self.raw_headers}
            )
            while not subscriber.closed:
                buffer = subscriber.buffer
                if not buffer:
                    subscriber.waiter = loop.create_future()
                    await subscriber.waiter
                    subscriber.waiter = None
                    continue
                chunk = buffer[0] if len(buffer) == 1 else b"".join(buffer)
                subscriber.buffer = []
                subscriber.behind = 0
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            if not watcher.done():  # the server is closing the stream, not the client
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:  # the client went away mid-write
            pass
        finally:
            subscriber.close()
            watcher.cancel()
            self.hub.subscribers.discard(subscriber)
            self.on_close()


async def _until_disconnect(receive: Receive) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
