"""The HTTP API of finished games' analyses (play/analyses.py does the work)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from somnium_server.api.errors import responses
from somnium_server.api.models import GameAnalysis, GamePath
from somnium_server.api.ratelimit import client_key
from somnium_server.context import MAYBE_SIGNED_IN, server_context, stream_user

router = APIRouter()


@router.get(
    "/games/{game_id}/analysis",
    tags=["games"],
    summary="A finished game judged by the expert: each decision, the win chance, accuracy",
    description="Every decision judged from the public view before it (docs/bots.md): the "
    "mover's chance of winning with the expert's choice (`before`) and with the action taken "
    "(`after`), what it gave away and its mark; seat 0's chance over the game (`curve`, the "
    "result last); each seat's accuracy. Computed once, then kept; computing one spends a "
    "request of the `--rate-analysis` limit (per user, or per address when not signed in): "
    "429 with Retry-After past it. 409 while the game is not finished.",
    response_model=GameAnalysis,
    responses=responses(401, 404, 409, 422, 429, 503),
    openapi_extra=MAYBE_SIGNED_IN,
)
async def game_analysis(request: Request, game_id: GamePath) -> Response:
    ctx = server_context(request)
    user = await stream_user(request)
    key = user.id if user is not None else "@" + client_key(request)
    body = await ctx.analyses.analysis(game_id, ctx.limits["analysis"], key)
    return Response(body, media_type="application/json")
