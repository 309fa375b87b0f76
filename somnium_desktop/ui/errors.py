"""Logging to the platform's log folder, and a dialog for unhandled exceptions."""

from __future__ import annotations

import logging
import sys
import traceback
from collections.abc import Callable
from logging.handlers import RotatingFileHandler
from pathlib import Path
from types import TracebackType

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from .settings import APPLICATION, ORGANIZATION

log = logging.getLogger("somnium_desktop")
LOG_FILE = "somnium.log"


def log_dir() -> Path:
    """Where the app writes its log (e.g. ~/.local/state/Somnium Desktop/log on Linux)."""
    import platformdirs

    return Path(platformdirs.user_log_dir(APPLICATION, ORGANIZATION))


def setup_logging(folder: Path | None = None) -> RotatingFileHandler:
    """Log to a rotating file in `folder` (the platform's log folder by default)."""
    folder = log_dir() if folder is None else folder
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOG_FILE
    handler = RotatingFileHandler(path, maxBytes=1_000_000, backupCount=3, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    return handler


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

    def copy_details(self) -> None:
        QGuiApplication.clipboard().setText(self.details.toPlainText())


class ExceptionHandler:
    """sys.excepthook: logs the exception and shows it in an ErrorDialog instead of vanishing."""

    def __init__(self, log_path: Path | None = None) -> None:
        self.log_path = log_path
        self.dialogs: list[ErrorDialog] = []
        self._previous: Callable[..., object] | None = None

    def install(self) -> None:
        self._previous = sys.excepthook
        sys.excepthook = self

    def uninstall(self) -> None:
        if sys.excepthook is self and self._previous is not None:
            sys.excepthook = self._previous

    def __call__(
        self,
        kind: type[BaseException],
        value: BaseException,
        tb: TracebackType | None,
    ) -> None:
        details = "".join(traceback.format_exception(kind, value, tb))
        log.error("Unhandled exception:\n%s", details)
        if isinstance(value, KeyboardInterrupt):
            QApplication.quit()
            return
        if QApplication.instance() is None:
            sys.__excepthook__(kind, value, tb)
            return
        dialog = ErrorDialog(details, self.log_path, QApplication.activeWindow())
        dialog.finished.connect(lambda _result: self._forget(dialog))
        self.dialogs.append(dialog)
        dialog.show()

    def _forget(self, dialog: ErrorDialog) -> None:
        if dialog in self.dialogs:
            self.dialogs.remove(dialog)
        dialog.deleteLater()
