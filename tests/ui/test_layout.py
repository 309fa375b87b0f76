"""The window's room, measured: the log's lines, labels that neither overlap nor get cut."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import QPoint, QSize, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QGraphicsSimpleTextItem
from pytestqt.qtbot import QtBot

from somnium_desktop.client.lobby_records import GameSummary, Seat
from somnium_desktop.ui.column_part import ColumnPart
from somnium_desktop.ui.lobby_games import (
    CELL_PADDING,
    COLUMNS,
    HEADER_PADDING,
    NAME,
    SEAT_1,
    STATUS,
)
from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.settings import Settings
from tests.online.test_short_window import in_sight
from tests.ui.driver import close, play_to_the_end
from tests.ui.test_main_window import LEVELS, window

__all__ = ["window"]  # (the fixture)

ADA, BEA = Seat(0, "person", "u-ada", "Ada"), Seat(1, "person", "u-bea", "Bea")
COMPUTER = Seat(1, "computer", None, "Computer (Normal)", "normal")
GAMES = [
    GameSummary("A1", "Friday night", "playing", (ADA, BEA), turn=0, observers=1),
    GameSummary("B2", "Dee against the computer", "playing", (BEA, COMPUTER), turn=1),
    GameSummary("C3", "Cy's open table", "waiting", (ADA, Seat(1, "open"))),
    GameSummary("D4", "Quick one", "finished", (ADA, COMPUTER), winner=1),
]


pytestmark = pytest.mark.usefixtures("app_style")  # its paddings and bold labels


def sized(qtbot: QtBot, window: MainWindow, size: QSize | None) -> None:
    wanted = window.minimumSizeHint() if size is None else size
    window.resize(wanted)
    qtbot.waitUntil(lambda: window.size() == wanted.expandedTo(window.minimumSizeHint()))
    qtbot.wait(30)


def labels(window: MainWindow) -> list[QGraphicsSimpleTextItem]:
    scene = window.table.scene
    return [scene.deck_label, scene.fools_label, scene.death_label, scene.discard_label]




def test_the_deck_labels_count_what_is_left(qtbot: QtBot, window: MainWindow) -> None:
    """Under the deck, Death is counted as the Fools are ("3 Fools", "1 Death"): the old
    "Death in" read as a label cut short."""
    scene = window.table.scene
    scene.set_deck_info(54, 3, True)
    assert [label.text() for label in labels(window)][1:3] == ["3 Fools", "1 Death"]
    scene.set_deck_info(20, 0, False)
    assert [label.text() for label in labels(window)][1:3] == ["no Fools", "no Death"]


def log_lines(window: MainWindow) -> float:
    log = window.table.log
    return log.viewport().height() / log.fontMetrics().lineSpacing()


@pytest.mark.parametrize("size", [QSize(1280, 800), QSize(1024, 640), None, QSize(1920, 1080)])
def test_the_deck_labels_neither_overlap_nor_get_cut(
    qtbot: QtBot, window: MainWindow, size: QSize | None
) -> None:
    sized(qtbot, window, size)
    window.start_offline("careful", seed=4)
    qtbot.waitUntil(lambda: window.table.shown is not None)
    scene = window.table.scene
    scene.set_deck_info(54, 3, True)  # the longest words each label has
    rects = [label.sceneBoundingRect() for label in labels(window)]
    band = scene.geometry.table_pos(0).x() - scene.geometry.card_w * 0.1
    for n, (label, rect) in enumerate(zip(labels(window), rects, strict=True)):
        assert scene.sceneRect().contains(rect), label.text()
        assert "…" not in label.text(), (size, label.text())  # never cut
        assert label.font().pixelSize() >= 8
        for other in rects[n + 1:]:
            assert not rect.intersects(other), (label.text(), size)
        if label is not scene.discard_label:  # left of the table row, under the deck
            assert rect.right() <= band, (label.text(), rect, band)
    top = scene.geometry.row_y + scene.geometry.card_h
    assert all(rect.top() >= top for rect in rects)  # under the cards, not over them


def test_the_log_gets_the_room_while_a_game_is_on_the_table(
    qtbot: QtBot, window: MainWindow
) -> None:
    window.start_offline("careful", seed=4)
    qtbot.waitUntil(lambda: window.table.shown is not None)
    sized(qtbot, window, QSize(1280, 800))
    assert log_lines(window) >= 10  # (5-6 when the lobby took most of the column)
    sized(qtbot, window, QSize(1024, 640))
    assert log_lines(window) >= 5  # (2 before)
    games = window.lobby_panel.games
    assert games.viewport().height() >= games.verticalHeader().defaultSectionSize()  # a line


def lobby_lines(window: MainWindow) -> float:
    games = window.lobby_panel.games
    return games.viewport().height() / games.verticalHeader().defaultSectionSize()


def test_the_lobby_shows_five_games_at_1024x640_with_no_game_on_the_table(
    qtbot: QtBot, window: MainWindow
) -> None:
    many = [replace(game, id=f"{game.id}{n}") for n in range(3) for game in GAMES]
    window.lobby_panel.set_games(many, me=None)
    sized(qtbot, window, QSize(1024, 640))
    qtbot.waitUntil(lambda: lobby_lines(window) >= 5)  # (2 before: the log took the room)
    lobby_part = window.column.widget(0)
    assert isinstance(lobby_part, ColumnPart)
    assert lobby_part.verticalScrollBar().value() == 0  # (not scrolled to its list)
    assert in_sight(lobby_part, window.lobby_panel.games)
    window.start_offline("careful", seed=4)  # a game on the table: its log comes first
    qtbot.waitUntil(lambda: log_lines(window) >= 5)
    play_to_the_end(qtbot, window.table)
    window.replays.open(None)  # the table empty again (as Leave replay leaves it)
    qtbot.waitUntil(lambda: window.source is None)
    qtbot.waitUntil(lambda: lobby_lines(window) >= 5)  # and the lobby once it is gone


def test_the_split_is_remembered(qtbot: QtBot, window: MainWindow, settings: Settings) -> None:
    sized(qtbot, window, QSize(1024, 640))
    column = window.column
    column.moveSplitter(column.sizes()[0] + 60, 1)  # the player drags it down a little
    dragged = column.sizes()
    again = reopened(qtbot, window, settings)
    assert again.column.sizes() == dragged
    again.close()


def test_the_column_keeps_the_width_it_was_dragged_to(
    qtbot: QtBot, window: MainWindow, settings: Settings
) -> None:
    sized(qtbot, window, QSize(1280, 800))
    splitter = window.splitter
    table, column = splitter.sizes()
    splitter.moveSplitter(table - 80, 1)  # the player widens the column
    dragged = splitter.sizes()
    assert dragged[1] == column + 80
    again = reopened(qtbot, window, settings)
    assert again.splitter.sizes() == dragged  # (it was back at its first width)
    again.resize(QSize(1200, 800))  # and a narrower window narrows the table, not the column
    qtbot.waitUntil(lambda: again.width() == 1200)
    assert again.splitter.sizes()[1] == dragged[1]
    again.close()


def reopened(qtbot: QtBot, window: MainWindow, settings: Settings) -> MainWindow:
    """`window` closed, then a new one on its settings (as at the next start), as large."""
    close(qtbot, window)
    again = MainWindow(settings, LEVELS)
    qtbot.addWidget(again)
    again.resize(window.size())
    again.show()
    qtbot.waitExposed(again)
    return again


def cut_cells(window: MainWindow) -> list[tuple[str, str]]:
    """(text, tooltip) of the lobby's cells whose text does not fit their column."""
    games = window.lobby_panel.games
    cut = []
    for row in range(games.rowCount()):
        for column in range(len(COLUMNS)):
            item = games.item(row, column)
            if item is None or games.isColumnHidden(column):
                continue
            needed = QFontMetrics(item.font()).horizontalAdvance(item.text()) + CELL_PADDING
            if needed > games.columnWidth(column):
                cut.append((item.text(), item.toolTip()))
    return cut


