"""Desktop notifications while the window is in the background (your turn, your opponent came)."""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QSystemTrayIcon, QWidget

from ..card_ids import icon_svg_path

SHOWN_MS = 8000


class Notifier(QObject):
    """Tells the player about something while they look elsewhere.

    Through the system tray's message where the platform has one; otherwise the window asks
    for attention (a flashing taskbar entry, a bouncing dock icon). Nothing is shown while the
    window is the active one: the table and the lobby already say it. `sent` keeps what was
    shown and how ("tray" or "alert").
    """

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.window = window
        self.sent: list[tuple[str, str, str]] = []
        self._tray: QSystemTrayIcon | None = None
        self._hide = QTimer(self)
        self._hide.setSingleShot(True)
        self._hide.timeout.connect(self._hide_tray)

    def notify(self, title: str, text: str) -> bool:
        """Show `text` if the window is in the background; True if something was shown."""
        if self.window.isActiveWindow():
            return False
        if QSystemTrayIcon.isSystemTrayAvailable() and QSystemTrayIcon.supportsMessages():
            if self._tray is None:
                icon = self.window.windowIcon()
                if icon.isNull():
                    icon = QIcon(str(icon_svg_path()))
                self._tray = QSystemTrayIcon(icon, self)
                self._tray.setToolTip("Somnium")
            self._tray.show()
            self._tray.showMessage(f"Somnium: {title}", text,
                                   QSystemTrayIcon.MessageIcon.Information, SHOWN_MS)
            self._hide.start(SHOWN_MS + 1000)
            how = "tray"
        else:
            QApplication.alert(self.window, 0)
            how = "alert"
        self.sent.append((title, text, how))
        return True

    def _hide_tray(self) -> None:
        if self._tray is not None:
            self._tray.hide()
