"""The lobby as authorization server for the app: every refusal it makes, over real HTTP."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from functools import partial
from urllib.parse import urlencode

import pytest
import requests

from somnium_desktop.client.signin import (
    CLIENT_ID,
    SigninFlow,
    code_challenge,
    new_code_verifier,
)
from somnium_server.config import RateLimit

from .conftest import StartLobby
from .helpers import LiveLobby, OidcProvider, Person, provider_config, query_of

APP_REDIRECT = "http://127.0.0.1:49152/callback"


def authorize_url(lobby: LiveLobby, verifier: str, redirect_uri: str = APP_REDIRECT,
                  **changes: str) -> str:
    params = {
        "response_type": "code", "client_id": CLIENT_ID, "redirect_uri": redirect_uri,
        "state": "app-state", "code_challenge": code_challenge(verifier),
        "code_challenge_method": "S256", **changes,
    }
    return f"{lobby.base}/auth/authorize?{urlencode(params)}"


def get_code(lobby: LiveLobby, verifier: str, redirect_uri: str = APP_REDIRECT) -> str:
    """Sign alice in through the provider; the code the lobby sends to the app's address."""
    person = Person("alice", stop_at_app=True)
    person.walk(authorize_url(lobby, verifier, redirect_uri))
    assert person.app_redirect is not None
    answer = query_of(person.app_redirect)
    assert answer["state"] == "app-state"
    return answer["code"]


def exchange(lobby: LiveLobby, code: str, verifier: str,
             redirect_uri: str = APP_REDIRECT) -> requests.Response:
    return requests.post(f"{lobby.base}/auth/token", timeout=10, data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri,
        "client_id": CLIENT_ID, "code_verifier": verifier,
    })


def refresh(lobby: LiveLobby, refresh_token: str) -> requests.Response:
    return requests.post(f"{lobby.base}/auth/token", timeout=10, data={
        "grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": CLIENT_ID,
    })


def me(lobby: LiveLobby, access_token: str) -> int:
    return requests.get(f"{lobby.base}/me", timeout=10,
                        headers={"Authorization": f"Bearer {access_token}"}).status_code


def test_the_code_exchange_answers_tokens_once(lobby: LiveLobby) -> None:
    verifier = new_code_verifier()
    answer = exchange(lobby, get_code(lobby, verifier), verifier)
    assert answer.status_code == 200
    assert answer.headers["Cache-Control"] == "no-store"
    body = answer.json()
    assert body["token_type"] == "Bearer" and body["expires_in"] > 0
    assert me(lobby, body["access_token"]) == 200


def test_a_wrong_pkce_verifier_is_refused_and_burns_the_code(lobby: LiveLobby) -> None:
    verifier = new_code_verifier()
    code = get_code(lobby, verifier)
    wrong = exchange(lobby, code, new_code_verifier())
    assert wrong.status_code == 400
    assert wrong.json()["error"] == "invalid_grant"
    assert "PKCE" in wrong.json()["error_description"]
    assert exchange(lobby, code, verifier).json()["error"] == "invalid_grant"


def test_a_reused_code_is_refused_and_revokes_what_it_gave(lobby: LiveLobby) -> None:
    verifier = new_code_verifier()
    code = get_code(lobby, verifier)
    first = exchange(lobby, code, verifier).json()
    again = exchange(lobby, code, verifier)
    assert again.status_code == 400
    assert again.json()["error"] == "invalid_grant"
    assert me(lobby, first["access_token"]) == 401
    assert refresh(lobby, first["refresh_token"]).json()["error"] == "invalid_grant"


def test_an_expired_code_is_refused(oidc: OidcProvider, start_lobby: StartLobby) -> None:
    lobby = start_lobby(provider_config(oidc.issuer), code_seconds=1)
    verifier = new_code_verifier()
    code = get_code(lobby, verifier)
    time.sleep(1.2)
    late = exchange(lobby, code, verifier)
    assert late.status_code == 400
    assert "expired" in late.json()["error_description"]


