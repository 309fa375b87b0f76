"""The benchmark's HTTP side: an aiohttp session, local-account sign-in and game event streams.

Streams are read in chunks as they come and split into events by the app's own SSE parser
(`somnium_desktop.client.sse.SSEParser`), which splits the lines itself.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import re
import resource
import secrets
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import aiohttp
import orjson

from somnium_desktop.client.sse import ServerEvent, SSEParser

from .servers import BenchError

CLIENT_ID = "somnium-desktop"  # the app's OAuth client id
REDIRECT = "http://127.0.0.1:9/callback"  # never visited: the code is read from the redirect
REQUEST_TIMEOUT = aiohttp.ClientTimeout(total=30)
# The server's keep-alive comes every 15 s: a stream silent for much longer is dead.
STREAM_TIMEOUT = aiohttp.ClientTimeout(total=None, sock_connect=30, sock_read=60)
KEEP_IDLE = 4.0
REQUEST_ID = re.compile(r"name='request' value='([^']+)'")


def raise_file_limit() -> None:
    """Thousands of streams need thousands of sockets: lift the soft limit to the hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def session() -> aiohttp.ClientSession:
    """A client: no connection limit, no cookie jar (sign-in sets its own), and idle
    connections let go before the server's keep-alive timeout (uvicorn's: 5 s) closes them."""
    return aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=0, keepalive_timeout=KEEP_IDLE),
        cookie_jar=aiohttp.DummyCookieJar(), timeout=REQUEST_TIMEOUT,
    )


async def call(
    http: aiohttp.ClientSession, method: str, url: str, token: str, body: Any = None
) -> tuple[int, Any]:
    """A JSON request signed with `token`: (status, decoded answer).

    A kept-alive connection the server closed just as it was reused is tried once more, as
    HTTP clients do; the benchmark's writes are safe to repeat (an action's id makes it
    exactly-once, a rematch asked twice is asked once).
    """
    headers = {"Authorization": f"Bearer {token}"}
    data = None
    if body is not None:
        data = orjson.dumps(body)
        headers["Content-Type"] = "application/json"
    for attempt in (1, 2):
        try:
            async with http.request(method, url, data=data, headers=headers) as response:
                raw = await response.read()
                return response.status, orjson.loads(raw) if raw else None
        except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError):
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


