"""The Qt sign-in dialog offscreen: Copy, Cancel, the time left, success and failure."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QMainWindow, QMessageBox
from pytestqt.qtbot import QtBot

from somnium_desktop.client.credentials import KeyringVerdict, Persistence
from somnium_desktop.client.signin import TokenSet
from somnium_desktop.ui.signin_dialog import PersistenceDialog, SigninDialog, ask_for_store

from .helpers import LiveLobby, Person, fail_keyring, query_of


def is_listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0


class Opened:
    def __init__(self) -> None:
        self.urls: list[str] = []

    def __call__(self, url: str) -> bool:
        self.urls.append(url)
        return True


def test_copy_puts_the_address_on_the_clipboard(qtbot: QtBot) -> None:
    opened = Opened()
    dialog = SigninDialog("http://127.0.0.1:9", open_browser=opened, timeout=300)
    qtbot.addWidget(dialog)
    dialog.show()
    assert opened.urls == [dialog.url]
    assert dialog.url.startswith("http://127.0.0.1:9/auth/authorize?")
    assert "4:5" in dialog.time_left.text()  # About five minutes left.
    QGuiApplication.clipboard().clear()
    dialog.copy_button.click()
    assert QGuiApplication.clipboard().text() == dialog.url
    dialog.reject()
    assert dialog.wait_finished()


def test_cancel_ends_the_flow_and_closes_the_listener(qtbot: QtBot) -> None:
    dialog = SigninDialog("http://127.0.0.1:9", open_browser=Opened(), timeout=300)
    qtbot.addWidget(dialog)
    dialog.show()
    listener = dialog.flow.listener
    assert listener is not None and is_listening(listener.port)
    dialog.cancel_button.click()
    assert dialog.result() == 0 and not dialog.isVisible()
    assert dialog.wait_finished()
    assert not is_listening(listener.port)
    assert dialog.tokens is None


def test_a_timeout_shows_the_failure(qtbot: QtBot) -> None:
    dialog = SigninDialog("http://127.0.0.1:9", open_browser=Opened(), timeout=0.3)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: dialog.error is not None, timeout=5000)
    assert "Sign-in failed" in dialog.status.text()
    assert dialog.cancel_button.text() == "Close"
    assert dialog.isVisible()
    dialog.reject()


def test_a_sign_in_through_the_dialog_brings_the_window_back(
    qtbot: QtBot, lobby: LiveLobby
) -> None:
    window = QMainWindow()
    qtbot.addWidget(window)
    window.show()
    person = Person("frank")
    dialog = SigninDialog(lobby.base, window, open_browser=person, timeout=30)
    with qtbot.waitSignal(dialog.signed_in, timeout=15000) as signal:
        dialog.show()
    person.join()
    tokens = signal.args[0]
    assert isinstance(tokens, TokenSet) and dialog.tokens == tokens
    assert dialog.result() == 1
    assert query_of(dialog.url)["client_id"] == "somnium-desktop"
    assert person.final is not None and "Signed in" in person.final.text
    assert dialog.wait_finished()


@pytest.mark.parametrize(
    ("button", "expected"),
    [("session_button", Persistence.SESSION_ONLY), ("file_button", Persistence.PLAINTEXT_FILE)],
)
def test_no_secure_keyring_asks_and_warns(
    qtbot: QtBot, button: str, expected: Persistence
) -> None:
    box = PersistenceDialog(KeyringVerdict(False, "No system keyring is available."))
    qtbot.addWidget(box)
    assert box.text() == "No system keyring is available."
    assert "unencrypted" in box.informativeText()
    assert box.defaultButton() is box.session_button
    assert box.choice() is None
    getattr(box, button).click()
    assert box.choice() is expected
    assert isinstance(box, QMessageBox)


@pytest.mark.parametrize("answer", ["session_button", "file_button", "cancel"])
def test_ask_for_store_writes_nothing_unless_the_player_opts_in(
    qtbot: QtBot, tmp_path: Path, answer: str
) -> None:
    def click() -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, PersistenceDialog)
        if answer == "cancel":
            box.reject()
        else:
            getattr(box, answer).click()

    QTimer.singleShot(0, click)
    path = tmp_path / "credentials.json"
    store = ask_for_store("http://127.0.0.1:8000", backend=fail_keyring(), plaintext_path=path)
    if answer == "cancel":
        assert store is None
        return
    assert store is not None
    store.save("refresh-token")
    assert path.exists() == (answer == "file_button")
    assert store.load() == "refresh-token"
