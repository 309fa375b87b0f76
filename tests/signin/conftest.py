"""Fixtures: a real OpenID provider (oidc-provider on Node) and real lobby servers using it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from somnium_server.signin.config import ProviderConfig

from ..conftest import Database
from .helpers import LiveLobby, OidcProvider, lobby_settings, provider_config

StartLobby = Callable[..., LiveLobby]


@pytest.fixture(scope="session")
def oidc() -> Iterator[OidcProvider]:
    provider = OidcProvider()
    try:
        yield provider
    finally:
        provider.stop()


@pytest.fixture
def start_lobby(new_database: Callable[[], Database]) -> Iterator[StartLobby]:
    """Start lobby servers (each on its own database, on each backend); all stopped after the
    test."""
    running: list[LiveLobby] = []

    def start(*providers: ProviderConfig, **changes: Any) -> LiveLobby:
        lobby = LiveLobby(lobby_settings(new_database(), *providers, **changes))
        running.append(lobby)
        return lobby

    yield start
    for lobby in running:
        lobby.stop()


@pytest.fixture
def lobby(oidc: OidcProvider, start_lobby: StartLobby) -> LiveLobby:
    """A lobby server whose only sign-in provider is the test OpenID provider."""
    return start_lobby(provider_config(oidc.issuer))
