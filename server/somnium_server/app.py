"""The application factory: create_app(settings) wires storage, games, lobby and routes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.telemetry import TelemetryConfig
from pydantic.json_schema import models_json_schema

from somnium_server import __version__
from somnium_server.api import docs, errors, players
from somnium_server.api.analysis_routes import router as analysis_router
from somnium_server.api.bodylimit import BodyLimit
from somnium_server.api.chat_routes import router as chat_router
from somnium_server.api.models import LEVEL_PATTERN, ActRequest
from somnium_server.api.routes import router
from somnium_server.config import Settings
from somnium_server.context import SECURITY_SCHEMES, build_context, serving
from somnium_server.play.computer import Computers
from somnium_server.signin import routes as signin
from somnium_server.storage import Storage

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
        routes=[*router.routes, *players.router.routes, *chat_router.routes,
                *analysis_router.routes],
    )
    app.state.ctx = ctx
    describe(app, lambda: list(ctx.games.computers.available()), settings.clock_min)
    errors.install(app)
    docs.install(app)
    signin.install(app, settings, ctx.storage)
    app.add_middleware(BodyLimit, max_body=settings.max_body)
    return app


def describe(app: FastAPI, keys: Callable[[], list[str]], clock_min: int = 1) -> None:
    """The OpenAPI description, with the session scheme, the levels on offer as an enum and
    this server's shortest move clock."""

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
            _shortest_clock(schema, clock_min)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _shortest_clock(schema: dict[str, Any], seconds: int) -> None:
    """A time control asked for at Create is at least the server's `clock_min` seconds."""
    for model in schema.get("components", {}).get("schemas", {}).values():
        field = model.get("properties", {}).get("move_seconds", {})
        for choice in field.get("anyOf", [field]):
            if "minimum" in choice:
                choice["minimum"] = seconds


def _enumerate(node: Any, offered: list[str]) -> None:
    if isinstance(node, dict):
        if node.get("pattern") == LEVEL_PATTERN:
            node["enum"] = offered
        for value in node.values():
            _enumerate(value, offered)
    elif isinstance(node, list):
        for value in node:
            _enumerate(value, offered)
