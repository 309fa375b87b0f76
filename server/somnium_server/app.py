"""The application factory: create_app(settings) wires storage, games, lobby and routes."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, cast

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from . import __version__, docs, errors
from .bodylimit import BodyLimit
from .computer import Computers
from .config import Settings
from .context import SECURITY_SCHEMES, ServerContext, build_context, serving
from .events import RAW_SEND
from .fastpath import FastPath
from .models import LEVEL_PATTERN
from .routes import busy, router
from .signin import routes as signin
from .storage import Storage


class SomniumApp(FastAPI):
    """FastAPI, with the busiest requests answered first by a raw path (see fastpath)."""

    fast: FastPath | None = None
    # uvicorn's X-Forwarded-For handling (trusting the proxies uvicorn would), in front of
    # the full framework only; uvicorn's own is turned off in cli.uvicorn_config
    proxied: ASGIApp | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        fast = self.fast
        if (
            fast is not None and scope["type"] == "http" and not self.root_path
            and await fast.handle(scope, receive, send)
        ):
            return
        if scope["type"] == "http":
            scope[RAW_SEND] = send  # for the event streams' bodies (see events.RAW_SEND)
        if self.proxied is not None and scope["type"] in ("http", "websocket"):
            await self.proxied(scope, receive, send)
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
    context: ServerContext | None = None,
) -> FastAPI:
    """A ready-to-serve app; games are loaded (and computers resume) at start-up.

    `direct_writes` lets events be written to streams straight from the publisher, which
    assumes uvicorn (see events.stepped); turn it off under other servers.
    With a `context` already built, whoever built it serves it (see front.py): the app then
    has no lifespan of its own.
    """
    ctx = context if context is not None else build_context(
        settings, storage=storage, computers=computers, direct_writes=direct_writes
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with serving(ctx):
            yield

    app = SomniumApp(
        title="Somnium lobby server",
        version=__version__,
        description=(
            "Games of Somnium between people and computers, a lobby, observers and live "
            "server-sent events. Creating, joining and acting need a session "
            "(`Authorization: Bearer <token>`); watching does not."
        ),
        lifespan=lifespan if context is None else None,
        docs_url=None,  # docs.install serves /docs without a CDN
        redoc_url=None,
        # the routes themselves, not include_router(): its wrappers cost every request a
        # second round of route matching
        routes=[*busy.routes, *router.routes],
    )
    app.state.ctx = ctx
    describe(app, lambda: list(ctx.games.computers.available()))
    errors.install(app)
    docs.install(app)
    signin.install(app, settings, ctx.storage)
    app.add_middleware(BodyLimit, max_body=settings.max_body)
    app.fast = FastPath(app.full, ctx)
    app.proxied = cast(ASGIApp, ProxyHeadersMiddleware(  # uvicorn's ASGI types, not Starlette's
        cast(Any, app.full), trusted_hosts=os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1")
    ))
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
