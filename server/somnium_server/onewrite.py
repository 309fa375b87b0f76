"""uvicorn's httptools protocol, writing a response's head together with its body in one write.

uvicorn writes the status line and headers as soon as `http.response.start` arrives and the
body on the next message: two socket writes (two system calls, two wake-ups of the client) for
every answer. Here a head that declares a Content-Length is held until the body's first
message and goes out with it. A head without a length (an endless event stream) is written
at once, as before: its body may be a long time coming.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from uvicorn._types import ASGISendEvent
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle


class _Held:
    """Stands in for the transport while uvicorn writes a head: keeps the bytes instead."""

    def __init__(self, transport: Any) -> None:
        self.transport = transport
        self.data = b""

    def write(self, data: bytes) -> None:
        self.data += data

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


class _Prefixed:
    """Stands in for the transport while uvicorn writes a body: the held head goes first."""

    def __init__(self, transport: Any, head: bytes) -> None:
        self.transport = transport
        self.head = head

    def write(self, data: bytes) -> None:
        head, self.head = self.head, b""
        self.transport.write(head + data if head else data)

    def close(self) -> None:
        if self.head:  # closing before any body was written: the head still goes out
            self.transport.write(self.head)
            self.head = b""
        self.transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


def _declares_length(message: ASGISendEvent) -> bool:
    return any(
        name.lower() == b"content-length"
        for name, _ in message.get("headers", ())  # type: ignore[attr-defined]
    )


class OneWriteCycle(RequestResponseCycle):
    """A request's cycle whose answer with a declared length leaves in one write."""

    held: bytes = b""

    async def send(self, message: ASGISendEvent) -> None:
        transport = self.transport
        if (
            message["type"] == "http.response.start" and not self.response_started
            and _declares_length(message)
        ):
            held = _Held(transport)
            self.transport = held  # type: ignore[assignment]
            try:
                await super().send(message)
            finally:
                self.transport = transport
            self.held = held.data
            return
        if not self.held:
            await super().send(message)
            return
        prefixed = _Prefixed(transport, self.held)
        self.held = b""
        self.transport = prefixed  # type: ignore[assignment]
        try:
            await super().send(message)
        finally:
            self.transport = transport
        if prefixed.head and not self.disconnected:  # a HEAD request: uvicorn wrote no body
            transport.write(prefixed.head)


class OneWriteProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, its request cycles made OneWriteCycles."""

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        cycle = self.cycle
        if type(cycle) is RequestResponseCycle:
            # the cycle's task is made, not yet run: it looks `send` up on this class
            cycle.__class__ = OneWriteCycle


def chunk_writer(send: object) -> Callable[[bytes], bool] | None:
    """For an endless chunked answer going out through uvicorn's `send`, a function that writes
    one more chunk of it straight to the socket, the bytes uvicorn's send would write.

    The function returns True once the chunk is written (or dropped: the client has gone, as
    uvicorn drops it), False with nothing written when uvicorn's send would have waited (the
    socket's buffer is full): the caller then sends it as usual. None: `send` is not uvicorn's.
    """
    cycle = getattr(send, "__self__", None)
    if not isinstance(cycle, RequestResponseCycle):
        return None

    def write(data: bytes) -> bool:
        if cycle.disconnected or not data:
            return True
        if (
            cycle.flow.write_paused or not cycle.response_started or cycle.response_complete
            or not cycle.chunked_encoding or cycle.scope["method"] == "HEAD"
        ):
            return False
        cycle.transport.write(b"%x\r\n%s\r\n" % (len(data), data))
        return True

    return write
