"""An answer's head and body leave in one socket write; streams and HEAD answers still work."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from somnium_server.onewrite import OneWriteProtocol

from .helpers import TIMEOUT, EventReader, LiveServer, server_settings


class _Counted:
    """A transport whose writes are noted (all else passes through to the real one)."""

    def __init__(self, transport: Any, writes: list[bytes]) -> None:
        self.transport = transport
        self.writes = writes

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))
        self.transport.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


WRITES: list[bytes] = []


class Counting(OneWriteProtocol):
    """The server's protocol, noting every write to the socket."""

    def connection_made(self, transport: Any) -> None:
        super().connection_made(_Counted(transport, WRITES))  # type: ignore[arg-type]


@pytest.fixture
def counted(tmp_path: Path) -> Iterator[LiveServer]:
    live = LiveServer(server_settings(tmp_path / "db.sqlite3"), protocol=Counting)
    try:
        yield live
    finally:
        live.stop()


def test_an_answer_is_one_write_of_head_and_body(counted: LiveServer) -> None:
    ann, bob = counted.player("Ann"), counted.player("Bob")
    game = ann.create()
    WRITES.clear()
    joined = bob.post(f"/games/{game['id']}/join")  # the full framework's answer
    assert joined.status_code == 200
    detail = ann.get(f"/games/{game['id']}")  # the raw path's
    assert detail.status_code == 200
    action = ann.act(game["id"], detail.json()["version"], {"type": "draw"})
    missing = ann.get("/games/NOSUCH1")
    assert missing.status_code == 404
    assert len(WRITES) == 4, [w[:40] for w in WRITES]
    for write, response in zip(WRITES, (joined, detail, action, missing), strict=True):
        head, _, body = write.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 %d" % response.status_code)
        assert body == response.content


def test_heads_without_a_body_and_endless_streams_still_go_out(counted: LiveServer) -> None:
    head = requests.head(counted.base + "/health", timeout=TIMEOUT)
    assert head.status_code in (200, 405) and head.headers["content-length"]
    lobby = EventReader(counted.base + "/lobby/events")
    try:
        first = lobby.next()
        # resuming with nothing missed: no event to send, yet the head arrives at once
        started = time.monotonic()
        resumed = requests.get(
            counted.base + "/lobby/events", stream=True, timeout=TIMEOUT,
            headers={"Last-Event-ID": str(first.id)},
        )
        assert resumed.status_code == 200 and time.monotonic() - started < 2.0
        resumed.close()
    finally:
        lobby.close()
