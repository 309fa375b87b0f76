"""The lobby in app windows: join by id, refusals and a lost sign-in, the built-in server."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import requests
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from somnium_desktop.client.lobby_client import LobbyClient
from somnium_desktop.client.local_server import LocalServer
from somnium_desktop.client.online import OnlineGame
from somnium_desktop.game import Draw
from somnium_desktop.ui.lobby_games import NAME, SEAT_2, status_text
from somnium_desktop.ui.main_window import MainWindow
from tests.client.test_offline import human_first
from tests.server.helpers import LiveServer, server_settings

from .helpers import cell_text, click_cell, close_windows, lobby_row, open_window, seated_game


def online_game(window: MainWindow) -> OnlineGame:
    assert isinstance(window.source, OnlineGame)
    return window.source


def create(qtbot: QtBot, window: MainWindow, opponent: int = 0) -> OnlineGame:
    """Create a game from the panel (signing in first if need be)."""
    qtbot.waitUntil(window.lobby_panel.create_button.isEnabled, timeout=20000)
    window.lobby_panel.opponent.setCurrentIndex(opponent)
    QTest.mouseClick(window.lobby_panel.create_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: isinstance(window.source, OnlineGame), timeout=20000)
    return online_game(window)


def test_join_by_id_a_refusal_and_a_lost_sign_in_lose_nothing(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    ada = open_window(qtbot, tmp_path, "Ada", lobby.base)
    bea = open_window(qtbot, tmp_path, "Bea", lobby.base)
    try:
        game = create(qtbot, ada)
        # Ada types her own game's id: she is told it is hers, and plays on.
        ada.lobby_panel.game_id_field.setText(game.game_id)
        QTest.keyClick(ada.lobby_panel.game_id_field, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: "already play" in ada.lobby_panel.message.text(), timeout=5000)
        assert ada.source is game and not game.closed
        # Bea types the id (as read out to her) into the field and presses Enter.
        qtbot.waitUntil(bea.lobby_panel.join_button.isEnabled, timeout=5000)
        bea.lobby_panel.game_id_field.setText(game.game_id.lower())
        QTest.keyClick(bea.lobby_panel.game_id_field, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: isinstance(bea.source, OnlineGame), timeout=15000)
        mine = online_game(bea)
        assert mine.game_id == game.game_id and mine.my_seat == 1
        assert bea.lobby_panel.game_id_field.text() == ""  # done with, as Create's name
        qtbot.waitUntil(ada.table.my_turn, timeout=5000)
        qtbot.waitUntil(lambda: bea.table.shown is not None, timeout=5000)
        # Out of turn: the server refuses, the table says so and keeps the game as it was.
        shown = bea.table.shown
        mine.act(Draw())
        qtbot.waitUntil(lambda: bea.table.status.text().startswith("Refused"), timeout=5000)
        assert bea.table.status.text() == "Refused: it is not your turn."
        assert bea.table.status.property("error") is True
        assert bea.table.shown == shown and not mine.pending
        # Two of Ada's moves race against one version: one is played, the other refused.
        activate_and_press(qtbot, ada, Qt.Key.Key_D)
        qtbot.waitUntil(ada.table.my_turn, timeout=5000)
        errors: list[str] = []
        game.error.connect(errors.append)
        game.end_turn()
        game.end_turn()
        qtbot.waitUntil(lambda: bool(errors), timeout=5000)
        assert errors == ["The game moved on before your move arrived, so it was not played; "
                          "the table shows the game as it is now."]
        qtbot.waitUntil(bea.table.my_turn, timeout=5000)
        assert not game.pending
        assert ada.table.log.lines()[-1] == "It is Bea's turn."
        assert bea.table.scene.matches(ada.table.shown)  # type: ignore[arg-type]
        # Bea's session ends at the server (signed out elsewhere): her move is not played...
        client = bea.online.client  # type: ignore[union-attr]
        assert client is not None and client.auth is not None
        requests.post(f"{lobby.base}/auth/revoke", timeout=10,
                      data={"token": client.auth.access_token}).raise_for_status()
        signed_in = len(bea.browser.people)  # type: ignore[attr-defined]
        activate_and_press(qtbot, bea, Qt.Key.Key_D)
        # ...the sign-in opens at once (her browser), and once she is back the draw is played:
        # she plays on from where the game was, her key press not lost.
        qtbot.waitUntil(lambda: len(bea.browser.people) > signed_in,  # type: ignore[attr-defined]
                        timeout=15000)
        qtbot.waitUntil(lambda: bea.lobby_panel.account.text() == "Signed in as Bea",
                        timeout=15000)
        qtbot.waitUntil(lambda: len(ada.table.scene.table_pile) == 1, timeout=5000)
        assert "Sign in" not in bea.table.status.text()
    finally:
        close_windows(qtbot, ada, bea)


def activate_and_press(qtbot: QtBot, window: MainWindow, key: Qt.Key) -> None:
    from tests.ui.driver import activate

    activate(qtbot, window)
    QTest.keyClick(window.table, key)


def test_the_built_in_server_runs_the_lobby_for_two_windows(
    qtbot: QtBot, tmp_path: Path
) -> None:
    servers = [LocalServer(tmp_path / "data", idle=0.5) for _ in range(2)]
    ada = open_window(qtbot, tmp_path, "Ada", "", local_server=servers[0])
    bea = open_window(qtbot, tmp_path, "Bea", "", local_server=servers[1])
    try:
        qtbot.waitUntil(lambda: ada.lobby_panel.opponent.count() > 1, timeout=30000)
        assert ada.lobby_panel.server.text() == "Server: built-in, on this computer"
        qtbot.waitUntil(lambda: bea.lobby_panel.opponent.count() > 1, timeout=30000)
        assert [server.owned for server in servers].count(True) == 1  # one shared server
        # Against the computer: the game starts at once; Bea's lobby shows it live.
        game = create(qtbot, ada, opponent=1)
        qtbot.waitUntil(lambda: lobby_row(bea, game.game_id) >= 0, timeout=10000)
        row = lobby_row(bea, game.game_id)
        assert cell_text(bea, row, NAME) == "Ada's table"
        assert cell_text(bea, row, 1) == "Ada (1500?)"  # a new player: provisional
        assert cell_text(bea, row, 2).startswith("Computer")
        line = bea.lobby_panel.games.games[row]
        assert cell_text(bea, row, 3) == status_text(line)
        # Keys: Ctrl+L goes to the lobby, Enter on the game's name watches it.
        from tests.ui.driver import activate

        activate(qtbot, bea)
        QTest.keyClick(bea, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
        assert bea.lobby_panel.games.hasFocus()
        bea.lobby_panel.games.setCurrentCell(row, NAME)
        QTest.keyClick(bea.lobby_panel.games, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: isinstance(bea.source, OnlineGame), timeout=5000)
        assert online_game(bea).read_only
        qtbot.waitUntil(lambda: bea.table.shown is not None, timeout=5000)
        assert bea.table.watching.isVisible()
        # The server dies (a crash, say): the windows start another on the same games.
        online = bea.online
        assert online is not None and online.client is not None
        client, old = online.client, online.client.base_url
        listed: list[int] = []
        online.lobby_loaded.connect(lambda: listed.append(len(online.lobby.games)))
        next(server for server in servers if server.owned).stop()
        qtbot.waitUntil(lambda: client.base_url != old, timeout=30000)
        qtbot.waitUntil(lambda: bool(listed), timeout=10000)  # the new server's lobby
        assert listed == [1] and lobby_row(bea, game.game_id) >= 0
        # (if both windows started one, the second gave up: the lock was taken)
        qtbot.waitUntil(lambda: [server.owned for server in servers].count(True) == 1,
                        timeout=10000)
        assert online_game(bea).stream is not None
        qtbot.waitUntil(lambda: online_game(bea).stream.connections == 2,  # type: ignore[union-attr]
                        timeout=10000)
    finally:
        close_windows(qtbot, ada, bea)
        # No app left: the built-in server has gone too.
        assert all(server.wait_stopped(15) for server in servers)


def test_another_server_set_in_settings_brings_its_lobby_and_closes_the_old_game(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    other = LiveServer(server_settings(tmp_path / "other.sqlite3"))
    window = open_window(qtbot, tmp_path, "Ada", lobby.base)
    try:
        here = lobby.player("Yan").create(name="Yan's table")
        there = other.player("Zed").create(name="Zed's table")
        qtbot.waitUntil(lambda: lobby_row(window, here["id"]) >= 0, timeout=5000)
        assert lobby_row(window, there["id"]) < 0
        window.lobby_panel.open_clicked.emit(here["id"])  # watch a game of the first server
        qtbot.waitUntil(lambda: isinstance(window.source, OnlineGame), timeout=5000)
        watched = online_game(window)
        window.open_settings()
        dialog = window.settings_dialog
        assert dialog.server.text() == lobby.base
        dialog.server.setText(other.base.removeprefix("http://"))  # typed without http://
        dialog.accept()
        # Leaving the server closes its game: the table is not left on the old server.
        assert window.source is None and watched.closed
        assert window.table.game_name.text() == "No game yet"
        assert "You left the server" in window.table.status.text()
        assert "Yan's table" in window.table.last_announcement
        qtbot.waitUntil(lambda: lobby_row(window, there["id"]) >= 0, timeout=5000)
        assert lobby_row(window, here["id"]) < 0
        assert window.lobby_panel.server.text() == f"Server: {other.base}"
        assert window.settings.server_url == other.base
    finally:
        close_windows(qtbot, window)
        other.stop()



def test_a_double_click_on_create_makes_one_table(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    ada = open_window(qtbot, tmp_path, "Ada", lobby.base)
    try:
        create(qtbot, ada)  # signed in now
        panel = ada.lobby_panel
        panel.name_field.setText("Twice")
        QTest.mouseClick(panel.create_button, Qt.MouseButton.LeftButton)  # a double click:
        QTest.mouseClick(panel.create_button, Qt.MouseButton.LeftButton)  # two, at once
        QTest.keyClick(panel.name_field, Qt.Key.Key_Return)  # and Enter, for good measure
        qtbot.waitUntil(lambda: online_game(ada).game_name == "Twice", timeout=10000)
        ada.online.ops.wait_idle(10)  # type: ignore[union-attr]
        qtbot.wait(100)
        names = [game.name for game in LobbyClient(lobby.base).games()]
        assert names.count("Twice") == 1, names
    finally:
        close_windows(qtbot, ada)


def test_the_built_in_server_leaves_once_another_server_is_set(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    local = LocalServer(tmp_path / "data", idle=0.5)
    window = open_window(qtbot, tmp_path, "Ada", "", local_server=local)
    try:
        qtbot.waitUntil(lambda: window.online is not None and window.online.lobby.loaded,
                        timeout=30000)
        assert local.owned
        child = local.child
        assert child is not None
        window.settings.server_url = lobby.base  # as Settings does
        window.apply_settings()
        qtbot.waitUntil(lambda: window.lobby_panel.server.text() == f"Server: {lobby.base}")
        assert local.wait_stopped(15)  # (it kept running, about 58 MB, until the app quit)
        assert child.returncode == 0
        window.settings.server_url = ""  # back to the built-in one: it starts again
        window.apply_settings()
        online = window.online
        assert online is not None
        qtbot.waitUntil(lambda: online.lobby.loaded and online.built_in, timeout=30000)
        assert local.owned and local.child is not child
    finally:
        close_windows(qtbot, window)
        assert local.wait_stopped(15)


def test_opening_a_lobby_game_asks_before_the_game_against_the_computer_is_left(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    playing, _ = seated_game(lobby)
    waiting = lobby.player("Dan").create(name="Dan's table")["id"]
    cy = open_window(qtbot, tmp_path, "Cy", lobby.base)
    panel = cy.lobby_panel
    try:
        offline = cy.start_offline(seed=human_first())
        assert offline is not None
        activate_and_press(qtbot, cy, Qt.Key.Key_D)  # a game in play
        qtbot.waitUntil(lambda: lobby_row(cy, playing) >= 0 and lobby_row(cy, waiting) >= 0,
                        timeout=8000)
        qtbot.waitUntil(panel.create_button.isEnabled, timeout=8000)
        # Watching (a click on a game), joining (its free seat) and creating each ask first;
        # No leaves everything as it was: the game on the table, the server's games, and no
        # sign-in was asked for.
        clicks: list[Callable[[], None]] = [
            lambda: click_cell(cy, lobby_row(cy, playing), NAME),
            lambda: click_cell(cy, lobby_row(cy, waiting), SEAT_2),
            lambda: QTest.mouseClick(panel.create_button, Qt.MouseButton.LeftButton),
        ]
        for click in clicks:
            click()
            box = cy.replays.confirm
            assert box is not None and box.isVisible()
            assert box.text().endswith("? The game against the computer is abandoned.")
            box.done(QMessageBox.StandardButton.No)
            assert cy.replays.confirm is None
        assert cy.online is not None
        cy.online.ops.wait_idle(10)
        qtbot.wait(100)
        assert cy.source is offline and cy.table.source is offline and not offline.view.over
        assert len(offline.view.table) == 1 and cy.online.current is None
        assert cy.browser.people == []  # type: ignore[attr-defined]
        games = {game.id: game for game in LobbyClient(lobby.base).games()}
        assert set(games) == {playing, waiting} and games[waiting].status == "waiting"
        # Yes: the game against the computer goes, the one clicked is watched.
        click_cell(cy, lobby_row(cy, playing), NAME)
        box = cy.replays.confirm
        assert box is not None
        box.done(QMessageBox.StandardButton.Yes)
        qtbot.waitUntil(lambda: isinstance(cy.source, OnlineGame), timeout=8000)
        assert online_game(cy).game_id == playing and cy.table.source is not offline
    finally:
        close_windows(qtbot, cy)


def test_a_marked_game_that_leaves_the_list_marks_no_other(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    """Open seats shown, the keys on Cy's Join: Dan takes that seat, so Cy's game leaves the
    list. Enter must not then take the seat of the game that moved up into its line."""
    ada = open_window(qtbot, tmp_path, "Ada", lobby.base)
    try:
        bea, cy, dan = lobby.player("Bea"), lobby.player("Cy"), lobby.player("Dan")
        beas, cys = bea.create()["id"], cy.create()["id"]
        panel, games = ada.lobby_panel, ada.lobby_panel.games
        qtbot.waitUntil(lambda: lobby_row(ada, beas) >= 0 and lobby_row(ada, cys) >= 0,
                        timeout=5000)
        panel.shown.setCurrentIndex(panel.shown.findData("open"))
        ada.lobby_action.trigger()  # Ctrl+L
        games.setCurrentCell(lobby_row(ada, cys), SEAT_2)
        assert cell_text(ada, games.currentRow(), SEAT_2) == "Join"
        assert dan.post(f"/games/{cys}/join").status_code == 200
        qtbot.waitUntil(lambda: lobby_row(ada, cys) < 0, timeout=5000)
        assert lobby_row(ada, beas) >= 0  # (Bea's game is still listed, with its Join)
        assert games.currentRow() == -1 and games.selectedItems() == []
        asked: list[str] = []
        panel.join_clicked.connect(asked.append)
        panel.open_clicked.connect(asked.append)
        QTest.keyClick(games, Qt.Key.Key_Return)
        assert asked == [] and ada.source is None
        # The arrows start again from the first line.
        QTest.keyClick(games, Qt.Key.Key_Down)
        assert games.currentRow() == 0
    finally:
        close_windows(qtbot, ada)


def test_the_id_as_the_table_shows_it_joins_the_game_being_watched(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    """Ada watches Bea's waiting game, copies its id off the table's header ("Game id …")
    into the join field and presses Enter: she takes the open seat. Text holding no one id
    is refused here, in words, without asking the server."""
    ada = open_window(qtbot, tmp_path, "Ada", lobby.base)
    try:
        game_id = lobby.player("Bea").create()["id"]
        qtbot.waitUntil(lambda: lobby_row(ada, game_id) >= 0, timeout=5000)
        click_cell(ada, lobby_row(ada, game_id), NAME)  # watch it
        qtbot.waitUntil(lambda: ada.table.game_id.text().endswith(game_id), timeout=5000)
        watched = online_game(ada)
        assert watched.my_seat is None
        panel = ada.lobby_panel
        panel.game_id_field.setText("join my game please")
        QTest.keyClick(panel.game_id_field, Qt.Key.Key_Return)
        assert panel.message.text() == "That is no game id: type the game's letters and " \
            "digits, e.g. 7KQ3MZP." and panel.message.property("error")
        pasted = f" {ada.table.game_id.text()}\n"
        assert pasted.strip() == f"Game id {game_id}"
        panel.game_id_field.setText(pasted)
        QTest.keyClick(panel.game_id_field, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: ada.source is not watched, timeout=15000)
        ada.browser.join()  # type: ignore[attr-defined]
        qtbot.waitUntil(lambda: online_game(ada).my_seat == 1, timeout=15000)
        assert online_game(ada).game_id == game_id
        assert panel.game_id_field.text() == ""
        assert "match pattern" not in panel.message.text()
    finally:
        close_windows(qtbot, ada)
