"""A TCP proxy in front of a test server that can lose one answer on its way back."""

from __future__ import annotations

import contextlib
import re
import socket
import threading


class LosingProxy:
    """Forwards connections to a server on 127.0.0.1. Once armed with a marker, the next
    request holding it reaches the server, but the server's answer is dropped and the
    connection closed, as when a network drops just after sending."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.base = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.marker: bytes | None = None
        self.dropped = 0
        self.sent_up: list[bytes] = []
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def arm(self, marker: bytes) -> None:
        self.marker = marker

    def action_ids(self) -> list[str]:
        """The action ids of every action request that went through."""
        with self._lock:
            data = b"".join(self.sent_up)
        return [m.decode() for m in re.findall(rb'"action_id": ?"([^"]+)"', data)]

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            with self._lock:
                self._sockets += [client, upstream]
            losing = threading.Event()
            threading.Thread(target=self._up, args=(client, upstream, losing), daemon=True).start()
            threading.Thread(target=self._down, args=(upstream, client, losing),
                             daemon=True).start()

    def _up(self, client: socket.socket, upstream: socket.socket, losing: threading.Event) -> None:
        with contextlib.suppress(OSError):
            while data := client.recv(65536):
                with self._lock:
                    self.sent_up.append(data)
                if self.marker is not None and self.marker in data:
                    self.marker = None
                    losing.set()
                upstream.sendall(data)
        _shut(upstream)

    def _down(self, upstream: socket.socket, client: socket.socket,
              losing: threading.Event) -> None:
        with contextlib.suppress(OSError):
            while data := upstream.recv(65536):
                if losing.is_set():
                    self.dropped += 1
                    break
                client.sendall(data)
        _shut(client)
        _shut(upstream)

    def close(self) -> None:
        self.listener.close()
        with self._lock:
            for sock in self._sockets:
                _shut(sock)
                sock.close()


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
