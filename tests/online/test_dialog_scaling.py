"""On a real server, the dialogs the window opens (sign-in, Players, a player's page, Blocked
players) come in the table's text size at the time they open: larger on a large window."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDialog, QWidget
from pytestqt.qtbot import QtBot

from somnium_desktop.ui.blocked_dialog import BlockedDialog
from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.players_dialog import PlayersDialog
from somnium_desktop.ui.players_hooks import open_page
from tests.server.helpers import LiveServer
from tests.ui.conftest import app_style
from tests.ui.test_chrome_scaling import LARGE, SMALL, points, resized

from .helpers import close_windows, open_window
from .test_presence_window import create_signed_in

__all__ = ["app_style"]  # (the fixture: the app's own look)

pytestmark = pytest.mark.usefixtures("app_style")


def dismissed(qtbot: QtBot, dialog: QDialog) -> None:
    dialog.reject()
    qtbot.waitUntil(lambda: not dialog.isVisible())


def scaled(qtbot: QtBot, dialog: QWidget, words: QWidget, base: float, scale: float) -> None:
    """`dialog` shows `words` at `base` points times the table's `scale` (within rounding)."""
    qtbot.waitExposed(dialog)
    assert points(words) == pytest.approx(base * scale, abs=0.05), (words, scale)


def test_the_sign_in_dialog_opens_in_the_table_text_size(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    asked: list[str] = []

    def browser(url: str) -> bool:
        """A browser that never signs in: the dialog waits."""
        asked.append(url)
        return True

    window = open_window(qtbot, tmp_path, "Ada", lobby.base, open_browser=browser)
    try:
        online = window.start_online()
        qtbot.waitUntil(lambda: online.client is not None, timeout=10000)
        for size in (SMALL, LARGE):
            scale = resized(qtbot, window, size)
            online.sign_in()
            qtbot.waitUntil(lambda: online.signin_dialog is not None
                            and online.signin_dialog.isVisible(), timeout=5000)
            dialog = online.signin_dialog
            assert dialog is not None
            scaled(qtbot, dialog, dialog.status, 10, scale)  # (10 points before, at any size)
            scaled(qtbot, dialog, dialog.url_field, 10, scale)
            dismissed(qtbot, dialog)
        assert len(asked) == 2
    finally:
        close_windows(qtbot, window)


def players_board(qtbot: QtBot, window: MainWindow, scale: float) -> None:
    """Game → Players… in the text size at `scale`, closed once it has listed."""
    window.players_action.trigger()
    board = window.findChild(PlayersDialog, "players-dialog")
    assert board is not None
    scaled(qtbot, board, board.note, 10, scale)
    scaled(qtbot, board, board.board, 10, scale)
    qtbot.waitUntil(lambda: board.note.text().startswith("Nobody"), timeout=10000)
    dismissed(qtbot, board)
    board.setObjectName("")  # (the next one opened is the one found)


def player_page(qtbot: QtBot, window: MainWindow, user_id: str, scale: float) -> None:
    page = open_page(window, user_id)
    assert page is not None
    qtbot.waitUntil(lambda: page.title.text().startswith("Bob: "), timeout=10000)
    scaled(qtbot, page, page.record, 10, scale)
    scaled(qtbot, page, page.title, 11, scale)  # (the panel title's size)
    dismissed(qtbot, page)


def blocked_players(qtbot: QtBot, window: MainWindow, scale: float) -> None:
    chat = window.chat_view
    qtbot.waitUntil(chat.blocked_button.isEnabled, timeout=5000)
    QTest.mouseClick(chat.blocked_button, Qt.MouseButton.LeftButton)
    blocked = chat.blocked_dialog
    assert isinstance(blocked, BlockedDialog)
    qtbot.waitUntil(lambda: blocked.note.text() == "You have blocked nobody.", timeout=5000)
    scaled(qtbot, blocked, blocked.note, 10, scale)
    dismissed(qtbot, blocked)


def test_players_pages_and_blocked_players_open_in_the_table_text_size(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    window = open_window(qtbot, tmp_path, "Ada", lobby.base)
    bob = lobby.player("Bob")
    try:
        game = create_signed_in(qtbot, window)  # (the chat's Blocked… needs a sign-in)
        assert bob.post(f"/games/{game.game_id}/join").status_code == 200
        for size in (SMALL, LARGE):
            scale = resized(qtbot, window, size)
            players_board(qtbot, window, scale)
            player_page(qtbot, window, bob.user_id, scale)
            blocked_players(qtbot, window, scale)
    finally:
        close_windows(qtbot, window)
