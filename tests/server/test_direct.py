"""The protocol's direct answers: the full app's bytes, fall-backs, keep-alive and pipelining."""

from __future__ import annotations

import contextlib
import logging
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from somnium_server.config import RateLimit
from somnium_server.direct import DirectCycle, DirectProtocol
from somnium_server.fastpath import Answer

from .helpers import TIMEOUT, LiveServer, Player, server_settings

DATE = re.compile(rb"(?m)^date: [^\r]*\r\n")
ANSWERED: list[int] = []  # the statuses the direct path wrote, in order


class Noting(DirectProtocol):
    """The server's protocol, noting each answer its direct path writes."""

    def _write(self, cycle: DirectCycle, answer: Answer) -> None:
        ANSWERED.append(answer[0])
        super()._write(cycle, answer)


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    settings = server_settings(tmp_path / "db.sqlite3", rate_act=RateLimit(30, 60))
    server = LiveServer(settings, protocol=Noting)
    try:
        yield server
    finally:
        server.stop()


class Raw:
    """One keep-alive connection speaking raw HTTP/1.1, to see every byte of the answers."""

    def __init__(self, live: LiveServer) -> None:
        host, port = live.base.removeprefix("http://").split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=TIMEOUT)
        self.pending = b""

    def send(self, *requests: bytes) -> list[bytes]:
        """Send the requests in one write (pipelined); the answers, head and body, in order."""
        self.sock.sendall(b"".join(requests))
        return [self._answer() for _ in requests]

    def _answer(self) -> bytes:
        while b"\r\n\r\n" not in self.pending:
            self._read()
        head, _, _ = self.pending.partition(b"\r\n\r\n")
        length = int(re.search(rb"(?mi)^content-length: (\d+)\r?$", head).group(1))  # type: ignore[union-attr]
        size = len(head) + 4 + length
        while len(self.pending) < size:
            self._read()
        answer, self.pending = self.pending[:size], self.pending[size:]
        return answer

    def _read(self) -> None:
        data = self.sock.recv(65536)
        if not data:
            raise ConnectionError("the server closed the connection")
        self.pending += data

    def closed(self) -> bool:
        """True once the server has closed the connection (nothing more was sent)."""
        return self.sock.recv(1) == b""

    def close(self) -> None:
        self.sock.close()


def request(method: str, path: str, body: Any = None, token: str | None = None,
            extra: bytes = b"", raw_body: bytes | None = None) -> bytes:
    payload = raw_body if raw_body is not None else b"" if body is None else orjson.dumps(body)
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode()
    if payload or method == "POST":
        head += b"Content-Type: application/json\r\nContent-Length: %d\r\n" % len(payload)
    if token:
        head += f"Authorization: Bearer {token}\r\n".encode()
    return head + extra + b"\r\n" + payload


def masked(answer: bytes) -> bytes:
    return DATE.sub(b"date: -\r\n", answer)


def full_app_answers(live: LiveServer, *requests: bytes) -> list[bytes]:
    """The same requests answered by the full app (the raw paths turned off meanwhile)."""
    fast = live.app.fast  # type: ignore[attr-defined]
    live.app.fast = None  # type: ignore[attr-defined]
    raw = Raw(live)
    try:
        return raw.send(*requests)
    finally:
        raw.close()
        live.app.fast = fast  # type: ignore[attr-defined]


def started(live: LiveServer) -> tuple[Player, Player, dict[str, Any]]:
    ann, bob = live.player("Ann"), live.player("Bob")
    game = ann.create()
    joined = bob.post(f"/games/{game['id']}/join")
    assert joined.status_code == 200
    return ann, bob, joined.json()