def test_the_code_is_bound_to_its_redirect_uri(lobby: LiveLobby) -> None:
    verifier = new_code_verifier()
    code = get_code(lobby, verifier)
    other = exchange(lobby, code, verifier, redirect_uri="http://127.0.0.1:49153/callback")
    assert other.json()["error"] == "invalid_grant"


@pytest.mark.parametrize(
    "redirect_uri",
    [
        "http://example.com:8080/callback",
        "http://localhost:49152/callback",
        "https://127.0.0.1:49152/callback",
        "http://127.0.0.2:49152/callback",
        "http://10.0.0.1:49152/callback",
        "http://127.0.0.1/callback",
        "http://127.0.0.1:0/callback",
        "http://127.0.0.1:99999/callback",
        "http://127.0.0.1:49152/elsewhere",
        "http://127.0.0.1:49152/callback?next=http://example.com",
        "http://attacker@127.0.0.1:49152/callback",
        "http://127.0.0.1:49152@example.com/callback",
        "http://127.0.0.1\t:49152/callback",  # (urlsplit drops the tab; a browser does not)
        "http://127.0.0.1:49152/callback\n",
        "http://127.0.0.1:49152/callback#",
        "myapp://callback",
        "",
    ],
)
def test_a_non_loopback_redirect_uri_is_refused_without_redirecting(
    lobby: LiveLobby, redirect_uri: str
) -> None:
    answer = requests.get(authorize_url(lobby, new_code_verifier(), redirect_uri),
                          allow_redirects=False, timeout=10)
    assert answer.status_code == 400
    assert "Location" not in answer.headers
    assert "redirect_uri" in answer.text
    assert "text/html" in answer.headers["Content-Type"]


def test_ipv6_loopback_is_accepted(lobby: LiveLobby, oidc: OidcProvider) -> None:
    answer = requests.get(
        authorize_url(lobby, new_code_verifier(), "http://[::1]:49152/callback"),
        allow_redirects=False, timeout=10,
    )
    assert answer.status_code == 302
    assert answer.headers["Location"].startswith(oidc.issuer)


def test_an_unknown_client_is_refused_without_redirecting(lobby: LiveLobby) -> None:
    answer = requests.get(authorize_url(lobby, new_code_verifier(), client_id="someone"),
                          allow_redirects=False, timeout=10)
    assert answer.status_code == 400 and "Location" not in answer.headers


@pytest.mark.parametrize(
    "changes",
    [{"code_challenge_method": "plain"}, {"code_challenge": ""}, {"code_challenge": "short"}],
)
def test_pkce_s256_is_required(lobby: LiveLobby, changes: dict[str, str]) -> None:
    answer = requests.get(authorize_url(lobby, new_code_verifier(), **changes),
                          allow_redirects=False, timeout=10)
    assert answer.status_code == 302
    back = query_of(answer.headers["Location"])
    assert answer.headers["Location"].startswith(APP_REDIRECT)
    assert back["error"] == "invalid_request" and back["state"] == "app-state"


def test_a_verifier_is_exactly_rfc_7636s_characters(lobby: LiveLobby) -> None:
    verifier = new_code_verifier() + "\n"  # (its challenge made from it, newline and all)
    answer = exchange(lobby, get_code(lobby, verifier), verifier)
    assert answer.status_code == 400 and answer.json()["error"] == "invalid_grant"


@pytest.mark.parametrize("provider", ["nope", "local", ""])
def test_a_provider_the_server_does_not_offer_is_refused(
    lobby: LiveLobby, provider: str
) -> None:
    """(This server offers one provider, and no local accounts.)"""
    answer = requests.get(authorize_url(lobby, new_code_verifier(), provider=provider),
                          allow_redirects=False, timeout=10)
    assert answer.status_code == 302 and answer.headers["Location"].startswith(APP_REDIRECT)
    back = query_of(answer.headers["Location"])
    assert back["error"] == "invalid_request" and "provider" in back["error_description"]


