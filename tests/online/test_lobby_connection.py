"""Online play waits for the lobby: off while the server cannot be reached or is gone, on once
its games are listed, and off and on again as the connection goes and comes back."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QPushButton
from pytestqt.qtbot import QtBot

from somnium_desktop.client.lifecycles import Connection
from somnium_desktop.client.local_server import LocalServer
from somnium_desktop.client.online import OnlineGame
from somnium_desktop.ui.lobby_panel import LobbyPanel
from somnium_desktop.ui.main_window import MainWindow
from tests.client.test_offline import human_first
from tests.server.helpers import LiveServer, free_port, server_settings

from .helpers import close_windows, lobby_row, open_window

LOST = "Lobby: the connection to the server was lost; reconnecting…"


def online_buttons(panel: LobbyPanel) -> tuple[QPushButton, ...]:
    return (panel.create_button, panel.join_button, panel.sign_in_button)


def online_on(panel: LobbyPanel) -> bool:
    return all(button.isEnabled() for button in online_buttons(panel))


def online_off(panel: LobbyPanel) -> bool:
    return not any(button.isEnabled() for button in online_buttons(panel))


def signin_dialogs() -> list[str]:
    return [widget.windowTitle() for widget in QApplication.topLevelWidgets()
            if widget.isVisible() and widget.windowTitle() == "Sign in to Somnium"]


def messages_for(qtbot: QtBot, window: MainWindow, seconds: float) -> set[str]:
    """Every text the lobby's message line shows over these seconds."""
    seen: set[str] = set()
    for _ in range(int(seconds * 20)):
        seen.add(window.lobby_panel.message.text())
        qtbot.wait(50)
    return seen


def test_a_server_that_cannot_be_reached_leaves_online_play_off(
    qtbot: QtBot, tmp_path: Path
) -> None:
    address = f"127.0.0.1:{free_port()}"  # nothing listens there
    opened: list[str] = []
    window = open_window(qtbot, tmp_path, "Ada", f"http://{address}",
                         open_browser=opened.append)
    panel = window.lobby_panel
    try:
        assert online_off(panel)
        qtbot.waitUntil(lambda: "cannot be reached" in panel.message.text(), timeout=10000)
        # It was never connected: the line says so, and says it alone, through the retries
        # and the sign-in and levels looked up a moment after the start.
        seen = messages_for(qtbot, window, 3.0)
        assert seen == {f"The server {address} cannot be reached; trying again…"}
        assert panel.message.property("error") is True
        assert online_off(panel)
        # Nothing starts a sign-in: not a click, not Enter in the fields.
        QTest.mouseClick(panel.create_button, Qt.MouseButton.LeftButton)
        QTest.mouseClick(panel.sign_in_button, Qt.MouseButton.LeftButton)
        QTest.keyClick(panel.name_field, Qt.Key.Key_Return)
        panel.game_id_field.setText("7KQ3MZP")
        QTest.keyClick(panel.game_id_field, Qt.Key.Key_Return)
        qtbot.wait(300)
        assert window.online is not None and window.online.signin_dialog is None
        assert signin_dialogs() == [] and opened == []
        assert "cannot be reached" in panel.message.text()
        assert window.source is None
    finally:
        close_windows(qtbot, window)


