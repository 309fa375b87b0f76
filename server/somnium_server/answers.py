"""Answers the full app and the boot front (front.py) both give: health, the lobby's stream."""

from __future__ import annotations

from itertools import islice

import orjson
from starlette.responses import Response

from . import __version__
from .apierror import ApiError
from .context import ServerContext
from .events import EventStreamResponse
from .lobby import SNAPSHOT_GAMES

HEALTH = {"status": "ok", "version": __version__}


def health() -> Response:
    """Is the server up: `{"status": "ok", "version": ...}`."""
    return Response(orjson.dumps(HEALTH), media_type="application/json")


def admit(ctx: ServerContext, client: str) -> None:
    """Count a new event stream for `client`; 429 once it holds its share."""
    if not ctx.hub.admit(client):
        raise ApiError(
            429, "too_many_streams",
            f"at most {ctx.hub.max_per_client} event streams per client",
            headers={"Retry-After": "5"},
        )


def lobby_stream(
    ctx: ServerContext, client: str, last_event_id: str | None, user: str | None = None
) -> Response:
    """The live lobby for `client`: a snapshot (or the events it missed), then each change.
    Signed by `user`, it keeps them present in their games (see presence.py)."""
    admit(ctx, client)
    lobby = ctx.lobby
    subscriber = lobby.subscribe(
        last_event_id, lambda: list(islice(ctx.games.newest_first(), SNAPSHOT_GAMES))
    )
    if user is not None:
        ctx.games.attend(user)

    def closed() -> None:
        lobby.channel.subscribers.discard(subscriber)
        ctx.hub.release(client)
        if user is not None:
            ctx.games.unattend(user)

    return EventStreamResponse(ctx.hub, subscriber, closed)
