"""What a screen reader finds, walked as it does through QAccessible: the status line, the
lobby's messages, the result and its Rematch button."""

from __future__ import annotations

from collections.abc import Iterator

from PySide6.QtGui import QAccessible, QAccessibleActionInterface, QAccessibleInterface
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from somnium_desktop.ui.main_window import MainWindow
from tests.ui.driver import play_to_the_end, wait_for_input
from tests.ui.test_main_window import window

__all__ = ["window"]  # (the fixture)


def walk(node: QAccessibleInterface | None) -> Iterator[QAccessibleInterface]:
    """Every interface under `node`, as assistive technologies walk the tree."""
    if node is None or not node.isValid():
        return
    yield node
    for index in range(node.childCount()):
        yield from walk(node.child(index))


def found(widget: QWidget, role: QAccessible.Role, name: str) -> QAccessibleInterface | None:
    """The visible interface of this role and name in the widget's window, if any."""
    for node in walk(QAccessible.queryAccessibleInterface(widget)):
        if node.role() == role and node.text(QAccessible.Text.Name) == name \
                and not node.state().invisible:
            return node
    return None


def test_the_status_line_is_read_as_what_it_says(qtbot: QtBot, window: MainWindow) -> None:
    window.start_offline("careful", seed=1)
    wait_for_input(qtbot, window.table)
    said = window.table.status.text()
    assert said.startswith("Your turn")
    node = found(window, QAccessible.Role.StaticText, said)
    assert node is not None  # (it was only "Table status")
    assert node.text(QAccessible.Text.Description) == "Table status"


def test_lobby_messages_and_the_account_are_read(window: MainWindow) -> None:
    panel = window.lobby_panel
    panel.show_message("The built-in server cannot be reached; trying again…", error=True)
    assert found(window, QAccessible.Role.StaticText,
                 "The built-in server cannot be reached; trying again…") is not None
    panel.set_account("Ada")
    assert found(window, QAccessible.Role.StaticText, "Signed in as Ada") is not None


def test_the_result_and_rematch_are_in_the_tree(qtbot: QtBot, window: MainWindow) -> None:
    game = window.start_offline("careful", seed=2)
    assert game is not None
    play_to_the_end(qtbot, window.table)
    panel = window.table.game_over
    assert panel.isVisible()
    assert found(window, QAccessible.Role.Border, "Game over") is not None
    assert found(window, QAccessible.Role.StaticText, panel.title.text()) is not None
    rematch = found(window, QAccessible.Role.Button, "Rematch")
    assert rematch is not None
    actions = rematch.actionInterface()
    assert actions is not None
    actions.doAction(QAccessibleActionInterface.pressAction())  # as a screen reader presses
    qtbot.waitUntil(lambda: not game.view.over)  # a new deal
