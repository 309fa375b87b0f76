"""What every route reaches: the settings, storage, games, lobby, streams and rate limits."""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request  # FastAPI's, read at run time by its dependencies

from somnium_server.api.apierror import ApiError
from somnium_server.api.ratelimit import RateLimiter, buckets_for
from somnium_server.config import Settings
from somnium_server.live.events import StreamHub
from somnium_server.live.presence import Timing
from somnium_server.play.analyses import AnalysisService
from somnium_server.play.chat import ChatService
from somnium_server.play.clocks import sweep_clocks
from somnium_server.play.computer import Computers
from somnium_server.play.games import GameService
from somnium_server.play.lobby import Lobby
from somnium_server.signin.config import check_local_accounts
from somnium_server.signin.refused import RefusedTokens
from somnium_server.signin.sessions import sweep, user_for_token
from somnium_server.storage import Storage, User
from somnium_server.storage.backend import open_storage


@dataclass
class ServerContext:
    settings: Settings
    storage: Storage
    hub: StreamHub
    lobby: Lobby
    games: GameService
    limits: dict[str, RateLimiter]
    chat: ChatService
    analyses: AnalysisService
    refused: RefusedTokens = field(default_factory=RefusedTokens)  # tokens lately unknown


def build_context(
    settings: Settings,
    *,
    storage: Storage | None = None,
    computers: Computers | None = None,
) -> ServerContext:
    """Storage, streams, lobby, games and rate limits for `settings` (games load in `serving`)."""
    check_local_accounts(settings.local_accounts, settings.host, settings.public_url)
    store: Storage = storage if storage is not None else open_storage(settings)
    hub = StreamHub(settings.keepalive, settings.max_streams)
    lobby = Lobby(settings.event_window, store.lobby_log())
    games = GameService(
        store, lobby, hub, computers or Computers(),
        event_window=settings.event_window,
        computer_pause=settings.computer_pause,
        observer_flush=settings.observer_flush,
        timing=Timing(settings.away_after, settings.claim_after),
        clock_min=settings.clock_min,
    )
    lobby.ready = games.have
    buckets = buckets_for(store)
    return ServerContext(
        settings=settings, storage=store, hub=hub, lobby=lobby, games=games,
        limits={
            "create": RateLimiter("create", settings.rate_create, buckets),
            "join": RateLimiter("join", settings.rate_join, buckets),
            "act": RateLimiter("act", settings.rate_act, buckets),
            "chat": RateLimiter("chat", settings.rate_chat, buckets),
            "block": RateLimiter("block", settings.rate_join, buckets),
            "analysis": RateLimiter("analysis", settings.rate_analysis, buckets),
        },
        chat=ChatService(store, games),
        analyses=AnalysisService(store, games),
    )


@contextlib.asynccontextmanager
async def serving(ctx: ServerContext) -> AsyncIterator[None]:
    """The server's life: games loaded (computers resume), streams ticking, old sessions
    swept, clocks run out judged, other instances' changes followed; at the end every stream
    closed and the storage shut."""
    await ctx.lobby.open()
    await ctx.games.load()
    ctx.hub.start()
    loop = asyncio.get_running_loop()
    sweeper = loop.create_task(sweep(ctx.storage))
    follower = loop.create_task(ctx.storage.follow_games(ctx.games))
    heartbeat = loop.create_task(ctx.games.heartbeat())
    seen = loop.create_task(ctx.games.keep_seen())
    clocks = loop.create_task(sweep_clocks(ctx.games, ctx.settings.clock_sweep))
    # what this instance had not stored in the lobby when it stopped (shared only)
    restating = loop.create_task(ctx.games.restate_lobby(math.inf))
    try:
        yield
    finally:
        for task in (sweeper, follower, heartbeat, seen, clocks, restating):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await ctx.hub.stop()
        ctx.analyses.stop()
        await ctx.games.stop()
        await ctx.lobby.stop()
        await ctx.storage.close()


def context_of(app: object) -> ServerContext | None:
    """The context an app serves (its `state.ctx`), if any."""
    ctx = getattr(getattr(app, "state", None), "ctx", None)
    return ctx if isinstance(ctx, ServerContext) else None


def server_context(request: Request) -> ServerContext:
    ctx: ServerContext = request.app.state.ctx
    return ctx


# Routes read the session themselves (current_user, stream_user); OpenAPI learns of it from these:
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


async def stream_user(request: Request) -> User | None:
    """Who signed an event stream: None without a token (watching needs no session), 401 with
    a token that is unknown or expired (so the app signs in afresh rather than going on as
    nobody, which would show its player away)."""
    token = bearer_token(request)
    if token is None:
        return None
    return await signed_in(server_context(request), token)


async def current_user(request: Request) -> User:
    """The signed-in user; 401 without a valid, unexpired session. Usable with Depends too."""
    return await signed_in(server_context(request), bearer_token(request))


async def signed_in(ctx: ServerContext, token: str | None) -> User:
    """The user `token` signs in as; 401 without a valid, unexpired session."""
    if token is None:
        raise ApiError(
            401, "no_session", "sign in first: send Authorization: Bearer <token>",
            headers={"WWW-Authenticate": "Bearer"},
        )
    user = await user_for_token(ctx.storage, token, ctx.refused)
    if user is None:
        raise ApiError(
            401, "invalid_session", "the session is unknown or has expired: sign in again",
            headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
        )
    return user
