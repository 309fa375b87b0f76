"""A word-wrapped label that keeps the height its lines need at its width."""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QWidget


class WrappedLabel(QLabel):
    """A word-wrapped QLabel whose least height follows its text at its width.

    Qt's layouts take a wrapped label's least height as one line; in a row beside a button
    (the coach's answer) a longer text on a narrow table then took its lines from the
    widgets above it, and the player's strip was drawn over the cards. Its least height now
    grows with its lines (at its width and font), and the window's with it.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)

    def show_text(self, text: str) -> None:
        self.setText(text)
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def changeEvent(self, event: QEvent) -> None:
        """A new font (the table's text grows on a large window): new lines, new height."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit()

    def _fit(self) -> None:
        needed = self.heightForWidth(self.width()) if self.text() else 0
        if needed != self.minimumHeight():
            self.setMinimumHeight(max(0, needed))