def test_the_lobby_columns_take_the_room(qtbot: QtBot, window: MainWindow) -> None:
    window.lobby_panel.set_games(GAMES, me=None)
    sized(qtbot, window, QSize(1280, 800))
    cut = cut_cells(window)  # the status keeps its words ("Bea's t…", "Compu…" before)
    games = window.lobby_panel.games
    columns = {games.findItems(text, Qt.MatchFlag.MatchExactly)[0].column() for text, _ in cut}
    assert STATUS not in columns and SEAT_1 not in columns, cut
    assert all(text in tip for text, tip in cut)  # what gives says it whole on hover
    assert games.columnWidth(NAME) >= games.viewport().width() // 3
    sized(qtbot, window, None)  # at the least size some give way, and say it whole on hover
    for text, tip in cut_cells(window):
        assert text in tip, (text, tip)
    header = games.horizontalHeader()
    for column in range(len(COLUMNS)):
        if not games.isColumnHidden(column):
            room = header.sectionSize(column)
            assert header.fontMetrics().horizontalAdvance(COLUMNS[column]) <= room, column
    used = sum(games.columnWidth(c) for c in range(len(COLUMNS)) if not games.isColumnHidden(c))
    assert used <= games.viewport().width() + 1
    assert games.viewport().mapToGlobal(QPoint(0, 0)).x() >= window.mapToGlobal(QPoint(0, 0)).x()
    assert Qt.TextElideMode.ElideRight == games.textElideMode()



@pytest.mark.parametrize("size", [None, QSize(1280, 800), QSize(1920, 1080), QSize(2560, 1440)])
def test_the_lobby_headers_have_room_between_them(
    qtbot: QtBot, window: MainWindow, size: QSize | None
) -> None:
    window.lobby_panel.set_games(GAMES, me=None)  # (listed before the window grows)
    sized(qtbot, window, size)
    games = window.lobby_panel.games
    header = games.horizontalHeader()
    metrics = header.fontMetrics()
    shown = [c for c in range(len(COLUMNS)) if not games.isColumnHidden(c)]
    assert len(shown) >= 4
    for column in shown:  # ("Player 1" ran into "Player 2" at 2560x1440)
        words = metrics.horizontalAdvance(COLUMNS[column])
        assert header.sectionSize(column) >= words + HEADER_PADDING, (COLUMNS[column], size)
