"""The HTTP API: lobby, games, actions, logs, replays and the live event streams.

Routes take the Request and read the context and session through plain calls (context.py).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from itertools import islice
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Body, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from starlette.exceptions import HTTPException
from starlette.responses import Response

from somnium_server import __version__
from somnium_server.api.apierror import ApiError
from somnium_server.api.errors import responses
from somnium_server.api.models import (
    PLAIN_DIGITS,
    ActRequest,
    ActResult,
    ComputerOpponent,
    GameDetail,
    GameEvent,
    GamePath,
    GameSummary,
    LevelInfo,
    PersonOpponent,
    Replay,
    Status,
    UserInfo,
)
from somnium_server.api.ratelimit import client_key
from somnium_server.context import (
    MAYBE_SIGNED_IN,
    SIGNED_IN,
    ServerContext,
    current_user,
    server_context,
    stream_user,
)
from somnium_server.live.events import EventStreamResponse, Subscriber
from somnium_server.play.chat import split_event_id
from somnium_server.play.games import GameService
from somnium_server.play.lobby import SNAPSHOT_GAMES
from somnium_server.play.rooms import GameRoom
from somnium_server.storage import User

router = APIRouter()
HEALTH = orjson.dumps({"status": "ok", "version": __version__})
LastEventId = Annotated[
    str | None,
    Header(alias="Last-Event-ID", max_length=64, description="resume after this event"),
]
WRITE_ERRORS = (401, 404, 409, 413, 422, 429)
STREAM: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "A text/event-stream of events (SSE); `id` is the sequence number",
        "content": {"text/event-stream": {"schema": {"type": "string"}}},
    }
}


# The action's body is read by the route itself (read_action): declared here for OpenAPI.
ACT_BODY: dict[str, Any] = {"requestBody": {"required": True, "content": {
    "application/json": {"schema": {"$ref": "#/components/schemas/ActRequest"}}
}}}


def read_action(raw: bytes, content_type: str | None) -> ActRequest:
    """The action a body holds, parsed and validated in one pass. A body refused is judged
    again as FastAPI judges a body parameter, for the same answer: 422 with the same details
    (400 for a body that is no text)."""
    if raw and _is_json(content_type):
        try:
            return ActRequest.model_validate_json(raw)
        except ValidationError:
            pass
    if not raw:
        raise RequestValidationError(
            [{"type": "missing", "loc": ("body",), "msg": "Field required", "input": None}]
        )
    data: Any = raw
    if _is_json(content_type):
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as error:
            raise RequestValidationError([{
                "type": "json_invalid", "loc": ("body", error.pos), "msg": "JSON decode error",
                "input": {}, "ctx": {"error": error.msg},
            }]) from None
        except ValueError:
            raise HTTPException(400, "There was an error parsing the body") from None
    try:
        return ActRequest.model_validate(data, from_attributes=True)
    except ValidationError as error:
        raise RequestValidationError(
            [{**item, "loc": ("body", *item["loc"])} for item in error.errors()]
        ) from None


def _is_json(content_type: str | None) -> bool:
    if not content_type:
        return False
    media = content_type.partition(";")[0].strip().lower()
    kind, _, subtype = media.partition("/")
    return kind == "application" and (subtype == "json" or subtype.endswith("+json"))


def _json(body: bytes, status: int = 200) -> Response:
    return Response(body, status_code=status, media_type="application/json")


async def _change_table(
    request: Request,
    game_id: str,
    change: Callable[[GameService, User, str], Awaitable[GameRoom]],
    *limits: str,
) -> Response:
    """Join, leave or ask for a rematch: signed in, rate-limited (`join`, and `limits`),
    answered with the game."""
    ctx, user = server_context(request), await current_user(request)
    for kind in ("join", *limits):
        await ctx.limits[kind].check(user.id)
    room = await change(ctx.games, user, game_id)
    return _json(room.detail_bytes())


@router.get("/health", tags=["server"], summary="Is the server up?",
            response_model=dict[str, str])
async def health() -> Response:
    return _json(HEALTH)


@router.get("/levels", tags=["server"], summary="The computer levels on offer, weakest first")
async def get_levels(request: Request) -> list[LevelInfo]:
    offered = server_context(request).games.computers.available()
    return [LevelInfo(key=key, label=label) for key, label in offered.items()]


@router.get(
    "/me", tags=["users"], summary="Who this session signs in as", responses=responses(401),
    openapi_extra=SIGNED_IN,
)
async def me(request: Request) -> UserInfo:
    user = await current_user(request)
    return UserInfo(id=user.id, display_name=user.display_name)


@router.get(
    "/games", tags=["lobby"], summary="The lobby: games, newest first", responses=responses(422)
)
async def list_games(
    request: Request,
    status: Annotated[Status | None, Query(description="only games in this state")] = None,
    player: Annotated[
        str | None,
        Query(min_length=1, max_length=64, description="only games with this player (id or name)"),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=200), PLAIN_DIGITS] = 50,
) -> list[GameSummary]:
    chosen = server_context(request).games.lines(status, player, limit)
    return [GameSummary.model_validate(summary) for summary in chosen]


@router.post(
    "/games",
    tags=["games"],
    summary="Open a table; you take seat 0",
    status_code=201,
    response_model=GameDetail,
    responses=responses(400, 401, 413, 422, 429),
    openapi_extra=SIGNED_IN,
)
async def create_game(
    request: Request,
    body: Annotated[PersonOpponent | ComputerOpponent, Body(discriminator="opponent")],
) -> Response:
    ctx, user = server_context(request), await current_user(request)
    await ctx.limits["create"].check(user.id)
    room = await ctx.games.create(user, body)
    return _json(room.detail_bytes(), 201)


@router.get(
    "/games/{game_id}",
    tags=["games"],
    summary="A game's public state (anyone may watch)",
    response_model=GameDetail,
    responses=responses(404, 422),
)
async def get_game(request: Request, game_id: GamePath) -> Response:
    room = await server_context(request).games.find_whole(game_id, fresh=True)
    return _json(room.detail_bytes())


@router.post(
    "/games/{game_id}/join",
    tags=["games"],
    summary="Take the open seat; the game starts when both seats are taken",
    response_model=GameDetail,
    responses=responses(*WRITE_ERRORS),
    openapi_extra=SIGNED_IN,
)
async def join_game(request: Request, game_id: GamePath) -> Response:
    return await _change_table(request, game_id, GameService.join)


@router.post(
    "/games/{game_id}/leave",
    tags=["games"],
    summary="Leave before the game starts (the host leaving closes the table)",
    response_model=GameDetail,
    responses=responses(403, *WRITE_ERRORS),
    openapi_extra=SIGNED_IN,
)
async def leave_game(request: Request, game_id: GamePath) -> Response:
    return await _change_table(request, game_id, GameService.leave)


@router.post(
    "/games/{game_id}/actions",
    tags=["games"],
    summary="Draw, end the turn, steal or concede",
    response_model=ActResult,
    responses=responses(400, 403, *WRITE_ERRORS),
    openapi_extra={**SIGNED_IN, **ACT_BODY},
)
async def act(request: Request, game_id: GamePath) -> Response:
    body = read_action(await request.body(), request.headers.get("content-type"))
    ctx, user = server_context(request), await current_user(request)
    await ctx.limits["act"].check(user.id)
    return _json(await ctx.games.act(user, game_id, body))


@router.post(
    "/games/{game_id}/rematch",
    tags=["games"],
    summary="Ask for a rematch; when both players asked, a new game opens",
    response_model=GameDetail,
    responses=responses(403, *WRITE_ERRORS),
    openapi_extra=SIGNED_IN,
)
async def rematch(request: Request, game_id: GamePath) -> Response:
    # (a create too: against the computer the ask opens the new game at once)
    return await _change_table(request, game_id, GameService.rematch, "create")


@router.post(
    "/games/{game_id}/claim",
    tags=["games"],
    summary="Claim the win from an opponent who left the table and stayed away",
    description="The opponent has had no event stream open for the server's claim time (two "
    "minutes by default; see the game's `presence`): the game is conceded for them. 409 "
    "`opponent_here` or `too_early` (with Retry-After) otherwise.",
    response_model=GameDetail,
    responses=responses(403, *WRITE_ERRORS),
    openapi_extra=SIGNED_IN,
)
async def claim(request: Request, game_id: GamePath) -> Response:
    return await _change_table(request, game_id, GameService.claim)


@router.get(
    "/games/{game_id}/log",
    tags=["games"],
    summary="Every event of the game so far",
    response_model=list[GameEvent],
    responses=responses(404, 422),
)
async def game_log(request: Request, game_id: GamePath) -> Response:
    return _json(await server_context(request).games.log(game_id))


@router.get(
    "/games/{game_id}/replay",
    tags=["games"],
    summary="A finished game step by step: the public view after each action",
    response_model=Replay,
    responses=responses(404, 409, 422),
)
async def replay(request: Request, game_id: GamePath) -> Response:
    return _json(await server_context(request).games.replay(game_id))




def _stream(
    request: Request, subscribe: Callable[[], tuple[Subscriber, Callable[[], None]]]
) -> Response:
    """An event stream for the request's address, within its share of streams (else 429).

    `subscribe` makes the stream's Subscriber and the function that undoes it. The slot is
    taken last and given back on every way out: if `subscribe` fails, or when the stream ends.
    """
    ctx = server_context(request)
    client = client_key(request)
    if not ctx.hub.admit(client):
        raise ApiError(
            429, "too_many_streams", f"at most {ctx.hub.max_per_client} event streams per client",
            headers={"Retry-After": "5"},
        )
    try:
        subscriber, unsubscribe = subscribe()
    except BaseException:
        ctx.hub.release(client)
        raise

    def closed() -> None:
        unsubscribe()
        ctx.hub.release(client)

    return EventStreamResponse(ctx.hub, subscriber, closed)


@router.get(
    "/games/{game_id}/events",
    tags=["streams"],
    summary="Live events of a game (server-sent events); Last-Event-ID resumes",
    description="A Last-Event-ID that names no event of this game's recent history (unknown, "
    "too old, or not a number) is answered with a fresh snapshot. Chat messages come as "
    "`chat` events numbered `<game seq>.<message id>` (see POST /games/{game_id}/chat): a "
    "stream resuming after one is sent the messages written since; without a Last-Event-ID "
    "it starts with the last 50. A signed stream leaves out the users its signer blocked.",
    response_class=EventStreamResponse,
    status_code=200,
    responses={**STREAM, **responses(401, 404, 422, 429, stream=True)},
    openapi_extra=MAYBE_SIGNED_IN,
)
async def game_events(
    request: Request, game_id: GamePath, last_event_id: LastEventId = None
) -> Response:
    ctx = server_context(request)
    games, chat = ctx.games, ctx.chat
    room = await games.find(game_id, fresh=True)  # resumes from the stored events
    user = await stream_user(request)  # (a seated player's own stream is no observer)
    user_id = user.id if user is not None else None
    said, mark = await chat.missed(room, last_event_id, user_id)
    await games.ensure_history(room)  # (last: a finished game's may be let go at the next await)

    def subscribe() -> tuple[Subscriber, Callable[[], None]]:
        subscriber = games.watch(room, split_event_id(last_event_id)[0], user_id)
        chat.join(room, subscriber, user_id, said, mark)

        def unsubscribe() -> None:
            chat.leave(room, subscriber)
            games.unwatch(room, subscriber, user_id)

        return subscriber, unsubscribe

    return _stream(request, subscribe)


@router.get(
    "/lobby/events",
    tags=["streams"],
    summary="Live lobby events: games created, seats taken, games finished, observers",
    description="A Last-Event-ID that names no recent lobby event is answered with a fresh "
    "snapshot.",
    response_class=EventStreamResponse,
    status_code=200,
    responses={**STREAM, **responses(401, 422, 429, stream=True)},
    openapi_extra=MAYBE_SIGNED_IN,
)
async def lobby_events(request: Request, last_event_id: LastEventId = None) -> Response:
    ctx = server_context(request)
    user = await stream_user(request)  # signed: present in every game of theirs
    user_id = user.id if user is not None else None
    return _stream(request, lambda: lobby_subscription(ctx, last_event_id, user_id))


def lobby_subscription(
    ctx: ServerContext, last_event_id: str | None, user: str | None
) -> tuple[Subscriber, Callable[[], None]]:
    """A lobby stream's Subscriber (a snapshot or the events it missed, then each change) and
    what ends it. Signed by `user`, it keeps them present in their games (see live/presence.py)."""
    lobby, games = ctx.lobby, ctx.games
    subscriber = lobby.subscribe(
        last_event_id, lambda: list(islice(games.newest_first(), SNAPSHOT_GAMES))
    )
    if user is not None:
        games.attend(user)

    def unsubscribe() -> None:
        lobby.channel.discard(subscriber)
        if user is not None:
            games.unattend(user)

    return subscriber, unsubscribe
