"""Keeps the table's one-key shortcuts (D, E, R, 1-0, arrows, Enter) out of the way of typing."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractItemView, QAbstractSpinBox, QComboBox, QLineEdit, QWidget

TYPING = (QLineEdit, QComboBox, QAbstractItemView, QAbstractSpinBox)
COMMAND = (
    Qt.KeyboardModifier.ControlModifier
    | Qt.KeyboardModifier.AltModifier
    | Qt.KeyboardModifier.MetaModifier
)


class TypingGuard(QObject):
    """An event filter for the window's fields, pickers and lists: a key pressed there without
    Ctrl, Alt or Meta goes to the widget (type a name, pick "Expert" by its E, press Enter in
    the name field), not to a table shortcut that happens to use the same key."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and not event.modifiers() & COMMAND
            and (typed(event.key()) or (event.text().isprintable() and event.text() != ""))
        ):
            event.accept()  # the widget takes the key as a key press
            return True
        return False


def typed(key: int) -> bool:
    """A key that types or moves in a field, picker or list (F1, Esc and the like are not);
    any other key that types a character counts too (a Cyrillic or an AZERTY keyboard's, which
    Qt's shortcuts would still read as D, E or 1)."""
    return (
        Qt.Key.Key_A <= key <= Qt.Key.Key_Z
        or Qt.Key.Key_0 <= key <= Qt.Key.Key_9
        or key in MOVES
    )


MOVES = {Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_Return,
         Qt.Key.Key_Enter, Qt.Key.Key_Space}


def guard_typing(root: QWidget, guard: TypingGuard) -> int:
    """Install `guard` on every field, picker and list under `root`; returns how many."""
    count = 0
    for widget in root.findChildren(QWidget):
        if isinstance(widget, TYPING):
            widget.installEventFilter(guard)
            count += 1
    return count
