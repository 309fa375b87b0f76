"""Player pages and the leaderboard: ratings, their history and each player's games."""

from __future__ import annotations

from itertools import islice
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request

from somnium_server.api.apierror import ApiError
from somnium_server.api.errors import responses
from somnium_server.api.models import (
    PLAIN_DIGITS,
    Leaderboard,
    LeaderboardLine,
    PlayerPage,
    RatingPoint,
    RecentGame,
    SeatRating,
)
from somnium_server.context import server_context
from somnium_server.play.ratings import LEADERBOARD_GAMES, Rating

router = APIRouter()

HISTORY_LENGTH = 50  # rated games in a player's history
RECENT_GAMES = 20  # games of any kind on a player's page

UserPath = Annotated[str, Path(
    min_length=1, max_length=64, pattern=r"^[^\x00-\x1f\x7f]+$",  # (no control characters)
    description="the player's user id",
)]


@router.get(
    "/players/{user_id}", tags=["players"], summary="A player: rating, its history, games",
    responses=responses(404, 422),
)
async def player_page(request: Request, user_id: UserPath) -> PlayerPage:
    ctx = server_context(request)
    user = await ctx.storage.get_user(user_id)
    if user is None:
        raise ApiError(404, "no_such_player", f"no player {user_id!r}")
    rating = (await ctx.storage.get_ratings([user.id])).get(user.id, Rating())
    history = await ctx.storage.rating_history(user.id, HISTORY_LENGTH)
    recent = list(islice(ctx.games.games_of(user.id), RECENT_GAMES))
    # accuracy: of the games analysed so far (an analysis is computed when first asked for)
    analysed = await ctx.storage.accuracies([s["id"] for s in recent if s["status"] == "finished"])
    return PlayerPage(
        id=user.id, name=user.display_name, rating=SeatRating.model_validate(rating.public()),
        played=rating.games, won=rating.won, lost=rating.lost, drawn=rating.drawn,
        history=[
            RatingPoint(game_id=c.game_id, score=c.score, before=round(c.before),
                        after=round(c.after), finished_at=c.finished_at)
            for c in history
        ],
        recent=[RecentGame.model_validate({**summary, "accuracy": accuracy_of(
            analysed.get(summary["id"]), summary, user.id)}) for summary in recent],
    )


def accuracy_of(
    found: tuple[float | None, float | None] | None, summary: dict[str, Any], user_id: str
) -> float | None:
    """The player's accuracy in a game analysed (`found`, by seat), else None."""
    seats = [p["user_id"] for p in summary["players"]]
    if found is None or user_id not in seats:
        return None
    return found[seats.index(user_id)]


@router.get(
    "/leaderboard", tags=["players"],
    summary=f"The best rated players with at least {LEADERBOARD_GAMES} rated games",
    responses=responses(422),
)
async def leaderboard(
    request: Request, limit: Annotated[int, Query(ge=1, le=200), PLAIN_DIGITS] = 50
) -> Leaderboard:
    ctx = server_context(request)
    best = await ctx.storage.leaderboard(limit, LEADERBOARD_GAMES)
    users = await ctx.storage.get_users([user_id for user_id, _ in best])
    return Leaderboard(min_games=LEADERBOARD_GAMES, players=[
        LeaderboardLine(
            rank=rank, id=user_id, name=users[user_id].display_name if user_id in users else "?",
            rating=SeatRating.model_validate(rating.public()), played=rating.games,
        )
        for rank, (user_id, rating) in enumerate(best, 1)
    ])
