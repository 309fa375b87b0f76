"""Online play waits for the lobby: off while the server cannot be reached or is gone, on once
its games are listed, and off and on again as the connection goes and comes back."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QPushButton
from pytestqt.qtbot import QtBot

from somnium_desktop.client.lifecycles import Connection
from somnium_desktop.client.local_server import LocalServer
from somnium_desktop.client.online import OnlineGame
from somnium_desktop.ui.lobby_panel import LobbyPanel
from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.online_play import OnlinePlay
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


def built_in_that_cannot_start(
    qtbot: QtBot, folder: Path
) -> tuple[MainWindow, OnlinePlay, LocalServer, Path]:
    """A window on the built-in server whose data folder cannot be made (as when the data
    folder is read-only): a file stands where it must be. Deleting that file (returned last)
    lets a start make the folder."""
    blocker = folder / "data"
    blocker.write_text("")
    server = LocalServer(blocker / "local-server", idle=0.5)
    window = open_window(qtbot, folder, "Ada", "", local_server=server)
    assert window.online is not None
    return window, window.online, server, blocker


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
    window, _online, server, _blocker = built_in_that_cannot_start(qtbot, tmp_path)
    panel = window.lobby_panel
    try:
        qtbot.waitUntil(lambda: panel.server.text().endswith("(not running)"), timeout=10000)
        assert panel.message.text() == ("The built-in server cannot keep its games in "
                                        f"{server.data_dir}: Not a directory. Trying again in 2 s.")
        assert online_off(panel)
    finally:
        close_windows(qtbot, window)


def test_a_built_in_server_that_did_not_start_is_started_again_by_itself(
    qtbot: QtBot, tmp_path: Path
) -> None:
    """Its folder could not be made at first: the lobby keeps saying why and when it tries
    again, waiting longer each time, while offline play goes on; once the folder can be made,
    the built-in server starts and the lobby comes on with no action of the player's."""
    window, online, server, blocker = built_in_that_cannot_start(qtbot, tmp_path)
    panel = window.lobby_panel
    why = f"The built-in server cannot keep its games in {server.data_dir}: Not a directory."
    try:
        qtbot.waitUntil(lambda: panel.message.text() == f"{why} Trying again in 2 s.",
                        timeout=10000)
        assert online.connection.state is Connection.NOT_STARTED and online_off(panel)
        assert panel.server.text() == "Server: built-in, on this computer (not running)"
        offline = window.start_offline(seed=human_first())
        assert offline is not None
        before = offline.view.deck_count
        offline.draw()
        assert offline.view.deck_count == before - 1
        seen = messages_for(qtbot, window, 3.0)  # (the second start fails too: in 4 s)
        assert f"{why} Trying again in 4 s." in seen
        assert seen <= {f"{why} Trying again in 2 s.", f"{why} Trying again…",
                        f"{why} Trying again in 4 s."}
        assert panel.message.property("error") is True and online_off(panel)
        blocker.unlink()  # the folder can be made now
        qtbot.waitUntil(lambda: online.connection.state is Connection.ONLINE, timeout=30000)
        assert online_on(panel) and server.owned
        assert panel.server.text() == "Server: built-in, on this computer"
        assert panel.message.text() == ""
        assert window.source is offline and offline.view.deck_count == before - 1
    finally:
        close_windows(qtbot, window)
        assert server.wait_stopped(15)


@pytest.mark.parametrize("ending", ["a server is set", "the window closes"])
def test_a_built_in_server_that_did_not_start_is_not_started_again_once_it_is_not_needed(
    qtbot: QtBot, tmp_path: Path, ending: str
) -> None:
    """The wait after a failed start ends with the built-in server: a server set in its
    stead, or the window closed, and it is started no more."""
    window, online, server, blocker = built_in_that_cannot_start(qtbot, tmp_path)
    panel = window.lobby_panel
    address = f"127.0.0.1:{free_port()}"  # nothing listens there
    try:
        qtbot.waitUntil(lambda: panel.message.text().endswith("Trying again in 2 s."),
                        timeout=10000)
        if ending == "a server is set":
            window.settings.server_url = f"http://{address}"
            window.apply_settings()
        else:
            close_windows(qtbot, window)
        blocker.unlink()  # a start now would make the folder
        qtbot.wait(3000)
        assert not server.data_dir.exists() and not server.owned
        if ending == "a server is set":
            assert online.connection.state in (Connection.CONNECTING, Connection.DOWN)
            assert panel.server.text() == f"Server: http://{address}"
            qtbot.waitUntil(lambda: panel.message.text() ==
                            f"The server {address} cannot be reached; trying again…")
        else:
            assert online.connection.state is Connection.CLOSED
    finally:
        close_windows(qtbot, window)
        server.stop()


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
