"""Plays a table the way a person does: clicks on buttons and suits, and keys."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from somnium_desktop.game import Suit
from somnium_desktop.ui.table import TableWidget


def activate(qtbot: QtBot, widget: QWidget) -> None:
    """Make the widget's window the active one, as keyboard shortcuts need.

    Offscreen, a window closed by the previous test can take activation away from a new one
    a moment later; ask again until it holds."""
    def active() -> bool:
        if not widget.isActiveWindow():
            widget.activateWindow()
        return widget.isActiveWindow()

    qtbot.waitUntil(active)


def close(qtbot: QtBot, widget: QWidget) -> None:
    """Close a window and wait until it has let go of activation (see activate)."""
    widget.close()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is not widget)


def wait_for_input(qtbot: QtBot, table: TableWidget, timeout: int = 5000) -> None:
    """Wait until the table takes our input, or the game is over and has settled."""
    def ready() -> bool:
        view = table.shown
        if view is not None and view.over and not table.scene.busy:
            return True
        return table.my_turn()

    qtbot.waitUntil(ready, timeout=timeout)


def click_suit(table: TableWidget, suit: Suit) -> None:
    """Click the opponent's bank slot of `suit` on the table."""
    assert table.source is not None
    seat = table.scene.top_seat()
    centre = table.scene.bank_slot_rect(seat, suit).center()
    point = table.view.mapFromScene(centre)
    QTest.mouseClick(table.view.viewport(), Qt.MouseButton.LeftButton, pos=point)


def play_one(qtbot: QtBot, table: TableWidget, turn: int, bank_at: int = 2) -> None:
    """One human action by click or key (alternating), steals by clicking a glowing suit."""
    view = table.shown
    assert view is not None
    if table.stealing():
        click_suit(table, view.stealable[turn % len(view.stealable)])
    elif len(view.table) >= bank_at and table.end_turn_action.isEnabled():
        activate(qtbot, table)
        if turn % 2:
            QTest.keyClick(table, Qt.Key.Key_E)
        else:
            QTest.mouseClick(table.end_turn_button, Qt.MouseButton.LeftButton)
    elif turn % 2:
        activate(qtbot, table)
        QTest.keyClick(table, Qt.Key.Key_D)
    else:
        QTest.mouseClick(table.draw_button, Qt.MouseButton.LeftButton)


def play_to_the_end(qtbot: QtBot, table: TableWidget, limit: int = 400) -> int:
    """Play until the game is over; returns how many actions we took."""
    actions = 0
    wait_for_input(qtbot, table)
    while table.shown is not None and not table.shown.over:
        assert actions < limit, "the game should have ended"
        before = table.shown
        play_one(qtbot, table, actions)
        actions += 1
        qtbot.waitUntil(lambda before=before: table.shown is not before, timeout=5000)  # type: ignore[misc]
        wait_for_input(qtbot, table)
    return actions
