"""One sign-in per server for this user: every app window follows it (in, out, another account)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from somnium_desktop.client.credentials import (
    KeyringVerdict,
    PlaintextFileStore,
    Stored,
    TokenStore,
)
from somnium_desktop.client.signin_changes import last_change
from somnium_desktop.ui.main_window import MainWindow
from tests.server.helpers import LiveServer

from .helpers import close_windows, open_window


class UserStore:
    """The sign-ins of one user of the computer, shared by their windows (as their keyring is;
    here the app's own file store, whose writes are atomic like a keyring's)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "credentials.json"

    def existing(self, key: str) -> TokenStore | None:
        return PlaintextFileStore(key, self.path)

    def for_new(self, key: str) -> TokenStore | KeyringVerdict:
        return PlaintextFileStore(key, self.path)

    def ask(self, key: str, why: KeyringVerdict, parent: QWidget) -> TokenStore | None:
        return PlaintextFileStore(key, self.path)


def account(window: MainWindow) -> str:
    return window.lobby_panel.account.text()


def test_windows_of_one_user_share_the_sign_in_of_a_server(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    shared = UserStore(tmp_path)
    ada = open_window(qtbot, tmp_path, "Ada", lobby.base, token_stores=shared)
    other = open_window(qtbot, tmp_path, "Bea", lobby.base, token_stores=shared)
    windows = [ada, other]
    try:
        qtbot.waitUntil(ada.lobby_panel.sign_in_button.isEnabled, timeout=5000)
        QTest.mouseClick(ada.lobby_panel.sign_in_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: account(ada) == "Signed in as Ada", timeout=15000)
        online = ada.online
        assert online is not None and online.account is not None
        stored = Stored.read(PlaintextFileStore(lobby.base, shared.path))
        assert stored is not None and stored.user_id == online.account.id  # whose it is
        # The other window follows by itself (it looks every few seconds).
        qtbot.waitUntil(lambda: account(other) == "Signed in as Ada", timeout=10000)
        # Signing out there signs out here: no window keeps a dead sign-in.
        QTest.mouseClick(other.lobby_panel.sign_out_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: account(other) == "Not signed in", timeout=5000)
        assert other.online is not None
        other.online.ops.wait_idle(10)
        online.check_sign_in()  # (as when the window is next activated)
        qtbot.waitUntil(lambda: account(ada) == "Not signed in", timeout=5000)
        assert online.client is not None and online.client.auth is None
        assert "another Somnium window" in ada.lobby_panel.message.text()
        # Signed in there as someone else: here too, as that account.
        QTest.mouseClick(other.lobby_panel.sign_in_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: account(other) == "Signed in as Bea", timeout=15000)
        other.online.ops.wait_idle(10)
        online.check_sign_in()
        qtbot.waitUntil(lambda: account(ada) == "Signed in as Bea", timeout=5000)
        # What this window does now is done as that account.
        assert online.client.auth is not None
        me = online.client.me()
        assert me.display_name == "Bea" and online.account is not None
        assert me.id == online.account.id
        # Out and in again as a third person in one go, between two looks of this window:
        # the account kept beside the token tells it apart from a mere refresh.
        online._check_timer.stop()
        cy = open_window(qtbot, tmp_path, "Cy", lobby.base, token_stores=shared)
        windows.append(cy)
        qtbot.waitUntil(lambda: account(cy) == "Signed in as Bea", timeout=10000)
        QTest.mouseClick(cy.lobby_panel.sign_out_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: account(cy) == "Not signed in", timeout=5000)
        assert cy.online is not None
        cy.online.ops.wait_idle(10)
        QTest.mouseClick(cy.lobby_panel.sign_in_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: account(cy) == "Signed in as Cy", timeout=15000)
        cy.online.ops.wait_idle(10)
        assert account(ada) == "Signed in as Bea"
        online.check_sign_in()
        qtbot.waitUntil(lambda: account(ada) == "Signed in as Cy", timeout=5000)
        assert online.client.me().display_name == "Cy"
    finally:
        close_windows(qtbot, *windows)
        for window in windows:
            window.browser.join()  # type: ignore[attr-defined]


def test_the_timer_looks_at_the_store_only_after_a_window_changed_it(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    """A look at a locked keyring asks the user to unlock it: the timer must not look at the
    store unless some window wrote or cleared a sign-in since its last look."""
    shared = UserStore(tmp_path)
    window = open_window(qtbot, tmp_path, "Ada", lobby.base, token_stores=shared)
    try:
        online = window.online
        assert online is not None
        online._check_timer.stop()
        looks: list[int] = []
        online.check_sign_in = lambda: looks.append(1)  # type: ignore[method-assign]
        online._check_if_changed()
        assert looks == []
        PlaintextFileStore(lobby.base, shared.path).save("a-token")  # another window signs in
        online._check_if_changed()
        assert looks == [1]
        online._check_if_changed()
        assert looks == [1]
        assert last_change() != ""
    finally:
        close_windows(qtbot, window)
