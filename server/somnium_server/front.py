"""The built-in server's front while it boots: the lobby answered at once, the rest soon after.

FastAPI and pydantic take most of the server's start-up to import. The built-in server listens
before that, through this small ASGI app: it serves the server's life (storage, games, streams:
context.serving) and answers the requests the desktop app makes before its lobby is listed
(`GET /health`, `GET /lobby/events`) with the very functions the full app's routes call
(answers.py). A thread imports and builds the full app on the same context once the lobby has
been asked for (or another request needs it, or BUILD_AFTER seconds passed): begun earlier, its
half second of CPU would slow the desktop app's own start, which spawned this server first
thing. Every other request, and any of those two with something unusual about it (a query, a
forwarded address, a long or repeated Last-Event-ID), waits for the full app and goes to it:
never a different answer.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from types import SimpleNamespace

from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from . import answers
from .apierror import ApiError, error_body, error_response
from .context import ServerContext, serving

log = logging.getLogger("somnium_server.front")

MAX_EVENT_ID = 64  # the full app's limit on Last-Event-ID (routes.LastEventId)
UNUSUAL = (b"x-forwarded-for", b"x-forwarded-proto", b"forwarded", b"authorization")
BUILD_AFTER = 2.0  # seconds after start-up: the full app is built by then even if nobody asked


class Front:
    """ASGI app: serves `ctx`, answers the lobby's first requests, hands the rest to the full
    app once `build` (run on a thread at start-up) has made it."""

    def __init__(self, ctx: ServerContext, build: Callable[[], ASGIApp]) -> None:
        self.ctx = ctx
        self.state = SimpleNamespace(ctx=ctx)  # where the servers look for it (context_of)
        self.build = build
        self.full: ASGIApp | None = None
        self._ready: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._building = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        full = self.full
        if full is not None:
            await full(scope, receive, send)
            return
        early = self._early_answer(scope)
        if early is not None:
            if scope["path"] != "/health":  # the lobby is listed: the app's start is over
                self.start_build()
            await early(scope, receive, send)
            return
        self.start_build()
        await self.wait_for_full()
        if self.full is None:
            message = "something went wrong on the server; try again"
            await Response(error_body("internal_error", message), status_code=500,
                           media_type="application/json")(scope, receive, send)
            return
        await self.full(scope, receive, send)

    async def wait_for_full(self) -> None:
        """Until the full app is built (or failed to be)."""
        assert self._ready is not None  # uvicorn serves nothing before the lifespan started
        await self._ready.wait()

    def _early_answer(self, scope: Scope) -> ASGIApp | None:
        """The answer to one of the lobby's first requests, if this is a plain one of them."""
        if scope["type"] != "http" or scope["method"] != "GET" or scope["query_string"]:
            return None
        path = scope["path"]
        if path == "/health":
            return answers.health()
        if path != "/lobby/events":
            return None
        event_ids = []
        for name, value in scope["headers"]:
            if name in UNUSUAL:
                return None
            if name == b"last-event-id":
                event_ids.append(value.decode("latin-1"))
        if len(event_ids) > 1 or any(len(value) > MAX_EVENT_ID for value in event_ids):
            return None
        client = scope["client"][0] if scope.get("client") else "unknown"
        try:
            return answers.lobby_stream(self.ctx, client, event_ids[0] if event_ids else None)
        except ApiError as error:
            return error_response(error)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        await receive()  # lifespan.startup
        self._loop = asyncio.get_running_loop()
        self._ready = asyncio.Event()
        self._loop.call_later(BUILD_AFTER, self.start_build)
        started = False
        try:
            async with serving(self.ctx):
                await send({"type": "lifespan.startup.complete"})
                started = True
                await receive()  # lifespan.shutdown
        except Exception as error:
            log.exception("the server failed")
            failed = "shutdown" if started else "startup"
            await send({"type": f"lifespan.{failed}.failed", "message": str(error)})
            return
        await send({"type": "lifespan.shutdown.complete"})

    def start_build(self) -> None:
        """Begin building the full app on a thread, unless that has begun already."""
        if self._building:
            return
        self._building = True
        threading.Thread(target=self._build, args=(self._loop,), name="full-app",
                         daemon=True).start()

    def _build(self, loop: asyncio.AbstractEventLoop) -> None:
        """On a thread: import and build the full app, then let the waiting requests through."""
        try:
            self.full = self.build()
        except Exception:
            log.exception("the full app could not be built")
        assert self._ready is not None
        loop.call_soon_threadsafe(self._ready.set)
