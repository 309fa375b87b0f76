"""A read-only table: a source with no seat (as when watching an online game) plays along."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from somnium_desktop.game import Action, apply, new_game
from somnium_desktop.ui.table import TableWidget
from tests.client.helpers import PlainBot
from tests.ui.sources import StateSource


class Broadcast(StateSource):
    """A game between two bots that a watcher follows: events arrive step by step."""

    def __init__(self, seed: int) -> None:
        super().__init__(new_game(seed), None, "Two bots", "watch-1")
        self.bots = (PlainBot(keep=2), PlainBot(keep=3))
        self.acted: list[Action] = []

    def step(self) -> None:
        seat = self.state.turn
        action = self.bots[seat].choose(self.view, seat)
        self.state, events = apply(self.state, seat, action)
        self.events.emit(events)
        self.view_changed.emit(self.view)

    def act(self, action: Action) -> None:
        self.acted.append(action)


def test_watching_is_read_only_and_labelled(qtbot: QtBot, table: TableWidget) -> None:
    source = Broadcast(seed=4)
    table.set_source(source)
    assert source.read_only
    assert table.watching.isVisible()
    for _ in range(12):
        source.step()
        qtbot.waitUntil(lambda: not table.scene.busy)
        assert not table.my_turn()
        assert not table.draw_action.isEnabled()
        assert not table.end_turn_action.isEnabled()
        assert not table.concede_action.isEnabled()
        QTest.keyClick(table, Qt.Key.Key_D)
        QTest.mouseClick(table.draw_button, Qt.MouseButton.LeftButton)
    assert source.acted == []
    assert table.scene.matches(source.view) and table.scene.resyncs == 0
    assert table.status.text().startswith("Watching")
    assert any(line.startswith(("Ada drew", "Bea drew")) for line in table.log.lines())
    assert not any("You" in line for line in table.log.lines())
    assert table.me.name.text() in ("Ada", "Bea")


def test_the_game_id_of_a_shared_game_can_be_copied(qtbot: QtBot, table: TableWidget) -> None:
    table.set_source(Broadcast(seed=4))
    assert table.game_id.text() == "Game id watch-1"
    assert table.copy_button.isVisible()
    QGuiApplication.clipboard().clear()
    QTest.mouseClick(table.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == "watch-1"


def test_a_late_watcher_starts_from_the_current_view(qtbot: QtBot, table: TableWidget) -> None:
    source = Broadcast(seed=9)
    for _ in range(15):
        source.step()
    table.set_source(source)
    qtbot.waitUntil(lambda: table.shown is not None)
    assert table.scene.matches(source.view)
    assert table.scene.resyncs == 0  # a first view is laid out, not counted as a surprise
    assert table.log.count() == 0
