"""The Settings dialog: reduced motion, animation speed and the lobby server."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLineEdit,
    QWidget,
)

from .settings import SPEEDS, Settings


class SettingsDialog(QDialog):
    """Edits the Settings in place when accepted."""

    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.settings = settings
        form = QFormLayout(self)
        self.reduced_motion = QCheckBox("Reduced motion: cards jump to their places")
        self.reduced_motion.setAccessibleName("Reduced motion")
        self.reduced_motion.setChecked(settings.reduced_motion)
        self.speed = QComboBox()
        self.speed.setAccessibleName("Animation speed")
        for label, factor in SPEEDS:
            self.speed.addItem(label, factor)
        speed = settings.animation_speed
        current = min(range(len(SPEEDS)), key=lambda i: abs(SPEEDS[i][1] - speed))
        self.speed.setCurrentIndex(current)
        self.server = QLineEdit(settings.server_url)
        self.server.setPlaceholderText("Built-in server on this computer")
        self.server.setAccessibleName("Lobby server address")
        self.server.setToolTip("Leave empty to play on this computer's built-in server, or give "
                               "a lobby server's address, e.g. https://somnium.example.org")
        form.addRow(self.reduced_motion)
        form.addRow("Animation &speed", self.speed)
        form.addRow("Lobby se&rver", self.server)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.buttons = buttons

    def accept(self) -> None:
        self.settings.reduced_motion = self.reduced_motion.isChecked()
        self.settings.animation_speed = float(self.speed.currentData())
        self.settings.server_url = self.server.text()
        self.settings.sync()
        super().accept()
