"""Dialogs open in the text size of the window they are opened from (its table's scale)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from .table_scale import words_sheet


def window_text_scale(widget: QWidget | None) -> float:
    """The text scale of the table in `widget`'s window (1 where there is none)."""
    if widget is None:
        return 1.0
    from .table_frame import TableFrame  # (here: the table's own modules open dialogs)

    table = widget.window().findChild(TableFrame)
    return table.text_scale if table is not None else 1.0


def in_window_text_size(dialog: QWidget) -> None:
    """`dialog` in the text size its parent's window has as it opens: its words grow by the
    table's scale, and so does the size it was given, if any (else its layout's)."""
    scale = window_text_scale(dialog.parentWidget())
    if scale <= 1:
        return
    dialog.setStyleSheet(words_sheet(scale))
    if dialog.testAttribute(Qt.WidgetAttribute.WA_Resized):
        size = dialog.size()
        dialog.resize(round(size.width() * scale), round(size.height() * scale))