async def sign_in(http: aiohttp.ClientSession, base: str, name: str) -> str:
    """A session token for a local account named `name`, through the app's sign-in: the
    authorization page with PKCE, the local-account form, and the token exchange."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    params = {"client_id": CLIENT_ID, "redirect_uri": REDIRECT, "state": secrets.token_hex(8),
              "response_type": "code", "code_challenge": challenge.rstrip(b"=").decode(),
              "code_challenge_method": "S256", "provider": "local"}
    async with http.get(f"{base}/auth/authorize", params=params, allow_redirects=False) as page:
        text = await page.text()
        cookies = "; ".join(f"{key}={morsel.value}" for key, morsel in page.cookies.items())
    found = REQUEST_ID.search(text)
    if page.status != 200 or found is None:
        raise BenchError(f"{base} offers no local accounts (status {page.status}): start it "
                         "with --local-accounts true, --rate-signin 1000000/1 and the other "
                         "limits raised (see --help)")
    form = {"request": found.group(1), "name": name}
    async with http.post(f"{base}/auth/local", data=form, headers={"Cookie": cookies},
                         allow_redirects=False) as answer:
        location = answer.headers.get("Location", "")
    code = parse_qs(urlsplit(location).query).get("code")
    if not code:
        raise BenchError(f"{base} refused the local sign-in of {name!r} (status {answer.status})")
    exchange = {"grant_type": "authorization_code", "code": code[0], "redirect_uri": REDIRECT,
                "client_id": CLIENT_ID, "code_verifier": verifier}
    async with http.post(f"{base}/auth/token", data=exchange) as answer:
        tokens = await answer.json()
    if "access_token" not in tokens:
        raise BenchError(f"{base} gave no token for {name!r}: {tokens}")
    return str(tokens["access_token"])


async def open_stream(
    http: aiohttp.ClientSession, url: str, token: str | None = None
) -> aiohttp.ClientResponse:
    headers = {"Accept": "text/event-stream"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    response = await http.get(url, headers=headers, timeout=STREAM_TIMEOUT)
    if response.status != 200:
        body = await response.text()
        response.release()
        hint = " (raise the server's --max-streams)" if response.status == 429 else ""
        raise BenchError(f"{url}: status {response.status}{hint}: {body[:200]}")
    return response


async def read_events(
    response: aiohttp.ClientResponse, take: Callable[[ServerEvent, float], None]
) -> None:
    """Hand each event of a stream to `take` with the time its chunk arrived, until it ends."""
    parser = SSEParser()
    try:
        async for chunk in response.content.iter_any():
            now = time.perf_counter()
            for event in parser.feed(chunk):
                take(event, now)
    except (TimeoutError, aiohttp.ClientError, ConnectionError):
        pass  # the stream broke or was closed: its owner sees it ended
    finally:
        response.close()


class GameStream:
    """A player's signed event stream of one game: the newest version and view, and when each
    action's last event (the one carrying the view) arrived, by sequence number."""

    def __init__(self, game_id: str, seat: int, board: dict[tuple[str, int], list[float]],
                 wake: asyncio.Event) -> None:
        self.game_id = game_id
        self.seat = seat
        self.board = board  # (game, seq) -> arrival time at seat 0, seat 1
        self.wake = wake  # set whenever something changes
        self.version = 0
        self.snapshot_seq = 0
        self.view: dict[str, Any] = {}
        self.rematch: str | None = None
        self.ended = False
        self.snapshot: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.task: asyncio.Task[None] | None = None

    async def open(self, http: aiohttp.ClientSession, base: str, token: str) -> None:
        response = await open_stream(http, f"{base}/games/{self.game_id}/events", token)
        self.task = asyncio.create_task(read_events(response, self.take))
        self.task.add_done_callback(self._gone)
        await asyncio.wait_for(asyncio.shield(self.snapshot), 60)

    def take(self, event: ServerEvent, now: float) -> None:
        if event.event == "snapshot":
            game = orjson.loads(event.data)["game"]
            self.version, self.view = game["version"], game["view"]
            self.rematch = game["rematch"]["game_id"]
            self.snapshot_seq = game["seq"]
            if not self.snapshot.done():
                self.snapshot.set_result(None)
        elif event.id is not None:
            if event.event != "rematch" and '"view":' not in event.data:
                return  # an action's earlier events: the last one carries the view
            data = orjson.loads(event.data)
            if data["event"]["type"] == "rematch":
                self.rematch = data["event"]["game_id"]
            if "view" in data:
                self.version, self.view = data["version"], data["view"]
                self.board.setdefault((self.game_id, int(event.id)), [0.0, 0.0])[self.seat] = now
        else:
            return  # observer counts and presence
        self.wake.set()

    def _gone(self, _: asyncio.Task[None]) -> None:
        self.ended = True
        if not self.snapshot.done():
            self.snapshot.set_exception(BenchError(f"the stream of {self.game_id} closed"))
        self.wake.set()

    def close(self) -> None:
        if self.task is not None:
            self.task.cancel()


class LobbyStream:
    """A player's signed lobby stream, open the whole run as the app keeps one; its events
    (games created and finished, turns passed, observer counts) are only counted."""

    def __init__(self) -> None:
        self.events = 0
        self.task: asyncio.Task[None] | None = None
        self.snapshot: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def open(self, http: aiohttp.ClientSession, base: str, token: str) -> None:
        response = await open_stream(http, f"{base}/lobby/events", token)
        self.task = asyncio.create_task(read_events(response, self.take))
        await asyncio.wait_for(asyncio.shield(self.snapshot), 60)

    def take(self, event: ServerEvent, now: float) -> None:
        self.events += 1
        if not self.snapshot.done():
            self.snapshot.set_result(None)

    def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
