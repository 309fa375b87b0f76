"""Fixtures for the app's widget tests: isolated settings and a table on screen (offscreen)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.settings import Settings
from somnium_desktop.ui.style import apply_style
from somnium_desktop.ui.table import TableWidget
from tests.online.helpers import LEVELS
from tests.ui.driver import activate, close, wait_for_input


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))


@pytest.fixture
def table(qtbot: QtBot) -> Iterator[TableWidget]:
    yield from on_screen(qtbot, TableWidget())


def on_screen(qtbot: QtBot, widget: TableWidget) -> Iterator[TableWidget]:
    """`widget` shown and active for a test, then closed with its source."""
    qtbot.addWidget(widget)
    widget.resize(1100, 720)
    widget.show()
    qtbot.waitExposed(widget)
    activate(qtbot, widget)
    widget.scene.set_motion(True, 1.0)
    yield widget
    if widget.source is not None:
        widget.source.close()
    close(qtbot, widget)


@pytest.fixture
def app_style() -> Iterator[None]:
    """The app's own look (its style sheet and palette) for one test, then the plain one."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    sheet, palette = app.styleSheet(), app.palette()
    apply_style(app, set_style=False)
    try:
        yield
    finally:
        app.setStyleSheet(sheet)
        app.setPalette(palette)


@contextmanager
def offline_window(qtbot: QtBot, settings: Settings) -> Iterator[MainWindow]:
    """A main window on screen with an offline game waiting for our move, then closed."""
    window = MainWindow(settings, LEVELS)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    try:
        window.start_offline()
        wait_for_input(qtbot, window.table)
        yield window
    finally:
        close(qtbot, window)
