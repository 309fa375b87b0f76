"""A short window with an online game on the table: the column gives way, nothing is lost."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QRect, QSize
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from somnium_desktop.ui.column_part import ColumnPart
from somnium_desktop.ui.main_window import MainWindow
from tests.server.helpers import LiveServer
from tests.ui.conftest import app_style

from .helpers import close_windows, open_window
from .test_presence_window import create_signed_in

__all__ = ["app_style"]  # (the fixture: the app's paddings and bold labels)

SMALL = QSize(1024, 640)  # the smallest window the app is made for (docs/desktop.md)


def in_sight(part: ColumnPart, control: QWidget) -> bool:
    """Whether all of `control` shows in its column part's viewport."""
    viewport = part.viewport()
    corner = control.mapTo(viewport, control.rect().topLeft())
    return viewport.rect().contains(QRect(corner, control.size()))


def part_of(panel: QWidget) -> ColumnPart:
    """The column part that scrolls `panel` (the parent of its viewport)."""
    viewport = panel.parentWidget()
    part = viewport.parentWidget() if viewport is not None else None
    assert isinstance(part, ColumnPart)
    return part


def create_area(window: MainWindow) -> list[QWidget]:
    lobby = window.lobby_panel
    return [lobby.name_field, lobby.clock_choice, lobby.opponent, lobby.create_button,
            lobby.rated_box, lobby.odds_box]


def with_bob(qtbot: QtBot, ada: MainWindow, lobby: LiveServer) -> None:
    """Ada creates a game from her lobby and Bob joins it: it is on her table, with its chat."""
    game = create_signed_in(qtbot, ada)
    bob = lobby.player("Bob")
    assert bob.post(f"/games/{game.game_id}/join").status_code == 200
    qtbot.waitUntil(lambda: ada.table.shown is not None and ada.chat_view.isVisible(),
                    timeout=5000)


@pytest.mark.usefixtures("app_style")
def test_an_online_game_lets_the_window_be_1024x640_with_create_in_reach(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    ada = open_window(qtbot, tmp_path, "Ada", lobby.base)
    try:
        with_bob(qtbot, ada, lobby)
        chat = ada.chat_view
        assert chat.isVisible() and ada.table.log.isVisible()  # the column at its fullest

        assert ada.minimumSizeHint().height() <= SMALL.height(), ada.minimumSizeHint()
        ada.resize(SMALL)
        qtbot.waitUntil(lambda: ada.size() == SMALL)
        qtbot.wait(30)
        assert ada.table.view.height() > 0 and ada.column.height() <= SMALL.height()
        lobby_part, offline_part = (part_of(panel) for panel in (ada.lobby_panel, ada.panel))
        for control in create_area(ada):
            assert control.isVisible(), control.accessibleName()
            lobby_part.ensureWidgetVisible(control)
            assert in_sight(lobby_part, control), control.accessibleName()
            assert control.width() >= control.minimumSizeHint().width()  # never cut sideways
        for control in (chat.field, chat.send_button, ada.panel.play):  # the rest scrolls too
            offline_part.ensureWidgetVisible(control)
            assert in_sight(offline_part, control), control.accessibleName()
    finally:
        close_windows(qtbot, ada)


@pytest.mark.usefixtures("app_style")
def test_an_online_game_at_1024x640_shows_the_chat_field_without_scrolling(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    ada = open_window(qtbot, tmp_path, "Ada", lobby.base)
    try:
        ada.resize(SMALL)
        qtbot.waitUntil(lambda: ada.size() == SMALL)
        with_bob(qtbot, ada, lobby)
        chat = ada.chat_view
        game_part = part_of(ada.panel)
        qtbot.waitUntil(lambda: in_sight(game_part, chat.field))  # (below the fold before)
        assert game_part.verticalScrollBar().value() == 0  # not scrolled to it
        assert in_sight(game_part, chat.send_button) and in_sight(game_part, ada.table.log)
        column = ada.column.rect()
        for control in (chat.field, chat.send_button):
            corner = control.mapTo(ada.column, control.rect().topLeft())
            assert column.contains(QRect(corner, control.size())), control.accessibleName()
    finally:
        close_windows(qtbot, ada)
