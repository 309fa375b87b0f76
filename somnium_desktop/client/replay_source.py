"""A replay as a table source: the table shows a finished game at the step its replay is at."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject

from ..game.actions import Action
from ..game.view import View
from .ratings import RatingChange
from .replay import Replay
from .source import TableSource

SHOWN_ONLY = "This is a replay: nothing can be played on it."


class ReplaySource(TableSource):
    """Plays a Replay on a table, read-only. One step forward (`smooth`) is told as the events
    it caused, then its view, so the cards move as they did; any other move begins the table
    again (`started`) with the log up to that step (`history`), then the view, without
    animation. The seat of the player looking again (if any) is at the bottom and told as
    "you", but nothing can be played. `analysis`: the work that gets the game's analysis from
    its server (an online game's); an offline game's is computed from the replay's views."""

    def __init__(self, replay: Replay, *, offline: bool = False,
                 analysis: Callable[[], dict[str, Any]] | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.replay = replay
        self._offline = offline
        self._analysis = analysis

    @property
    def game_name(self) -> str:
        return f"Replay: {self.replay.name}"

    @property
    def game_id(self) -> str:
        return self.replay.game_id

    @property
    def id_label(self) -> str:
        return "Deal" if self._offline else "Game id"

    @property
    def shares_id(self) -> bool:
        return not self._offline

    @property
    def names(self) -> tuple[str, str]:
        return self.replay.names

    @property
    def my_seat(self) -> int | None:
        return self.replay.my_seat

    @property
    def read_only(self) -> bool:
        return True

    @property
    def replaying(self) -> bool:
        return True

    @property
    def claimed_from(self) -> int | None:
        return self.replay.claimed_from

    @property
    def ratings(self) -> tuple[str, str]:
        return self.replay.people.ratings

    @property
    def user_ids(self) -> tuple[str | None, str | None]:
        return self.replay.people.user_ids

    @property
    def rating_changes(self) -> tuple[RatingChange, ...] | None:
        return self.replay.people.rating_changes

    @property
    def view(self) -> View:
        return self.replay.view

    @property
    def analysable(self) -> bool:
        """Whether analysis_work() has work: offline, or its server known."""
        return self._offline or self._analysis is not None

    def analysis_work(self) -> Callable[[], dict[str, Any]] | None:
        """The replayed game's analysis: its server's, or offline the core's from the
        replay's public views (the same function as a game's end), to run off the UI thread."""
        if self._analysis is not None:
            return self._analysis
        if not self._offline:
            return None
        from ..game.analysis_data import analysed  # (lazy: it loads the expert)

        game = self.replay.public_game()
        return lambda: analysed(game)

    def act(self, action: Action) -> None:
        self.error.emit(SHOWN_ONLY)

    def rematch(self) -> None:
        self.error.emit(SHOWN_ONLY)

    def claim(self) -> None:
        self.error.emit(SHOWN_ONLY)

    def go_to(self, step: int, smooth: bool = True) -> None:
        """Show the game after `step` actions (see the class: smooth only one step on)."""
        before = self.replay.step
        after = self.replay.go_to(step)
        if after == before:
            return
        if smooth and after == before + 1:
            self.events.emit(list(self.replay.current.events))
        else:
            self.started.emit()
            earlier = self.replay.history()
            if earlier:
                self.history.emit(earlier)
        self.view_changed.emit(self.replay.view)
