"""The table's phase (empty, waiting, playing, watching, over) follows the game it shows."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from somnium_desktop.client.lifecycles import TablePhase
from somnium_desktop.client.offline import OfflineGame
from somnium_desktop.game import new_game
from somnium_desktop.ui.table import TableWidget
from tests.client.helpers import PlainBot
from tests.ui.driver import wait_for_input
from tests.ui.test_watching import Broadcast


def test_an_offline_game_goes_from_empty_to_playing_to_over_and_again(
    qtbot: QtBot, table: TableWidget
) -> None:
    assert table.phase.state is TablePhase.EMPTY
    phases: list[TablePhase] = []
    table.phase.on_change = lambda was, now: phases.append(now)
    game = OfflineGame(lambda s: PlainBot(2), seed=11, deal=new_game, pace_ms=0)
    table.set_source(game)
    game.start()
    wait_for_input(qtbot, table)
    # Opened (by the table, then by the game's start), then its view settled.
    assert phases[0] is TablePhase.WAITING and phases[-1] is TablePhase.PLAYING
    assert set(phases) == {TablePhase.WAITING, TablePhase.PLAYING}
    phases.clear()
    assert table.concede_action.isEnabled() and not table.game_over.isVisible()
    QTest.mouseClick(table.concede_button, Qt.MouseButton.LeftButton)
    box = table.findChild(QMessageBox)
    assert box is not None
    box.button(QMessageBox.StandardButton.Yes).click()
    qtbot.waitUntil(lambda: table.phase.state is TablePhase.OVER)
    assert table.game_over.isVisible() and table.rematch_action.isEnabled()
    assert table.status.text().startswith("Game over")
    assert not table.my_turn() and not table.concede_action.isEnabled()
    QTest.mouseClick(table.game_over.rematch, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: table.phase.state is TablePhase.PLAYING)
    assert not table.game_over.isVisible() and not table.rematch_action.isEnabled()
    table.set_source(None)
    assert phases == [TablePhase.OVER, TablePhase.WAITING, TablePhase.PLAYING,
                      TablePhase.EMPTY]  # (the rematch is opened, then its view settles)
    assert not table.draw_action.isEnabled()


def test_a_watched_game_is_watching_and_never_playing(qtbot: QtBot, table: TableWidget) -> None:
    source = Broadcast(seed=4)
    table.set_source(source)
    seen: set[TablePhase] = set()
    for _ in range(6):
        source.step()
        qtbot.waitUntil(lambda: not table.scene.busy)
        seen.add(table.phase.state)
    assert seen == {TablePhase.WATCHING}
    assert table.status.text().startswith("Watching")
    assert not table.my_turn()
