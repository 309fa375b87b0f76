"""The dialog that shows an unhandled exception's details, ready to copy."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from .dialog_scale import in_window_text_size


class ErrorDialog(QDialog):
    """Says something went wrong, with the details to copy into a bug report."""

    def __init__(self, details: str, log_path: Path | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Somnium hit a problem")
        self.setAccessibleName("Error details")
        layout = QVBoxLayout(self)
        where = f" They are also in the log, {log_path}." if log_path else ""
        message = QLabel(
            "Something went wrong inside Somnium. Your game may go on, but if it misbehaves, "
            f"restart the app. Please copy the details below into a bug report.{where}"
        )
        message.setWordWrap(True)
        self.details = QPlainTextEdit(details)
        self.details.setReadOnly(True)
        self.details.setAccessibleName("Error details")
        self.details.setMinimumSize(560, 220)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.copy = QPushButton("&Copy details")
        buttons.addButton(self.copy, QDialogButtonBox.ButtonRole.ActionRole)
        self.copy.clicked.connect(self.copy_details)
        buttons.rejected.connect(self.reject)
        layout.addWidget(message)
        layout.addWidget(self.details)
        layout.addWidget(buttons)
        in_window_text_size(self)

    def copy_details(self) -> None:
        QGuiApplication.clipboard().setText(self.details.toPlainText())
