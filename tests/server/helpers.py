"""Test helpers: a real uvicorn on 127.0.0.1, users made through the storage layer, SSE reading."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import queue
import random
import socket
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import psycopg
import requests
from fastapi import FastAPI

from somnium_desktop.game import Action, View
from somnium_server.app import create_app
from somnium_server.cli import Server, uvicorn_config
from somnium_server.config import RateLimit, Settings
from somnium_server.live.events import StreamHub
from somnium_server.play.computer import Computers
from somnium_server.play.games import GameService
from somnium_server.play.lobby import Lobby
from somnium_server.signin.sessions import issue_session
from somnium_server.storage import Storage
from somnium_server.storage.backend import open_storage

from ..conftest import Database

TIMEOUT = 10.0
# A stopping server may take its own budgets one after the other: uvicorn's graceful shutdown
# (1 s), the lobby's last events stored (play/lobby.py STOP_WAIT, 5 s) and, on PostgreSQL, the
# pool's close (5 s): a join shorter than their sum can fail a server that stops as designed.
STOP_TIMEOUT = 30.0


class PickyBot:
    """A test-only computer player: a random legal action from the public view."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: View, seat: int) -> Action:
        assert view.turn == seat
        return self.rng.choice(view.legal)


TEST_COMPUTERS = Computers(
    make=lambda key, seed: PickyBot(seed), available=lambda: {"test": "Test"}
)


def on(database: Database, settings: Settings) -> Settings:
    """`settings` with their storage in `database` (an SQLite file or a postgresql:// URL)."""
    if isinstance(database, Path):
        return replace(settings, database=database, database_url="")
    return replace(settings, database_url=database)


def where(settings: Settings) -> Database:
    """The database `settings` use."""
    return settings.database_url or settings.database


def open_test_storage(database: Database) -> Storage:
    """The storage a server on `database` opens (its migrations done)."""
    return open_storage(on(database, Settings()))


def service_on(storage: Storage) -> GameService:
    """A game service on `storage`, outside any server (nothing loaded yet)."""
    return GameService(
        storage, Lobby(16), StreamHub(1.0, 1), TEST_COMPUTERS, event_window=1000,
        computer_pause=1.0, observer_flush=1.0,
    )


def query(database: Database, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """The rows of one statement (written with ? marks) run on the database itself."""
    if isinstance(database, Path):
        with contextlib.closing(sqlite3.connect(database)) as conn, conn:  # (commits)
            return conn.execute(sql, args).fetchall()
    with psycopg.connect(database, autocommit=True) as pg:
        cursor = pg.execute(sql.replace("?", "%s").encode(), args)
        return cursor.fetchall() if cursor.description is not None else []


def stored_text(database: Database) -> str:
    """Every row of every table as text: where to look for what must never be stored."""
    tables = query(database, "SELECT name FROM sqlite_master WHERE type = 'table'"
                   if isinstance(database, Path) else
                   "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
    return "\n".join(str(row) for (table,) in tables
                     for row in query(database, f"SELECT * FROM {table}"))


def server_settings(database: Database, **changes: Any) -> Settings:
    """Settings for a test server: fast pauses and keep-alives, generous limits."""
    base = on(database, Settings(
        host="127.0.0.1", port=0, keepalive=0.5, computer_pause=0.02,
        observer_flush=0.05, access_log=False, log_level="warning", max_streams=64,
        rate_create=RateLimit(100000, 1), rate_join=RateLimit(1000, 1), rate_act=RateLimit(1000, 1),
        rate_signin=RateLimit(1000, 1),
    ))
    return replace(base, **changes)


def make_user(database: Database, name: str, lifetime: float = 3600.0) -> tuple[str, str]:
    """A user and a session made through the storage layer; returns (user id, token)."""

    async def work() -> tuple[str, str]:
        storage = open_test_storage(database)
        try:
            user = await storage.create_user(name)
            return user.id, await issue_session(storage, user.id, lifetime)
        finally:
            await storage.close()

    return asyncio.run(work())


@dataclass
class Player:
    """A signed-in person talking to the server with requests."""

    base: str
    user_id: str
    token: str
    name: str
    http: requests.Session = field(default_factory=requests.Session)
    _ids: Iterator[int] = field(default_factory=itertools.count)

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def post(self, path: str, body: Any = None) -> requests.Response:
        return self.http.post(self.base + path, json=body, headers=self.headers, timeout=TIMEOUT)

    def get(self, path: str) -> requests.Response:
        return self.http.get(self.base + path, headers=self.headers, timeout=TIMEOUT)

    def create(self, **body: Any) -> dict[str, Any]:
        body.setdefault("name", f"{self.name}'s table")
        body.setdefault("opponent", "person")
        response = self.post("/games", body)
        assert response.status_code == 201, response.text
        return dict(response.json())

    def act(
        self, game_id: str, version: int, action: dict[str, Any], action_id: str | None = None
    ) -> requests.Response:
        action_id = action_id or f"{self.name}-{next(self._ids)}"
        body = {"action_id": action_id, "version": version, "action": action}
        return self.post(f"/games/{game_id}/actions", body)


class LiveServer:
    """uvicorn serving create_app(settings) on a free port, in a thread of the test process."""

    app: FastAPI

    def __init__(
        self,
        settings: Settings,
        computers: Computers = TEST_COMPUTERS,
        send_buffer: int = 0,
        storage: Storage | None = None,
    ) -> None:
        self.settings = settings
        self.app = create_app(settings, computers=computers, storage=storage)
        self.server = Server(uvicorn_config(settings, self.app))
        listening = socket.socket()
        if settings.port:  # a fixed port: started again where the last one was (TIME_WAIT)
            listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if send_buffer:  # accepted connections inherit it: a network slower than loopback
            listening.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer)
        listening.bind((settings.host, settings.port))
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [listening]}, daemon=True
        )
        self.thread.start()
        deadline = time.monotonic() + TIMEOUT
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.base = f"http://127.0.0.1:{port}"

    def player(self, name: str, lifetime: float = 3600.0) -> Player:
        user_id, token = make_user(where(self.settings), name, lifetime)
        return Player(self.base, user_id, token, name)

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        return requests.get(self.base + path, timeout=TIMEOUT, **kwargs)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=STOP_TIMEOUT)
        assert not self.thread.is_alive(), "the test server did not stop"