def test_direct_answers_are_the_full_apps_bytes(live: LiveServer) -> None:
    ann, bob, game = started(live)
    gid, version = game["id"], game["version"]
    mover = (ann, bob)[game["view"]["turn"]]
    draw = {"type": "draw"}
    watcher = live.player("Cid")
    act = f"/games/{gid}/actions"
    first = {"action_id": "first", "version": version, "action": draw}
    raw = Raw(live)
    ANSWERED.clear()
    [played] = raw.send(request("POST", act, first, mover.token))
    assert played.startswith(b"HTTP/1.1 200 OK\r\n") and ANSWERED == [200]
    version += 1
    # The first draw may be Death, which passes the turn: the waiter is whoever is not to move now.
    turn = mover.get(f"/games/{gid}").json()["view"]["turn"]
    waiter = (ann, bob)[1 - turn]
    same = [  # each asked twice gives the same answer: a retried action id its first answer
        request("GET", f"/games/{gid}"),
        request("GET", "/games/NOSUCH9"),
        request("POST", act, first, mover.token),
        request("POST", act, {**first, "action_id": "stale"}, mover.token),
        request("POST", act, {"action_id": "x", "version": version, "action": draw}),
        request("POST", act, {"action_id": "x", "version": version, "action": draw}, "nonsense"),
        request("POST", act, {"action_id": "y", "version": version, "action": draw},
                watcher.token),
        request("POST", act, {"action_id": "z", "version": version, "action": draw},
                waiter.token),
        request("POST", "/games/NOSUCH9/actions", first, mover.token),
    ]
    ANSWERED.clear()
    try:
        direct = [raw.send(asked)[0] for asked in same]  # one by one on one connection
    finally:
        raw.close()
    assert ANSWERED == [200, 404, 200, 409, 401, 401, 403, 409, 404]
    full = [full_app_answers(live, asked)[0] for asked in same]
    assert [masked(a) for a in direct] == [masked(a) for a in full]
    assert b"www-authenticate: Bearer\r\n" in direct[4]


def test_rate_limited_answers_match_too(live: LiveServer) -> None:
    ann, _, game = started(live)
    stale = request("POST", f"/games/{game['id']}/actions",
                    {"action_id": "s", "version": 0, "action": {"type": "draw"}}, ann.token)
    raw = Raw(live)
    answers = raw.send(*[stale] * 31)  # 30 a minute: the 31st is turned away
    raw.close()
    assert answers[-1].startswith(b"HTTP/1.1 429 ") and b"retry-after: " in answers[-1]
    [full] = full_app_answers(live, stale)
    assert full.startswith(b"HTTP/1.1 429 ")
    # the wait told may have ticked down a second meanwhile; all else is the same bytes
    wait = re.compile(rb"\d+")
    assert wait.sub(b"N", masked(full)) == wait.sub(b"N", masked(answers[-1]))


def _act(gid: str, token: str, body: Any = None, raw_body: bytes | None = None) -> bytes:
    return request("POST", f"/games/{gid}/actions", body, token, raw_body=raw_body)


# (name, the request made of the game id and a player's token, the full app's status)
UNUSUAL: list[tuple[str, Any, int]] = [
    ("not json", lambda gid, t: _act(gid, t, raw_body=b"{oops"), 422),
    ("unknown field", lambda gid, t: _act(
        gid, t, {"action_id": "u", "version": 1, "action": {"type": "draw"}, "extra": 1}), 422),
    ("action out of bounds", lambda gid, t: _act(
        gid, t, {"action_id": "", "version": -1, "action": {"type": "fly"}}), 422),
    ("too large", lambda gid, t: _act(gid, t, raw_body=b" " * 70_000), 413),
    ("query", lambda gid, t: request("GET", f"/games/{gid}?full=1"), 200),
    ("escaped", lambda gid, t: request("GET", f"/games/{gid[:-1]}%{ord(gid[-1]):02X}"), 200),
    ("HTTP/1.0", lambda gid, t: request("GET", f"/games/{gid}").replace(
        b"HTTP/1.1", b"HTTP/1.0", 1), 200),
    ("a GET body", lambda gid, t: request("GET", f"/games/{gid}", raw_body=b"{}"), 200),
    ("wrong method", lambda gid, t: request("PUT", f"/games/{gid}/actions", {}), 405),
    ("id too long", lambda gid, t: request("GET", "/games/" + "A" * 17), 422),
]


@pytest.mark.parametrize("name, make, status", UNUSUAL, ids=[u[0] for u in UNUSUAL])
def test_unusual_requests_take_the_usual_path(
    live: LiveServer, name: str, make: Any, status: int
) -> None:
    ann, _, game = started(live)
    asked = make(game["id"], ann.token)
    raw = Raw(live)
    ANSWERED.clear()
    try:
        [answer] = raw.send(asked)
    finally:
        raw.close()
    assert ANSWERED == [], name
    assert answer.startswith(b"HTTP/1.1 %d " % status), answer[:200]
    [full] = full_app_answers(live, asked)
    assert masked(answer) == masked(full), name


def test_a_chunked_action_is_served_the_usual_way(live: LiveServer) -> None:
    ann, bob, game = started(live)
    mover = ann if game["view"]["turn"] == 0 else bob
    body = orjson.dumps({"action_id": "c", "version": game["version"], "action": {"type": "draw"}})
    chunked = (
        f"POST /games/{game['id']}/actions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {mover.token}\r\nTransfer-Encoding: chunked\r\n\r\n"
    ).encode() + b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    raw = Raw(live)
    ANSWERED.clear()
    [answer] = raw.send(chunked)
    raw.close()
    assert answer.startswith(b"HTTP/1.1 200 ") and ANSWERED == []
    assert orjson.loads(answer.partition(b"\r\n\r\n")[2])["version"] == game["version"] + 1


