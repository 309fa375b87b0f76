"""The online game source on its own: a lost answer is sent again and played once; a watcher
that fell too far behind is brought up to date by a snapshot."""

from __future__ import annotations

import random
from pathlib import Path

from pytestqt.qtbot import QtBot

from somnium_desktop.client.lobby_client import LobbyClient
from somnium_desktop.client.online import OnlineGame
from somnium_desktop.client.tasks import Operations
from somnium_desktop.game import Draw
from somnium_desktop.game.view import view_from_dict
from tests.server.helpers import LiveServer, server_settings
from tests.signin.helpers import local_client

from .helpers import play, seated_game
from .proxy import losing_proxy_for


def test_a_move_whose_answer_was_lost_is_sent_again_and_played_once(
    qtbot: QtBot, lobby: LiveServer
) -> None:
    ada, bea = local_client(lobby.base, "Ada"), local_client(lobby.base, "Bea")
    joined = bea.join(ada.create("Table").id)
    proxy = losing_proxy_for(ada, lobby.base)  # every request of Ada's goes through the proxy
    operations = Operations()
    game = OnlineGame(ada, joined.id, operations, user_id=ada.me().id, first=joined,
                      retry_delays_ms=(50, 100))
    notices: list[str] = []
    game.notice.connect(notices.append)
    try:
        game.start()
        assert game.my_seat == 0 and game.view is not None and game.view.table == ()
        proxy.arm(b"/actions")
        game.act(Draw())
        assert game.pending
        qtbot.waitUntil(lambda: not game.pending, timeout=10000)
        assert proxy.dropped == 1
        first, again = proxy.action_ids()  # sent twice, under the same id
        assert first == again
        assert "The connection dropped: sending your move again…" in notices
        played = LobbyClient(lobby.base).game(joined.id)
        assert played.version == joined.version + 1  # played once, not twice
        assert played.view == game.view and len(game.view.table) == 1
    finally:
        game.close()
        operations.close()
        assert operations.wait_idle()
        proxy.close()


def test_a_watcher_too_far_behind_is_resynced_by_a_snapshot(
    qtbot: QtBot, tmp_path: Path
) -> None:
    rng = random.Random(3)
    settings = server_settings(tmp_path / "lobby.sqlite3", event_window=4)
    first = LiveServer(settings)
    game_id, players = seated_game(first)
    client = LobbyClient(first.base)
    operations = Operations()
    game = OnlineGame(client, game_id, operations, read_timeout=3, backoff=(0.05, 0.1))
    starts: list[int] = []
    batches: list[object] = []
    game.started.connect(lambda: starts.append(1))
    game.events.connect(batches.append)
    second: LiveServer | None = None

    def now(server: LiveServer) -> object:
        return view_from_dict(server.get(f"/games/{game_id}").json()["view"])

    try:
        game.start()
        play(players, game_id, 3, rng)
        qtbot.waitUntil(lambda: game.view == now(first), timeout=5000)
        assert game.read_only and starts == [1]
        first.stop()
        second = LiveServer(settings)
        for player in players.values():
            player.base = second.base
        play(players, game_id, 10, rng)  # more than the 4 events the server keeps to resume
        seen = len(batches)
        client.base_url = second.base
        qtbot.waitUntil(lambda: game.view == now(second), timeout=10000)
        assert len(batches) == seen  # the missed moves were not replayed: a snapshot came
        assert starts == [1]  # the same game, brought up to date: no new start
        play(players, game_id, 1, rng)
        qtbot.waitUntil(lambda: game.view == now(second), timeout=5000)
        assert game.stream is not None and game.stream.connections == 2
    finally:
        game.close()
        operations.close()
        (second or first).stop()


def test_an_answer_after_the_game_left_the_table_is_dropped(
    qtbot: QtBot, lobby: LiveServer
) -> None:
    """The window closes a game it replaces and deletes it; a request of that game's still
    on its way must not then emit from the deleted object (RuntimeError, the error dialog)."""
    ada, bea = local_client(lobby.base, "Ada"), local_client(lobby.base, "Bea")
    joined = bea.join(ada.create("Table").id)
    operations = Operations()
    game = OnlineGame(ada, joined.id, operations, user_id=ada.me().id, first=joined,
                      backoff=(5.0,))
    failures: list[str] = []
    game.error.connect(failures.append)
    try:
        game.start()
        lobby.stop()  # the rematch below cannot be answered
        game.rematch()
        game.close()  # as MainWindow._replace_source: closed, then deleted
        game.deleteLater()
        qtbot.waitUntil(lambda: not operations.busy, timeout=15000)
        qtbot.wait(50)
        assert failures == []
    finally:
        operations.close()
        assert operations.wait_idle()
