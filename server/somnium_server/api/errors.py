"""Every error the API answers: one JSON shape, declared in OpenAPI, mapped from the engine's."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.routing import Match

from somnium_server.api.apierror import ApiError as ApiError
from somnium_server.api.apierror import error_body as error_body
from somnium_server.api.apierror import error_response as error_response
from somnium_server.api.apierror import illegal as illegal
from somnium_server.storage import VersionConflict

log = logging.getLogger("somnium_server.api.errors")


class ErrorBody(BaseModel):
    """What every 4xx and 5xx answer carries."""

    error: str = Field(description="a stable machine-readable code, e.g. not_your_turn")
    message: str = Field(description="a plain sentence for people")
    version: int | None = Field(
        default=None, description="on a stale-version 409: the game's current version"
    )
    details: list[dict[str, Any]] | None = Field(
        default=None, description="on 422: which fields were wrong and why"
    )


_DESCRIPTIONS = {
    400: "The body is not JSON (e.g. not UTF-8)",
    401: "No valid session: sign in and send `Authorization: Bearer <token>`",
    403: "Not allowed for this user (e.g. not seated at this game)",
    404: "No such game",
    409: "Conflicts with the game's state: stale version, not your turn, seat taken, ...",
    413: "Request body too large",
    422: "The request does not match its schema (unknown fields, values out of bounds)",
    429: "Too many requests or open streams; retry after the `Retry-After` seconds",
    503: "The server could not do it this time; try again",
}


def responses(*statuses: int, stream: bool = False) -> dict[int | str, dict[str, Any]]:
    """OpenAPI declarations of the error answers a route can give (JSON, even on streams)."""
    declared: dict[int | str, dict[str, Any]] = {}
    for status in statuses:
        entry: dict[str, Any] = {"description": _DESCRIPTIONS[status]}
        if stream:  # "model" would be declared as the route's text/event-stream
            ref = {"$ref": "#/components/schemas/ErrorBody"}
            entry["content"] = {"application/json": {"schema": ref}}
        else:
            entry["model"] = ErrorBody
        if status == 429:
            entry["headers"] = {
                "Retry-After": {"description": "seconds to wait", "schema": {"type": "integer"}}
            }
        declared[status] = entry
    return declared


def _plain_details(error: RequestValidationError) -> list[dict[str, Any]]:
    details = []
    for item in error.errors():
        details.append(
            {
                "loc": [str(part) for part in item.get("loc", ())],
                "msg": str(item.get("msg", "")),
                "type": str(item.get("type", "")),
            }
        )
    return details


def install(app: FastAPI) -> None:
    """Make every error answer the same JSON shape."""

    @app.exception_handler(ApiError)
    async def on_api_error(request: Request, error: ApiError) -> Response:
        return error_response(error)

    @app.exception_handler(RequestValidationError)
    async def on_invalid(request: Request, error: RequestValidationError) -> Response:
        details = _plain_details(error)
        first = details[0] if details else {"loc": [], "msg": "invalid request"}
        where = ".".join(first["loc"][1:]) or "request"
        return Response(
            error_body("invalid_request", f"{where}: {first['msg']}", details=details),
            status_code=422,
            media_type="application/json",
        )

    @app.exception_handler(VersionConflict)
    async def on_conflict(request: Request, error: VersionConflict) -> Response:
        # only if something else wrote the game meanwhile (another process on the database)
        return error_response(
            ApiError(409, "stale_version", "the game changed meanwhile: fetch it and retry")
        )

    @app.exception_handler(Exception)
    async def on_unexpected(request: Request, error: Exception) -> Response:
        log.error("unexpected %s on %s %s", type(error).__name__, request.method,
                  request.url.path)
        return Response(
            error_body("internal_error", "something went wrong on the server; try again"),
            status_code=500,
            media_type="application/json",
        )

    @app.exception_handler(StarletteHTTPException)
    async def on_http(request: Request, error: StarletteHTTPException) -> Response:
        codes = {
            400: "invalid_body", 404: "not_found", 405: "method_not_allowed",
            413: "body_too_large",
        }
        headers = dict(error.headers or {})
        if error.status_code == 405:
            headers["Allow"] = ", ".join(_allowed_methods(app, request))
        return Response(
            error_body(codes.get(error.status_code, "http_error"), str(error.detail)),
            status_code=error.status_code,
            media_type="application/json",
            headers=headers,
        )


def _allowed_methods(app: FastAPI, request: Request) -> list[str]:
    """Every method some route serves at this path (Starlette names only the first route's)."""
    methods: set[str] = set()
    for route in app.router.routes:
        match, _ = route.matches({**request.scope, "method": "GET"})
        if match is not Match.NONE:
            methods |= getattr(route, "methods", None) or set()
        match, _ = route.matches({**request.scope, "method": "POST"})
        if match is not Match.NONE:
            methods |= getattr(route, "methods", None) or set()
    return sorted(methods)
