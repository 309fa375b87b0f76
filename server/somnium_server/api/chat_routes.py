"""The HTTP API of chat at the table and of blocking users (play/chat.py does the work)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from somnium_server.api.errors import responses
from somnium_server.api.models import PLAIN_DIGITS, GamePath, UserInfo
from somnium_server.context import (
    MAYBE_SIGNED_IN,
    SIGNED_IN,
    current_user,
    server_context,
    stream_user,
)
from somnium_server.play.chat import LONGEST, message_dict
from somnium_server.play.names import VISIBLE_NAME

router = APIRouter()
UserPath = Annotated[str, Path(pattern=r"^[0-9a-f]{1,64}$", description="the user's id")]
PAGE_CHAT = 200  # messages GET .../chat answers unless asked for fewer or more
MOST_CHAT = 500  # ... at most


class ChatRequest(BaseModel):
    """A message to write at the table (plain text)."""

    text: str = Field(
        max_length=LONGEST, pattern=VISIBLE_NAME,
        description="plain text: no control characters, one visible character at least; "
        "format characters (bidi overrides, zero-width joiners) are dropped and runs of white "
        "space made one",
    )


class ChatLine(BaseModel):
    """One chat message: who wrote it, as a player or a watcher, and when."""

    id: int
    user_id: str
    name: str
    role: str = Field(description="player or watcher")
    text: str
    at: float


@router.post(
    "/games/{game_id}/chat",
    tags=["chat"],
    summary="Write a chat message at the table (players and signed-in watchers)",
    description="Streamed to the game's listeners as a `chat` event, numbered "
    "`<game seq>.<message id>`; never changes the game's version. 422 when empty, longer than "
    "500 characters or holding control characters; 429 past the chat rate limit.",
    status_code=201,
    responses=responses(400, 401, 404, 413, 422, 429),
    openapi_extra=SIGNED_IN,
)
async def post_chat(request: Request, game_id: GamePath, body: ChatRequest) -> ChatLine:
    ctx, user = server_context(request), await current_user(request)
    await ctx.limits["chat"].check(user.id)
    message = await ctx.chat.post(user, game_id, body.text)
    return ChatLine(**message_dict(message))


@router.get(
    "/games/{game_id}/chat",
    tags=["chat"],
    summary="The game's newest chat messages, oldest first (signed in: without the users "
            "you blocked); `before` pages back",
    responses=responses(401, 404, 422),
    openapi_extra=MAYBE_SIGNED_IN,
)
async def get_chat(
    request: Request, game_id: GamePath,
    limit: Annotated[int, Query(ge=1, le=MOST_CHAT, description="the newest this many"),
                     PLAIN_DIGITS] = PAGE_CHAT,
    before: Annotated[int | None, Query(ge=1, le=999_999_999,
                                        description="only messages before this id"),
                      PLAIN_DIGITS] = None,
) -> list[ChatLine]:
    user = await stream_user(request)
    found = await server_context(request).chat.history(
        game_id, user.id if user is not None else None, limit, before
    )
    return [ChatLine(**message_dict(m)) for m in found]


@router.get(
    "/me/blocks", tags=["users"], summary="The users you blocked",
    responses=responses(401), openapi_extra=SIGNED_IN,
)
async def get_blocks(request: Request) -> list[UserInfo]:
    user = await current_user(request)
    found = await server_context(request).chat.blocked(user)
    return [UserInfo(id=u.id, display_name=u.display_name) for u in found]


@router.post(
    "/me/blocks/{user_id}", tags=["users"],
    summary="Block a user: their chat messages no longer reach you, anywhere",
    status_code=204, responses=responses(401, 403, 404, 413, 422, 429), openapi_extra=SIGNED_IN,
)
async def block(request: Request, user_id: UserPath) -> Response:
    ctx, user = server_context(request), await current_user(request)
    await ctx.limits["block"].check(user.id)
    await ctx.chat.block(user, user_id)
    return Response(status_code=204)


@router.delete(
    "/me/blocks/{user_id}", tags=["users"], summary="Unblock a user",
    status_code=204, responses=responses(401, 422, 429), openapi_extra=SIGNED_IN,
)
async def unblock(request: Request, user_id: UserPath) -> Response:
    ctx, user = server_context(request), await current_user(request)
    await ctx.limits["block"].check(user.id)
    await ctx.chat.unblock(user, user_id)
    return Response(status_code=204)
