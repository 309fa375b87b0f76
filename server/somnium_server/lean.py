"""A leaner route for the busiest endpoints (an action, a game's state).

FastAPI documents the route from the endpoint's signature as usual; only the handler differs:
pydantic validates the path parameters and the JSON body directly and the endpoint runs,
without FastAPI's general parameter machinery (which cost an action more than the game did).
Errors come out exactly as FastAPI's (RequestValidationError, answered as 422).
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from pydantic import TypeAdapter, ValidationError
from starlette.requests import Request
from starlette.responses import Response


def _located(error: ValidationError, *prefix: str | int) -> list[dict[str, Any]]:
    return [{**e, "loc": (*prefix, *e["loc"])} for e in error.errors(include_url=False)]


class LeanRoute(APIRoute):
    """For endpoints taking only the Request, path parameters and at most one JSON body."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        endpoint = self.endpoint
        hints = typing.get_type_hints(endpoint, include_extras=True)
        request_name: str | None = None
        path: dict[str, TypeAdapter[Any]] = {}
        body: tuple[str, TypeAdapter[Any]] | None = None
        for name in inspect.signature(endpoint).parameters:
            hint = hints[name]
            if hint is Request:
                request_name = name
            elif name in self.param_convertors:
                path[name] = TypeAdapter(hint)
            elif body is None:
                body = (name, TypeAdapter(hint))
            else:
                raise TypeError(f"{self.path}: a lean route takes one body, not {name!r} too")

        async def handler(request: Request) -> Response:
            values: dict[str, Any] = {}
            errors: list[dict[str, Any]] = []
            if request_name is not None:
                values[request_name] = request
            for name, adapter in path.items():
                try:
                    values[name] = adapter.validate_python(request.path_params[name])
                except ValidationError as error:
                    errors += _located(error, "path", name)
            if body is not None:
                name, adapter = body
                try:
                    values[name] = adapter.validate_json(await request.body())
                except ValidationError as error:
                    errors += _located(error, "body")
            if errors:
                raise RequestValidationError(errors)
            response = await endpoint(**values)
            if not isinstance(response, Response):
                raise TypeError(f"{self.path}: a lean endpoint returns a Response")
            return response

        return handler
