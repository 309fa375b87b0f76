"""The app's signed-in session against a real lobby: keyring storage, refresh on 401, restarts."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
import requests

from somnium_desktop.client.auth_session import AuthSession, SignInRequired
from somnium_desktop.client.credentials import SERVICE, KeyringStore
from somnium_desktop.client.signin import CLIENT_ID, SigninFlow

from .conftest import StartLobby
from .helpers import LiveLobby, OidcProvider, Person, file_keyring, provider_config


def signed_in(lobby: LiveLobby, directory: Path) -> AuthSession:
    person = Person("carol")
    tokens = SigninFlow(lobby.base, open_browser=person, timeout=20).run()
    person.join()
    session = AuthSession(lobby.base, KeyringStore(lobby.base, file_keyring(directory)))
    session.adopt(tokens)
    return session


def test_the_refresh_token_goes_to_the_keyring_and_survives_a_restart(
    lobby: LiveLobby, tmp_path: Path
) -> None:
    session = signed_in(lobby, tmp_path)
    stored = file_keyring(tmp_path).get_password(SERVICE, lobby.base)
    assert stored is not None and stored == session.store.load()
    # The access token lives in memory only: not in the keyring file.
    assert session._access_token is not None
    assert session._access_token not in (tmp_path / "keyring.cfg").read_text()
    # A restart: a new session object over the same keyring signs in with the refresh token.
    restarted = AuthSession(lobby.base, KeyringStore(lobby.base, file_keyring(tmp_path)))
    assert restarted.signed_in
    assert restarted.request("GET", "/me").json()["display_name"] == "Player carol"
    rotated = file_keyring(tmp_path).get_password(SERVICE, lobby.base)
    assert rotated is not None and rotated != stored


def test_a_401_refreshes_once_and_retries(
    oidc: OidcProvider, start_lobby: StartLobby, tmp_path: Path
) -> None:
    lobby = start_lobby(provider_config(oidc.issuer), access_token_seconds=1)
    session = signed_in(lobby, tmp_path)
    before = session.store.load()
    assert session.request("GET", "/me").status_code == 200
    time.sleep(1.2)  # The access token has expired: the server answers 401 to it.
    stale = session._access_token
    assert requests.get(f"{lobby.base}/me", timeout=10,
                        headers={"Authorization": f"Bearer {stale}"}).status_code == 401
    game = session.request("POST", "/games", json={"name": "After refresh", "opponent": "person"})
    assert game.status_code == 201
    assert session._access_token != stale
    assert session.store.load() not in (None, before)


def test_a_dead_refresh_token_clears_the_keyring_and_asks_to_sign_in_again(
    lobby: LiveLobby, tmp_path: Path
) -> None:
    session = signed_in(lobby, tmp_path)
    # Someone else spends the stored refresh token (say, a copy of the keyring elsewhere)...
    stolen = session.store.load()
    assert stolen is not None
    requests.post(f"{lobby.base}/auth/token", timeout=10, data={
        "grant_type": "refresh_token", "refresh_token": stolen, "client_id": CLIENT_ID,
    }).raise_for_status()
    # ...so the app's next refresh is a reuse: the server ends the family, the app forgets it.
    with pytest.raises(SignInRequired):
        session.refresh()
    assert file_keyring(tmp_path).get_password(SERVICE, lobby.base) is None
    assert not session.signed_in
    with pytest.raises(SignInRequired):
        session.request("GET", "/me")


def test_sign_out_revokes_at_the_server_and_forgets_locally(
    lobby: LiveLobby, tmp_path: Path
) -> None:
    session = signed_in(lobby, tmp_path)
    access, refresh_token = session._access_token, session.store.load()
    session.sign_out()
    assert file_keyring(tmp_path).get_password(SERVICE, lobby.base) is None
    assert requests.get(f"{lobby.base}/me", timeout=10,
                        headers={"Authorization": f"Bearer {access}"}).status_code == 401
    refused = requests.post(f"{lobby.base}/auth/token", timeout=10, data={
        "grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": CLIENT_ID,
    })
    assert refused.json()["error"] == "invalid_grant"


def test_windows_sharing_a_sign_in_take_turns_to_refresh_it(
    lobby: LiveLobby, tmp_path: Path
) -> None:
    first = signed_in(lobby, tmp_path)
    lock = tmp_path / "signin.lock"
    first.lock_path = lock
    # Another app window (another process, even) over the same keyring entry.
    second = AuthSession(lobby.base, KeyringStore(lobby.base, file_keyring(tmp_path)),
                         lock_path=lock)
    failures: list[BaseException] = []

    def refresh_often(session: AuthSession) -> None:
        try:
            for _ in range(6):
                session.refresh()
        except BaseException as error:  # (reported below)
            failures.append(error)

    workers = [threading.Thread(target=refresh_often, args=(s,)) for s in (first, second)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    # No refresh token was spent twice, so the server kept the sign-in alive for both.
    assert failures == []
    for session in (first, second):
        assert session.request("GET", "/me").json()["display_name"] == "Player carol"
