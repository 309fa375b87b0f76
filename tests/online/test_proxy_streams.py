"""A game's event stream refused by nginx's own rate limit (its 429 page) tries again after
the Retry-After, says so in plain words, and resumes with Last-Event-ID: nothing is missed."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
import requests

from somnium_desktop.client.sse import EventStream, ServerEvent
from somnium_desktop.game import Draw
from somnium_server.play import games
from tests.packaging.nginx import Nginx
from tests.server.helpers import LiveServer, server_settings

from .behind_nginx import answered, limited_site, seated_behind
from .helpers import short_game

STREAMS = r"^/games/[^/]+/events$"


def test_a_stream_refused_by_the_proxys_limit_resumes_where_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(games, "new_game", lambda seed: short_game())
    server = LiveServer(server_settings(tmp_path / "lobby.sqlite3", local_accounts=True))
    proxy = Nginx(tmp_path / "nginx", server.base.removeprefix("http://"),
                  site=limited_site(STREAMS, 429, 2))
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(proxy.cert))  # trust the test certificate
    ada, joined, _ = seated_behind(server.base, proxy)
    ada.act(joined.id, joined.version, Draw(), "a1")  # (while the stream is away)
    events: list[ServerEvent] = []
    said: list[tuple[str, str]] = []
    arrived = threading.Event()

    def on_event(event: ServerEvent) -> None:
        events.append(event)
        arrived.set()

    stream = EventStream(lambda: ada.events_url(joined.id), on_event,
                         lambda status, detail: said.append((status, detail)),
                         last_event_id=f"{joined.seq}.0", backoff=(0.05,))
    path = f"/games/{joined.id}/events"
    try:
        with requests.get(proxy.base + path, stream=True, timeout=5) as first:
            assert first.status_code == 200  # someone here has just opened one: ours waits
        started = time.monotonic()
        stream.start()
        assert arrived.wait(15)
        assert time.monotonic() - started >= 2  # not before the Retry-After
        assert said[0] == ("misanswered", "it refuses more just now (HTTP 429 Too Many Requests)")
        assert ("connected", "") in said
        assert 429 in answered(proxy, path)
        # what was missed, and no snapshot: the stream resumed after the event it had seen
        assert events[0].event != "snapshot"
        assert events[0].json()["seq"] == joined.seq + 1
    finally:
        stream.close()
        assert stream.join(10)
        proxy.stop()
        server.stop()
