"""The window's splits: the table beside the right-hand column, the lobby above the log."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QSplitter

from .table_scale import column_scale, column_sheet

if TYPE_CHECKING:
    from .lobby_panel import LobbyPanel

COLUMN_WIDTH = 440  # pixels: the right-hand column's width, until the player drags it
TABLE_AT_LEAST = 520  # pixels: below this the column gives way first, down to its minimum
LOBBY_LINES = 4  # lines of games the lobby shows at first; the log has the rest


class TableSplitter(QSplitter):
    """The table and the right-hand column side by side. On a small window the column gives
    way (down to its minimum) before the table is squeezed below TABLE_AT_LEAST; on a larger
    one it is back at the width the player last dragged it to (`column_width`: COLUMN_WIDTH
    until then; the window keeps it for the next start). On a wide window the column's text
    grows a little (see table_scale.column_scale), and its width with it."""

    def __init__(self, column_width: int | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal)
        self.column_width = column_width or COLUMN_WIDTH  # (None: not dragged yet)
        self.filled = False  # until the column is built, its room is kept (the first frame)
        self.text_scale = 1.0  # the column's
        self.splitterMoved.connect(self._dragged)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._rescale()
        self.fit()

    def _rescale(self) -> None:
        side = self.widget(1)
        scale = column_scale(self.width())
        if side is None or scale == self.text_scale:
            return
        self.text_scale = scale
        side.setStyleSheet(column_sheet(scale))

    def fit(self) -> None:
        side = self.widget(1)
        if not self.filled or side is None:
            return
        table, column = self.sizes()
        total = table + column
        least = side.minimumSizeHint().width()
        wider = round(self.column_width * self.text_scale)  # (its text grew: so does it)
        wanted = max(least, min(wider, total - TABLE_AT_LEAST))
        if total > 0 and wanted != column:
            self.setSizes([total - wanted, wanted])

    def _dragged(self, _pos: int, _index: int) -> None:
        self.column_width = round(self.sizes()[1] / self.text_scale)


def kept_width(value: object) -> int | None:
    """The column width a setting kept (None when there is none, or it is no width)."""
    try:
        width = int(str(value))
    except ValueError:
        return None
    return width if width > 0 else None


def lobby_and_log(lobby: LobbyPanel, height: int) -> list[int]:
    """The column's first split: the lobby with room for a few games (the list scrolls), and
    the rest to the offline panel and its log, which an offline game fills."""
    games = lobby.games
    lines = games.verticalHeader().defaultSectionSize() * LOBBY_LINES
    lobby_height = lobby.minimumSizeHint().height() - games.minimumSizeHint().height() \
        + games.horizontalHeader().sizeHint().height() + lines + 2 * games.frameWidth()
    return [lobby_height, max(1, height - lobby_height)]
