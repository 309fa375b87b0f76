"""The state is stored in full every few actions: a game reloaded at any point is where it was."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from pathlib import Path

from somnium_desktop.game import action_to_dict, apply, legal_actions, new_game, state_to_dict
from somnium_server.play.games import SNAPSHOT_EVERY, stored_state
from somnium_server.play.rooms import GameRoom
from somnium_server.storage import GameRecord, GameUpdate, StoredAction, StoredEvent

from ..conftest import Database
from .helpers import LiveServer, open_test_storage, query, service_on, where


def _crash_copy(database: Database, into: Path) -> Database:
    """What a kill -9 now would leave on disk: every committed transaction, nothing more.

    (The server answers an action only once it is committed; SQLite's backup API copies
    exactly the committed state, whatever the WAL and its checkpoints are doing. PostgreSQL's
    committed state is what any other connection reads: the database itself.)
    """
    if not isinstance(database, Path):
        return database
    into.unlink(missing_ok=True)
    source, target = sqlite3.connect(database), sqlite3.connect(into)
    try:
        source.backup(target)
    finally:
        source.close()
        target.close()
    return into


def _reloaded(database: Database, game_id: str) -> GameRoom:
    """The game as a server starting on `database` brings it back."""

    async def load() -> GameRoom:
        storage = open_test_storage(database)
        games = service_on(storage)
        try:
            await games.load()
            room = games.rooms[game_id]
            await games.ensure_history(room)  # a finished game's, as a retry would
            return room
        finally:
            await games.stop()
            await storage.close()

    return asyncio.run(load())


def _stored_snapshot(database: Database, game_id: str) -> tuple[int, int]:
    (row,) = query(database, "SELECT state_version, version FROM games WHERE id = ?", game_id)
    return int(row[0]), int(row[1])


def test_a_game_killed_after_any_action_resumes_exactly_there(
    server: LiveServer, tmp_path: Path
) -> None:
    ann, bob = server.player("Ann"), server.player("Bob")
    game_id = ann.create()["id"]
    joined = bob.post(f"/games/{game_id}/join").json()
    players = {0: ann, 1: bob}
    live = server.app.state.ctx.games.rooms[game_id]
    rng = random.Random(7)
    version, view = joined["version"], joined["view"]
    start = version  # joining stored a snapshot
    stale_reloads = 0
    action_ids: list[str] = []
    while not view["over"]:
        action_id = f"a{version}"
        response = players[view["turn"]].act(game_id, version, rng.choice(view["legal"]),
                                             action_id=action_id)
        assert response.status_code == 200, response.text
        action_ids.append(action_id)
        version, view = response.json()["version"], response.json()["view"]
        copy = _crash_copy(where(server.settings), tmp_path / "crashed.sqlite3")

        state_version, stored_version = _stored_snapshot(copy, game_id)
        assert stored_version == version
        interval_start = start + (version - start) // SNAPSHOT_EVERY * SNAPSHOT_EVERY
        expected = version if view["over"] else interval_start
        assert state_version == expected, (version, state_version)
        stale_reloads += state_version < version

        room = _reloaded(copy, game_id)
        assert room.state == live.state  # deck, seed and all: exactly where it was
        assert (room.version, room.seq, room.status) == (live.version, live.seq, live.status)
        assert set(room.actions) == set(action_ids)  # retries still answered, exactly once
        assert room.actions[action_id] == live.actions[action_id]
    assert version - start > SNAPSHOT_EVERY, "the game should outlast one snapshot interval"
    assert stale_reloads >= SNAPSHOT_EVERY  # most reloads replayed actions onto a snapshot


def test_a_record_read_before_later_actions_is_rebuilt_at_its_own_version(
    database: Database,
) -> None:
    """Another instance may store actions after a game's record was read: the state rebuilt
    for that record stops at its version (past it, the next catch-up would play them twice)."""
    start = new_game(7)
    states = [start]
    for _ in range(2):
        state = states[-1]
        states.append(apply(state, state.turn, legal_actions(state, state.turn)[0])[0])

    def record(version: int) -> GameRecord:
        return GameRecord(
            id="SNP2345", name="t", created_at=0.0, created_by="u", seats=[], status="playing",
            state=state_to_dict(start), initial_state=state_to_dict(start), version=version,
            seq=version, meta={}, bot_seed=1, state_version=1,
        )

    async def work() -> None:
        storage = open_test_storage(database)
        await storage.create_game(record(1), [StoredEvent(1, {"seq": 1})])
        for version in (2, 3):
            before = states[version - 2]
            action = legal_actions(before, before.turn)[0]
            await storage.update_game(GameUpdate(
                record(version), version - 1, [StoredEvent(version, {"seq": version})],
                StoredAction(f"a{version}", "u", before.turn, version, action_to_dict(action),
                             b"{}"),
            ))
        read_early = record(2)  # as read before the action of version 3 was stored
        assert await stored_state(storage, read_early) == states[1]
        assert await stored_state(storage, record(3)) == states[2]
        await storage.close()

    asyncio.run(work())
