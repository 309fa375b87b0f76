"""What a right-click on a lobby line offers: watch or play the game, join it, replay it once
finished, players' pages."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..client.lobby_records import GameSummary

OPEN = "open"  # watch the game (or, at one's own table, play it)
JOIN = "join"  # take the open seat
PLAYER = "player"  # open a person's page
REPLAY = "replay"  # replay a finished game (a click on its result)


def line_choices(game: GameSummary, me: str | None, live: bool) -> list[tuple[str, str, str]]:
    """The menu of a lobby line: (label, what, game or user id), in the menu's order."""
    mine = game.seat_of(me) is not None
    choices = [(f"{'Play' if mine else 'Watch'} “{game.name}”", OPEN, game.id)]
    if live and game.open_seat() is not None and not mine and not game.host_away:
        choices.append(("Join (take the open seat)", JOIN, game.id))
    if game.status == "finished":
        choices.append((f"Replay “{game.name}”", REPLAY, game.id))
    for seat in game.players:
        if seat.kind == "person" and seat.user_id:
            choices.append((f"{seat.label}'s page", PLAYER, seat.user_id))
    return choices
