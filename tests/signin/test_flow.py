"""The whole sign-in, from the app's own code through a real OpenID provider to a session."""

from __future__ import annotations

import requests

from somnium_desktop.client.auth_session import AuthSession
from somnium_desktop.client.credentials import MemoryStore
from somnium_desktop.client.signin import SigninFlow, TokenSet

from .helpers import LiveLobby, Person


def sign_in(lobby: LiveLobby, person: Person) -> TokenSet:
    tokens = SigninFlow(lobby.url, open_browser=person, timeout=20).run()
    person.join()
    return tokens


def test_sign_in_through_the_provider_gives_a_working_session(lobby: LiveLobby) -> None:
    person = Person("alice")
    tokens = sign_in(lobby, person)
    # The browser was told only after the app had its tokens.
    assert person.final is not None and person.final.status_code == 200
    assert "Signed in — return to Somnium" in person.final.text
    session = AuthSession(lobby.url, MemoryStore())
    session.adopt(tokens)
    me = session.request("GET", "/me")
    assert me.status_code == 200
    assert me.json()["display_name"] == "Player alice"
    game = session.request("POST", "/games", json={"name": "First table", "opponent": "person"})
    assert game.status_code == 201, game.text
    # Without the token, the same request is refused.
    anonymous = requests.post(f"{lobby.url}/games", json={"name": "x", "opponent": "person"},
                              timeout=10)
    assert anonymous.status_code == 401
