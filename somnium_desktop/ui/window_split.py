"""The window's splits: the table beside the right-hand column, the lobby above the log."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLayout, QSplitter, QWidget

from .table_frame import TableFrame
from .table_scale import column_scale, words_sheet

if TYPE_CHECKING:
    from .lobby_panel import LobbyPanel

COLUMN_WIDTH = 440  # pixels: the right-hand column's least width, until the player drags it
COLUMN_SHARE = COLUMN_WIDTH / 1024  # of a wider window, the column takes the share it has at 1024
COLUMN_WIDEST = 580  # pixels, with its text at its base size: its share no wider than this
TABLE_AT_LEAST = 520  # pixels: below this the column gives way first, down to its minimum
LOBBY_LINES = 5  # lines of games the lobby shows with no game on the table
LOG_LINES = 10  # lines of log a game keeps before the lobby gets its LOBBY_LINES beside it


class TableSplitter(QSplitter):
    """The table and the right-hand column side by side. On a small window the column gives
    way (down to its minimum) before the table is squeezed below TABLE_AT_LEAST; on a larger
    one it is back at the width the player last dragged it to (the window keeps it for the
    next start). Until they drag it, it takes COLUMN_SHARE of the window (COLUMN_WIDTH at
    1024 pixels, up to COLUMN_WIDEST), so a wide window widens the lobby's columns too and
    its players' names keep their ratings. On a wide window the column's text grows a little
    (see table_scale.column_scale), and its width with it.

    Its minimum is the one its parts have with their text at its base size, each measured
    while its own text is (the table's before its first resize; the column's text grows only
    once it is filled and measured): the window's minimum never follows the grown text, even
    on a window first shown large, so one step takes it down to 1024x640 or its least size,
    where the text is back at its base size (grown text needs a wide window anyway)."""

    def __init__(self, column_width: int | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal)
        self.column_width = column_width or COLUMN_WIDTH
        self.dragged = column_width is not None  # (else the column takes its share)
        self.filled = False  # until the column is built, its room is kept (the first frame)
        self.text_scale = 1.0  # the column's
        self.least = [QSize(), QSize()]  # the table's and the column's, text at base size
        self.restyled = False  # the column's text changed size since it was last measured
        self.splitterMoved.connect(self._dragged)

    def fill(self) -> None:
        """The column is built: measure it at its base size, then let its text grow."""
        self.filled = True
        self.minimumSizeHint()
        self._rescale()
        self.fit()

    def minimumSizeHint(self) -> QSize:
        table, side = self.widget(0), self.widget(1)
        if table is None or side is None:
            return super().minimumSizeHint()
        if not (isinstance(table, TableFrame) and table.text_scale != 1) \
                or not self.least[0].isValid():
            self.least[0] = table.minimumSizeHint().expandedTo(table.minimumSize())
        if self.text_scale == 1 or not self.least[1].isValid():
            if self.restyled:
                remeasured(side)
                self.restyled = False
            self.least[1] = side.minimumSizeHint().expandedTo(side.minimumSize())
        handle = self.handle(1).sizeHint().width()
        return QSize(self.least[0].width() + handle + self.least[1].width(),
                     max(self.least[0].height(), self.least[1].height()))

    def resizeEvent(self, event: QResizeEvent) -> None:
        self.minimumSizeHint()  # (taken while the text is at its base size, if it is)
        super().resizeEvent(event)
        self._rescale()
        self.fit()

    def event(self, event: QEvent) -> bool:
        done = super().event(event)
        if event.type() == QEvent.Type.LayoutRequest:  # (a part's minimum changed: its text
            self.fit()  # came back to its base size, a chat showed)
        return done

    def _rescale(self) -> None:
        side = self.widget(1)
        scale = column_scale(self.width())
        if side is None or not self.filled or scale == self.text_scale:
            return  # (an empty column's text grows once it is filled and measured)
        self.text_scale = scale
        self.restyled = True
        side.setStyleSheet(words_sheet(scale))
        self.updateGeometry()  # (back at the base size, its minimum is measured again)

    def fit(self) -> None:
        side = self.widget(1)
        if side is None:
            return
        table, column = self.sizes()
        total = table + column
        least = side.minimumSizeHint().width() if self.filled else 0
        wider = round(self.column_width * self.text_scale)  # (its text grew: so does it)
        if not self.dragged:
            wider = max(wider, min(round(total * COLUMN_SHARE),
                                   round(COLUMN_WIDEST * self.text_scale)))
        wanted = max(least, min(wider, total - TABLE_AT_LEAST))
        if total > 0 and wanted != column:
            self.setSizes([total - wanted, wanted])

    def _dragged(self, _pos: int, _index: int) -> None:
        self.dragged = True
        self.column_width = round(self.sizes()[1] / self.text_scale)


def remeasured(part: QWidget) -> None:
    """Have `part`'s layouts, the nested ones too, measure its widgets again. Back at its base
    size after its text grew, the lobby's rows kept the widths they had measured with the
    grown text until the next layout pass, and the window, held to the minimum they made,
    stopped 126 pixels short of its least width."""
    for widget in (part, *part.findChildren(QWidget)):
        layout = widget.layout()
        if layout is not None:
            invalidated(layout)


def invalidated(layout: QLayout) -> None:
    """`layout` and the layouts in it made to measure again."""
    for index in range(layout.count()):
        item = layout.itemAt(index)
        inner = item.layout() if item is not None else None
        if inner is not None:
            invalidated(inner)
    layout.invalidate()


def kept_width(value: object) -> int | None:
    """The column width a setting kept (None when there is none, or it is no width)."""
    try:
        width = int(str(value))
    except ValueError:
        return None
    return width if width > 0 else None


def lobby_height(lobby: LobbyPanel) -> int:
    """The lobby's height with room for LOBBY_LINES games in its list (which scrolls)."""
    games = lobby.games
    return lobby.minimumSizeHint().height() - games.minimumSizeHint().height() \
        + games.height_for(LOBBY_LINES)


def game_room(column: QSplitter, lobby: LobbyPanel, panel: QWidget, log: QWidget) -> int | None:
    """The height the game's part asks for in front of the column: all but the lobby's
    LOBBY_LINES games when that leaves `panel` LOG_LINES more lines of `log` than its least;
    None on a shorter column (all the room the lobby spares: the log first)."""
    rest = column.height() - column.handleWidth() - lobby_height(lobby)
    needed = panel.minimumSizeHint().height() + LOG_LINES * log.fontMetrics().lineSpacing()
    return rest if rest >= needed else None


def lobby_and_log(lobby: LobbyPanel, height: int) -> list[int]:
    """The column's first split: the lobby with room for a few games (the list scrolls), and
    the rest to the offline panel and its log, which an offline game fills."""
    lobby_part = lobby_height(lobby)
    return [lobby_part, max(1, height - lobby_part)]
