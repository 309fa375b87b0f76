"""The whole sign-in, from the app's own code through a real OpenID provider to a session."""

from __future__ import annotations

import requests

from somnium_desktop.client.auth_session import AuthSession
from somnium_desktop.client.credentials import MemoryStore
from somnium_desktop.client.signin import SigninFlow

from .helpers import LiveLobby, OidcProvider, Person, query_of


class StrayThenPerson(Person):
    """A browser that first asks for a favicon and hits the callback with a wrong state."""

    def __call__(self, url: str) -> bool:
        redirect_uri = query_of(url)["redirect_uri"]
        base = redirect_uri.removesuffix("/callback")
        self.strays = [
            requests.get(f"{base}/favicon.ico", timeout=10).status_code,
            requests.get(f"{redirect_uri}?code=x&state=wrong", timeout=10).status_code,
        ]
        return super().__call__(url)


def test_sign_in_through_the_provider_gives_a_working_session(
    lobby: LiveLobby, oidc: OidcProvider
) -> None:
    person = StrayThenPerson("alice")
    flow = SigninFlow(lobby.base, open_browser=person, timeout=20)
    tokens = flow.run()
    person.join()
    assert person.strays == [404, 400]  # Answered, and the flow went on.
    # The person really signed in at the provider's own login form.
    assert any(page.url.startswith(f"{oidc.issuer}/interaction/") and 'name="login"' in page.text
               for page in person.pages)
    assert flow.listener is not None and flow.listener.closed
    # The browser was told only after the app had its tokens.
    assert person.final is not None and person.final.status_code == 200
    assert "Signed in — return to Somnium" in person.final.text
    session = AuthSession(lobby.base, MemoryStore())
    session.adopt(tokens)
    me = session.request("GET", "/me")
    assert me.status_code == 200
    assert me.json()["display_name"] == "Player alice"
    game = session.request("POST", "/games", json={"name": "First table", "opponent": "person"})
    assert game.status_code == 201, game.text
    # Without the token, the same request is refused.
    anonymous = requests.post(f"{lobby.base}/games", json={"name": "x", "opponent": "person"},
                              timeout=10)
    assert anonymous.status_code == 401
