"""The built-in server's boot front: the lobby answered before the full app exists, the same
bytes as the full app's, and every other request held until the full app takes it."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import requests
from starlette.types import ASGIApp

from somnium_server.config import Settings
from somnium_server.context import build_context
from somnium_server.embedded import full_app
from somnium_server.front import Front

from .helpers import TEST_COMPUTERS, TIMEOUT, LiveServer, server_settings

Answer = tuple[list[bytes], bytes]  # the head's lines (without Date), the body so far


def ask(base: str, path: str, until: bytes | None = None) -> Answer:
    """A raw GET: the whole answer, or (for a stream) its head and body up to `until`."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=TIMEOUT) as connection:
        connection.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
                           .encode())
        data = b""
        while until is None or until not in data.partition(b"\r\n\r\n")[2]:
            chunk = connection.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = [line for line in head.split(b"\r\n") if not line.lower().startswith(b"date:")]
    return lines, body.partition(until)[0] + until if until else body


def first_frame(base: str) -> Answer:
    return ask(base, "/lobby/events", until=b"\n\n")


def gated_front(settings: Settings, gate: threading.Event) -> Front:
    """The built-in server's front, whose full app is built only once `gate` is set."""
    ctx = build_context(settings, computers=TEST_COMPUTERS)

    def build() -> ASGIApp:
        assert gate.wait(TIMEOUT), "the test never let the full app be built"
        return full_app(ctx)

    return Front(ctx, build)


def test_lobby_answered_before_the_full_app_and_the_same_after(tmp_path: Path) -> None:
    settings = server_settings(tmp_path / "somnium.sqlite3")
    seeded = LiveServer(settings)  # a game in the database, made through the full app
    try:
        game = seeded.player("ada").create(name="Ada's table")
    finally:
        seeded.stop()
    gate = threading.Event()
    front = gated_front(settings, gate)
    server = LiveServer(settings, front=front)
    levels: list[requests.Response] = []
    try:
        early_health = ask(server.base, "/health")
        early_lobby = first_frame(server.base)
        assert front.full is None  # answered by the front alone
        assert early_health[0][0] == b"HTTP/1.1 200 OK" and b'"status":"ok"' in early_health[1]
        assert early_lobby[0][0] == b"HTTP/1.1 200 OK"
        assert b"event: snapshot" in early_lobby[1] and game["id"].encode() in early_lobby[1]
        # Another route waits for the full app, then gets its answer.
        waiting = threading.Thread(target=lambda: levels.append(server.get("/levels")))
        waiting.start()
        waiting.join(0.3)
        assert waiting.is_alive() and not levels
        gate.set()
        waiting.join(TIMEOUT)
        assert [r.status_code for r in levels] == [200]
        assert levels[0].json() == [{"key": "test", "label": "Test"}]
        assert front.full is not None
        # The full app gives the same bytes (head and body) as the front did.
        assert ask(server.base, "/health") == early_health
        assert first_frame(server.base) == early_lobby
    finally:
        gate.set()
        server.stop()


def test_a_stream_opened_at_boot_follows_the_lobby_after_it(tmp_path: Path) -> None:
    settings = server_settings(tmp_path / "somnium.sqlite3")
    gate = threading.Event()
    server = LiveServer(settings, front=gated_front(settings, gate))
    try:
        host, port = server.base.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=TIMEOUT) as stream:
            stream.sendall(b"GET /lobby/events HTTP/1.1\r\nHost: x\r\n\r\n")
            seen = b""
            while b"event: snapshot" not in seen:
                seen += stream.recv(65536)
            player = server.player("bo")
            creating = threading.Thread(target=lambda: player.create(name="Bo's table"))
            creating.start()  # a write: it waits for the full app
            gate.set()
            creating.join(TIMEOUT)
            while b"event: game_created" not in seen:
                seen += stream.recv(65536)
            assert b"Bo's table" in seen
    finally:
        gate.set()
        server.stop()


def test_the_built_in_process_answers_the_lobby_and_then_everything(tmp_path: Path) -> None:
    child = subprocess.Popen(
        [sys.executable, "-m", "somnium_server.embedded", "--data-dir", str(tmp_path),
         "--idle", "0.2"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
    )
    assert child.stdin is not None and child.stdout is not None
    try:
        port = int(child.stdout.readline().split(b":")[1].strip(b" }\r\n"))
        base = f"http://127.0.0.1:{port}"
        _, body = first_frame(base)
        assert b"\nevent: snapshot\n" in body and b'{"type":"snapshot","games":[]}' in body
        answer = requests.get(f"{base}/levels", timeout=TIMEOUT)
        assert answer.status_code == 200 and answer.json()
        assert requests.get(f"{base}/nowhere", timeout=TIMEOUT).json()["error"] == "not_found"
    finally:
        child.stdin.close()
        deadline = time.monotonic() + TIMEOUT
        while child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if child.poll() is None:
            child.kill()
        child.wait()
        child.stdout.close()
    assert child.returncode == 0
