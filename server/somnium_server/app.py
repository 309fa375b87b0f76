"""The application factory: create_app(settings) wires storage, games, lobby and routes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.telemetry import TelemetryConfig
from pydantic.json_schema import models_json_schema

from . import __version__, docs, errors, players
from .bodylimit import BodyLimit
from .chat_routes import router as chat_router
from .computer import Computers
from .config import Settings
from .context import SECURITY_SCHEMES, build_context, serving
from .models import LEVEL_PATTERN, ActRequest
from .routes import router
from .signin import routes as signin
from .storage import Storage

TELEMETRY_OFF: TelemetryConfig = {"tracing": False, "metrics": False, "logs": False}


def create_app(
    settings: Settings,
    *,
    storage: Storage | None = None,
    computers: Computers | None = None,
) -> FastAPI:
    """A ready-to-serve app; games are loaded (and computers resume) at start-up."""
    ctx = build_context(settings, storage=storage, computers=computers)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with serving(ctx):
            yield

    app = FastAPI(
        title="Somnium lobby server",
        version=__version__,
        description=(
            "Games of Somnium between people and computers, a lobby, observers and live "
            "server-sent events. Creating, joining and acting need a session "
            "(`Authorization: Bearer <token>`); watching does not."
        ),
        lifespan=lifespan,
        # No OpenTelemetry export is set up: skip FastAPI's per-request look for providers.
        telemetry=TELEMETRY_OFF,
        docs_url=None,  # docs.install serves /docs without a CDN
        redoc_url=None,
        routes=[*router.routes, *players.router.routes, *chat_router.routes],
    )
    app.state.ctx = ctx
    describe(app, lambda: list(ctx.games.computers.available()))
    errors.install(app)
    docs.install(app)
    signin.install(app, settings, ctx.storage)
    app.add_middleware(BodyLimit, max_body=settings.max_body)
    return app


def describe(app: FastAPI, keys: Callable[[], list[str]]) -> None:
    """The OpenAPI description, with the session scheme and the levels on offer as an enum."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title, version=app.version, description=app.description,
                routes=app.routes,
            )
            components = schema.setdefault("components", {})
            components["securitySchemes"] = SECURITY_SCHEMES
            _, read = models_json_schema(  # bodies a route reads itself (routes.read_action)
                [(ActRequest, "validation")], ref_template="#/components/schemas/{model}"
            )
            for name, part in read.get("$defs", {}).items():
                components.setdefault("schemas", {}).setdefault(name, part)
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
