"""A base for test game sources: a named game over an engine state, seen from one seat."""

from __future__ import annotations

from somnium_desktop.client.source import TableSource
from somnium_desktop.game import GameState, View, view_of


class StateSource(TableSource):
    """Shows `state` as seat `seat` (None: watching) of a game between Ada and Bea."""

    def __init__(self, state: GameState, seat: int | None, name: str, game_id: str) -> None:
        super().__init__()
        self.state = state
        self._seat = seat
        self._name = name
        self._id = game_id

    @property
    def game_name(self) -> str:
        return self._name

    @property
    def game_id(self) -> str:
        return self._id

    @property
    def names(self) -> tuple[str, str]:
        return ("Ada", "Bea")

    @property
    def my_seat(self) -> int | None:
        return self._seat

    @property
    def view(self) -> View:
        return view_of(self.state)
