"""The API's error answer (status, code, message) and its one JSON shape, without the framework."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import Response

from somnium_desktop.game import IllegalAction
from somnium_desktop.game.errors import NotAPlayer


class ApiError(Exception):
    """An error answer: status, code and message (plus extra fields and headers)."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        version: int | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.version = version
        self.headers = headers or {}


def error_body(code: str, message: str, **extra: Any) -> bytes:
    body: dict[str, Any] = {"error": code, "message": message}
    body.update({k: v for k, v in extra.items() if v is not None})
    return orjson.dumps(body)


def error_response(error: ApiError) -> Response:
    return Response(
        error_body(error.code, error.message, version=error.version),
        status_code=error.status,
        media_type="application/json",
        headers=error.headers,
    )


def illegal(error: IllegalAction) -> ApiError:
    """The engine's refusal as an answer: 403 for someone not seated, 409 for a broken rule."""
    status = 403 if isinstance(error, NotAPlayer) else 409
    return ApiError(status, error.code, str(error))
