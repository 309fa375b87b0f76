"""Renewing the sign-in while playing: a keyring that fails, a token endpoint that fails for a
moment, a slow one. The player is told, can play on, and the window never waits on it."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.backend
import keyring.errors
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from somnium_desktop.client.auth_session import AuthSession
from somnium_desktop.client.credentials import KeyringStore, Stored
from somnium_desktop.client.lifecycles import SignIn
from somnium_desktop.client.lobby_client import LobbyClient
from somnium_desktop.client.online import OnlineGame
from somnium_desktop.client.signin import SigninFlow
from somnium_desktop.client.tasks import Operations
from somnium_desktop.game import Draw
from tests.server.helpers import LiveServer
from tests.signin.helpers import Person, local_client

from .helpers import close_windows, open_window
from .proxy import TokenGateway

LOCKED = keyring.errors.KeyringLocked("Failed to unlock the collection!")
BROKEN = RuntimeError("the keyring's connection was closed")  # no keyring error: unforeseen


class LockableKeyring(keyring.backend.KeyringBackend):
    """A secure keyring (priority >= 1) that may fail meanwhile: every read and write then
    raises `failure`, as a Secret Service locked again raises KeyringLocked."""

    priority = 5

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.passwords: dict[tuple[str, str], str] = {}
        self.failure: Exception | None = None
        self.failing_writes: Exception | None = None  # (reads answer)

    def _answer(self) -> None:
        if self.failure is not None:
            raise self.failure

    def get_password(self, service: str, username: str) -> str | None:
        self._answer()
        return self.passwords.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self._answer()
        if self.failing_writes is not None:
            raise self.failing_writes
        self.passwords[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self._answer()
        if self.passwords.pop((service, username), None) is None:
            raise keyring.errors.PasswordDeleteError(username)


@pytest.fixture
def lockable_keyring(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LockableKeyring]:
    """The system keyring for this test, with a cache folder of its own (where the app marks
    a sign-in kept, and the lock its windows take turns with)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    backend = LockableKeyring()
    before = keyring.get_keyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(before)


def in_keyring(lobby: LiveServer, keyring: LockableKeyring) -> tuple[LobbyClient, Stored]:
    """Ada signed in, her sign-in kept in `keyring`; and what it keeps."""
    ada = local_client(lobby.base, "Ada")
    assert ada.auth is not None
    kept = ada.auth.stored()
    assert kept is not None
    ada.auth.store = KeyringStore(lobby.base, keyring)
    kept.write(ada.auth.store)
    return ada, kept


def seated(qtbot: QtBot, lobby: LiveServer, ada: LobbyClient,
           operations: Operations) -> tuple[OnlineGame, int]:
    """Ada's game against Bea on the table, Ada to play; and its version."""
    bea = local_client(lobby.base, "Bea")
    joined = bea.join(ada.create("Table").id)
    game = OnlineGame(ada, joined.id, operations, user_id=ada.me().id, first=joined,
                      retry_delays_ms=(50, 100))
    game.start()
    qtbot.waitUntil(lambda: game.view is not None and game.view.turn == 0, timeout=5000)
    return game, joined.version


def played_once(lobby: LiveServer, game: OnlineGame, version: int) -> bool:
    return LobbyClient(lobby.base).game(game.game_id).version == version + 1


@pytest.mark.parametrize("failure", [LOCKED, BROKEN], ids=["locked", "broken"])
def test_a_keyring_failing_as_a_move_renews_the_sign_in_leaves_the_move_to_make_again(
    qtbot: QtBot, lobby: LiveServer, lockable_keyring: LockableKeyring, failure: Exception
) -> None:
    ada, _ = in_keyring(lobby, lockable_keyring)
    assert ada.auth is not None
    operations = Operations()
    game, version = seated(qtbot, lobby, ada, operations)
    errors: list[str] = []
    game.error.connect(errors.append)
    try:
        ada.auth.forget_access()  # the access token has expired: a move renews it first
        lockable_keyring.failure = failure  # and the keyring was locked meanwhile
        with qtbot.captureExceptions() as raised:
            game.act(Draw())
            assert game.pending
            qtbot.waitUntil(lambda: not game.pending, timeout=10000)
        if failure is LOCKED:  # told in plain words
            assert raised == []
            assert errors == ["The keyring could not be read (Failed to unlock the "
                              "collection!): try again once it answers (unlocked, say)."]
        else:  # the error dialog shows what the app did not foresee; the table says so too
            assert [type(error) for _, error, _ in raised] == [RuntimeError]
            assert errors == ["Your move may not have been played (RuntimeError: the keyring's "
                              "connection was closed); the table shows it once the server has "
                              "it."]
        assert not played_once(lobby, game, version)
        lockable_keyring.failure = None  # unlocked: the player makes the move again
        game.act(Draw())
        qtbot.waitUntil(lambda: not game.pending, timeout=10000)
        assert played_once(lobby, game, version)
        assert len(errors) == 1
    finally:
        game.close()
        operations.close()
        assert operations.wait_idle()


