"""The result panel's analysis: its Analysis button, the accuracy line, and the Analysis window.

When a game ends, its analysis is got off the UI thread (the server's for an online game, the
core's in process for an offline one) and the accuracy shown under the result; the button
opens the table's Analysis window (analysis_window.py), whose clicked moments open the game's
replay at that moment, then move it.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QLabel, QToolButton, QWidget

from ..client.analysis import AnalysisState, accuracy_line
from ..client.source import TableSource
from ..client.tasks import Generation, Operations
from .analysis_view import AnalysisDialog
from .analysis_window import AnalysisWindow
from .table_widgets import GameOverPanel


class ResultAnalysis(QObject):
    """The analysis block of the result panel of `table`."""

    accuracy_came = Signal(str)  # the accuracy line (or that none was found), on one line

    def __init__(self, panel: GameOverPanel, table: QWidget) -> None:
        super().__init__(table)
        self.panel = panel
        self.table = table
        self.accuracy = QLabel()
        self.accuracy.setObjectName("gameOverDetail")
        # (no accessible name: a screen reader then reads what it says, not "Accuracy")
        self.accuracy.setAccessibleDescription("The players' accuracy in this game")
        self.accuracy.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.button = QToolButton()
        self.button.setText("Analysis")
        self.button.setObjectName("tableButton")
        self.button.setAccessibleName("Analysis")
        self.button.setToolTip("Every decision of the game judged by the expert")
        self.button.clicked.connect(self.open)
        panel.box.insertWidget(2, self.accuracy)
        panel.box.addWidget(self.button, 0, Qt.AlignmentFlag.AlignHCenter)
        self.ops = Operations(self)
        self.generation = Generation()  # moves on with each source: a late answer leaves the panel
        self.state = AnalysisState.NONE
        self.data: dict[str, Any] | None = None
        self.failure = ""
        self.source: TableSource | None = None
        self.window = AnalysisWindow(table)
        self.reset()

    @property
    def dialog(self) -> AnalysisDialog | None:
        """The Analysis window, while it is open."""
        return self.window.dialog

    def reset(self) -> None:
        """A new game on the table: nothing analysed yet."""
        self.generation.move_on()
        self.state = AnalysisState.NONE
        self.data = None
        self.source = None
        self.accuracy.hide()
        self.button.hide()
        source = getattr(self.table, "source", None)
        if not self.window.keeps(source):  # (it stays open while its game's replay moves)
            self.window.close()

    def game_over(self, source: TableSource) -> None:
        """The game on the table has ended: get its analysis (once; a replay's is asked from
        its bar)."""
        if self.state is not AnalysisState.NONE or source.replaying \
                or source.analysis_work() is None:
            return
        self.source = source
        self.button.show()
        self._get()

    def _get(self) -> None:
        source = self.source
        work = source.analysis_work() if source is not None else None
        if source is None or work is None:
            return
        self.state = AnalysisState.WORKING
        self.accuracy.setText("Accuracy: analysing…")
        self.accuracy.show()
        self.panel.refit()
        stamp, game_id = self.generation.stamp(), source.game_id
        names, seat = source.names, source.my_seat

        # Late for the panel (another source is on the table), the answer still fills the
        # Analysis window of its game: kept open while that game's replay moves.
        def got(data: dict[str, Any]) -> None:
            if stamp.current:
                self._got(data)
            else:
                self.window.fill(game_id, data, names, seat)

        def failed(error: object) -> None:
            if stamp.current:
                self._failed(error)
            else:
                self.window.fail(game_id, str(error))

        self.ops.run(work, got, failed, quiet=True)

    def _got(self, data: dict[str, Any]) -> None:
        self.state = AnalysisState.READY
        self.data = data
        if self.source is not None:
            names, seat = self.source.names, self.source.my_seat
            # on two lines: the panel stays narrow (its share of the table, see table_scale)
            self.accuracy.setText(accuracy_line(data, names, seat, between="\n"))
            self.accuracy_came.emit(accuracy_line(data, names, seat))
        self.panel.refit()
        self._show_in_dialog()

    def _failed(self, error: object) -> None:
        self.state = AnalysisState.FAILED
        self.failure = str(error)
        self.accuracy.setText("Accuracy: not found")
        self.accuracy_came.emit(self.accuracy.text())
        self.panel.refit()
        if self.source is not None:
            self.window.fail(self.source.game_id, self.failure)

    def open(self) -> None:
        """Open the Analysis window (asking again if getting the analysis failed)."""
        if self.source is None:
            return
        fresh = self.window.game_id != self.source.game_id
        self.window.open(self.source.game_id, self.source.game_name)
        if self.state is AnalysisState.FAILED:
            self._get()
        if fresh:
            self._show_in_dialog()

    def _show_in_dialog(self) -> None:
        if self.data is not None and self.source is not None:
            self.window.fill(self.source.game_id, self.data, self.source.names,
                             self.source.my_seat)