def test_keep_alive_and_pipelining_mix_both_paths(live: LiveServer) -> None:
    ann, bob, game = started(live)
    gid, version = game["id"], game["version"]
    raw = Raw(live)
    for n in range(6):  # one action after another on one connection, each read back
        view = orjson.loads(raw.send(request("GET", f"/games/{gid}"))[0].partition(b"\r\n\r\n")[2])
        mover = ann if view["view"]["turn"] == 0 else bob
        if view["view"]["over"]:
            break
        action = view["view"]["legal"][0]
        [answer] = raw.send(request("POST", f"/games/{gid}/actions",
                                    {"action_id": f"k{n}", "version": version, "action": action},
                                    mover.token))
        assert answer.startswith(b"HTTP/1.1 200 "), answer
        version = orjson.loads(answer.partition(b"\r\n\r\n")[2])["version"]
    # at once: two direct (each answered at once), one usual (malformed), and one queued
    # behind it by uvicorn as usual; answers in order
    ANSWERED.clear()
    answers = raw.send(
        request("GET", f"/games/{gid}"),
        request("GET", f"/games/{gid}"),
        request("POST", f"/games/{gid}/actions", raw_body=b"[]", token=ann.token),
        request("GET", f"/games/{gid}"),
    )
    assert [a[9:12] for a in answers] == [b"200", b"200", b"422", b"200"]
    assert ANSWERED == [200, 200]
    bodies = [orjson.loads(a.partition(b"\r\n\r\n")[2]) for a in answers]
    assert bodies[0] == bodies[1] == bodies[3] and bodies[0]["version"] == version
    # an action (answered by a task) and a read pipelined behind it: the read waits for it
    view = bodies[0]["view"]
    mover = ann if view["turn"] == 0 else bob
    posted = {"action_id": "p", "version": version, "action": view["legal"][0]}
    ANSWERED.clear()
    answers = raw.send(request("POST", f"/games/{gid}/actions", posted, mover.token),
                       request("GET", f"/games/{gid}"))
    raw.close()
    assert [a[9:12] for a in answers] == [b"200", b"200"] and ANSWERED == [200]
    acted, read = (orjson.loads(a.partition(b"\r\n\r\n")[2]) for a in answers)
    assert read["version"] == acted["version"] == version + 1


def test_connection_close_is_honoured(live: LiveServer) -> None:
    _, _, game = started(live)
    raw = Raw(live)
    [answer] = raw.send(request("GET", f"/games/{game['id']}", extra=b"Connection: close\r\n"))
    assert b"\r\nconnection: close\r\n" in answer.partition(b"\r\n\r\n")[0] + b"\r\n"
    assert raw.closed()
    raw.close()


class _Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def test_the_access_log_reads_as_uvicorns(tmp_path: Path) -> None:
    settings = server_settings(tmp_path / "db.sqlite3", access_log=True, log_level="info")
    server = LiveServer(settings, protocol=Noting)
    kept = _Kept()
    access = logging.getLogger("uvicorn.access")
    access.addHandler(kept)
    try:
        _, _, game = started(server)
        asked = request("GET", f"/games/{game['id']}")
        raw = Raw(server)
        ANSWERED.clear()
        try:
            raw.send(asked)
        finally:
            raw.close()
        assert ANSWERED == [200]
        full_app_answers(server, asked)
    finally:
        access.removeHandler(kept)
        server.stop()
    direct, full = kept.lines[-2:]
    address = re.compile(r"^127\.0\.0\.1:\d+ ")
    line = f'- "GET /games/{game["id"]} HTTP/1.1" 200'
    assert address.sub("", direct) == address.sub("", full) == line


