"""A finished game's room keeps only its lobby line; the rest is read back from storage."""

from __future__ import annotations

import asyncio
import random
import time
import tracemalloc
from pathlib import Path

import orjson
import requests

from benchmarks.rooms_memory import database_of
from somnium_server.play.rooms import GameRoom

from ..conftest import Database
from .helpers import (
    EventReader,
    LiveServer,
    Player,
    open_test_storage,
    play_until_over,
    server_settings,
    service_on,
)
from .test_analysis import from_replay


def _after_now(response: requests.Response) -> bytes:
    """A game's detail without its first field, the server's time `now`."""
    assert response.status_code == 200, response.text
    assert response.content.startswith(b'{"now":')
    return response.content.split(b",", 1)[1]


def _room(server: LiveServer, game_id: str) -> GameRoom:
    room: GameRoom = server.app.state.ctx.games.rooms[game_id]
    return room


def _let_go(server: LiveServer, game_id: str) -> GameRoom:
    """The game's room once it let its state go (its history grace is 0 here)."""
    room = _room(server, game_id)
    deadline = time.monotonic() + 5
    while room.whole is not None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert room.whole is None, "the finished game's room kept its state"
    return room


def _played(server: LiveServer) -> tuple[str, Player, Player]:
    ann, bob = server.player("Ann"), server.player("Bob")
    game_id = str(ann.create()["id"])  # rated: its rating changes are in its detail
    assert bob.post(f"/games/{game_id}/join").status_code == 200
    play_until_over(game_id, {0: ann, 1: bob}, random.Random(11))
    return game_id, ann, bob


def test_a_finished_game_let_go_answers_as_before_and_can_be_rematched(
    database: Database,
) -> None:
    first = LiveServer(server_settings(database))
    try:
        game_id, ann, bob = _played(first)
        assert _room(first, game_id).whole is not None  # (in use: kept a while)
        detail = _after_now(first.get(f"/games/{game_id}"))
        replay = first.get(f"/games/{game_id}/replay").content
        line = first.get("/games?status=finished").json()
    finally:
        first.stop()
    assert orjson.loads(b"{" + detail)["rating_changes"]

    server = LiveServer(server_settings(database))
    try:
        server.app.state.ctx.games.history_grace = 0.0
        ann, bob = (Player(server.base, p.user_id, p.token, p.name) for p in (ann, bob))
        room = _room(server, game_id)
        assert room.whole is None and not room.history  # loaded: its lobby line only
        assert server.get("/games?status=finished").json() == line
        assert _after_now(server.get(f"/games/{game_id}")) == detail
        _let_go(server, game_id)
        assert server.get(f"/games/{game_id}/replay").content == replay
        _let_go(server, game_id)
        stream = EventReader(f"{server.base}/games/{game_id}/events")
        snapshot = stream.next().json()
        stream.close()
        assert snapshot["type"] == "snapshot"
        assert orjson.dumps({k: v for k, v in snapshot["game"].items() if k != "now"}) == (
            b"{" + detail
        )
        _let_go(server, game_id)
        analysis = server.get(f"/games/{game_id}/analysis")
        assert analysis.status_code == 200, analysis.text
        got = analysis.json()
        assert {k: v for k, v in got.items() if k not in ("game_id", "names")} == from_replay(
            server, game_id
        )
        _let_go(server, game_id)
        # a rematch of a game let go: the state is read back to store the finished game's change
        assert ann.post(f"/games/{game_id}/rematch").status_code == 200
        _let_go(server, game_id)
        asked = bob.post(f"/games/{game_id}/rematch")
        assert asked.status_code == 200, asked.text
        rematch = asked.json()["rematch"]["game_id"]
        assert rematch and server.get(f"/games/{rematch}").json()["status"] == "playing"
        _let_go(server, game_id)
        again = orjson.loads(b"{" + _after_now(server.get(f"/games/{game_id}")))
        assert again["view"] == orjson.loads(b"{" + detail)["view"]
        assert again["rematch"] == {"agreed": [0, 1], "game_id": rematch}
    finally:
        server.stop()


def test_what_needs_no_state_leaves_a_finished_game_light(database: Database) -> None:
    """The chat, the log, the lobby, a player's page and a stored analysis of a finished game
    let go read none of its state back (the service counts each read back); its detail does.
    A game the lobby names that an instance did not hold is loaded light too."""
    first = LiveServer(server_settings(database))
    try:
        game_id, ann, _ = _played(first)
        assert first.get(f"/games/{game_id}/analysis").status_code == 200  # (stored)
    finally:
        first.stop()

    server = LiveServer(server_settings(database))
    try:
        games = server.app.state.ctx.games
        games.history_grace = 0.0
        ann = Player(server.base, ann.user_id, ann.token, ann.name)
        room = _room(server, game_id)
        assert room.whole is None
        for _ in range(2):
            said = ann.post(f"/games/{game_id}/chat", {"text": "well played"})
            assert said.status_code == 201, said.text
            assert server.get(f"/games/{game_id}/chat").json()[-1]["text"] == "well played"
            assert server.get(f"/games/{game_id}/log").status_code == 200
            assert server.get("/games?status=finished").json()[0]["id"] == game_id
            assert server.get(f"/players/{ann.user_id}").status_code == 200
            assert server.get(f"/games/{game_id}/analysis").status_code == 200
        assert games.read_back == 0 and room.whole is None
        assert server.get(f"/games/{game_id}").status_code == 200
        assert games.read_back == 1  # (the detail's view is built of the state)
        _let_go(server, game_id)  # and once let go again, it made no lock it keeps
        assert room.lock_made() is False
    finally:
        server.stop()

    async def adopted() -> GameRoom:
        storage = open_test_storage(database)
        other = service_on(storage)
        try:
            await other.have([game_id])
            return other.rooms[game_id]
        finally:
            await other.stop()
            await storage.close()

    room = asyncio.run(adopted())
    assert room.whole is None and room.status == "finished" and room.winner() is not None


def test_finished_games_loaded_at_start_hold_little_memory(tmp_path: Path) -> None:
    """Loading reads the stored games one at a time and keeps only their lobby lines: the
    memory held per finished game, and the most held while loading, stay under 4 KB (a whole
    room took about 16 KB: its state, first deal and snapshot; a light one 6 KB while its
    lock, channel and recent events were made with it and its fields kept in a dict)."""
    count = 40
    database = database_of(tmp_path, count)

    async def load() -> tuple[int, int, list[GameRoom]]:
        storage = open_test_storage(database)
        games = service_on(storage)
        tracemalloc.start()
        try:
            await games.load()
            held, most = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
            await games.stop()
            await storage.close()
        return held, most, list(games.rooms.values())

    held, most, rooms = asyncio.run(load())
    assert held / count < 4000 and most / count < 4000, (held / count, most / count)
    assert len(rooms) == count and all(room.whole is None for room in rooms)
