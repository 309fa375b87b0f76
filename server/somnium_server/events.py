"""Server-sent event streams: framing, per-game and lobby channels, resume, keep-alive."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import Callable, Coroutine, Iterable
from typing import Any, cast

import orjson
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from .onewrite import chunk_writer

KEEPALIVE = b": keep-alive\n\n"
# The server's own send, kept in the scope by the app (app.SomniumApp): once a stream's head
# is out, its body goes straight there, past the framework's per-message wrappers (which
# only watch for the head), as each event goes to each of thousands of listeners.
RAW_SEND = "somnium.raw_send"


def frame(event: str, data: Any, event_id: str | int | None = None) -> bytes:
    """One SSE message; `data` is encoded as one line of JSON."""
    head = b"" if event_id is None else b"id: %s\n" % str(event_id).encode()
    return head + b"event: " + event.encode() + b"\ndata: " + orjson.dumps(data) + b"\n\n"


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
    """One open stream: frames wait in `buffer` until its response task writes them.

    While that task is idle, `push` may write at once through `direct` when the server accepts
    the write without waiting (see onewrite.chunk_writer and `stepped`).
    """

    __slots__ = ("buffer", "busy", "closed", "deferred", "direct", "waiter")

    def __init__(self, initial: Iterable[bytes] = ()) -> None:
        self.buffer: list[bytes] = list(initial)
        self.waiter: asyncio.Future[None] | None = None
        self.closed = False
        self.busy = False  # something was sent since the last keep-alive tick
        # writes a chunk now, True if it did; False: it would wait (nothing was written)
        self.direct: Callable[[bytes], bool] | None = None
        self.deferred = 0  # writes left to the task because the client reads slowly

    def push(self, data: bytes) -> None:
        if self.closed:
            return
        self.busy = True
        waiter = self.waiter
        if waiter is None or waiter.done():  # the task is busy: it will find the data
            self.buffer.append(data)
            return
        if self.direct is not None:
            try:
                if self.direct(data):
                    return
            except Exception:  # the stream broke: it ends, the other listeners go on
                self.close()
                return
            self.deferred += 1
        self.buffer.append(data)
        waiter.set_result(None)

    def close(self) -> None:
        self.closed = True
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)


def stepped(send: Send) -> Callable[[bytes], bool]:
    """A direct write through an ASGI `send` run to its end at once if it never has to wait.

    This saves waking a task per listener per event. It relies on the server's send waiting
    only before it writes (as uvicorn's does, while the socket's buffer is full): a send that
    would wait has written nothing, so it is dropped and the listener's task sends the data
    instead, in order.
    """

    def write(data: bytes) -> bool:
        step = cast(
            Coroutine[Any, Any, None],
            send({"type": "http.response.body", "body": data, "more_body": True}),
        )
        try:
            step.send(None)
        except StopIteration:
            return True
        step.close()
        return False

    return write


class Channel:
    """Everyone listening to one game, or to the lobby."""

    __slots__ = ("subscribers",)

    def __init__(self) -> None:
        self.subscribers: set[Subscriber] = set()

    def publish(self, data: bytes) -> None:
        for subscriber in self.subscribers:
            subscriber.push(data)


class StreamHub:
    """All open streams: the per-client cap and the keep-alive ticker."""

    def __init__(self, keepalive: float, max_per_client: int, direct_writes: bool = True) -> None:
        self.keepalive = keepalive
        self.max_per_client = max_per_client
        self.direct_writes = direct_writes  # see Subscriber.direct: needs uvicorn
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
            send = scope.get(RAW_SEND, send)
            buffer = subscriber.buffer
            if self.hub.direct_writes:
                subscriber.direct = chunk_writer(send) or (
                    stepped(send) if inspect.iscoroutinefunction(send) else None
                )
            while not subscriber.closed:
                if not buffer:
                    subscriber.waiter = loop.create_future()
                    await subscriber.waiter
                    subscriber.waiter = None
                    continue
                chunk = buffer[0] if len(buffer) == 1 else b"".join(buffer)
                buffer.clear()
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