def test_a_wrong_state_from_the_provider_is_refused(lobby: LiveLobby) -> None:
    def tamper(url: str) -> str:
        if "/auth/callback/" in url:
            answer = query_of(url)
            return url.replace(answer["state"], "forged-state")
        return url

    person = Person("alice", stop_at_app=True, tamper=tamper)
    page = person.walk(authorize_url(lobby, new_code_verifier()))
    assert page is not None and page.status_code == 400
    assert "state mismatch" in page.text
    assert person.app_redirect is None


def test_the_provider_callback_works_once_and_only_in_the_browser_that_started(
    lobby: LiveLobby,
) -> None:
    captured: list[str] = []

    def capture(url: str) -> str:
        if "/auth/callback/" in url and not captured:
            captured.append(url)
            raise StopIteration
        return url

    person = Person("alice", stop_at_app=True, tamper=capture)
    with pytest.raises(StopIteration):
        person.walk(authorize_url(lobby, new_code_verifier()))
    # Another browser (no cookie from /auth/authorize) presenting the provider's answer.
    stranger = requests.get(captured[0], allow_redirects=False, timeout=10)
    assert stranger.status_code == 400 and "another browser" in stranger.text
    # And once presented, it is spent, even for the right browser.
    replay = person.http.get(captured[0], allow_redirects=False, timeout=10)
    assert replay.status_code == 400 and "Location" not in replay.headers


def test_a_reused_refresh_token_revokes_the_whole_family(lobby: LiveLobby) -> None:
    person = Person("alice")
    first = SigninFlow(lobby.base, open_browser=person, timeout=20).run()
    person.join()
    second = refresh(lobby, first.refresh_token).json()
    assert second["refresh_token"] != first.refresh_token
    assert me(lobby, second["access_token"]) == 200
    # The old refresh token again: a leak. Everything in its family stops working.
    reuse = refresh(lobby, first.refresh_token)
    assert reuse.status_code == 400 and reuse.json()["error"] == "invalid_grant"
    assert refresh(lobby, second["refresh_token"]).json()["error"] == "invalid_grant"
    assert me(lobby, second["access_token"]) == 401
    assert me(lobby, first.access_token) == 401
    # Another sign-in of the same person is a separate family and still works.
    other = Person("alice")
    fresh = SigninFlow(lobby.base, open_browser=other, timeout=20).run()
    other.join()
    assert me(lobby, fresh.access_token) == 200


def _at_once(*calls: Callable[[], requests.Response]) -> list[requests.Response]:
    """The calls made at the same moment (threads released together)."""
    answers: list[requests.Response] = []
    barrier = threading.Barrier(len(calls))

    def run(call: Callable[[], requests.Response]) -> None:
        barrier.wait()
        answers.append(call())

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


@pytest.mark.parametrize("secret", ["code", "refresh token"])
def test_a_secret_used_twice_at_once_leaves_nothing_working(
    start_lobby: StartLobby, secret: str
) -> None:
    """The same code, or refresh token, sent twice at the same moment: one use may get
    tokens, but the other is a reuse and revokes them, however the two interleave."""
    lobby = start_lobby(local_accounts=True, rate_signin=RateLimit(100000, 60))
    working = []
    for round_ in range(15):
        verifier = new_code_verifier()
        person = Person(local_name=f"Mira {round_}", stop_at_app=True)
        person.walk(authorize_url(lobby, verifier))
        assert person.app_redirect is not None
        code = query_of(person.app_redirect)["code"]
        if secret == "code":
            answers = _at_once(*[partial(exchange, lobby, code, verifier)] * 2)
        else:
            spent = exchange(lobby, code, verifier).json()["refresh_token"]
            answers = _at_once(*[partial(refresh, lobby, spent)] * 2)
        got = [answer.json() for answer in answers if answer.status_code == 200]
        assert len(got) <= 1
        for tokens in got:
            if (me(lobby, tokens["access_token"]) == 200
                    or refresh(lobby, tokens["refresh_token"]).status_code == 200):
                working.append(round_)
    assert working == []


