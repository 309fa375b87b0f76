"""ID tokens the lobby must refuse: wrong audience, nonce, issuer or key, expired, and worse."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from somnium_desktop.client.signin import SigninFlow, SigninRejected

from ..server.helpers import query, where
from .conftest import StartLobby
from .helpers import CLIENT_ID, CLIENT_SECRET, LiveLobby, Person, provider_config
from .rogue_issuer import RogueIssuer


@pytest.fixture(scope="module")
def rogue() -> Iterator[RogueIssuer]:
    issuer = RogueIssuer(CLIENT_ID, CLIENT_SECRET)
    try:
        yield issuer
    finally:
        issuer.stop()


@pytest.fixture
def rogue_lobby(rogue: RogueIssuer, start_lobby: StartLobby) -> LiveLobby:
    rogue.mode = "good"
    return start_lobby(provider_config(rogue.issuer, key="rogue", name="Rogue"))


def identities(lobby: LiveLobby, issuer: str) -> list[tuple[Any, ...]]:
    return query(where(lobby.settings),
                 "SELECT subject, user_id FROM identities WHERE provider = ?", issuer)


def test_a_good_token_from_the_same_issuer_is_accepted(
    rogue: RogueIssuer, rogue_lobby: LiveLobby
) -> None:
    person = Person()
    tokens = SigninFlow(rogue_lobby.base, open_browser=person, timeout=20).run()
    person.join()
    me = person.http.get(f"{rogue_lobby.base}/me", timeout=10,
                         headers={"Authorization": f"Bearer {tokens.access_token}"})
    assert me.json()["display_name"] == "Rogue Player"
    assert [subject for subject, _ in identities(rogue_lobby, rogue.issuer)] == ["rogue-user"]


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("wrong_audience", "Invalid claim: 'aud'"),
        ("wrong_nonce", "Invalid claim: 'nonce'"),
        ("no_nonce", "Missing claim: 'nonce'"),
        ("wrong_signature", "bad_signature"),
        ("expired", "expired_token"),
        ("wrong_issuer", "Invalid claim: 'iss'"),
        ("hmac_with_secret", "'HS256' is not allowed"),
        ("hmac_only", "no public-key algorithm"),
        ("error_without_error_key", "no access token or ID token"),
        ("no_id_token", "no access token or ID token"),
    ],
)
def test_a_bad_id_token_ends_the_sign_in_with_nobody_signed_in(
    rogue: RogueIssuer, rogue_lobby: LiveLobby, mode: str, reason: str
) -> None:
    rogue.mode = mode
    before = rogue.token_requests
    person = Person()
    with pytest.raises(SigninRejected) as refused:
        SigninFlow(rogue_lobby.base, open_browser=person, timeout=20).run()
    person.join()
    assert rogue.token_requests == before + 1  # The code really was exchanged, then refused.
    assert refused.value.error == "access_denied"
    assert reason in (refused.value.description or "")
    assert person.final is not None and "Sign-in failed" in person.final.text
    assert identities(rogue_lobby, rogue.issuer) == []
