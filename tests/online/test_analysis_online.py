"""The Analysis of a finished online game: fetched from a real server off the UI thread, the
accuracy under the result, and the window opening from the result panel."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from somnium_desktop.client.analysis import AnalysisState, accuracy_line, percent
from somnium_desktop.client.lobby_client import LobbyClient
from somnium_desktop.client.online import OnlineGame
from somnium_desktop.client.tasks import Operations
from somnium_desktop.ui.players_dialog import PlayerPage
from somnium_desktop.ui.table import TableWidget
from somnium_server.context import context_of
from tests.server.helpers import LiveServer, server_settings
from tests.server.test_analysis import finished_game
from tests.ui.driver import close


def test_an_online_games_analysis_comes_from_the_server(qtbot: QtBot, tmp_path: Path) -> None:
    server = LiveServer(server_settings(tmp_path / "lobby.sqlite3"))
    operations = Operations()
    table = TableWidget()
    qtbot.addWidget(table)
    table.resize(1100, 720)
    table.show()
    game = None
    try:
        ann = server.player("Ann")
        game_id = finished_game(server, ann, server.player("Bob"), 4)
        game = OnlineGame(LobbyClient(server.base), game_id, operations)
        table.set_source(game)
        game.start()
        block = table.result_analysis
        qtbot.waitUntil(lambda: block.state is AnalysisState.READY, timeout=30000)
        expected = server.get(f"/games/{game_id}/analysis").json()
        assert block.data == expected
        ctx = context_of(server.app)
        assert ctx is not None and ctx.analyses.computed == 1  # once, for the app
        assert table.game_over.isVisible() and block.accuracy.isVisible()
        # watching: both players by name, in seat order
        assert block.accuracy.text() == accuracy_line(expected, ("Ann", "Bob"), None, "\n")
        assert block.accuracy.text().startswith("Accuracy: Ann ")
        QTest.mouseClick(block.button, Qt.MouseButton.LeftButton)
        dialog = block.dialog
        assert dialog is not None and dialog.isVisible()
        assert dialog.view.decisions.topLevelItemCount() == len(expected["decisions"])
        assert dialog.view.graph.values == expected["curve"]  # seat 0's side when watching
        # Ann's page tells her accuracy in the game, now that it has been analysed
        client = LobbyClient(server.base)
        page = PlayerPage(None, lambda _page, work, done, _failed: done(work()),
                          lambda: client.player(ann.user_id))
        qtbot.addWidget(page)
        [line] = [page.games.item(i).text() for i in range(page.games.count())]
        assert line.endswith(f", accuracy {percent(expected['accuracy'][0])}")
    finally:
        if game is not None:
            game.close()
        operations.close()
        assert operations.wait_idle()
        close(qtbot, table)
        server.stop()
