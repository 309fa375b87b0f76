"""Screen-reader announcements (QAccessibleAnnouncementEvent, Qt 6.8 and later)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (Qt's accessibility types load at the first announcement, not at start)
    from PySide6.QtWidgets import QWidget


def announce(widget: QWidget, text: str, assertive: bool = False) -> None:
    """Ask assistive technologies to read `text` out, on behalf of `widget`."""
    from PySide6.QtGui import QAccessible, QAccessibleAnnouncementEvent

    event = QAccessibleAnnouncementEvent(widget, text)
    if assertive:
        event.setPoliteness(QAccessible.AnnouncementPoliteness.Assertive)
    QAccessible.updateAccessibility(event)
