"""A watcher whose stream skipped an event catches up from a snapshot; a move whose events
arrive while that snapshot is on its way is not lost: the table ends at the newest state."""

from __future__ import annotations

import contextlib
import random
from pathlib import Path

from pytestqt.qtbot import QtBot

from somnium_desktop.client.lobby_client import LobbyClient
from somnium_desktop.client.online import OnlineGame
from somnium_desktop.client.tasks import Operations
from somnium_desktop.game.view import View, view_from_dict
from tests.server.helpers import LiveServer, server_settings

from .gap_proxy import GapProxy
from .helpers import play, seated_game


def test_events_arriving_during_a_catch_up_are_applied_after_its_snapshot(
    qtbot: QtBot, tmp_path: Path
) -> None:
    rng = random.Random(5)
    server = LiveServer(server_settings(tmp_path / "lobby.sqlite3"))
    game_id, players = seated_game(server)
    proxy = GapProxy(int(server.base.rsplit(":", 1)[1]))
    operations = Operations()
    game = OnlineGame(LobbyClient(proxy.base), game_id, operations, read_timeout=5,
                      backoff=(0.05,))
    errors: list[str] = []
    game.error.connect(errors.append)

    def now() -> View:
        return view_from_dict(server.get(f"/games/{game_id}").json()["view"])

    try:
        game.start()
        qtbot.waitUntil(lambda: game.view == now(), timeout=5000)
        proxy.skip = int(server.get(f"/games/{game_id}").json()["seq"]) + 1  # lost on the way
        proxy.hold(f"GET /games/{game_id} HTTP".encode())  # the catch-up's snapshot is slow
        for _ in range(3):  # until the watcher sees the gap and asks for a snapshot
            play(players, game_id, 1, rng)
            with contextlib.suppress(qtbot.TimeoutError):
                qtbot.waitUntil(proxy.asked.is_set, timeout=2000)
                break
        assert proxy.asked.is_set()
        newest = play(players, game_id, 1, rng)  # while the snapshot is on its way
        qtbot.waitUntil(lambda: newest in proxy.passed, timeout=5000)
        qtbot.wait(200)  # (its events reach the table)
        proxy.release.set()
        qtbot.waitUntil(lambda: game.view == now(), timeout=3000)
        assert errors == []
    finally:
        game.close()
        operations.close()
        assert operations.wait_idle()
        proxy.close()
        server.stop()
