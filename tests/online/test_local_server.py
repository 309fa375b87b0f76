"""The built-in server: started once per data directory, shared, and gone when no app needs it."""

from __future__ import annotations

import itertools
import json
import logging
import socket
import sys
import threading
from pathlib import Path

import pytest

from somnium_desktop.client.lobby_client import LobbyClient
from somnium_desktop.client.local_server import (
    FIRST_RETRY,
    LocalServer,
    LocalServerError,
    is_alive,
)
from somnium_desktop.client.sse import EventStream, ServerEvent
from somnium_server.embedded import LOCK_FILE, lock
from tests.server.helpers import TIMEOUT, free_port


def test_one_server_for_two_instances_that_stays_while_one_is_connected(tmp_path: Path) -> None:
    first, second = LocalServer(tmp_path, idle=0.5), LocalServer(tmp_path, idle=0.5)
    urls: list[str] = []
    both = [threading.Thread(target=lambda s=s: urls.append(s.ensure()))
            for s in (first, second)]
    try:
        for thread in both:
            thread.start()
        for thread in both:
            thread.join(TIMEOUT * 3)
        assert len(urls) == 2 and urls[0] == urls[1]  # two instances at once: one server
        assert [first.owned, second.owned].count(True) == 1
        owner, other = (first, second) if first.owned else (second, first)
        state = json.loads((tmp_path / "server.json").read_text())
        assert urls[0] == f"http://127.0.0.1:{state['port']}"
        # The lobby works, with local accounts offered (a name only).
        client = LobbyClient(urls[0])
        assert client.games() == [] and client.levels()
        page = client.http.get(f"{urls[0]}/auth/authorize", timeout=TIMEOUT, params={
            "client_id": "somnium-desktop", "redirect_uri": "http://127.0.0.1:9/callback",
            "state": "s", "response_type": "code", "code_challenge": "x" * 43,
            "code_challenge_method": "S256"})
        assert "Local account" in page.text
        # The app that started it quits; another instance still follows the lobby.
        seen: list[ServerEvent] = []
        stream = EventStream(client.lobby_events_url, seen.append, read_timeout=5)
        stream.start()
        owner.close()
        assert not owner.wait_stopped(1.5)  # still serving the other instance
        assert is_alive(urls[0]) and seen and seen[0].event == "snapshot"
        stream.close()
        assert owner.wait_stopped(TIMEOUT)  # nobody left: it leaves
        assert not (tmp_path / "server.json").exists()
        # The next instance starts it again, on the same database.
        restarted = other.ensure()
        assert other.owned and is_alive(restarted)
    finally:
        first.stop()
        second.stop()


def test_a_folder_that_cannot_be_written_is_said_in_plain_words(tmp_path: Path) -> None:
    """As with a read-only data folder: a file stands where a folder must be made."""
    (tmp_path / "data").write_text("")
    folder = tmp_path / "data" / "Somnium Desktop" / "local-server"
    server = LocalServer(folder, idle=0.5)
    with pytest.raises(LocalServerError) as raised:  # (the app shows a LobbyError's words)
        server.ensure()
    assert str(raised.value) == \
        f"The built-in server cannot keep its games in {folder}: Not a directory."
    server.warm_up()  # its thread ends quietly (pytest reports an exception that ends one)
    for thread in threading.enumerate():
        if thread.name == "local-server-start":
            thread.join(TIMEOUT)
    assert not server.owned


def test_a_server_that_holds_the_lock_but_does_not_answer_is_not_started_over_and_over(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Another server (hung, stopped) holds the lock and wrote server.json, but nothing
    answers there: ours is started again after a growing delay (it was every tenth of a
    second, 39 processes in 6 s), and the wait ends saying which process holds the folder."""
    held = lock(tmp_path / LOCK_FILE)
    assert held is not None
    (tmp_path / "server.json").write_text(json.dumps({"port": free_port(), "pid": 4242}))
    started = tmp_path / "started"
    wrapper = tmp_path / "server.py"  # the real server, each start noted with its time
    wrapper.write_text(
        "import runpy, sys, time\n"
        f"with open({str(started)!r}, 'a') as note: note.write(f'{{time.time()}}\\n')\n"
        "sys.argv[0] = 'somnium_server.embedded'\n"
        "runpy.run_module('somnium_server.embedded', run_name='__main__')\n")
    server = LocalServer(tmp_path, [sys.executable, str(wrapper)], start_timeout=7)
    try:
        with caplog.at_level(logging.WARNING), pytest.raises(LocalServerError) as raised:
            server.ensure()
    finally:
        held.close()
    times = [float(line) for line in started.read_text().split()]
    assert len(times) == 3, times  # at once, 2 s later, 4 s after that (7 s: no more)
    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    assert gaps[0] >= FIRST_RETRY and gaps[1] >= 2 * FIRST_RETRY, gaps
    said = (f"Another Somnium server (pid 4242) holds {tmp_path} but does not answer. End "
            "that process, or wait for it to come back.")
    assert str(raised.value) == said
    assert [record.getMessage() for record in caplog.records] == [said]  # (logged once)


def _answering(answer: bytes) -> tuple[str, threading.Thread]:
    """A one-shot server on a free port that reads a request and sends `answer` (then closes)."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def serve() -> None:
        with listener:
            connection, _ = listener.accept()
            with connection:
                request = b""
                while b"\r\n\r\n" not in request:
                    request += connection.recv(1024)
                connection.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return f"http://127.0.0.1:{port}", thread


def test_the_health_probe_takes_only_a_somnium_server_for_one() -> None:
    ok = b'HTTP/1.1 200 OK\r\ncontent-length: 15\r\n\r\n{"status":"ok"}'
    url, thread = _answering(ok)
    assert is_alive(url)
    thread.join(TIMEOUT)
    for answer in (
        b"HTTP/1.1 404 Not Found\r\ncontent-length: 15\r\n\r\n{\"status\":\"ok\"}",  # not /health
        b"HTTP/1.1 200 OK\r\ncontent-length: 9\r\n\r\nnot json!",  # another kind of server
        b'HTTP/1.1 200 OK\r\n\r\n{"status":"down"}',
        b"garbage",
    ):
        url, thread = _answering(answer)
        assert not is_alive(url), answer
        thread.join(TIMEOUT)
    url, thread = _answering(b"")  # closes at once, having said nothing
    assert not is_alive(url)
    thread.join(TIMEOUT)
    with socket.socket() as unused:  # a port with nobody listening
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    assert not is_alive(f"http://127.0.0.1:{port}", timeout=0.5)
