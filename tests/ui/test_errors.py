"""Unhandled exceptions: logged to a file and shown in a dialog with copyable details."""

from __future__ import annotations

import logging
import os
import stat
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMainWindow, QMessageBox
from pytestqt.qtbot import QtBot
from shiboken6 import Shiboken

from somnium_desktop.ui.error_dialog import ErrorDialog
from somnium_desktop.ui.errors import ExceptionHandler, setup_logging
from tests.ui.driver import activate


class Boom(RuntimeError):
    pass


def fail() -> None:
    raise Boom("the table fell over")


def raise_in_a_slot(qtbot: QtBot, hook: ExceptionHandler) -> ErrorDialog:
    """fail() from a Qt callback with `hook` installed (then uninstalled): the dialog shown."""
    hook.install()
    try:
        QTimer.singleShot(0, fail)
        qtbot.waitUntil(lambda: bool(hook.dialogs))
    finally:
        hook.uninstall()
    return hook.dialogs[0]


@pytest.mark.qt_no_exception_capture
def test_an_exception_in_a_slot_shows_the_dialog_and_is_logged(
    qtbot: QtBot, tmp_path: Path
) -> None:
    handler_file = setup_logging(tmp_path)
    assert handler_file is not None
    hook = ExceptionHandler(Path(handler_file.baseFilename))
    try:
        dialog = raise_in_a_slot(qtbot, hook)
    finally:
        logging.getLogger().removeHandler(handler_file)
        handler_file.close()
    assert sys.excepthook is not hook
    details = dialog.details.toPlainText()
    assert "Boom: the table fell over" in details and "in fail" in details
    assert dialog.details.isReadOnly()
    dialog.copy.click()
    assert QGuiApplication.clipboard().text() == details
    log_text = (tmp_path / "somnium.log").read_text(encoding="utf-8")
    assert "Unhandled exception" in log_text and "the table fell over" in log_text
    dialog.reject()
    qtbot.waitUntil(lambda: not hook.dialogs)


@pytest.mark.qt_no_exception_capture
def test_an_error_shown_over_a_passing_dialog_outlives_it(qtbot: QtBot) -> None:
    """The concede question (deleted when answered) is the active window when the error
    comes: the error dialog must not be its child, or answering would take the error away."""
    window = QMainWindow()
    qtbot.addWidget(window)
    window.show()
    box = QMessageBox(QMessageBox.Icon.Question, "Concede the game?", "Concede?",
                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, window)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    activate(qtbot, box)
    hook = ExceptionHandler()
    dialog = raise_in_a_slot(qtbot, hook)
    assert dialog.parentWidget() is window
    box.button(QMessageBox.StandardButton.No).click()
    qtbot.wait(50)  # the box is deleted
    assert Shiboken.isValid(dialog) and dialog.isVisible()
    dialog.reject()
    qtbot.waitUntil(lambda: not hook.dialogs)


def test_the_log_folder_is_for_this_user_alone(tmp_path: Path) -> None:
    """Under umask 022, made afresh or left 0755 by an older release: 0700 either way."""
    fresh, older = tmp_path / "fresh" / "log", tmp_path / "older"
    older.mkdir(mode=0o755)
    before = os.umask(0o022)
    try:
        for folder in (fresh, older):
            handler = setup_logging(folder)
            assert handler is not None
            logging.getLogger().removeHandler(handler)
            handler.close()
    finally:
        os.umask(before)
    assert [stat.S_IMODE(folder.stat().st_mode) for folder in (fresh, older)] == [0o700] * 2
