"""Local accounts (a name only): offered only when enabled, and only by a server on loopback."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import requests

from somnium_desktop.client.signin import SigninFlow, TokenSet
from somnium_server.app import create_app
from somnium_server.config import load_settings
from somnium_server.signin.config import SigninConfigError, is_loopback_host

from .conftest import StartLobby
from .helpers import (
    LiveLobby,
    OidcProvider,
    Person,
    lobby_settings,
    local_offered,
    provider_config,
)


def sign_in(lobby: LiveLobby, person: Person) -> TokenSet:
    tokens = SigninFlow(lobby.base, open_browser=person, timeout=20).run()
    person.join()
    return tokens


def me(lobby: LiveLobby, tokens: TokenSet) -> dict[str, str]:
    answer = requests.get(f"{lobby.base}/me", timeout=10,
                          headers={"Authorization": f"Bearer {tokens.access_token}"})
    result: dict[str, str] = answer.json()
    return result


def test_a_local_account_is_a_name_and_the_same_name_is_the_same_user(
    start_lobby: StartLobby,
) -> None:
    lobby = start_lobby(local_accounts=True)
    first = Person(local_name="Mira")
    mira = me(lobby, sign_in(lobby, first))
    assert mira["display_name"] == "Mira"
    assert any("Local account" in page.text for page in first.pages)
    again = me(lobby, sign_in(lobby, Person(local_name="mira")))
    assert again["id"] == mira["id"]
    other = me(lobby, sign_in(lobby, Person(local_name="Tomas")))
    assert other["id"] != mira["id"]


def test_with_a_provider_too_the_person_chooses(
    oidc: OidcProvider, start_lobby: StartLobby
) -> None:
    lobby = start_lobby(provider_config(oidc.issuer), local_accounts=True)
    local = Person(choose="local", local_name="Ines")
    assert me(lobby, sign_in(lobby, local))["display_name"] == "Ines"
    choice = local.pages[0].text
    assert "Test OP" in choice and "Local account" in choice
    remote = Person("dora", choose="test")
    assert me(lobby, sign_in(lobby, remote))["display_name"] == "Player dora"


def test_not_offered_unless_enabled(oidc: OidcProvider, start_lobby: StartLobby) -> None:
    lobby = start_lobby(provider_config(oidc.issuer))
    person = Person("erin")
    sign_in(lobby, person)
    assert not any("Local account" in page.text for page in person.pages)
    post = requests.post(f"{lobby.base}/auth/local", data={"request": "x", "name": "Eve"},
                         timeout=10)
    assert post.status_code == 404


def test_a_bad_name_is_asked_again(start_lobby: StartLobby) -> None:
    lobby = start_lobby(local_accounts=True)
    person = Person(local_name="x" * 41, stop_at_app=True)
    flow = SigninFlow(lobby.base, open_browser=person, timeout=0.5)
    page = person.walk(flow.start())
    assert page is not None and page.status_code == 400
    assert "1 to 40 printable characters" in page.text
    assert "name='name'" in page.text  # The form again.
    assert person.app_redirect is None
    flow.close()


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "lobby.example.org"])
def test_refused_on_a_server_not_on_loopback(tmp_path: Path, host: str) -> None:
    settings = replace(lobby_settings(tmp_path / "x.sqlite3"), host=host, local_accounts=True)
    with pytest.raises(SigninConfigError, match="loopback"):
        create_app(settings)
    with pytest.raises(SystemExit):
        load_settings(["--host", host, "--local-accounts", "true"], environ={})
    # The same host without local accounts is fine.
    assert load_settings(["--host", host], environ={}).host == host


def test_loopback_hosts() -> None:
    assert all(map(is_loopback_host, ["127.0.0.1", "127.3.2.1", "::1", "[::1]", "localhost"]))
    assert not any(map(is_loopback_host, ["0.0.0.0", "::", "10.0.0.1", "example.com", ""]))


@pytest.mark.parametrize("header", [
    {"X-Forwarded-For": "203.0.113.7"}, {"Forwarded": "for=203.0.113.7"},
    {"X-Real-IP": "203.0.113.7"}, {"X-Forwarded-For": "127.0.0.1"},
    {"X-Forwarded-Proto": "https"}, {"Via": "1.1 proxy"},
])
def test_refused_to_any_request_through_a_proxy(
    start_lobby: StartLobby, header: dict[str, str]
) -> None:
    lobby = start_lobby(local_accounts=True)
    assert local_offered(lobby.base)
    assert not local_offered(lobby.base, header)


@pytest.mark.parametrize("url", ["https://lobby.example.org", "http://192.168.1.20:8000"])
def test_refused_with_a_public_url_that_is_not_loopback(tmp_path: Path, url: str) -> None:
    settings = replace(lobby_settings(tmp_path / "x.sqlite3"), public_url=url,
                       local_accounts=True)
    with pytest.raises(SigninConfigError, match="public URL"):
        create_app(settings)
    with pytest.raises(SystemExit):
        load_settings(["--public-url", url, "--local-accounts", "true"], environ={})
    fine = replace(settings, public_url="http://127.0.0.1:8000")
    assert create_app(fine) is not None
