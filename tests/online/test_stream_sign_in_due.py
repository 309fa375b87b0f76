"""A signed stream that reconnects after its access token expired: the token is renewed before
the connection, so the server never refuses it (one try, not a 401 and a second one)."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from pytestqt.qtbot import QtBot

from somnium_desktop.client.sse import EventStream, ServerEvent
from tests.server.helpers import LiveServer, server_settings
from tests.signin.helpers import local_client

from .proxy import losing_proxy_for

LIFETIME = 2  # seconds an access token lasts on this server


def test_a_stream_reconnecting_after_the_token_expired_renews_it_first(
    qtbot: QtBot, tmp_path: Path
) -> None:
    settings = server_settings(tmp_path / "lobby.sqlite3", local_accounts=True)
    server = LiveServer(replace(settings, signin=replace(settings.signin,
                                                         access_token_seconds=LIFETIME)))
    ada = local_client(server.base, "Ada")
    proxy = losing_proxy_for(ada, server.base)  # (its connections can be cut)
    auth = ada.auth
    assert auth is not None
    first_token = auth.access_token
    statuses: list[tuple[str, str]] = []
    events: list[ServerEvent] = []
    stream = EventStream(ada.lobby_events_url, events.append,
                         lambda status, detail: statuses.append((status, detail)),
                         headers=ada.stream_headers, refused=ada.stream_refused,
                         backoff=(0.05,), name="lobby-test")
    try:
        stream.start()
        qtbot.waitUntil(lambda: stream.connected, timeout=5000)
        assert auth.access_token == first_token  # (fresh: not renewed)
        time.sleep(LIFETIME + 0.5)  # the access token has expired meanwhile
        proxy.cut()  # the network drops the stream for a moment
        qtbot.waitUntil(lambda: stream.connections == 2 and stream.connected, timeout=10000)
        assert [status for status, _ in statuses] == ["connected", "reconnecting", "connected"]
        assert not any("401" in detail for _, detail in statuses)
        assert auth.access_token != first_token
    finally:
        stream.close()
        assert stream.join(5)
        proxy.close()
        server.stop()


def test_a_request_after_the_token_expired_renews_it_first(tmp_path: Path) -> None:
    """A move or any signed request made once the access token has expired: the token is
    renewed first, so the request is answered at once, never refused 401 and sent again."""
    settings = server_settings(tmp_path / "lobby.sqlite3", local_accounts=True)
    server = LiveServer(replace(settings, signin=replace(settings.signin,
                                                         access_token_seconds=LIFETIME)))
    ada = local_client(server.base, "Ada")
    auth = ada.auth
    assert auth is not None
    answered: list[tuple[int, str]] = []
    auth.http.hooks["response"].append(
        lambda response, *args, **kwargs: answered.append(
            (response.status_code, response.request.path_url)))
    try:
        first_token = auth.access_token
        assert ada.me().display_name == "Ada"
        time.sleep(LIFETIME + 0.5)  # the access token has expired meanwhile
        assert ada.me().display_name == "Ada"
        assert auth.access_token != first_token
        assert [status for status, _ in answered] == [200, 200, 200]  # me, token, me
        assert [path for _, path in answered][1].startswith("/auth/token")
    finally:
        server.stop()
