"""The window's menus, the result's close button and the table's small words and questions
grow with the table's text on a large window, and come back to base size on a smaller one."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSize, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel, QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.table_scale import scale_for
from tests.ui.driver import play_to_the_end, wait_for_input
from tests.ui.test_main_window import window

__all__ = ["window"]  # (the fixture)

pytestmark = pytest.mark.usefixtures("app_style")

SMALL, LARGE = QSize(1280, 800), QSize(2560, 1440)


def resized(qtbot: QtBot, window: MainWindow, size: QSize) -> float:
    """The window at `size`, settled; returns the table's text scale there."""
    window.resize(size)
    qtbot.waitUntil(lambda: window.size() == size)
    seen: list[object] = []

    def steady() -> bool:  # (the menu bar's height follows a posted layout pass)
        seen.append((window.table.text_scale, menus(window), window.minimumSizeHint()))
        return len(seen) > 2 and seen[-1] == seen[-2] == seen[-3]

    qtbot.waitUntil(steady, timeout=3000)
    return window.table.text_scale


def menus(window: MainWindow) -> dict[str, int]:
    bar, menu = window.menuBar(), window.game_menu
    menu.ensurePolished()
    return {"bar_font": bar.fontInfo().pixelSize(), "bar_height": bar.height(),
            "menu_font": menu.fontInfo().pixelSize()}


def test_the_menus_grow_with_the_table_text(qtbot: QtBot, window: MainWindow) -> None:
    window.start_offline("careful", seed=3)
    assert resized(qtbot, window, SMALL) == 1
    small, least = menus(window), window.minimumSizeHint()
    scale = resized(qtbot, window, LARGE)
    large = menus(window)
    assert scale >= 1.4
    for key in ("bar_font", "menu_font"):  # (13 and 13 pixels at 1280x800 before, 2560x1440)
        assert large[key] == pytest.approx(small[key] * scale, abs=1), (key, small, large)
    grew = large["bar_height"] - small["bar_height"]
    assert grew >= large["bar_font"] - small["bar_font"] - 1, (small, large)  # the words fit
    table = window.table  # its scale is measured as if the menu bar had kept its height
    assert scale == scale_for(table.width(), table.height() + grew)
    assert window.minimumSizeHint().height() <= least.height() + 2  # (a status line wraps)
    assert resized(qtbot, window, SMALL) == 1
    assert menus(window) == small


def item_room(window: MainWindow) -> tuple[int, int]:
    """The room around the words of the menu bar's first item (across, down), in pixels."""
    bar, menu = window.menuBar(), window.game_menu
    item = bar.actionGeometry(menu.menuAction())
    words = bar.fontMetrics()
    return item.width() - words.horizontalAdvance("Game"), item.height() - words.height()


def test_the_menu_bar_items_room_grows_with_the_table_text(
    qtbot: QtBot, window: MainWindow
) -> None:
    assert resized(qtbot, window, SMALL) == 1
    across, down = item_room(window)  # (8 and 6 pixels: Fusion's)
    scale = resized(qtbot, window, LARGE)
    assert scale >= 1.4
    # (8 and 5 pixels at 2560x1440 before: the words grew, not the room around them)
    room = item_room(window)
    assert room[0] == pytest.approx(across * scale, abs=2), room
    assert room[1] == pytest.approx(down * scale, abs=2), room
    resized(qtbot, window, SMALL)
    assert item_room(window) == (across, down)


def close_button(qtbot: QtBot, window: MainWindow, size: QSize) -> tuple[float, QSize]:
    scale = resized(qtbot, window, size)
    panel = window.table.game_over
    button = panel.close_button
    assert button.isVisible()
    # its offset from the panel's top right corner (6 pixels at any scale before)
    offset = panel.width() - button.geometry().right() - 1, button.y()
    assert offset == (round(6 * scale), round(6 * scale)), size
    return scale, button.size()


def test_the_result_close_button_grows_with_the_table_text(
    qtbot: QtBot, window: MainWindow
) -> None:
    window.start_offline("careful", seed=3)
    play_to_the_end(qtbot, window.table)
    _, small = close_button(qtbot, window, SMALL)
    scale, large = close_button(qtbot, window, LARGE)
    assert scale >= 1.4
    # (within a tenth: the style's frame around the words keeps its size)
    assert large.width() == pytest.approx(small.width() * scale, rel=0.1), (small, large)
    assert large.height() == pytest.approx(small.height() * scale, rel=0.1), (small, large)
    assert close_button(qtbot, window, SMALL)[1] == small


def points(widget: QWidget) -> float:
    widget.ensurePolished()
    return widget.font().pointSizeF()


def test_the_table_small_words_grow_with_its_text(qtbot: QtBot, window: MainWindow) -> None:
    window.start_offline("careful", seed=3)
    table = window.table
    play_to_the_end(qtbot, table)
    QTest.keyClick(table, Qt.Key.Key_P)  # the replay's bar: "Move 0 of 91"
    qtbot.waitUntil(lambda: table.replay is not None)
    # the style sheet's sizes at scale 1 (all stayed there at 2560x1440 before)
    words: list[tuple[QWidget, float]] = [
        (table.replaying.bar.position, 10), (table.me.marker, 10), (table.me.clock, 11)]
    for size in (SMALL, LARGE, SMALL):
        scale = resized(qtbot, window, size)
        for widget, base in words:
            assert points(widget) == pytest.approx(base * scale, abs=0.05), \
                (widget.objectName(), size)


def question_points(qtbot: QtBot, parent: QWidget) -> float:
    """The point size of the words of the message box open on `parent`, which is closed."""
    qtbot.waitUntil(lambda: parent.findChild(QMessageBox) is not None)
    box = parent.findChild(QMessageBox)
    assert box is not None
    label = next(label for label in box.findChildren(QLabel) if label.text() == box.text())
    size = points(label)
    box.done(QMessageBox.StandardButton.No)
    box.deleteLater()
    qtbot.waitUntil(lambda: parent.findChild(QMessageBox) is None)
    return size


def test_the_questions_come_in_the_table_text_size(qtbot: QtBot, window: MainWindow) -> None:
    window.start_offline("careful", seed=3)
    table = window.table
    for size in (SMALL, LARGE):
        scale = resized(qtbot, window, size)
        wait_for_input(qtbot, table)
        table.ask_concede()  # a question the table asks
        assert question_points(qtbot, table) == pytest.approx(10 * scale, abs=0.05)
        window.show_shortcuts()  # and one the window asks
        assert question_points(qtbot, window) == pytest.approx(10 * scale, abs=0.05)
