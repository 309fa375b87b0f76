"""The hosted server: a whole game through a real nginx with the packaged site, streams live."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from requests.adapters import HTTPAdapter
from starlette.types import Receive, Scope, Send

from somnium_server.cli import uvicorn_config
from somnium_server.config import Settings
from tests.server.helpers import TIMEOUT, EventReader, LiveServer, Player, server_settings
from tests.signin.helpers import local_offered

from .nginx import SITE, Nginx

INSTANCES_SITE = SITE.with_name("nginx-somnium-instances.conf")

# How late an event may reach an observer through nginx, counted from the answer to the
# action that made it. Unbuffered, it is there before the answer (0 ms here); a buffering
# proxy holds it until its buffer fills or the stream ends.
PROMPT = 1.0


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    running = LiveServer(server_settings(tmp_path / "somnium.sqlite3", max_streams=2))
    try:
        yield running
    finally:
        running.stop()


def _proxy(tmp_path: Path, server: LiveServer, site: str | None = None) -> Nginx:
    return Nginx(tmp_path / "nginx", server.base.removeprefix("http://"), site)


@pytest.fixture
def proxy(
    tmp_path: Path, server: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Nginx]:
    running = _proxy(tmp_path, server)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(running.cert))  # trust the test certificate
    try:
        yield running
    finally:
        running.stop()


def _through(proxy: Nginx, *players: Player) -> None:
    for player in players:
        player.base = proxy.base


def _act_and_watch(
    players: dict[int, Player], game_id: str, watcher: EventReader, rng: random.Random
) -> dict[str, Any]:
    """One random legal action; the watcher must get its last event within PROMPT seconds."""
    detail = players[0].get(f"/games/{game_id}").json()
    view = detail["view"]
    answer = players[view["turn"]].act(game_id, detail["version"], rng.choice(view["legal"]))
    assert answer.status_code == 200, answer.text
    answered = time.monotonic()
    result: dict[str, Any] = answer.json()
    watcher.until(lambda e: e.id == str(result["seq"]), timeout=TIMEOUT)
    late = time.monotonic() - answered
    assert late < PROMPT, f"event {result['seq']} reached the observer {late:.2f} s late"
    return result


def test_a_whole_game_through_nginx_streams_included(server: LiveServer, proxy: Nginx) -> None:
    ann, bob = server.player("Ann"), server.player("Bob")
    _through(proxy, ann, bob)
    lobby = EventReader(proxy.base + "/lobby/events")
    assert lobby.status == 200
    assert lobby.response.headers["X-Accel-Buffering"] == "no"
    assert "Content-Encoding" not in lobby.response.headers  # not gzipped, though gzip is on
    assert lobby.next().event == "snapshot"

    game_id = ann.create(name="Through nginx")["id"]
    assert lobby.until(lambda e: e.event == "game_created").json()["game"]["id"] == game_id
    watcher = EventReader(f"{proxy.base}/games/{game_id}/events")
    snapshot = watcher.next()
    assert snapshot.event == "snapshot"
    assert bob.post(f"/games/{game_id}/join").status_code == 200
    assert lobby.until(lambda e: e.event == "seat_taken").json()["game"]["id"] == game_id

    rng = random.Random(11)
    players = {0: ann, 1: bob}
    for _ in range(400):
        if _act_and_watch(players, game_id, watcher, rng)["view"]["over"]:
            break
    else:
        raise AssertionError("the game did not end")
    assert lobby.until(lambda e: e.event == "game_finished").json()["game"]["id"] == game_id

    # The observer got every event of the game, once each, in order.
    log = ann.get(f"/games/{game_id}/log").json()
    numbered = [e for e in watcher.seen if e.id is not None and e.event != "snapshot"]
    assert [e.json() for e in numbered] == [e for e in log if e["seq"] > int(str(snapshot.id))]
    # An idle stream stays open: the server's keep-alive comments come through.
    while watcher.next(skip_comments=False, timeout=5).event != "comment":
        pass
    watcher.close()
    lobby.close()

    redirect = requests.get(proxy.plain + "/games", allow_redirects=False, timeout=TIMEOUT)
    assert redirect.status_code == 301
    assert redirect.headers["Location"] == "https://127.0.0.1/games"


def _events_location_with(extra: str, buffering: str = "off") -> str:
    """The packaged site, its events location told to ignore the server's X-Accel-Buffering."""
    site, count = re.subn(
        r"proxy_buffering off;", f"proxy_buffering {buffering}; {extra}",
        SITE.read_text(encoding="utf-8"),
    )
    assert count == 1
    return site


