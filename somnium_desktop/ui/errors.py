"""Logging to the platform's log folder, and a hook that shows unhandled exceptions."""

from __future__ import annotations

import logging
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QApplication

from .settings import APPLICATION, ORGANIZATION

if TYPE_CHECKING:
    from logging.handlers import RotatingFileHandler

    from PySide6.QtWidgets import QWidget

    from .error_dialog import ErrorDialog

log = logging.getLogger("somnium_desktop")
LOG_FILE = "somnium.log"
LOG_FOLDER_MODE = 0o700  # the log names games and servers: for this user's eyes only


def log_dir() -> Path:
    """Where the app writes its log (e.g. ~/.local/state/Somnium Desktop/log on Linux)."""
    import platformdirs  # (lazy, like the other imports below: start-up stays lean)

    return Path(platformdirs.user_log_dir(APPLICATION, ORGANIZATION))


def setup_logging(folder: Path | None = None) -> RotatingFileHandler | None:
    """Log to a rotating file in `folder` (the platform's log folder by default; made 0700,
    so whatever the umask gave the files in it, others cannot read them). None when
    that folder cannot be written (read-only, say): the app goes on without a log file, and
    says so once on stderr."""
    from logging.handlers import RotatingFileHandler

    folder = log_dir() if folder is None else folder
    try:
        folder.mkdir(mode=LOG_FOLDER_MODE, parents=True, exist_ok=True)
        folder.chmod(LOG_FOLDER_MODE)  # one an older release made 0755 too
        handler = RotatingFileHandler(folder / LOG_FILE, maxBytes=1_000_000, backupCount=3,
                                      encoding="utf-8")
    except OSError as error:
        print(f"Somnium: no log file, {folder} cannot be written: {error.strerror or error}.",
              file=sys.stderr)
        return None
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    return handler


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
        from .error_dialog import ErrorDialog

        dialog = ErrorDialog(details, self.log_path, owner(QApplication.activeWindow()))
        dialog.finished.connect(lambda _result: self._forget(dialog))
        self.dialogs.append(dialog)
        dialog.show()

    def _forget(self, dialog: ErrorDialog) -> None:
        if dialog in self.dialogs:
            self.dialogs.remove(dialog)
        dialog.deleteLater()


def owner(active: QWidget | None) -> QWidget | None:
    """The window an error dialog belongs to: the main window under the active one, never a
    passing dialog (the concede question, settings), which would take the error with it when
    it closes; None when there is no main window under it."""
    from PySide6.QtWidgets import QMainWindow  # (only once an error is shown)

    while active is not None:
        parent = active.parentWidget()
        if parent is None:
            break
        active = parent.window()
    return active if isinstance(active, QMainWindow) else None
