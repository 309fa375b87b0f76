"""Run something once a widget has first been painted (work that must not delay start-up)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget


class _FirstPaint(QObject):
    def __init__(self, widget: QWidget, callback: Callable[[], object]) -> None:
        super().__init__(widget)
        self.callback = callback
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            watched.removeEventFilter(self)
            QTimer.singleShot(0, self.callback)  # after this paint has been flushed
            self.deleteLater()
        return False


def after_first_paint(widget: QWidget, callback: Callable[[], object]) -> None:
    """Call `callback` on the UI thread right after `widget`'s first paint."""
    _FirstPaint(widget, callback)
