"""Text and the result panel grow with a large window, as the cards do; the column's text too."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QFontInfo
from pytestqt.qtbot import QtBot

from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.table_scale import MOST
from somnium_desktop.ui.wrapped_label import WrappedLabel
from tests.ui.driver import play_to_the_end
from tests.ui.test_layout import GAMES
from tests.ui.test_main_window import window

__all__ = ["window"]  # (the fixture)

pytestmark = pytest.mark.usefixtures("app_style")


def measure(qtbot: QtBot, window: MainWindow, size: QSize) -> dict[str, float]:
    window.resize(size)
    qtbot.waitUntil(lambda: window.size() == size)
    qtbot.wait(50)
    table = window.table
    panel = table.game_over
    return {
        "card": table.scene.geometry.card_w,
        "status": table.status.fontInfo().pixelSize(),
        "name": table.me.name.fontInfo().pixelSize(),
        "title": panel.title.fontInfo().pixelSize(),
        "panel": panel.width() / table.view.width(),
        "panel_height": panel.height(),
        "button": table.draw_button.height(),
    }


def test_text_and_the_result_grow_with_the_window(qtbot: QtBot, window: MainWindow) -> None:
    window.start_offline("careful", seed=3)
    play_to_the_end(qtbot, window.table)
    assert window.table.game_over.isVisible()
    small = measure(qtbot, window, QSize(1280, 800))
    large = measure(qtbot, window, QSize(1920, 1080))
    assert large["card"] >= 1.4 * small["card"]
    for key in ("status", "name", "title"):
        assert large[key] >= 1.25 * small[key], (key, small[key], large[key])
    assert large["panel_height"] >= 1.2 * small["panel_height"]
    assert large["button"] >= 1.15 * small["button"]
    # the panel keeps about its share of the table (at 1280 the lobby's column takes more of
    # the window than it did, so there the panel's least width is a larger share: 0.33, 0.30)
    assert large["panel"] >= 0.9 * small["panel"]
    back = measure(qtbot, window, QSize(1280, 800))
    assert back["status"] == small["status"]  # and comes back on a smaller window
    assert window.table.status.height() >= 2 * window.table.status.fontMetrics().lineSpacing()


def cell_font(window: MainWindow, column: int) -> QFontInfo:
    item = window.lobby_panel.games.item(0, column)
    assert item is not None
    return QFontInfo(item.font())


def column_text(qtbot: QtBot, window: MainWindow, size: QSize) -> dict[str, int]:
    window.resize(size)
    qtbot.waitUntil(lambda: window.size() == size)
    qtbot.wait(50)
    lobby, panel = window.lobby_panel, window.panel
    return {
        "lobby": lobby.name_field.fontInfo().pixelSize(),
        "games": lobby.games.fontInfo().pixelSize(),
        "level": panel.level.fontInfo().pixelSize(),
        "log": window.table.log.fontInfo().pixelSize(),
        "title": panel.log_title.fontInfo().pixelSize(),
        "game": cell_font(window, 0).pixelSize(),  # (bold: Ada's own game)
        "seat": cell_font(window, 1).pixelSize(),
        "width": window.column.width(),  # (the column widens with its text)
    }


def test_the_column_text_grows_on_a_wide_window(qtbot: QtBot, window: MainWindow) -> None:
    window.start_offline("careful", seed=3)
    window.lobby_panel.games.show_games(GAMES, "u-ada")  # (listed before the window grows)
    small = column_text(qtbot, window, QSize(1280, 800))
    large = column_text(qtbot, window, QSize(1920, 1080))
    for key in small:
        assert large[key] >= 1.15 * small[key], (key, small[key], large[key])
        assert large[key] <= 1.5 * small[key], (key, small[key], large[key])  # modest
    assert large["title"] > large["lobby"]  # the titles stay the larger
    back = column_text(qtbot, window, QSize(1280, 800))
    assert back == small  # and come back on a smaller window
    assert cell_font(window, 0).bold()


def answer_text(qtbot: QtBot, window: MainWindow, size: QSize) -> dict[str, float]:
    """The coach's answer's text beside the table's other text, at a window size."""
    window.resize(size)
    qtbot.waitUntil(lambda: window.size() == size)
    qtbot.wait(50)
    table = window.table
    answer = table.coach.answer
    return {
        "answer": answer.fontInfo().pixelSize(),
        "status": table.status.fontInfo().pixelSize(),
        "lines": answer.height() / answer.heightForWidth(answer.width()),  # >= 1: all shown
    }


def test_the_coach_answer_grows_like_the_table_text(qtbot: QtBot, window: MainWindow) -> None:
    window.start_offline("careful", seed=3)
    answer = window.table.coach.answer
    answer.show_text("The expert would draw: 62% to win; ending the turn now, 55%.")
    small = answer_text(qtbot, window, QSize(1280, 800))
    large = answer_text(qtbot, window, QSize(2560, 1440))  # (it kept 10 points there)
    assert large["answer"] >= 1.25 * small["answer"], (small, large)
    assert large["answer"] / small["answer"] <= MOST  # within the table's bounds
    assert large["answer"] / large["status"] == pytest.approx(
        small["answer"] / small["status"], rel=0.15)  # as the status line beside it grows
    assert small["lines"] >= 1 and large["lines"] >= 1
    back = answer_text(qtbot, window, QSize(1280, 800))
    assert back["answer"] == small["answer"]


def test_a_wrapped_label_takes_the_lines_of_a_larger_font(qtbot: QtBot) -> None:
    label = WrappedLabel()
    qtbot.addWidget(label)
    label.resize(200, 20)
    label.show()
    qtbot.waitExposed(label)
    label.show_text("The expert would draw: 62% to win; ending the turn now, 55%.")
    before = label.minimumHeight()
    label.setStyleSheet("font-size: 20pt")  # (as the table's sheet on a large window)
    assert label.width() == 200  # (the same width: no resize to fit it again)
    assert label.minimumHeight() >= label.heightForWidth(label.width()) > before
