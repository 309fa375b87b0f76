"""Input waits while an action is on its way, as it will for a game on a server."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from somnium_desktop.game import Action, Concede, Draw, GameState, IllegalAction, Suit, apply
from somnium_desktop.ui.table import TableWidget
from tests.game_helpers import c, stacked
from tests.ui.sources import StateSource


class Remote(StateSource):
    """Seat 0 of a game whose rules run "elsewhere": each action's answer comes 150 ms later."""

    def __init__(self, state: GameState) -> None:
        super().__init__(state, 0, "Far away", "remote-1")
        self.sent: list[Action] = []

    def act(self, action: Action) -> None:
        self.sent.append(action)
        self._set_pending(True)
        QTimer.singleShot(150, lambda: self._answer(action))

    def _answer(self, action: Action) -> None:
        try:
            self.state, events = apply(self.state, 0, action)
        except IllegalAction as refused:
            self._set_pending(False)
            self.error.emit(f"The server refused: {refused}.")
            return
        self.events.emit(events)
        self.view_changed.emit(self.view)
        self._set_pending(False)


def test_input_waits_for_the_answer(qtbot: QtBot, table: TableWidget) -> None:
    source = Remote(stacked([c(Suit.ANGELS, 5), c(Suit.SUNS, 4)], first=0))
    table.set_source(source)
    assert table.my_turn()
    assert table.me.name.text() == "Ada (you)"
    QTest.keyClick(table, Qt.Key.Key_D)
    assert source.pending and not table.my_turn()
    assert not table.draw_action.isEnabled()
    assert table.concede_action.isEnabled()  # (at any time: held until the answer is back)
    assert table.status.text() == "Sending…"
    QTest.keyClick(table, Qt.Key.Key_D)  # a second press while waiting is not sent
    QTest.mouseClick(table.draw_button, Qt.MouseButton.LeftButton)
    assert len(source.sent) == 1
    qtbot.waitUntil(lambda: table.my_turn(), timeout=3000)
    assert [item.card for item in table.scene.table_pile] == [c(Suit.ANGELS, 5)]
    assert table.end_turn_action.isEnabled()
    assert table.log.lines() == ["You drew Angels 5."]


def test_a_refusal_is_shown_and_play_goes_on(qtbot: QtBot, table: TableWidget) -> None:
    source = Remote(stacked([c(Suit.ANGELS, 5)], first=0))
    table.set_source(source)
    QTest.keyClick(table, Qt.Key.Key_D)
    qtbot.waitUntil(lambda: table.my_turn(), timeout=3000)
    # Two end-turns race to the server (say, from two windows): the second is refused.
    source.end_turn()
    source.end_turn()
    qtbot.waitUntil(lambda: table.status.text().startswith("The server refused"), timeout=3000)
    assert "it is not your turn" in table.status.text()
    assert table.last_announcement == table.status.text()
    assert source.view.turn == 1 and table.scene.matches(source.view)
    assert table.log.lines()[-1] == "It is Bea's turn."


def test_yes_to_concede_while_a_move_is_on_its_way_concedes_once_it_is_back(
    qtbot: QtBot, table: TableWidget
) -> None:
    source = Remote(stacked([c(Suit.ANGELS, 5), c(Suit.SUNS, 4)], first=0))
    table.set_source(source)
    table.ask_concede()
    box = table.findChild(QMessageBox)
    assert box is not None and box.isVisible()
    source.draw()  # a move of the player's sent meanwhile (say, again after a sign-in)
    box.button(QMessageBox.StandardButton.Yes).click()
    assert source.sent == [Draw()]  # not yet: sent now, it would be against an old version
    qtbot.waitUntil(lambda: source.sent == [Draw(), Concede()], timeout=3000)
    qtbot.waitUntil(lambda: table.shown is not None and table.shown.over, timeout=3000)
    assert source.state.over and table.game_over.isVisible()
