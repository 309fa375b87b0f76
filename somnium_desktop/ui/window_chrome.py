"""The window's menus and questions in the table's text size, its minimum kept at base size."""

from __future__ import annotations

from PySide6.QtCore import QObject, QSize
from PySide6.QtWidgets import QMenuBar, QVBoxLayout, QWidget

from .table_frame import TableFrame
from .table_scale import chrome_sheet


class WindowBody(QWidget):
    """The window's central widget around `split` (the table and the column). Its minimum is
    theirs less what the menu bar grew by with its text (`grown`), so the window's minimum
    stays the one at base size and one step takes a large window down to its least."""

    def __init__(self, split: QWidget) -> None:
        super().__init__()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)
        self.grown = 0  # pixels

    def minimumSizeHint(self) -> QSize:
        least = super().minimumSizeHint()
        return QSize(least.width(), max(0, least.height() - self.grown))


class MenuScale(QObject):
    """The menu bar and its menus follow the table's text scale (TableFrame.rescaled). The
    height they grow by is lent back to the table when it measures its scale, so a taller
    menu bar never takes the table's scale a step down (and back up, and down...)."""

    def __init__(self, bar: QMenuBar, table: TableFrame, body: WindowBody) -> None:
        super().__init__(bar)
        self.bar, self.table, self.body = bar, table, body
        bar.ensurePolished()
        self.base_height = bar.sizeHint().height()
        table.rescaled.connect(self.follow)

    def follow(self, scale: float) -> None:
        """Restyle the menus for `scale`; the window's minimum and the table's scale ignore
        the height they grew by."""
        self.bar.setStyleSheet(chrome_sheet(scale))
        self.bar.ensurePolished()
        grown = max(0, self.bar.sizeHint().height() - self.base_height) if scale > 1 else 0
        self.table.menu_growth = self.body.grown = grown
        self.body.updateGeometry()
