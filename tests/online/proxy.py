"""Proxies in front of a test server: a TCP one that can lose one answer on its way back (or
drop every connection), and an HTTP gateway whose token endpoint can fail for a moment or be
slow."""

from __future__ import annotations

import contextlib
import re
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests

from somnium_desktop.client.lobby_client import LobbyClient


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
        for client, upstream in accepted(self.listener, self.target_port):
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

    def cut(self) -> None:
        """Drop every connection open through it, as a network does for a moment; new ones
        are still taken."""
        with self._lock:
            sockets, self._sockets = self._sockets, []
        for sock in sockets:
            _shut(sock)
            sock.close()

    def close(self) -> None:
        self.listener.close()
        self.cut()


def accepted(listener: socket.socket, target_port: int) -> Iterator[tuple[socket.socket,
                                                                         socket.socket]]:
    """Each connection taken on `listener` (until it is closed), with a new connection to the
    server on 127.0.0.1:`target_port` to forward it to."""
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        yield client, socket.create_connection(("127.0.0.1", target_port))


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


class TokenGateway:
    """An HTTP gateway in front of a test server, for an AuthSession's requests (the token
    endpoint and signed requests; no streams). Its token endpoint can fail for a moment, as a
    proxy's HTTP 502 (`failing`: that many answers), or be held until `release` is set
    (`holding`), as a slow one; `asked` is set once a token request has come. Any other
    request whose path starts with `held` (when set) is held until `release` as well, `asked`
    set when it comes."""

    def __init__(self, target: str) -> None:
        self.target = target.rstrip("/")
        self.failing = 0
        self.holding = False
        self.held: str | None = None
        self.asked = threading.Event()
        self.release = threading.Event()
        self.token_requests = 0
        gateway = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                gateway._forward(self, "GET")

            def do_POST(self) -> None:
                gateway._forward(self, "POST")

            def do_DELETE(self) -> None:
                gateway._forward(self, "DELETE")

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def _forward(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        body = handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
        if handler.path.startswith("/auth/token"):
            self.token_requests += 1
            self.asked.set()
            if self.holding:
                self.release.wait(30)
            if self.failing > 0:
                self.failing -= 1
                _answer(handler, 502, b"<html><body>502 Bad Gateway</body></html>",
                        "text/html")
                return
        elif self.held is not None and handler.path.startswith(self.held):
            self.asked.set()
            self.release.wait(30)
        headers = {k: v for k, v in handler.headers.items() if k.lower() != "host"}
        answer = requests.request(method, self.target + handler.path, data=body,
                                  headers=headers, timeout=15)
        _answer(handler, answer.status_code, answer.content,
                answer.headers.get("Content-Type", ""))

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def _answer(handler: BaseHTTPRequestHandler, status: int, body: bytes, kind: str) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", kind)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def losing_proxy_for(client: LobbyClient, base: str) -> LosingProxy:
    """A LosingProxy in front of the server at `base`, every request of `client` through it."""
    proxy = LosingProxy(int(base.rsplit(":", 1)[1]))
    client.base_url = proxy.base
    assert client.auth is not None
    client.auth.server_url = proxy.base
    return proxy
