"""A keyring that takes its time never stops the window: keyring reads and writes are slow work."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.backend
import keyring.errors
import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from somnium_desktop.client.credentials import SERVICE
from somnium_desktop.client.signin_changes import mark_changed
from somnium_desktop.ui.main_window import MainWindow
from tests.server.helpers import LiveServer

from .helpers import close_windows, open_window

HELD_AT_MOST = 3.0  # seconds a read waits if the test never lets it go (the old, blocking app)


class SlowKeyring(keyring.backend.KeyringBackend):
    """A secure keyring (priority >= 1) whose reads wait until the test lets them go, as a
    locked keyring does while it asks its user to unlock it. (Its test selects it with
    keyring.set_keyring; `reading` is set whenever something waits on it.)"""

    priority = 5

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.passwords: dict[tuple[str, str], str] = {}
        self.reading = threading.Event()  # a read is waiting now
        self.go = threading.Event()
        self.reads = 0

    def get_password(self, service: str, username: str) -> str | None:
        self.reads += 1
        self.reading.set()
        self.go.wait(HELD_AT_MOST)
        return self.passwords.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.passwords[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.passwords.pop((service, username), None) is None:
            raise keyring.errors.PasswordDeleteError(username)


class SlowlyJudgedKeyring(SlowKeyring):
    """A secure keyring that takes its time even to say how secure it is (its priority), as a
    Secret Service does while D-Bus starts it: what asks must not be the UI thread."""

    @property
    def priority(self) -> int:  # type: ignore[override]  # (the class' own stays readable)
        self.reading.set()
        self.go.wait(HELD_AT_MOST)
        return 5


def _selected(backend: SlowKeyring) -> Iterator[SlowKeyring]:
    before = keyring.get_keyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        backend.go.set()
        keyring.set_keyring(before)


@pytest.fixture
def slow_keyring() -> Iterator[SlowKeyring]:
    yield from _selected(SlowKeyring())


@pytest.fixture
def slowly_judged_keyring() -> Iterator[SlowKeyring]:
    yield from _selected(SlowlyJudgedKeyring())


class Ticks:
    """A timer that should fire every 20 ms: the longest gap between two ticks says how long
    the UI thread was kept from its events."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.timer = QTimer()
        self.timer.setInterval(20)
        self.timer.timeout.connect(lambda: self.times.append(time.monotonic()))

    def longest_gap(self) -> float:
        return max(b - a for a, b in zip(self.times, self.times[1:], strict=False))


@contextlib.contextmanager
def watched_window(
    qtbot: QtBot, folder: Path, base: str, slow: SlowKeyring
) -> Iterator[tuple[MainWindow, Ticks]]:
    """A window on the app's own token stores (so on the slow keyring), timed by Ticks."""
    ticks = Ticks()
    ticks.timer.start()
    window = open_window(qtbot, folder, "Ada", base, token_stores=None)
    try:
        yield window, ticks
    finally:
        ticks.timer.stop()
        slow.go.set()
        close_windows(qtbot, window)
        window.browser.join()  # type: ignore[attr-defined]


def let_go_then_signed_in(qtbot: QtBot, window: MainWindow, slow: SlowKeyring, base: str,
                          ticks: Ticks) -> None:
    """Once the keyring answers, the sign-in goes on: browser, tokens written, /me."""
    slow.go.set()
    qtbot.waitUntil(lambda: window.lobby_panel.account.text() == "Signed in as Ada",
                    timeout=15000)
    assert (SERVICE, base) in slow.passwords  # written off the UI thread
    assert ticks.longest_gap() < 0.5 * HELD_AT_MOST


def test_the_window_answers_while_the_keyring_is_slow(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer, slow_keyring: SlowKeyring
) -> None:
    # A sign-in was kept on this computer before (the marker keeping one leaves): else the app
    # has none to look up and never reads the keyring at start (the marker is the user's, so
    # on a fresh machine it is there only if an earlier test signed in).
    mark_changed()
    with watched_window(qtbot, tmp_path, lobby.base, slow_keyring) as (window, ticks):
        online = window.online
        assert online is not None
        panel = window.lobby_panel
        # At start-up the kept sign-in is read: the read waits, the lobby comes all the same.
        qtbot.waitUntil(slow_keyring.reading.is_set, timeout=10000)
        qtbot.waitUntil(panel.sign_in_button.isEnabled, timeout=10000)
        assert not slow_keyring.go.is_set()
        # Sign in while the keyring still keeps everyone waiting: it is read again, off the
        # UI thread; the window goes on answering meanwhile.
        slow_keyring.reading.clear()
        QTest.mouseClick(panel.sign_in_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(slow_keyring.reading.is_set, timeout=5000)
        QTest.keyClicks(panel.name_field, "Quick")
        assert panel.name_field.text() == "Quick"
        qtbot.wait(300)
        assert ticks.longest_gap() < 0.5 * HELD_AT_MOST
        let_go_then_signed_in(qtbot, window, slow_keyring, lobby.base, ticks)


def test_the_window_answers_while_the_keyring_says_whether_it_is_secure(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer, slowly_judged_keyring: SlowKeyring,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    slow = slowly_judged_keyring
    # A computer where no sign-in was ever kept (no marker in this cache): starting looks at
    # no keyring; the first sign-in judges it, which is what may wait (D-Bus).
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with watched_window(qtbot, tmp_path, lobby.base, slow) as (window, ticks):
        panel = window.lobby_panel
        qtbot.waitUntil(panel.sign_in_button.isEnabled, timeout=10000)
        assert not slow.reading.is_set()
        QTest.mouseClick(panel.sign_in_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(slow.reading.is_set, timeout=5000)  # judged on a worker: waits
        QTest.keyClicks(panel.name_field, "Quick")
        assert panel.name_field.text() == "Quick"
        qtbot.wait(300)
        assert window.online is not None and window.online.signin_dialog is None
        assert ticks.longest_gap() < 0.5 * HELD_AT_MOST
        # Judged secure: the sign-in dialog opens with the keyring as its store, and on.
        let_go_then_signed_in(qtbot, window, slow, lobby.base, ticks)
