"""The application factory: create_app(settings) wires storage, games, lobby and routes."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from starlette.types import Receive, Scope, Send

from . import __version__, docs, errors
from .bodylimit import BodyLimit
from .computer import Computers
from .config import Settings
from .context import SECURITY_SCHEMES, ServerContext
from .events import StreamHub
from .fastpath import FastPath
from .games import GameService
from .lobby import Lobby
from .models import LEVEL_PATTERN
from .ratelimit import RateLimiter
from .routes import busy, router
from .sessions import sweep
from .signin import routes as signin
from .signin.config import check_local_accounts
from .sqlite_storage import SQLiteStorage
from .storage import Storage


class SomniumApp(FastAPI):
    """FastAPI, with the busiest requests answered first by a raw path (see fastpath)."""

    fast: FastPath | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        fast = self.fast
        if (
            fast is not None and scope["type"] == "http" and not self.root_path
            and await fast.handle(scope, receive, send)
        ):
            return
        await super().__call__(scope, receive, send)

    async def full(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The whole framework, for the requests the raw path hands over."""
        await super().__call__(scope, receive, send)


def create_app(
    settings: Settings,
    *,
    storage: Storage | None = None,
    computers: Computers | None = None,
    direct_writes: bool = True,
) -> FastAPI:
    """A ready-to-serve app; games are loaded (and computers resume) at start-up.

    `direct_writes` lets events be written to streams straight from the publisher, which
    assumes uvicorn (see events.Subscriber._write_now); turn it off under other servers.
    """
    check_local_accounts(settings.local_accounts, settings.host)
    store: Storage = storage if storage is not None else SQLiteStorage(settings.database)
    hub = StreamHub(settings.keepalive, settings.max_streams, direct_writes)
    lobby = Lobby(settings.event_window)
    games = GameService(
        store, lobby, hub, computers or Computers(),
        event_window=settings.event_window,
        computer_pause=settings.computer_pause,
        observer_flush=settings.observer_flush,
    )
    ctx = ServerContext(
        settings=settings, storage=store, hub=hub, lobby=lobby, games=games,
        limits={
            "create": RateLimiter("create", settings.rate_create),
            "join": RateLimiter("join", settings.rate_join),
            "act": RateLimiter("act", settings.rate_act),
        },
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await games.load()
        hub.start()
        sweeper = asyncio.get_running_loop().create_task(sweep(store))
        try:
            yield
        finally:
            sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sweeper
            await hub.stop()
            await games.stop()
            await store.close()

    app = SomniumApp(
        title="Somnium lobby server",
        version=__version__,
        description=(
            "Games of Somnium between people and computers, a lobby, observers and live "
            "server-sent events. Creating, joining and acting need a session "
            "(`Authorization: Bearer <token>`); watching does not."
        ),
        lifespan=lifespan,
        docs_url=None,  # docs.install serves /docs without a CDN
        redoc_url=None,
        # the routes themselves, not include_router(): its wrappers cost every request a
        # second round of route matching
        routes=[*busy.routes, *router.routes],
    )
    app.state.ctx = ctx
    describe(app, lambda: list(games.computers.available()))
    errors.install(app)
    docs.install(app)
    signin.install(app, settings, store)
    app.add_middleware(BodyLimit, max_body=settings.max_body)
    app.fast = FastPath(app.full, ctx)
    return app


def describe(app: FastAPI, keys: Callable[[], list[str]]) -> None:
    """The OpenAPI description, with the session scheme and the levels on offer as an enum."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title, version=app.version, description=app.description,
                routes=app.routes,
            )
            schema.setdefault("components", {})["securitySchemes"] = SECURITY_SCHEMES
            offered = keys()
            if offered:
                _enumerate(schema, offered)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _enumerate(node: Any, offered: list[str]) -> None:
    if isinstance(node, dict):
        if node.get("pattern") == LEVEL_PATTERN:
            node["enum"] = offered
        for value in node.values():
            _enumerate(value, offered)
    elif isinstance(node, list):
        for value in node:
            _enumerate(value, offered)
