"""nginx's own answers (no lobby server's JSON: its 413, 429, 502 and 503 pages) reach the
player as plain words, never as the HTML nginx wrote, and say what to do."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from somnium_desktop.client.errors import LobbyError, RateLimited, ServerFailed
from somnium_desktop.client.lobby_client import LobbyClient
from tests.packaging.nginx import SITE, Nginx
from tests.server.helpers import LiveServer, server_settings
from tests.signin.helpers import local_client

from .behind_nginx import limited_site

SEATS = r"^/games(/[^/]+/join)?$"  # creating and joining


def closed_port() -> str:
    """An address on 127.0.0.1 where nothing listens (nginx answers 502 for it)."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{taken.getsockname()[1]}"


SITES: dict[str, Callable[[], str]] = {
    "body too large": lambda: SITE.read_text(encoding="utf-8").replace(
        "client_max_body_size 64k;", "client_max_body_size 16;"),
    "429 with Retry-After": lambda: limited_site(SEATS, 429, 3),
    "429": lambda: limited_site(SEATS, 429, None),
    "503 with Retry-After": lambda: limited_site(SEATS, 503, 3),
}
WORDS = {  # what the player reads, for creating a table
    "body too large": "refused what the app sent as too large (HTTP 413",
    "429 with Retry-After": "too many requests to the server 127.0.0.1:{port} just now: try "
                            "again in 3 s.",
    "429": "too many requests to the server 127.0.0.1:{port} just now: try again in a moment.",
    "503 with Retry-After": "The server 127.0.0.1:{port} is not answering just now (HTTP 503 "
                            "Service Temporarily Unavailable): try again in 3 s.",
    "upstream down": "The server 127.0.0.1:{port} is not answering just now (HTTP 502 Bad "
                     "Gateway): try again in a moment.",
}


def _refusal(doing: Callable[[], object]) -> LobbyError:
    with pytest.raises(LobbyError) as refused:
        doing()
    text = str(refused.value)
    assert "<" not in text and "html" not in text.lower() and "nginx" not in text, text
    return refused.value


@pytest.mark.parametrize("way", [*SITES, "upstream down"])
def test_creating_and_joining_behind_nginx_say_what_it_answered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, way: str
) -> None:
    server = LiveServer(server_settings(tmp_path / "lobby.sqlite3", local_accounts=True))
    site = SITES[way]() if way in SITES else None
    upstream = closed_port() if way == "upstream down" else server.base.removeprefix("http://")
    proxy = Nginx(tmp_path / "nginx", upstream, site=site)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(proxy.cert))  # trust the test certificate
    try:
        ada, bea = local_client(server.base, "Ada"), local_client(server.base, "Bea")
        table = ada.create("Table").id
        for client in (ada, bea):  # from here on, they reach the server through nginx
            client.base_url = proxy.base
            assert client.auth is not None
            client.auth.server_url = proxy.base
        if way.startswith(("429", "503")):
            LobbyClient(proxy.base).games()  # someone here has just asked: the next one waits
        created = _refusal(lambda: ada.create("Another"))
        assert WORDS[way].format(port=proxy.https_port) in str(created)
        if way.startswith("429"):
            assert isinstance(created, RateLimited)
            assert created.wait == (3 if "After" in way else 0)
        elif way != "body too large":
            assert isinstance(created, ServerFailed) and created.passing
            assert created.wait == (3 if "After" in way else 0)
        if way != "body too large":  # (a join has no body)
            joined = _refusal(lambda: bea.join(table))
            assert type(joined) is type(created)
        assert LobbyClient(server.base).game(table).status == "waiting"  # nothing done
        assert [g.name for g in LobbyClient(server.base).games()] == ["Table"]
    finally:
        proxy.stop()
        server.stop()
