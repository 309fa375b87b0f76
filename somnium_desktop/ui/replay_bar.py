"""The table's replay mode: its bar (start, back, the move, forward, end, analysis, leave) and
keys."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QSize, Qt, Signal
from PySide6.QtGui import QAction, QResizeEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QWidget

from ..client.lifecycles import TablePhase
from ..client.replay import Replay
from ..client.replay_source import ReplaySource
from .table_widgets import TableButton, table_action

if TYPE_CHECKING:
    from .table import TableWidget

# Its buttons' words on a narrow table (a small window): the arrows alone; each button's tool
# tip and accessible name still say what it does.
BRIEF = {"« Start": "«", "◀ Back": "◀", "Forward ▶": "▶", "End »": "»", "Leave replay": "Leave"}


class ReplayBar(QFrame):
    """A row under the table while it shows a replay: buttons for its actions and the move
    shown ("Move 12 of 57"). Narrower than its buttons' words, they say less (BRIEF), so the
    bar never widens the window."""

    def __init__(self, actions: list[QAction], leave: QAction, analysis: QAction,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("controls")  # (the look of the table's row of buttons)
        self.row = layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(8)
        self.buttons: list[QToolButton] = []
        self.position = QLabel()
        self.position.setObjectName("replayMove")
        self.position.setAlignment(Qt.AlignmentFlag.AlignCenter)
        widest = self.position.fontMetrics().horizontalAdvance("Move 000 of 000")
        self.position.setMinimumWidth(widest)
        for index, action in enumerate(actions):
            if index == 2:
                layout.addWidget(self.position)
            layout.addWidget(self._button(action))
        layout.addStretch(1)
        self.analysis_button = self._button(analysis)
        layout.addWidget(self.analysis_button)
        self.leave_button = self._button(leave)
        layout.addWidget(self.leave_button)
        self.brief = False  # the buttons say BRIEF's words
        self.widths = (0, 0)  # the least width with the whole words, with the brief ones

    def _say(self, brief: bool) -> None:
        self.brief = brief
        for button in self.buttons:
            action = button.defaultAction()
            if action.text() in BRIEF:
                action.setIconText(BRIEF[action.text()] if brief else action.text())
                button.setProperty("brief", brief)  # (the style's narrower button)
                button.style().unpolish(button)
                button.style().polish(button)
                button.setMinimumWidth(button.sizeHint().width())

    def _measure(self) -> None:
        widths = []
        for brief in (False, True):
            self._say(brief)
            widths.append(self.row.minimumSize().width())
        self.widths = (widths[0], widths[1])
        self._fit()

    def _fit(self) -> None:
        brief = self.width() < self.widths[0]
        if brief != self.brief:
            self._say(brief)

    def minimumSizeHint(self) -> QSize:
        least = super().minimumSizeHint()
        return QSize(min(least.width(), self.widths[1] or least.width()), least.height())

    def event(self, event: QEvent) -> bool:
        done = super().event(event)
        kind = event.type()
        if kind == QEvent.Type.Show or (
            kind in (QEvent.Type.StyleChange, QEvent.Type.FontChange) and self.isVisible()
        ):  # (a hidden bar is measured as it shows: the window's start measured it 9 times)
            self._measure()  # (after the buttons' own minimum widths, set on the same events)
        return done

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _button(self, action: QAction) -> QToolButton:
        button = TableButton()
        button.setDefaultAction(action)
        button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        button.setObjectName("tableButton")
        button.setAccessibleName(action.toolTip())
        button.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # (the keys stay the table's)
        self.buttons.append(button)
        return button


class ReplayMode(QObject):
    """What the table does in a replay: the source it plays is a ReplaySource, stepped by the
    bar's buttons and the keys Left/Right (one action back or on) and Home/End (the deal, the
    end); A (and the bar's Analysis) opens the game's Analysis window. Draw, End turn, Concede
    and Rematch stay off. `asked` is the result panel's Replay (the window opens it); `left`
    is Leave replay (the window takes the replay off); `moved` tells each step shown.

    `open_at(step)` asks for the replay of the finished game on the table and shows `step`
    once it is on (an online replay comes from the server later)."""

    asked = Signal()
    left = Signal()
    moved = Signal(int)

    def __init__(self, table: TableWidget) -> None:
        super().__init__(table)
        self.table = table
        self.start_action = table_action(table, "« Start", "Home", "Go to the deal")
        self.back_action = table_action(table, "◀ Back", "Left", "One action back", repeat=True)
        self.forward_action = table_action(table, "Forward ▶", "Right", "One action on",
                                           repeat=True)
        self.end_action = table_action(table, "End »", "End", "Go to the end")
        self.leave_action = table_action(table, "Leave replay", "", "Leave the replay")
        self.open_action = table_action(table, "Re&play", "P", "Replay this game")
        self.analysis_action = table_action(table, "Analysis", "A",
                                            "The expert's analysis of this game")
        self.steps = [self.start_action, self.back_action, self.forward_action, self.end_action]
        for action in (*self.steps, self.leave_action, self.open_action, self.analysis_action):
            table.addAction(action)
        self.wanted: tuple[str, int] | None = None  # (game id, step) to show once replayed
        self.start_action.triggered.connect(lambda: self.go_to(0))
        self.back_action.triggered.connect(lambda: self._by(-1))
        self.forward_action.triggered.connect(lambda: self._by(1))
        self.end_action.triggered.connect(lambda: self._by(None))
        self.leave_action.triggered.connect(self.left.emit)
        self.open_action.triggered.connect(self.asked.emit)
        self.analysis_action.triggered.connect(self._analysis)
        table.source_changed.connect(self._source_changed)
        self.bar = ReplayBar(self.steps, self.leave_action, self.analysis_action)
        self.bar.hide()

    @property
    def source(self) -> ReplaySource | None:
        source = self.table.source
        return source if isinstance(source, ReplaySource) else None

    @property
    def replay(self) -> Replay | None:
        source = self.source
        return source.replay if source is not None else None

    def go_to(self, step: int) -> None:
        """Show the replay after `step` actions (0: the deal); one step on is animated if the
        table is still, anything else is shown at once."""
        source = self.source
        if source is None:
            return
        source.go_to(step, smooth=not self.table.scene.busy)
        self.update()
        self.table.announce(source.replay.label + ".")
        self.moved.emit(source.replay.step)

    def open_at(self, step: int) -> None:
        """Replay the finished game on the table from `step` (see the class)."""
        source = self.table.source
        if source is None or not source.can_replay or self.replay is not None:
            return
        self.wanted = (source.game_id, step)
        self.asked.emit()

    def _source_changed(self) -> None:
        wanted, source, self.wanted = self.wanted, self.source, None
        if source is not None and wanted is not None and wanted[0] == source.game_id:
            self.go_to(wanted[1])
        elif source is None and self.table.source is not None and wanted is not None \
                and wanted[0] == self.table.source.game_id:
            self.wanted = wanted  # (the game itself still: its replay is on its way)

    def _analysis(self) -> None:
        source = self.source
        if source is not None:
            self.table.result_analysis.window.open_replayed(source)

    def _by(self, steps: int | None) -> None:
        replay = self.replay
        if replay is not None:
            self.go_to(replay.length if steps is None else replay.step + steps)

    def update(self) -> None:
        """The bar and the actions for what the table shows (called with its controls)."""
        replay, source = self.replay, self.table.source
        self.bar.setVisible(replay is not None)
        for action, possible in zip(self.steps, (
                replay is not None and not replay.at_start,
                replay is not None and not replay.at_start,
                replay is not None and not replay.at_end,
                replay is not None and not replay.at_end), strict=True):
            action.setEnabled(possible)
        self.leave_action.setEnabled(replay is not None)
        self.analysis_action.setEnabled(self.source is not None and self.source.analysable)
        if replay is not None:
            self.bar.position.setText(replay.label)
            self.bar.position.setAccessibleName(replay.label)
        self.open_action.setEnabled(
            replay is None and source is not None and source.can_replay
            and self.table.phase.state is TablePhase.OVER and not self.table.scene.busy)
