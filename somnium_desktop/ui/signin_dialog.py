"""The sign-in dialog (URL with Copy, Cancel, time left) and the no-secure-keyring question.

A thin shell over client.signin.SigninFlow: the flow waits for the browser through an
Operations runner, which brings its outcome back to the UI thread.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from keyring.backend import KeyringBackend
from PySide6.QtCore import Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QGuiApplication, QShowEvent
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..client.credentials import (
    PLAINTEXT_WARNING,
    KeyringVerdict,
    NeedsChoice,
    Persistence,
    TokenStore,
    chosen_store,
    store_for,
)
from ..client.outside import open_outside, running_bundle
from ..client.signin import SIGNIN_TIMEOUT, SigninError, SigninFlow, TokenSet
from ..client.tasks import Operations
from .dialog_scale import in_window_text_size


def open_with_qt(url: str) -> bool:
    return QDesktopServices.openUrl(QUrl(url))


def open_in_system_browser(url: str) -> bool:
    """The sign-in page in the system browser: Qt's way, but from the bundle the player's own
    environment for it (client/outside.py; Qt's opener passes on the bundle's)."""
    return open_outside(url, running_bundle(), open_with_qt)


class SigninDialog(QDialog):
    """Waits for a sign-in in the system browser; `tokens` is set when it is accepted."""

    signed_in = Signal(object)  # TokenSet

    def __init__(
        self,
        server_url: str,
        parent: QWidget | None = None,
        *,
        open_browser: Callable[[str], object] = open_in_system_browser,
        timeout: float = SIGNIN_TIMEOUT,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Sign in to Somnium")
        self.tokens: TokenSet | None = None
        self.error: str | None = None
        self._cancelled = False
        self._open_browser = open_browser
        # The browser is opened here, on the UI thread; the flow itself only waits.
        self.flow = SigninFlow(server_url, open_browser=lambda url: None, timeout=timeout)
        self._ops = Operations(self)
        self._started = False
        self._waiting = False  # the flow waits for the browser (on a worker)
        self._disposed = False

        self.status = QLabel(
            "Your browser has opened the sign-in page. If it did not, copy this address into it:"
        )
        self.status.setWordWrap(True)
        self.url_field = QLineEdit()
        self.url_field.setReadOnly(True)
        self.url_field.setAccessibleName("Sign-in address")
        self.copy_button = QPushButton("&Copy")
        self.copy_button.clicked.connect(self.copy_url)
        self.time_left = QLabel()
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.reject)

        row = QHBoxLayout()
        row.addWidget(self.url_field, 1)
        row.addWidget(self.copy_button)
        buttons = QHBoxLayout()
        buttons.addWidget(self.time_left, 1)
        buttons.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addLayout(row)
        layout.addLayout(buttons)
        in_window_text_size(self)

        self._ticker = QTimer(self)
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self._tick)

    @property
    def url(self) -> str:
        return self.url_field.text()

    def start(self) -> None:
        """Listen, show the address, open the browser and wait on a worker thread."""
        if self._started:
            return
        self._started = self._waiting = True
        url = self.flow.start()
        self.url_field.setText(url)
        self.url_field.setCursorPosition(0)
        self._tick()
        self._ticker.start()
        self._ops.run(self.flow.run, self._finished,
                      lambda error: self._finished(str(error) or type(error).__name__),
                      quiet=True, on_done=self._flow_done, expected=(SigninError,))
        self._open_browser(url)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.start()

    def _flow_done(self) -> None:
        self._waiting = False
        if self._disposed:
            self.deleteLater()

    def copy_url(self) -> None:
        QGuiApplication.clipboard().setText(self.url)
        self.copy_button.setText("Copied")

    def _tick(self) -> None:
        left = max(0, int(self.flow.deadline - time.monotonic()))
        self.time_left.setText(f"Waiting for the browser: {left // 60}:{left % 60:02d} left")

    def _finished(self, outcome: TokenSet | str) -> None:
        self._ticker.stop()
        if isinstance(outcome, TokenSet):
            self.tokens = outcome
            self.signed_in.emit(outcome)
            # Back to the front: the browser had the focus.
            parent = self.parentWidget()
            front = parent.window() if parent is not None else self
            front.raise_()
            front.activateWindow()
            self.accept()
        elif not self._cancelled:
            self.error = outcome
            self.status.setText(f"Sign-in failed: {outcome}")
            self.time_left.clear()
            self.cancel_button.setText("Close")
            self.raise_()
            self.activateWindow()

    def reject(self) -> None:
        """Cancel: the flow stops and its listener closes (on the worker, without blocking)."""
        self._cancelled = True
        self._ticker.stop()
        self.flow.cancel()
        if not self._started:
            self.flow.close()
        super().reject()

    def dispose(self) -> None:
        """Delete this dialog once its flow is done (at once if it is), without waiting."""
        self._disposed = True
        if not self._waiting:
            self.deleteLater()

    def wait_finished(self, timeout: float = 5.0) -> bool:
        """For a caller that must know the flow is done (tests, quitting); blocks."""
        return self._ops.wait_idle(timeout)


class PersistenceDialog(QMessageBox):
    """No secure keyring: say why, and let the player choose this session only or a file."""

    def __init__(self, verdict: KeyringVerdict, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setIcon(QMessageBox.Icon.Warning)
        self.setWindowTitle("Where to keep your sign-in")
        self.setText(verdict.reason)
        self.setInformativeText(
            "Stay signed in for this session only (you sign in again next time), or keep the "
            f"sign-in in a file. {PLAINTEXT_WARNING}"
        )
        self.session_button = self.addButton("This session only",
                                             QMessageBox.ButtonRole.AcceptRole)
        self.file_button = self.addButton("Keep it in a plain file",
                                          QMessageBox.ButtonRole.DestructiveRole)
        self.addButton(QMessageBox.StandardButton.Cancel)
        self.setDefaultButton(self.session_button)
        self.setTextFormat(Qt.TextFormat.PlainText)
        in_window_text_size(self)

    def choice(self) -> Persistence | None:
        clicked = self.clickedButton()
        if clicked is self.session_button:
            return Persistence.SESSION_ONLY
        if clicked is self.file_button:
            return Persistence.PLAINTEXT_FILE
        return None


def ask_for_store(
    server_url: str,
    parent: QWidget | None = None,
    backend: KeyringBackend | None = None,
    plaintext_path: Path | None = None,
) -> TokenStore | None:
    """The refresh-token store: the keyring if secure, else the player's choice (None: cancel).
    Judges the keyring here: where that may block, judge it on a worker and `ask_choice`."""
    try:
        return store_for(server_url, backend)
    except NeedsChoice as needs:
        return ask_choice(server_url, needs.verdict, parent, plaintext_path)


def ask_choice(
    server_url: str,
    verdict: KeyringVerdict,
    parent: QWidget | None = None,
    plaintext_path: Path | None = None,
) -> TokenStore | None:
    """No secure keyring (`verdict` says why): the player's choice (None: cancel). Touches no
    keyring."""
    dialog = PersistenceDialog(verdict, parent)
    dialog.exec()
    choice = dialog.choice()
    if choice is None:
        return None
    return chosen_store(server_url, choice, plaintext_path)
