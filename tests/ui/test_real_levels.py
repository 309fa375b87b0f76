"""Offline play against every computer level the game offers, through the main window."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from somnium_desktop.client.offline import OfflineGame
from somnium_desktop.game.bots import levels
from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.settings import Settings
from tests.ui.driver import activate, close, play_to_the_end

KEYS = ("easy", "normal", "hard", "expert")


def test_the_panel_offers_the_four_levels(qtbot: QtBot, settings: Settings) -> None:
    window = MainWindow(settings)
    qtbot.addWidget(window)
    offered = [window.panel.level.itemData(i) for i in range(window.panel.level.count())]
    assert offered == list(KEYS) == [level.key for level in levels()]
    assert window.panel.level.currentData() == "normal"
    window.close()


@pytest.mark.parametrize("key", KEYS)
def test_a_whole_game_against_a_real_level(qtbot: QtBot, settings: Settings, key: str) -> None:
    settings.reduced_motion = True
    settings.animation_speed = 8.0
    window = MainWindow(settings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    activate(qtbot, window)
    window.panel.level.setCurrentIndex(window.panel.level.findData(key))
    QTest.mouseClick(window.panel.play, Qt.MouseButton.LeftButton)
    assert isinstance(window.source, OfflineGame)
    play_to_the_end(qtbot, window.table)
    view = window.table.shown
    assert view is not None and view.over
    assert window.table.scene.resyncs == 0
    assert window.table.log.lines()[-1].startswith("Game over")
    close(qtbot, window)
