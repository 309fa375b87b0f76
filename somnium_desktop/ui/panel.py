"""The right-hand panel: where the lobby will go; for now, offline play against the computer."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..game.bots import Level


class SidePanel(QFrame):
    """Offers "Play offline against the computer" with a level picker, and holds the game log."""

    play_requested = Signal(str)  # a level key

    def __init__(self, levels: Sequence[Level], level: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sidePanel")
        self.setMinimumWidth(240)
        self.levels = list(levels)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 14, 14, 14)
        layout.setSpacing(8)

        title = QLabel("Play offline against the computer")
        title.setObjectName("panelTitle")
        title.setWordWrap(True)
        self.level = QComboBox()
        self.level.setAccessibleName("Computer level")
        for entry in self.levels:
            self.level.addItem(entry.label, entry.key)
        index = self.level.findData(level)
        self.level.setCurrentIndex(max(0, index))
        label = QLabel("&Level")
        label.setObjectName("panelHint")
        label.setBuddy(self.level)
        self.play = QPushButton("&Play")
        self.play.setObjectName("primaryButton")
        self.play.setAccessibleName("Play offline against the computer")
        self.play.setEnabled(bool(self.levels))
        self.play.clicked.connect(self._play)
        if not self.levels:
            self.level.addItem("No computer players installed")
            self.level.setEnabled(False)

        level_row = QHBoxLayout()  # (one line: the column's room goes to the log and chat)
        level_row.addWidget(label)
        level_row.addWidget(self.level, 1)
        level_row.addWidget(self.play)
        layout.addWidget(title)
        layout.addLayout(level_row)
        layout.addSpacing(12)
        self.log_title = QLabel("Game log")
        self.log_title.setObjectName("panelTitle")
        layout.addWidget(self.log_title)
        self._layout = layout

    def add_log(self, log: QWidget) -> None:
        # Three lines at the least: on a short window the list of games needs the room more
        # (the log scrolls, and the lines are read out as they come).
        log.setMinimumHeight(3 * log.fontMetrics().lineSpacing() + 12)
        self._layout.addWidget(log, 1)
        self.log_title.setBuddy(log)

    def add_chat(self, chat: QWidget) -> None:
        """The online table's chat, under the log (it hides itself for offline games)."""
        self._layout.addWidget(chat, 1)

    def level_key(self) -> str | None:
        data = self.level.currentData()
        return str(data) if data is not None else None

    def level_label(self, key: str) -> str:
        return next((entry.label for entry in self.levels if entry.key == key), key)

    def _play(self) -> None:
        key = self.level_key()
        if key is not None:
            self.play_requested.emit(key)

    def focus_level(self) -> None:
        self.level.setFocus(Qt.FocusReason.ShortcutFocusReason)
