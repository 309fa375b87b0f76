"""The Settings dialog: reduced motion, animation speed, the odds offline, the lobby server."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QWidget,
)

from ..client.server_address import AddressError, checked_address
from .dialog_scale import in_window_text_size
from .settings import SPEEDS, Settings
from .style import repolish

SERVER_PLACEHOLDER = "Built-in server on this computer"
FIELD_PADDING = 28  # pixels beyond the placeholder's words: the field's frame and margins


class SettingsDialog(QDialog):
    """Edits the Settings in place when accepted. An address that cannot be used is refused
    with a sentence saying why (under the field), and nothing is stored."""

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
        self.practice_odds = QCheckBox("Show the &odds in offline games (bust, Death, Fools)")
        self.practice_odds.setAccessibleName("Show the odds in offline games")
        self.practice_odds.setChecked(settings.practice_odds)
        self.server = QLineEdit(settings.server_url)
        self.server.setPlaceholderText(SERVER_PLACEHOLDER)
        self.server.setAccessibleName("Lobby server address")
        self.server.setToolTip("Leave empty to play on this computer's built-in server, or give "
                               "a lobby server's address, e.g. https://somnium.example.org")
        self.server.textEdited.connect(lambda _text: self._say(""))
        self.problem = QLabel()
        self.problem.setObjectName("status")
        self.problem.setProperty("error", True)
        self.problem.setWordWrap(True)
        # (no accessible name: a screen reader then reads the problem, not what it is about)
        self.problem.setAccessibleDescription("Problem with the server address")
        self.problem.hide()
        form.addRow(self.reduced_motion)
        form.addRow("Animation &speed", self.speed)
        form.addRow(self.practice_odds)
        form.addRow("Lobby se&rver", self.server)
        form.addRow(self.problem)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.buttons = buttons
        in_window_text_size(self)
        # Wide enough for its placeholder in full, whatever the font (the window's size).
        self.server.ensurePolished()
        words = self.server.fontMetrics().horizontalAdvance(SERVER_PLACEHOLDER)
        self.server.setMinimumWidth(words + FIELD_PADDING)

    def _say(self, problem: str) -> None:
        self.problem.setText(problem)
        self.problem.setVisible(bool(problem))
        repolish(self.problem)
        if problem:
            from .accessibility import announce

            announce(self.server, problem, assertive=True)

    def accept(self) -> None:
        try:
            address = checked_address(self.server.text())
        except AddressError as problem:
            self._say(str(problem))
            self.server.setFocus()
            self.server.selectAll()
            return
        self.settings.reduced_motion = self.reduced_motion.isChecked()
        self.settings.animation_speed = float(self.speed.currentData())
        self.settings.practice_odds = self.practice_odds.isChecked()
        self.settings.server_url = address
        self.settings.sync()
        super().accept()
