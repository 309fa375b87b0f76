"""What every route reaches: the settings, storage, games, lobby, streams and rate limits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import Request

from .config import Settings
from .errors import ApiError
from .events import StreamHub
from .games import GameService
from .lobby import Lobby
from .ratelimit import RateLimiter
from .sessions import user_for_token
from .storage import Storage, User


@dataclass
class ServerContext:
    settings: Settings
    storage: Storage
    hub: StreamHub
    lobby: Lobby
    games: GameService
    limits: dict[str, RateLimiter]


def server_context(request: Request) -> ServerContext:
    ctx: ServerContext = request.app.state.ctx
    return ctx


# Routes read the session themselves (no Depends): FastAPI's dependency solver cost a busy
# player's every action more than the game itself. OpenAPI learns of it from these:
SECURITY_SCHEMES: dict[str, Any] = {
    "bearer": {"type": "http", "scheme": "bearer", "description": "a session token from sign-in"}
}
SIGNED_IN: dict[str, Any] = {"security": [{"bearer": []}]}
MAYBE_SIGNED_IN: dict[str, Any] = {"security": [{}, {"bearer": []}]}


def bearer(authorization: str) -> str | None:
    """The token of an `Authorization: Bearer <token>` header's value, if any."""
    scheme, _, token = authorization.partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def bearer_token(request: Request) -> str | None:
    """The bearer token the request carries, if any."""
    return bearer(request.headers.get("authorization", ""))


async def optional_user(request: Request) -> User | None:
    """The signed-in user, or None (watching needs no session)."""
    token = bearer_token(request)
    if token is None:
        return None
    return await user_for_token(server_context(request).storage, token)


async def current_user(request: Request) -> User:
    """The signed-in user; 401 without a valid, unexpired session. Usable with Depends too."""
    return await signed_in(server_context(request).storage, bearer_token(request))


async def signed_in(storage: Storage, token: str | None) -> User:
    """The user `token` signs in as; 401 without a valid, unexpired session."""
    if token is None:
        raise ApiError(
            401, "no_session", "sign in first: send Authorization: Bearer <token>",
            headers={"WWW-Authenticate": "Bearer"},
        )
    user = await user_for_token(storage, token)
    if user is None:
        raise ApiError(
            401, "invalid_session", "the session is unknown or has expired: sign in again",
            headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
        )
    return user
