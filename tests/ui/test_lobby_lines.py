"""The lobby's list behind a game's log shows whole lines of games, at every window size."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import QSize
from pytestqt.qtbot import QtBot

from somnium_desktop.ui.lobby_games import LEAST_LINES
from somnium_desktop.ui.main_window import MainWindow
from tests.ui.test_layout import GAMES, lobby_lines, sized
from tests.ui.test_main_window import window

__all__ = ["window"]  # (the fixture)

pytestmark = pytest.mark.usefixtures("app_style")  # its paddings and bold labels


@pytest.mark.parametrize("size", [QSize(1024, 640), QSize(1280, 800), QSize(1920, 1080),
                                  QSize(2560, 1440)])
def test_the_lobby_behind_a_game_shows_whole_lines(
    qtbot: QtBot, window: MainWindow, size: QSize
) -> None:
    """With a game on the table the lobby gets its least height: that is whole lines of
    games (it was a line and a half, the second cut through its words)."""
    many = [replace(game, id=f"{game.id}{n}") for n in range(3) for game in GAMES]
    window.lobby_panel.set_games(many, me=None)
    window.start_offline("careful", seed=4)  # the game's log comes first
    qtbot.waitUntil(lambda: window.table.shown is not None)
    sized(qtbot, window, size)
    qtbot.wait(100)
    lines = lobby_lines(window)
    assert lines >= LEAST_LINES - 0.05, (size, lines)
    assert abs(lines - round(lines)) < 0.1, (size, lines)  # no line cut through
