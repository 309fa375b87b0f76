"""The lobby's list behind a game's log shows whole lines of games, at every window size."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import QSize
from pytestqt.qtbot import QtBot

from somnium_desktop.ui.lobby_games import LEAST_LINES
from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.window_split import LOBBY_LINES, LOG_LINES
from tests.ui.test_layout import GAMES, lobby_lines, log_lines, sized
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

    def whole_lines() -> bool:  # (the column settles over a few turns of the event loop)
        lines = lobby_lines(window)
        return lines >= LEAST_LINES - 0.05 and abs(lines - round(lines)) < 0.1

    qtbot.waitUntil(whole_lines, timeout=3000)  # (no line cut through)


@pytest.mark.parametrize("size", [QSize(1280, 800), QSize(1920, 1080), QSize(2560, 1440)])
def test_a_tall_column_keeps_the_lobby_its_lines_beside_a_game(
    qtbot: QtBot, window: MainWindow, size: QSize
) -> None:
    """With a game on the table, a column with room for both keeps the lobby's LOBBY_LINES
    games in view and gives the log the rest, at least LOG_LINES lines (the log took every
    pixel before: 45 lines of log at 2560x1440 beside two games)."""
    many = [replace(game, id=f"{game.id}{n}") for n in range(3) for game in GAMES]
    window.lobby_panel.set_games(many, me=None)
    window.start_offline("careful", seed=4)
    qtbot.waitUntil(lambda: window.table.shown is not None)
    sized(qtbot, window, size)
    qtbot.waitUntil(lambda: lobby_lines(window) >= LOBBY_LINES - 0.05, timeout=2000)
    assert log_lines(window) >= LOG_LINES, (size, log_lines(window))


def test_a_short_column_gives_the_game_its_log_first(qtbot: QtBot, window: MainWindow) -> None:
    """At 1024x640 there is no room for both: the game's log comes first."""
    many = [replace(game, id=f"{game.id}{n}") for n in range(3) for game in GAMES]
    window.lobby_panel.set_games(many, me=None)
    window.start_offline("careful", seed=4)
    qtbot.waitUntil(lambda: window.table.shown is not None)
    sized(qtbot, window, QSize(1024, 640))
    qtbot.waitUntil(lambda: log_lines(window) >= 5, timeout=2000)