@pytest.mark.parametrize("which", ["refresh", "access"])
def test_revoke_signs_out_with_either_token(lobby: LiveLobby, which: str) -> None:
    person = Person("alice")
    tokens = SigninFlow(lobby.base, open_browser=person, timeout=20).run()
    person.join()
    token = tokens.refresh_token if which == "refresh" else tokens.access_token
    answer = requests.post(f"{lobby.base}/auth/revoke", timeout=10,
                           data={"token": token, "client_id": CLIENT_ID})
    assert answer.status_code == 200
    assert me(lobby, tokens.access_token) == 401
    assert refresh(lobby, tokens.refresh_token).json()["error"] == "invalid_grant"
    unknown = requests.post(f"{lobby.base}/auth/revoke", timeout=10, data={"token": "nope"})
    assert unknown.status_code == 200


def test_the_token_endpoint_refuses_bad_requests(lobby: LiveLobby) -> None:
    url = f"{lobby.base}/auth/token"
    wrong_client = requests.post(url, timeout=10, data={
        "grant_type": "refresh_token", "refresh_token": "x", "client_id": "other"})
    assert wrong_client.status_code == 401
    assert wrong_client.json()["error"] == "invalid_client"
    grant = requests.post(url, timeout=10, data={"grant_type": "password", "client_id": CLIENT_ID})
    assert grant.json()["error"] == "unsupported_grant_type"
    as_json = requests.post(url, timeout=10, json={"grant_type": "refresh_token"})
    assert as_json.status_code == 400 and as_json.json()["error"] == "invalid_request"
    repeated = requests.post(url, timeout=10, data=[("client_id", CLIENT_ID),
                                                     ("client_id", CLIENT_ID)])
    assert repeated.json()["error"] == "invalid_request"
    unknown = refresh(lobby, "not-a-refresh-token")
    assert unknown.status_code == 400 and unknown.json()["error"] == "invalid_grant"


def test_the_same_person_is_the_same_user_and_keeps_a_changed_name(lobby: LiveLobby) -> None:
    def sign_in(login: str) -> str:
        person = Person(login)
        tokens = SigninFlow(lobby.base, open_browser=person, timeout=20).run()
        person.join()
        return tokens.access_token

    alice = sign_in("alice")
    who = requests.get(f"{lobby.base}/me", timeout=10,
                       headers={"Authorization": f"Bearer {alice}"}).json()
    renamed = requests.patch(f"{lobby.base}/me", json={"display_name": "  Alice   the Bold "},
                             headers={"Authorization": f"Bearer {alice}"}, timeout=10)
    assert renamed.status_code == 200
    assert renamed.json() == {"id": who["id"], "display_name": "Alice the Bold"}
    again = requests.get(f"{lobby.base}/me", timeout=10,
                         headers={"Authorization": f"Bearer {sign_in('alice')}"}).json()
    assert again == {"id": who["id"], "display_name": "Alice the Bold"}
    bob = requests.get(f"{lobby.base}/me", timeout=10,
                       headers={"Authorization": f"Bearer {sign_in('bob')}"}).json()
    assert bob["id"] != who["id"] and bob["display_name"] == "Player bob"
    bad = requests.patch(f"{lobby.base}/me", json={"display_name": "bell\x07"},
                         headers={"Authorization": f"Bearer {alice}"}, timeout=10)
    assert bad.status_code == 422
    anonymous = requests.patch(f"{lobby.base}/me", json={"display_name": "x"}, timeout=10)
    assert anonymous.status_code == 401


def test_an_unreachable_provider_or_none_at_all_is_reported_to_the_app(
    start_lobby: StartLobby,
) -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{unused.getsockname()[1]}"
    for lobby in (start_lobby(provider_config(dead)), start_lobby()):
        answer = requests.get(authorize_url(lobby, new_code_verifier()), allow_redirects=False,
                              timeout=10)
        assert answer.status_code == 302
        back = query_of(answer.headers["Location"])
        assert answer.headers["Location"].startswith(APP_REDIRECT)
        assert back["error"] == "temporarily_unavailable" and back["state"] == "app-state"
