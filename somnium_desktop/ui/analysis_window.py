"""The table's Analysis window: one game's at a time, kept open while that game's replay moves.

It opens from the result panel (ResultAnalysis gives it the analysis it got) or from a replay
(its Analysis button and the key A: the replayed game's analysis is got here, off the UI
thread). A click on a moment goes to the table's `replay_go_to(step)`, which opens the game's
replay first when the table still shows the finished game; the graph marks the step shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from ..client.replay_source import ReplaySource
from ..client.source import TableSource
from ..client.tasks import Generation, Operations
from .analysis_view import AnalysisDialog


class AnalysisWindow(QObject):
    """The Analysis window of the game on `table` (or of the game its replay shows)."""

    def __init__(self, table: QWidget) -> None:
        super().__init__(table)
        self.table = table
        self.dialog: AnalysisDialog | None = None
        self.game_id: str | None = None  # the game the window is of
        self.ops = Operations(self)
        self.generation = Generation()  # moves on with each window: a late answer is dropped

    def open(self, game_id: str, title: str) -> AnalysisDialog:
        """Show the window of `game_id` (made anew if it was of another game), in front."""
        if self.dialog is None or self.game_id != game_id:
            self.close()
            self.dialog = AnalysisDialog(self.table.window(), title)
            self.game_id = game_id
            self.dialog.moment_chosen.connect(self._chosen)
        self.dialog.show()
        self.dialog.raise_()
        self.dialog.activateWindow()
        return self.dialog

    def keeps(self, source: TableSource | None) -> bool:
        """Whether the window stays with `source` on the table: its game's replay."""
        return source is not None and source.replaying and source.game_id == self.game_id

    def shows(self, source: TableSource | None) -> None:
        """`source` is on the table now: the window closes unless it keeps it."""
        if not self.keeps(source):
            self.close()

    def close(self) -> None:
        """Close the window (a new game on the table, or another game's replay)."""
        self.generation.move_on()
        if self.dialog is not None:
            self.dialog.close()
            self.dialog.deleteLater()
        self.dialog = None
        self.game_id = None

    def fill(self, game_id: str, data: dict[str, Any], names: Sequence[str],
             my_seat: int | None) -> None:
        """`game_id`'s analysis got (by its result panel): shown if the window is of that
        game, marking the step its replay shows."""
        if self.dialog is None or self.game_id != game_id:
            return
        self.dialog.view.show_analysis(data, names, my_seat)
        replay = getattr(self.table, "replay", None)  # (the table's, if it shows one)
        if replay is not None:
            self.follow(replay.step)

    def fail(self, game_id: str, message: str) -> None:
        """Getting `game_id`'s analysis failed: said if the window is of that game and has
        none."""
        if self.dialog is not None and self.game_id == game_id \
                and not self.dialog.view.graph.values:
            self.dialog.view.show_failure(message)

    def follow(self, step: int) -> None:
        """The table's replay shows `step` now: the graph marks it."""
        if self.dialog is not None:
            self.dialog.view.graph.choose(step)

    def open_replayed(self, source: ReplaySource) -> None:
        """The Analysis window of the game `source` replays (got once, then shown again)."""
        replay, work = source.replay, source.analysis_work()
        if work is None:
            return
        fresh = self.dialog is None or self.game_id != source.game_id \
            or not self.dialog.view.graph.values  # (its game's result had not got it)
        dialog = self.open(source.game_id, replay.name)
        if not fresh:
            self.follow(replay.step)
            return
        names, seat = source.names, source.my_seat

        def got(data: dict[str, Any]) -> None:
            dialog.view.show_analysis(data, names, seat)
            self.follow(replay.step)

        self.ops.run(work, got, lambda error: dialog.view.show_failure(str(error)), quiet=True,
                     owner=self.generation.stamp())

    def _chosen(self, step: int) -> None:
        go_to = getattr(self.table, "replay_go_to", None)  # the table's replay, if it has one
        if callable(go_to):
            go_to(step)