def test_online_play_comes_on_once_the_lobby_is_listed(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    waiting = lobby.player("Yan").create(name="Yan's table")
    window = open_window(qtbot, tmp_path, "Ada", lobby.base)
    panel = window.lobby_panel
    try:
        assert online_off(panel)  # (not before the server has answered)
        qtbot.waitUntil(lambda: online_on(panel), timeout=10000)
        assert window.online is not None and window.online.lobby.loaded
        assert lobby_row(window, waiting["id"]) >= 0
        assert "cannot be reached" not in panel.message.text()
        QTest.mouseClick(panel.create_button, Qt.MouseButton.LeftButton)  # signs in first
        qtbot.waitUntil(lambda: isinstance(window.source, OnlineGame), timeout=20000)
        assert panel.account.text() == "Signed in as Ada"
    finally:
        close_windows(qtbot, window)


def test_a_server_that_comes_up_later_turns_online_play_on_with_its_levels(
    qtbot: QtBot, tmp_path: Path
) -> None:
    settings = server_settings(tmp_path / "lobby.sqlite3", port=free_port())
    window = open_window(qtbot, tmp_path, "Ada", f"http://127.0.0.1:{settings.port}")
    panel = window.lobby_panel
    online = window.online
    assert online is not None
    server: LiveServer | None = None
    try:
        qtbot.waitUntil(lambda: "cannot be reached" in panel.message.text(), timeout=10000)
        qtbot.waitUntil(lambda: online._after_lobby_done, timeout=5000)  # levels asked, in vain
        qtbot.wait(300)
        assert online_off(panel) and panel.opponent.count() == 1
        server = LiveServer(settings)
        qtbot.waitUntil(lambda: online_on(panel), timeout=20000)
        assert panel.message.text() == "Connected to the server."
        qtbot.waitUntil(lambda: panel.opponent.count() > 1, timeout=5000)  # asked again
    finally:
        close_windows(qtbot, window)
        if server is not None:
            server.stop()


def test_the_built_in_server_turns_online_play_on_as_its_lobby_is_listed(
    qtbot: QtBot, tmp_path: Path
) -> None:
    server = LocalServer(tmp_path / "data", idle=0.5)
    window = open_window(qtbot, tmp_path, "Ada", "", local_server=server)
    panel = window.lobby_panel
    online = window.online
    assert online is not None
    when_listed: list[bool] = []
    online.lobby_loaded.connect(lambda: when_listed.append(online_on(panel)))
    try:
        # While the built-in server starts (its imports are most of that), the lobby says so,
        # online play waits, and offline play is there at once.
        assert online_off(panel)
        assert panel.server.text() == "Server: built-in, on this computer (starting…)"
        offline = window.start_offline(seed=human_first())
        assert offline is not None and not when_listed
        before = offline.view.deck_count
        offline.draw()
        assert offline.view.deck_count == before - 1 and not when_listed
        qtbot.waitUntil(lambda: bool(when_listed), timeout=30000)
        assert when_listed == [True] and panel.message.text() == ""
        assert panel.server.text() == "Server: built-in, on this computer"
    finally:
        close_windows(qtbot, window)
        assert server.wait_stopped(15)


def test_a_built_in_server_that_cannot_keep_its_games_is_said_not_running(
    qtbot: QtBot, tmp_path: Path
) -> None:
    """Its folder cannot be made (as when the data folder is read-only): the lobby says why,
    in its words, and online play stays off; no unexpected-error dialog."""
    (tmp_path / "data").write_text("")  # a file where the folder must be made
    folder = tmp_path / "data" / "local-server"
    window = open_window(qtbot, tmp_path, "Ada", "", local_server=LocalServer(folder))
    panel = window.lobby_panel
    try:
        qtbot.waitUntil(lambda: panel.server.text().endswith("(not running)"), timeout=10000)
        assert panel.message.text() == \
            f"The built-in server cannot keep its games in {folder}: Not a directory."
        assert online_off(panel)
    finally:
        close_windows(qtbot, window)


def test_online_play_goes_off_while_the_server_is_gone_and_on_when_it_is_back(
    qtbot: QtBot, tmp_path: Path
) -> None:
    settings = server_settings(tmp_path / "lobby.sqlite3", port=free_port())
    first = LiveServer(settings)
    second: LiveServer | None = None
    window = open_window(qtbot, tmp_path, "Ada", first.base)
    panel = window.lobby_panel
    try:
        qtbot.waitUntil(lambda: online_on(panel), timeout=10000)
        first.stop()
        qtbot.waitUntil(lambda: panel.message.text() == LOST, timeout=10000)
        assert online_off(panel) and panel.message.property("error") is True
        QTest.keyClick(panel.name_field, Qt.Key.Key_Return)  # (the button is off; Enter too)
        qtbot.wait(200)
        assert window.online is not None and window.online.signin_dialog is None
        assert signin_dialogs() == []
        second = LiveServer(settings)  # back where it was, from the same database
        game = second.player("Zed").create(name="Zed's table")
        qtbot.waitUntil(lambda: online_on(panel), timeout=20000)
        assert panel.message.text() == "Connected to the server again."
        assert panel.message.property("error") is False
        qtbot.waitUntil(lambda: lobby_row(window, game["id"]) >= 0, timeout=5000)
    finally:
        close_windows(qtbot, window)
        (second or first).stop()


def test_a_built_in_server_that_went_away_is_started_again(
    qtbot: QtBot, tmp_path: Path
) -> None:
    """As when the app that started the shared built-in server quits: this window finds or
    starts one again (the connection passes through reviving) and its lobby comes back."""
    server = LocalServer(tmp_path / "data", idle=0.5)
    window = open_window(qtbot, tmp_path, "Ada", "", local_server=server)
    panel = window.lobby_panel
    online = window.online
    assert online is not None
    states: list[Connection] = []
    online.connection.on_change = lambda before, after: states.append(after)
    try:
        qtbot.waitUntil(lambda: online.connection.state is Connection.ONLINE, timeout=30000)
        server.stop()  # (the server goes; this window did not ask for that)
        qtbot.waitUntil(lambda: Connection.REVIVING in states, timeout=15000)
        qtbot.waitUntil(lambda: online.connection.state is Connection.ONLINE, timeout=30000)
        assert states[-3:] == [Connection.REVIVING, Connection.DOWN, Connection.ONLINE] or \
            states[-2:] == [Connection.REVIVING, Connection.ONLINE]
        assert online_on(panel) and server.owned and server.base_url is not None
        assert online.client is not None and online.client.base_url == server.base_url
    finally:
        close_windows(qtbot, window)
        assert server.wait_stopped(15)
