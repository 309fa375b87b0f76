"""What every route reaches: the settings, storage, games, lobby, streams and rate limits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

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


def context(request: Request) -> ServerContext:
    ctx: ServerContext = request.app.state.ctx
    return ctx


bearer = HTTPBearer(auto_error=False, description="a session token from sign-in")
Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]


async def optional_user(
    request: Request, credentials: Credentials
) -> User | None:
    """The signed-in user, or None (watching needs no session)."""
    if credentials is None:
        return None
    return await user_for_token(context(request).storage, credentials.credentials)


async def current_user(
    request: Request, credentials: Credentials
) -> User:
    """The signed-in user; 401 without a valid, unexpired session."""
    if credentials is None:
        raise ApiError(
            401, "no_session", "sign in first: send Authorization: Bearer <token>",
            headers={"WWW-Authenticate": "Bearer"},
        )
    user = await user_for_token(context(request).storage, credentials.credentials)
    if user is None:
        raise ApiError(
            401, "invalid_session", "the session is unknown or has expired: sign in again",
            headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
        )
    return user
