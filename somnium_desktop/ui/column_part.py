"""The right-hand column's parts, which scroll when the window is too short for all of them."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QScrollArea, QSplitter, QStyle, QWidget

LEAST_LINES = 7  # lines of text a part keeps at the least; below its own minimum, it scrolls


class ColumnPart(QScrollArea):
    """Holds one panel of the column (the lobby, the offline panel with the log and the chat).

    As tall as the column's split gives it, the panel fills it and its lists take the room;
    shorter than the panel's minimum, the panel keeps that minimum and scrolls, so a short
    window still reaches every control (Tab scrolls to the one it focuses). It is as wide as
    the panel needs, with room for its scroll bar: the panel never scrolls sideways.
    """

    def __init__(self, panel: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # (Tab goes to the panel's controls)
        # Sized here, not by the scroll area: its own sizing would give a panel with wrapped
        # words its preferred height (a long log), and scroll where the minimum fits.
        self.setWidget(panel)
        panel.installEventFilter(self)

    def panel_height(self) -> int:
        """The height its panel needs to show whole (its minimum)."""
        panel = self.widget()
        return panel.minimumSizeHint().height() if panel is not None else 0

    def _bar(self) -> int:
        return self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, self)

    def fit(self) -> None:
        """The panel as wide as the part (less its scroll bar, when it scrolls) and as tall
        as the part, or as its own minimum when that is taller."""
        panel = self.widget()
        if panel is None:
            return
        need = self.panel_height()
        scrolls = need > self.height()
        panel.resize(self.width() - (self._bar() if scrolls else 0), max(self.height(), need))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit()

    def minimumSizeHint(self) -> QSize:
        panel = self.widget()
        least = panel.minimumSizeHint() if panel is not None else QSize(0, 0)
        bar = self._bar()
        lines = LEAST_LINES * self.fontMetrics().lineSpacing()
        return QSize(least.width() + bar, min(least.height(), lines))

    def sizeHint(self) -> QSize:
        panel = self.widget()
        return panel.sizeHint() if panel is not None else super().sizeHint()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        column = self.parentWidget()
        if event.type() == QEvent.Type.LayoutRequest:  # (its panel changed: a chat shows)
            QTimer.singleShot(0, self.fit)
            if isinstance(column, Column):
                QTimer.singleShot(0, column.settle)
        return super().eventFilter(watched, event)


class Column(QSplitter):
    """The column's parts one over the other. A part shorter than its panel takes the room
    another has beyond its own panel's (the player's split stands while every part is whole);
    on a window too short for all of them, they scroll."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Vertical, parent)
        self.setChildrenCollapsible(False)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.settle()

    def settle(self) -> None:
        sizes = self.sizes()
        parts = [self.widget(n) for n in range(self.count())]
        wanted = [part.panel_height() if isinstance(part, ColumnPart) and part.isVisible()
                  else size for part, size in zip(parts, sizes, strict=True)]
        short = [max(0, want - size) for want, size in zip(wanted, sizes, strict=True)]
        spare = [max(0, size - want) for want, size in zip(wanted, sizes, strict=True)]
        moved = min(sum(short), sum(spare))
        if moved <= 0:
            return
        given, taken = moved, moved
        for n in range(len(sizes)):
            grow = min(short[n], given)
            shrink = min(spare[n], taken)
            sizes[n] += grow - shrink
            given, taken = given - grow, taken - shrink
        self.setSizes(sizes)
