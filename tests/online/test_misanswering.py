"""A server that answers, but not as a lobby server (an error, a web page, garbage, no HTTP),
is named as such: "cannot be reached" is kept for one that does not answer at all."""

from __future__ import annotations

import socket
import socketserver
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from somnium_desktop.client.errors import ServerFailed
from somnium_desktop.client.lobby_client import LobbyClient
from tests.online.helpers import close_windows, open_window

ANSWERS = {  # what the tiny server sends to every GET: status, content type, body
    "error": (500, "text/plain", b"Internal Server Error"),
    "not found": (404, "text/html", b"<html><body>404 Not Found</body></html>"),
    "web page": (200, "text/html; charset=utf-8", b"<html><body>Welcome to nginx!</body></html>"),
    "garbage": (200, "application/octet-stream", b"\x00\x17garbage\xff"),
}


class Tiny(ThreadingHTTPServer):
    answer: tuple[int, str, bytes]


class Handler(BaseHTTPRequestHandler):
    server: Tiny

    def do_GET(self) -> None:
        status, kind, body = self.server.answer
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # (quiet)
        pass


class NoHttp(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        self.request.recv(4096)
        self.request.sendall(b"SSH-2.0-OpenSSH_9.2\r\n")


@pytest.fixture(params=[*ANSWERS, "no http"])
def answering(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    """A real server on 127.0.0.1 that answers one way: (its base URL, the way)."""
    server: socketserver.TCPServer
    if request.param == "no http":
        server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), NoHttp)
    else:
        tiny = Tiny(("127.0.0.1", 0), Handler)
        tiny.answer = ANSWERS[request.param]
        server = tiny
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", request.param
    server.shutdown()
    server.server_close()


WORDS = {"error": "failed (HTTP 500", "not found": "(HTTP 404 Not Found; is the address",
         "web page": "a web page",
         "garbage": "application/octet-stream", "no http": "not HTTP"}


def test_the_lobby_names_what_the_server_answered(
    qtbot: QtBot, tmp_path: Path, answering: tuple[str, str]
) -> None:
    url, way = answering
    window = open_window(qtbot, tmp_path, "ada", url)
    message = window.lobby_panel.message
    qtbot.waitUntil(lambda: WORDS[way] in message.text(), timeout=5000)
    assert "cannot be reached" not in message.text()
    assert "127.0.0.1" in message.text() and message.property("error") is True
    qtbot.wait(2000)  # the computer levels are looked up too, and the stream tries again
    assert "cannot be reached" not in message.text()
    assert not window.lobby_panel.create_button.isEnabled()
    close_windows(qtbot, window)


def test_the_client_says_what_came_back(answering: tuple[str, str]) -> None:
    url, way = answering
    with pytest.raises(ServerFailed) as failed:
        LobbyClient(url, timeout=3.0).levels()
    text = str(failed.value)
    assert "cannot be reached" not in text and "answers, but" in text and WORDS[way] in text


def test_no_answer_at_all_is_cannot_be_reached(qtbot: QtBot, tmp_path: Path) -> None:
    with socket.socket() as taken:  # a port nobody listens on
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]
    window = open_window(qtbot, tmp_path, "ada", f"http://127.0.0.1:{port}")
    message = window.lobby_panel.message
    qtbot.waitUntil(lambda: "cannot be reached" in message.text(), timeout=5000)
    close_windows(qtbot, window)