def test_the_built_in_server_still_listens_before_pydantic_is_loaded() -> None:
    code = (
        "import sys, somnium_server.embedded_server, somnium_server.direct\n"
        "print(sorted(m for m in ('pydantic', 'fastapi', 'somnium_server.models') "
        "if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == "[]"


def _chunks(raw: bytes) -> tuple[list[bytes], bytes]:
    """The complete chunks of a chunked body, and what is left after them."""
    chunks = []
    while b"\r\n" in raw:
        size_line, _, rest = raw.partition(b"\r\n")
        size = int(size_line, 16)
        if len(rest) < size + 2:
            break
        assert rest[size:size + 2] == b"\r\n", rest[:size + 2]
        chunks.append(rest[:size])
        raw = rest[size + 2:]
    return chunks, raw


def test_stream_events_are_written_straight_as_well_framed_chunks(live: LiveServer) -> None:
    ann, bob, game = started(live)
    gid = game["id"]
    raw = Raw(live)
    try:
        raw.sock.sendall(f"GET /games/{gid}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        while b"\r\n\r\n" not in raw.pending:
            raw._read()
        head, _, raw.pending = raw.pending.partition(b"\r\n\r\n")
        assert b"\r\ntransfer-encoding: chunked" in head
        while b"event: snapshot" not in raw.pending:
            raw._read()
        ctx = live.app.state.ctx
        [subscriber] = ctx.games.room(gid).channel.subscribers
        assert subscriber.direct is not None
        assert subscriber.direct.__qualname__ == "chunk_writer.<locals>.write"
        mover = ann if game["view"]["turn"] == 0 else bob
        answer = mover.act(gid, game["version"], {"type": "draw"})
        assert answer.status_code == 200
        seqs = [event["seq"] for event in answer.json()["events"]]
        text = b""
        while not all(b"id: %d\n" % seq in text for seq in seqs):
            raw._read()
            chunks, _ = _chunks(raw.pending)
            text = b"".join(chunks)
        # the action's frames came in one chunk of their own
        assert any(chunk.startswith(b"id: %d\n" % seqs[0]) for chunk in chunks)
    finally:
        raw.close()


def test_idle_connections_close_after_the_keep_alive_timeout_busy_ones_stay(
    live: LiveServer,
) -> None:
    _, _, game = started(live)
    live.server.config.timeout_keep_alive = 0.3  # type: ignore[assignment]  # read by each new connection
    busy, idle = Raw(live), Raw(live)
    try:
        idle.send(request("GET", f"/games/{game['id']}"))
        started_at = time.monotonic()
        for _ in range(6):  # a request every 0.15 s for 0.9 s: each answer moves the deadline
            [answer] = busy.send(request("GET", f"/games/{game['id']}"))
            assert answer.startswith(b"HTTP/1.1 200 ")
            time.sleep(0.15)
        assert idle.closed()
        assert time.monotonic() - started_at < 5.0  # not the test's own timeout
        waited = time.monotonic()
        assert busy.closed()  # once idle, it goes the same way
        assert 0.1 < time.monotonic() - waited < 5.0
    finally:
        busy.close()
        idle.close()


def test_a_request_pipelined_behind_a_direct_answer_is_not_taken_for_idle(
    live: LiveServer,
) -> None:
    _, _, game = started(live)
    live.server.config.timeout_keep_alive = 0.3  # type: ignore[assignment]  # read by each new connection
    raw = Raw(live)
    try:
        # A direct answer, then a stream, in one read: the stream must outlive the timeout.
        raw.sock.sendall(request("GET", f"/games/{game['id']}") + request("GET", "/lobby/events"))
        assert raw._answer().startswith(b"HTTP/1.1 200 ")
        time.sleep(1.0)
        raw.sock.setblocking(False)
        with contextlib.suppress(BlockingIOError):  # open, with nothing more to say yet
            assert raw.sock.recv(65536) != b"", "the stream was closed as an idle connection"
    finally:
        raw.close()


def test_an_unexpected_error_on_the_direct_path_is_a_500_and_the_connection_goes_on(
    live: LiveServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    ann, _, game = started(live)
    fast = live.app.fast  # type: ignore[attr-defined]

    def broken_read(game_id: str) -> Any:
        raise RuntimeError("a bug in reading a game")

    async def broken_act(*args: Any) -> Any:
        raise RuntimeError("a bug in acting")

    monkeypatch.setattr(fast, "game", broken_read)  # faults injected into the real server
    monkeypatch.setattr(fast, "act", broken_act)
    raw = Raw(live)
    try:
        [read] = raw.send(request("GET", f"/games/{game['id']}"))
        [act] = raw.send(_act(game["id"], ann.token, {
            "action_id": "a1", "version": game["version"], "action": {"type": "draw"}}))
        [again] = raw.send(request("GET", f"/games/{game['id']}"))  # the connection goes on
    finally:
        raw.close()
    for answer in (read, act, again):
        assert answer.startswith(b"HTTP/1.1 500 "), answer
        assert b'"error":"internal_error"' in answer
    logged = [r for r in caplog.records if r.name == "somnium_server.direct"]
    assert len(logged) == 3 and all(r.exc_info for r in logged)