def test_a_renewed_sign_in_the_keyring_cannot_take_is_used_and_kept_later(
    qtbot: QtBot, lobby: LiveServer, lockable_keyring: LockableKeyring
) -> None:
    """The keyring refuses to write the renewed sign-in (the old refresh token, still in it,
    is spent): the move is played with the new tokens, and the next renewal, once the keyring
    answers, keeps a sign-in that works."""
    ada, kept = in_keyring(lobby, lockable_keyring)
    assert ada.auth is not None
    store = ada.auth.store
    operations = Operations()
    game, version = seated(qtbot, lobby, ada, operations)
    errors: list[str] = []
    game.error.connect(errors.append)
    try:
        ada.auth.forget_access()  # the access token has expired: a move renews it first
        lockable_keyring.failing_writes = LOCKED
        game.act(Draw())
        qtbot.waitUntil(lambda: not game.pending, timeout=10000)
        assert errors == [] and played_once(lobby, game, version)
        assert Stored.read(store) == kept  # (spent)
        lockable_keyring.failing_writes = None
        ada.auth.forget_access(ada.auth.access_token)  # expired again: renewed, and kept
        assert ada.me().display_name == "Ada"
        renewed = Stored.read(store)
        assert renewed is not None and renewed != kept
        later = LobbyClient(lobby.base, AuthSession(lobby.base, store))  # (a new start)
        assert later.me().display_name == "Ada"
    finally:
        game.close()
        operations.close()
        assert operations.wait_idle()


@pytest.mark.parametrize("failure", [LOCKED, BROKEN], ids=["locked", "broken"])
def test_a_kept_sign_in_that_cannot_be_read_at_start_leaves_sign_in_working(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer, lockable_keyring: LockableKeyring,
    failure: Exception,
) -> None:
    person = Person(local_name="Ada")
    tokens = SigninFlow(lobby.base, open_browser=person, timeout=20).run()
    person.join()
    Stored(tokens.refresh_token).write(KeyringStore(lobby.base, lockable_keyring))  # kept
    lockable_keyring.failure = failure  # the keyring is locked as the app starts
    window = None
    try:
        with qtbot.captureExceptions() as raised:
            window = open_window(qtbot, tmp_path, "Ada", lobby.base, token_stores=None)
            online = window.online
            assert online is not None
            panel = window.lobby_panel
            qtbot.waitUntil(lambda: "sign-in could not be" in panel.message.text()
                            or "keyring could not be" in panel.message.text(), timeout=10000)
        assert online.signing.state is SignIn.SIGNED_OUT
        if failure is LOCKED:
            assert raised == []
            assert panel.message.text().startswith("The keyring could not be read (Failed to "
                                                   "unlock the collection!)")
        else:
            assert {type(error) for _, error, _ in raised} == {RuntimeError}
            assert panel.message.text() == ("The kept sign-in could not be restored "
                                            "(RuntimeError): sign in again.")
        lockable_keyring.failure = None  # the player unlocks it, then signs in
        QTest.mouseClick(panel.sign_in_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: panel.account.text() == "Signed in as Ada", timeout=10000)
        assert online.account is not None and online.account.display_name == "Ada"
        assert window.browser.people == []  # type: ignore[attr-defined]  # (the kept one)
    finally:
        if window is not None:
            close_windows(qtbot, window)


def test_a_token_endpoint_failing_for_a_moment_delays_a_move_but_keeps_the_sign_in(
    qtbot: QtBot, lobby: LiveServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    ada = local_client(lobby.base, "Ada")
    assert ada.auth is not None
    gateway = TokenGateway(lobby.base)
    ada.auth.server_url = gateway.base  # signed requests, and renewals, through a gateway
    operations = Operations()
    game, version = seated(qtbot, lobby, ada, operations)
    notices: list[str] = []
    errors: list[str] = []
    signed_out: list[object] = []
    game.notice.connect(notices.append)
    game.error.connect(errors.append)
    game.signed_out.connect(signed_out.append)
    try:
        ada.auth.forget_access()  # the access token has expired: a move renews it first
        gateway.failing = 1  # and the gateway answers the renewal with HTTP 502, once
        game.act(Draw())
        qtbot.waitUntil(lambda: not game.pending, timeout=10000)
        assert signed_out == [] and errors == []
        assert notices == ["The connection dropped: sending your move again…"]
        assert gateway.token_requests == 2
        assert played_once(lobby, game, version)
        assert ada.auth.stored() is not None and ada.auth.access_token is not None
    finally:
        game.close()
        operations.close()
        assert operations.wait_idle()
        gateway.close()


def test_dropping_the_access_token_waits_on_no_renewal_and_a_late_one_keeps_nothing(
    lobby: LiveServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    ada = local_client(lobby.base, "Ada")
    auth = ada.auth
    assert auth is not None
    gateway = TokenGateway(lobby.base)
    gateway.holding = True  # a slow token endpoint
    auth.server_url = gateway.base
    letting_go = threading.Timer(3.0, gateway.release.set)  # (at the latest)
    renewal = threading.Thread(target=auth.refresh)  # a stream's reader renews the sign-in
    try:
        letting_go.start()
        renewal.start()
        assert gateway.asked.wait(5)
        began = time.monotonic()
        auth.forget_access()  # on the UI thread: another account's sign-in is kept now, say
        assert time.monotonic() - began < 0.5
        gateway.release.set()
        renewal.join(10)
        assert auth.access_token is None  # what began before the drop keeps nothing
        assert ada.me().display_name == "Ada"  # the next request renews it again
        assert auth.access_token is not None and gateway.token_requests == 2
    finally:
        letting_go.cancel()
        gateway.close()
        renewal.join(10)