def test_the_site_alone_keeps_streams_unbuffered(
    tmp_path: Path, server: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not only the server's X-Accel-Buffering header: the site's own setting keeps events live.
    site = _events_location_with("proxy_ignore_headers X-Accel-Buffering;")
    proxy = _proxy(tmp_path, server, site)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(proxy.cert))
    try:
        ann, bob = server.player("Ann"), server.player("Bob")
        _through(proxy, ann, bob)
        game_id = ann.create()["id"]
        assert bob.post(f"/games/{game_id}/join").status_code == 200
        watcher = EventReader(f"{proxy.base}/games/{game_id}/events")
        assert watcher.next().event == "snapshot"
        rng = random.Random(5)
        for _ in range(6):
            if _act_and_watch({0: ann, 1: bob}, game_id, watcher, rng)["view"]["over"]:
                break
        watcher.close()
    finally:
        proxy.stop()


def test_a_buffering_proxy_holds_the_stream_back(
    tmp_path: Path, server: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The check above can fail: with buffering on (and the server's header ignored), not even
    # the stream's first event gets through in time.
    site = _events_location_with("proxy_ignore_headers X-Accel-Buffering;", buffering="on")
    proxy = _proxy(tmp_path, server, site)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(proxy.cert))
    try:
        with pytest.raises(requests.exceptions.ReadTimeout):
            requests.get(f"{proxy.base}/lobby/events", stream=True, timeout=(TIMEOUT, PROMPT))
    finally:
        proxy.stop()


class FromAddress(HTTPAdapter):
    """Connects from a given loopback address, as a different player's machine would."""

    def __init__(self, address: str) -> None:
        self.address = address
        super().__init__()

    def init_poolmanager(
        self, connections: int, maxsize: int, block: bool = False, **pool_kwargs: Any
    ) -> None:
        pool_kwargs["source_address"] = (self.address, 0)
        super().init_poolmanager(connections, maxsize, block, **pool_kwargs)


def test_the_stream_limit_counts_players_not_nginx(server: LiveServer, proxy: Nginx) -> None:
    # max_streams is 2 per client address: behind nginx that must be the player's address
    # (from X-Forwarded-For), or all players together would share two streams.
    def stream(address: str) -> requests.Response:
        session = requests.Session()
        session.mount("https://", FromAddress(address))
        return session.get(f"{proxy.base}/lobby/events", stream=True, timeout=TIMEOUT)

    first = [stream("127.0.0.2") for _ in range(2)]
    assert [r.status_code for r in first] == [200, 200]
    refused = stream("127.0.0.2")
    assert refused.status_code == 429
    other = stream("127.0.0.3")
    assert other.status_code == 200
    for response in (*first, refused, other):
        response.close()


def test_the_site_waits_far_longer_than_the_keepalive() -> None:
    events = SITE.read_text(encoding="utf-8").split("/events$", 1)[1]
    timeout = re.search(r"proxy_read_timeout (\d+)([smh]);", events)
    assert timeout is not None
    seconds = int(timeout[1]) * {"s": 1, "m": 60, "h": 3600}[timeout[2]]
    assert seconds >= 10 * Settings().keepalive


async def _no_app(scope: Scope, receive: Receive, send: Send) -> None:
    raise AssertionError("never served")


@pytest.mark.parametrize("site", [SITE, INSTANCES_SITE], ids=lambda site: site.name)
def test_nginx_lets_an_idle_connection_go_before_the_server_does(site: Path) -> None:
    # Else nginx may send a request on a connection the server is closing, and answer a POST
    # (which it never sends twice) with 502.
    upstream = site.read_text(encoding="utf-8").split("upstream somnium_server {", 1)[1]
    found = re.search(r"^\s*keepalive_timeout (\d+)s;", upstream.split("}", 1)[0], re.M)
    assert found is not None, "the upstream keeps nginx's default of 60 s"
    server_side = uvicorn_config(Settings(), _no_app).timeout_keep_alive
    assert 0 < int(found[1]) < server_side


def test_local_accounts_are_refused_through_the_site(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The server listens on loopback with local accounts on (as the app's built-in one does);
    # a host putting the packaged site in front must not hand name-only accounts to the world.
    settings = server_settings(tmp_path / "somnium.sqlite3", local_accounts=True)
    local = LiveServer(settings)
    proxy = _proxy(tmp_path, local)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(proxy.cert))
    try:
        direct = local_offered(local.base)
        behind = local_offered(proxy.base)
        forged = local_offered(proxy.base, {"X-Forwarded-For": "127.0.0.1"})
    finally:
        proxy.stop()
        local.stop()
    assert (direct, behind, forged) == (True, False, False)
