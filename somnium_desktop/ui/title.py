"""The window's title: how the game on the table stands ("Your turn, 33 to 25 — Somnium")."""

from __future__ import annotations

from ..client.source import TableSource
from ..game.view import View

APP = "Somnium"
SEPARATOR = " — "


def window_title(source: TableSource | None, view: View | None) -> str:
    """The game as the taskbar shows it, the player's own score first; the app's name ends
    it (so Qt, which appends the display name to a title not ending with it, adds nothing)."""
    if source is None or view is None:
        return APP
    names, scores, seat = source.names, view.scores, source.my_seat
    if seat is None or source.read_only:
        score = f"{names[0]} {scores[0]}, {names[1]} {scores[1]}"
        if view.over:
            winner = "a draw" if view.winner is None else f"{names[view.winner]} won"
            return f"Watched: {winner}, {score}{SEPARATOR}{APP}"
        return f"Watching: {names[view.turn]}'s turn, {score}{SEPARATOR}{APP}"
    mine, theirs = scores[seat], scores[1 - seat]
    if view.over:
        if view.winner is None:
            said = "A draw"
        elif view.winner == seat:
            said = "You won"
        else:
            said = "You lost"
        return f"{said}, {mine} to {theirs}{SEPARATOR}{APP}"
    whose = "Your" if view.turn == seat else f"{names[view.turn]}'s"
    return f"{whose} turn, {mine} to {theirs}{SEPARATOR}{APP}"