@dataclass
class SSE:
    """One server-sent event (comments are kept too, as event "comment")."""

    event: str
    data: str
    id: str | None

    def json(self) -> Any:
        import json

        return json.loads(self.data)


class EventReader:
    """Reads an event stream in a thread, splitting lines itself (see ENGINEERING-NOTES)."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        self.response = requests.get(url, stream=True, headers=headers or {}, timeout=TIMEOUT)
        self.status = self.response.status_code
        self.events: queue.Queue[SSE] = queue.Queue()
        self.raw: list[bytes] = []
        self.seen: list[SSE] = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        if self.status == 200:
            self.thread.start()
        else:  # an error answer: keep its body, free the connection
            self.body = self.response.content
            self.response.close()

    def _read(self) -> None:
        pending = b""
        fields: dict[str, str] = {}
        try:
            for chunk in self.response.iter_content(chunk_size=None):
                self.raw.append(chunk)
                pending += chunk
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    text = line.decode()
                    if text == "":
                        if fields:
                            self.events.put(SSE(fields.get("event", "message"),
                                                fields.get("data", ""), fields.get("id")))
                        fields = {}
                    elif text.startswith(":"):
                        self.events.put(SSE("comment", text[1:].strip(), None))
                    else:
                        name, _, value = text.partition(":")
                        fields[name] = value[1:] if value.startswith(" ") else value
        except (requests.RequestException, OSError, AttributeError, ValueError):
            pass  # closed by the test

    def next(self, timeout: float = TIMEOUT, skip_comments: bool = True) -> SSE:
        deadline = time.monotonic() + timeout
        while True:
            event = self.events.get(timeout=max(0.0, deadline - time.monotonic()))
            self.seen.append(event)
            if not (skip_comments and event.event == "comment"):
                return event

    def until(self, predicate: Any, timeout: float = TIMEOUT) -> SSE:
        """The first event (comments skipped) for which predicate(event) is true."""
        deadline = time.monotonic() + timeout
        while True:
            event = self.next(timeout=max(0.0, deadline - time.monotonic()))
            if predicate(event):
                return event

    def drain(self, quiet: float = 0.3) -> list[SSE]:
        """Every event that arrives until the stream is quiet for `quiet` seconds."""
        got = []
        while True:
            try:
                got.append(self.next(timeout=quiet))
            except queue.Empty:
                return got

    def close(self) -> None:
        self.response.close()
        self.thread.join(timeout=TIMEOUT)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_until_serving(base: str, child: subprocess.Popen[str]) -> None:
    """Wait until the server process `child` answers at `base` (it must not end meanwhile)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        try:
            requests.get(f"{base}/health", timeout=TIMEOUT)
            return
        except requests.ConnectionError:
            assert time.monotonic() < deadline and child.poll() is None, "no server"
            time.sleep(0.05)


def play_until_over(
    game_id: str, players: dict[int, Player], rng: random.Random, max_actions: int = 400
) -> dict[str, Any]:
    """Both people play random legal actions from the view until the game ends."""
    detail = players[0].get(f"/games/{game_id}").json()
    for _ in range(max_actions):
        view = detail["view"]
        if view["over"]:
            return dict(detail)
        response = players[view["turn"]].act(game_id, detail["version"], rng.choice(view["legal"]))
        assert response.status_code == 200, response.text
        result = response.json()
        detail = {**detail, "version": result["version"], "view": result["view"]}
    raise AssertionError("the game did not end")


def parent_of(pid: int) -> int:
    """The process id of `pid`'s parent (from /proc)."""
    return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])


def analyse_a_game(base: str, database: Path) -> None:
    """A game played to its end through the server at `base` (its SQLite file `database`),
    then its analysis, judged in the server's worker process."""
    ann, bob = (Player(base, *make_user(database, name), name) for name in ("Ann", "Bob"))
    game_id = str(ann.create()["id"])
    assert bob.post(f"/games/{game_id}/join").status_code == 200
    seats = {p["user_id"]: i for i, p in enumerate(ann.get(f"/games/{game_id}").json()["players"])}
    play_until_over(game_id, {seats[ann.user_id]: ann, seats[bob.user_id]: bob},
                    random.Random(5))
    answer = requests.get(f"{base}/games/{game_id}/analysis", timeout=60)
    assert answer.status_code == 200, answer.text
    decisions = answer.json()["decisions"]
    assert decisions and [d["step"] for d in decisions] == list(range(len(decisions)))
