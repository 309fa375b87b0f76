"""A sign-in cleared while its /me was on its way leaves the panel signed out, not "Signed in"."""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from somnium_desktop.client.credentials import KeyringVerdict, MemoryStore, TokenStore
from somnium_desktop.client.lifecycles import Connection, SignIn
from tests.server.helpers import LiveServer

from .helpers import close_windows, open_window


class HeldStore(MemoryStore):
    """A sign-in store whose first read after a write waits until the test lets it go: the
    read that notes whose sign-in it is, just after /me answered."""

    def __init__(self) -> None:
        super().__init__()
        self.armed = False
        self.holding = threading.Event()
        self.go = threading.Event()

    def save(self, token: str) -> None:
        super().save(token)
        self.armed = True

    def load(self) -> str | None:
        if self.armed:
            self.armed = False
            self.holding.set()
            self.go.wait(10)
        return super().load()


class HeldStores:
    def __init__(self) -> None:
        self.store = HeldStore()

    def existing(self, key: str) -> TokenStore | None:
        return self.store if self.store.load() is not None else None

    def for_new(self, key: str) -> TokenStore | KeyringVerdict:
        return self.store

    def ask(self, key: str, why: KeyringVerdict, parent: QWidget) -> TokenStore | None:
        return self.store


def test_an_answer_for_a_sign_in_cleared_meanwhile_does_not_sign_in(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    stores = HeldStores()
    window = open_window(qtbot, tmp_path, "Ada", lobby.base, token_stores=stores)
    try:
        online = window.online
        assert online is not None
        online._check_timer.stop()  # (this test says when the shared sign-in is looked at)
        window.removeEventFilter(online)
        panel = window.lobby_panel
        qtbot.waitUntil(panel.sign_in_button.isEnabled, timeout=5000)
        assert online.connection.state is Connection.ONLINE
        qtbot.waitUntil(lambda: online.signing.state is SignIn.SIGNED_OUT,  # nothing kept
                        timeout=5000)
        QTest.mouseClick(panel.sign_in_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(stores.store.holding.is_set, timeout=15000)  # /me answered: whose
        # sign-in it is is being noted
        stores.store.clear()  # meanwhile another window signs out of the shared sign-in
        online.check_sign_in()  # (as when this window is next activated)
        client = online.client
        assert client is not None
        qtbot.waitUntil(lambda: client.auth is None, timeout=5000)
        assert "another Somnium window" in panel.message.text()
        assert online.signing.state is SignIn.SIGNED_OUT
        stores.store.go.set()  # now the late answer comes
        assert online.ops.wait_idle(10)
        qtbot.wait(200)  # (its answer delivered on the UI thread)
        assert panel.account.text() == "Not signed in"
        assert online.account is None
        assert online.signing.state is SignIn.SIGNED_OUT
        assert panel.sign_in_button.isVisible() or panel.sign_in_button.isEnabled()
    finally:
        stores.store.go.set()
        close_windows(qtbot, window)
        window.browser.join()  # type: ignore[attr-defined]
