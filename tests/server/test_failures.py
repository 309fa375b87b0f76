"""What a failed write or read leaves behind: the game goes on once the database answers again.

The storages here are the real ones with a switch that makes one kind of call fail (as a
dropped connection or a full disk would), the given number of times.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from somnium_server.play.games_base import COMPUTER_USER
from somnium_server.storage import GameRecord, GameUpdate, Storage
from somnium_server.storage.postgres import PostgresStorage
from somnium_server.storage.sqlite import SQLiteStorage

from ..conftest import Database
from ..postgres import Cluster
from .helpers import EventReader, LiveServer, server_settings
from .test_instances import on as through


class Switches:
    """How many of the next calls of each kind fail."""

    computer_moves = 0  # update_game for a computer's action
    game_reads = 0  # get_game

    def failed(self, kind: str) -> None:
        """Raise (and count down) if calls of `kind` are to fail."""
        left: int = getattr(self, kind)
        if left:
            setattr(self, kind, left - 1)
            raise OSError(f"the database went away ({kind})")


class Failing:
    """Mixed into a real storage: its calls fail as `switches` say."""

    switches: Switches

    async def update_game(self, update: GameUpdate) -> None:
        if update.action is not None and update.action.user_id == COMPUTER_USER:
            self.switches.failed("computer_moves")
        await super().update_game(update)  # type: ignore[misc]

    async def get_game(self, game_id: str) -> GameRecord | None:
        self.switches.failed("game_reads")
        found: GameRecord | None = await super().get_game(game_id)  # type: ignore[misc]
        return found


class FailingSQLite(Failing, SQLiteStorage):
    pass


class FailingPostgres(Failing, PostgresStorage):
    pass


def failing(database: Database, switches: Switches) -> Storage:
    """The real storage of `database`, failing as `switches` say."""
    storage: FailingSQLite | FailingPostgres = (
        FailingSQLite(database) if isinstance(database, Path) else FailingPostgres(database)
    )
    storage.switches = switches
    return storage


def wait_for(condition: Any, what: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_a_computer_whose_move_was_not_stored_moves_again(database: Database) -> None:
    switches = Switches()
    switches.computer_moves = 2  # the first two tries fail
    server = LiveServer(server_settings(database), storage=failing(database, switches))
    try:
        ann = server.player("Ann")
        game = ann.create(opponent="computer", level="test", host_level="test")
        wait_for(lambda: server.get(f"/games/{game['id']}").json()["version"]
                 >= game["version"] + 3, "the computers stopped after a failed move")
        assert switches.computer_moves == 0
    finally:
        server.stop()


def test_a_notice_that_could_not_be_read_is_read_again(pg_cluster: Cluster) -> None:
    url = pg_cluster.new_database()
    switches = Switches()
    hearing = LiveServer(server_settings(url), storage=failing(url, switches))
    acting = LiveServer(server_settings(url))
    stream = None
    try:
        ann, bob = acting.player("Ann"), acting.player("Bob")
        game_id = ann.create()["id"]
        stream = EventReader(f"{hearing.base}/games/{game_id}/events", headers=ann.headers)
        assert stream.next().event == "snapshot"
        switches.game_reads = 2  # the hearing instance reads the join from the database: fails
        assert bob.post(f"/games/{game_id}/join").status_code == 200
        stream.until(lambda e: e.event == "game_started")
        assert switches.game_reads == 0
        assert through(hearing, ann).get(f"/games/{game_id}").json()["status"] == "playing"
    finally:
        if stream is not None:
            stream.close()
        hearing.stop()
        acting.stop()
