"""The dialogs the window opens (Settings, the error's details, the Analysis window) come in
the table's text size at the time they open."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QDialog, QLabel
from pytestqt.qtbot import QtBot

from somnium_desktop.client.analysis import AnalysisState
from somnium_desktop.ui.errors import ExceptionHandler
from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.settings_dialog import SERVER_PLACEHOLDER
from tests.ui.driver import activate, play_to_the_end
from tests.ui.test_chrome_scaling import LARGE, SMALL, points, resized
from tests.ui.test_errors import raise_in_a_slot
from tests.ui.test_main_window import window

__all__ = ["window"]  # (the fixture)

pytestmark = pytest.mark.usefixtures("app_style")


def closed(qtbot: QtBot, dialog: QDialog) -> None:
    dialog.close()
    dialog.deleteLater()
    qtbot.wait(10)


def test_settings_open_in_the_table_text_size(qtbot: QtBot, window: MainWindow) -> None:
    window.start_offline("careful", seed=3)
    for size in (SMALL, LARGE, SMALL):
        scale = resized(qtbot, window, size)
        window.open_settings()
        dialog = window.settings_dialog
        qtbot.waitExposed(dialog)
        # (10 points at 2560x1440 before, beside the table's 15)
        assert points(dialog.reduced_motion) == pytest.approx(10 * scale, abs=0.05), size
        server = dialog.server  # its placeholder whole in the grown words
        words = server.fontMetrics().horizontalAdvance(SERVER_PLACEHOLDER)
        assert server.width() >= words, (size, server.width(), words)
        closed(qtbot, dialog)


@pytest.mark.qt_no_exception_capture
def test_the_error_dialog_opens_in_the_table_text_size(
    qtbot: QtBot, window: MainWindow
) -> None:
    hook = ExceptionHandler()
    for size in (SMALL, LARGE):
        scale = resized(qtbot, window, size)
        activate(qtbot, window)
        dialog = raise_in_a_slot(qtbot, hook)
        assert dialog.parentWidget() is window
        message = dialog.findChild(QLabel)
        assert message is not None
        assert points(message) == pytest.approx(10 * scale, abs=0.05), size
        assert points(dialog.details) == pytest.approx(10 * scale, abs=0.05), size
        dialog.reject()
        qtbot.waitUntil(lambda: not hook.dialogs)


def test_the_analysis_window_opens_in_the_table_text_size(
    qtbot: QtBot, window: MainWindow
) -> None:
    window.start_offline("careful", seed=3)
    table = window.table
    play_to_the_end(qtbot, table)
    block = table.result_analysis
    qtbot.waitUntil(lambda: block.state is AnalysisState.READY, timeout=30000)
    for size in (SMALL, LARGE):
        scale = resized(qtbot, window, size)
        block.open()
        dialog = block.dialog
        assert dialog is not None
        qtbot.waitExposed(dialog)
        assert dialog.parentWidget() is window
        assert points(dialog.view.note) == pytest.approx(10 * scale, abs=0.05), size
        assert points(dialog.view.decisions) == pytest.approx(10 * scale, abs=0.05), size
        graph = dialog.view.graph  # its percentages fit left of the plot
        assert graph.plot().left() >= graph.fontMetrics().horizontalAdvance("100%") + 6
        block.window.close()  # (the next one is made anew, in the window's text size then)
        qtbot.wait(10)
