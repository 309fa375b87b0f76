"""A TCP proxy in front of a test server that loses one numbered event of the game streams
through it (a gap, as a stream that skipped one) and can hold the answer to one request until
released (a slow answer, for a race)."""

from __future__ import annotations

import contextlib
import io
import re
import socket
import threading
from dataclasses import dataclass, field

from .proxy import accepted


@dataclass
class Link:
    """One connection through the proxy: whether it is an event stream (known once its
    request has gone up: `begun`), and whether its next answer is held."""

    stream: bool = False
    begun: threading.Event = field(default_factory=threading.Event)
    holding: threading.Event = field(default_factory=threading.Event)


class GapProxy:
    """Forwards connections to a server on 127.0.0.1. `skip` is the id of the one numbered
    event left out of every event stream (chunked SSE, as the server sends it); `hold(marker)`
    holds the answer to the next request holding `marker` until `release` is set (`asked` is
    set once that request has gone up). `passed` lists the event ids that went down."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.base = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.skip: int | None = None
        self.marker: bytes | None = None
        self.asked = threading.Event()
        self.release = threading.Event()
        self.passed: list[int] = []
        self._sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def hold(self, marker: bytes) -> None:
        self.asked.clear()
        self.release.clear()
        self.marker = marker

    def _accept(self) -> None:
        for client, upstream in accepted(self.listener, self.target_port):
            self._sockets += [client, upstream]
            link = Link()
            threading.Thread(target=self._up, args=(client, upstream, link), daemon=True).start()
            threading.Thread(target=self._down, args=(upstream, client, link),
                             daemon=True).start()

    def _up(self, client: socket.socket, upstream: socket.socket, link: Link) -> None:
        with contextlib.suppress(OSError):
            while data := client.recv(65536):
                link.stream = link.stream or b"text/event-stream" in data
                if self.marker is not None and self.marker in data:
                    self.marker = None
                    link.holding.set()
                    self.asked.set()
                link.begun.set()
                upstream.sendall(data)
        link.begun.set()
        _shut(upstream)

    def _down(self, upstream: socket.socket, client: socket.socket, link: Link) -> None:
        reader = upstream.makefile("rb")
        with contextlib.suppress(OSError, ValueError):
            link.begun.wait(30)
            if link.stream:  # (read as chunks of frames)
                self._stream_down(reader, client)
            else:
                while data := reader.read1(65536):
                    if link.holding.is_set():
                        self.release.wait(30)
                        link.holding.clear()
                    client.sendall(data)
        _shut(client)
        _shut(upstream)

    def _stream_down(self, reader: io.BufferedReader, client: socket.socket) -> None:
        head = b""
        while not head.endswith(b"\r\n\r\n"):
            line = reader.readline()
            if not line:
                return
            head += line
        client.sendall(head)
        while size_line := reader.readline():
            size = int(size_line.strip(), 16)
            data = reader.read(size + 2)[:-2] if size else b""
            if not size:
                client.sendall(b"0\r\n\r\n")
                return
            frames = [f for f in data.split(b"\n\n") if f and not self._skipped(f)]
            kept = b"".join(f + b"\n\n" for f in frames)
            if kept:
                client.sendall(b"%x\r\n%s\r\n" % (len(kept), kept))

    def _skipped(self, frame: bytes) -> bool:
        found = re.match(rb"id: ([0-9]+)\n", frame)
        if found is None:
            return False
        if int(found[1]) == self.skip:
            return True
        self.passed.append(int(found[1]))
        return False

    def close(self) -> None:
        self.release.set()
        self.listener.close()
        for sock in self._sockets:
            _shut(sock)
            sock.close()


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
