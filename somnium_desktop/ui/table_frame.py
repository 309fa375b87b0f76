"""The card table's frame: its actions, widgets and layout, built once (TableWidget plays)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import (
    QAction,
    QKeyEvent,
    QKeySequence,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..client.describe import Speaker
from ..client.lifecycles import TABLE_PHASE, Machine, TablePhase, TablePhaseEvent
from ..client.source import TableSource
from ..game.cards import Suit
from ..game.view import View
from .cards import CardDeck
from .queued_keys import QueuedKey
from .scene import STEAL_KEYS, TableScene
from .table_clock import TableClock
from .table_scale import scale_for, scaled_sheet
from .view import TableView

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMessageBox
from .table_analysis import ResultAnalysis
from .table_widgets import (
    NARROW,
    ElidedLabel,
    GameLog,
    GameOverPanel,
    PlayerStrip,
    TableButton,
    table_action,
)


class TableFrame(QWidget):
    """The table's widgets and their layout; TableShows and TableWidget bring them to life."""

    source_changed = Signal()
    player_page_requested = Signal(str)  # a click on a player's name: their user id
    rescaled = Signal(float)  # the text's new scale (see table_scale.scale_for)

    def __init__(
        self,
        deck: CardDeck | None = None,
        parent: QWidget | None = None,
        *,
        log_inside: bool = True,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("tableWidget")
        self.deck = deck if deck is not None else CardDeck()
        self.scene = TableScene(self.deck, self)
        self.view = TableView(self.scene)
        self.source: TableSource | None = None
        self.shown: View | None = None  # the view the table has settled on
        self.phase: Machine[TablePhase, TablePhaseEvent] = Machine(
            "table", TABLE_PHASE, TablePhase.EMPTY)  # what it shows, from that view
        self.speaker = Speaker(("", ""), None)
        self._steal_focus: Suit | None = None
        self._first_view = True
        self.last_announcement = ""
        self._confirm: QMessageBox | None = None
        self._away: tuple[bool, bool] = (False, False)  # by seat, as last told
        self._watcher_count = 0
        self._buttons_shown = False
        self.watchers_text = ""  # what the header says of the people watching
        self._countdown = QTimer(self)  # the status line's "claim the win in 1:40", each second
        self._countdown.setInterval(1000)
        self._counting = False
        self._told_last = False  # the status line holds a notice or an error (not ours)

        self._make_actions()
        self._build(log_inside)
        self.clock_show = TableClock(self)  # the running clock of a timed game

    # ----- building -----
    def _make_actions(self) -> None:
        self.draw_action = table_action(self, "&Draw", "D", "Draw a card")
        self.end_turn_action = table_action(self, "&End turn", "E",
                                            "End the turn and bank the table")
        self.concede_action = table_action(self, "Con&cede…", "Alt+C", "Concede the game")
        self.rematch_action = table_action(self, "&Rematch", "R", "Play again")
        self.claim_action = table_action(
            self, "Claim the &win", "W", "Claim the win: your opponent left the table"
        )
        self.hide_result_action = table_action(self, "Hide the result", "Esc", "Hide the result")
        self.steal_actions: list[QAction] = []
        for suit, key in zip(Suit, STEAL_KEYS, strict=True):
            action = table_action(self, f"Steal {suit.label}", key, f"Steal {suit.label}")
            self.steal_actions.append(action)
        self.steal_prev_action = table_action(self, "Previous suit", "Left",
                                              "Previous stealable suit")
        self.steal_next_action = table_action(self, "Next suit", "Right", "Next stealable suit")
        self.steal_pick_action = table_action(
            self, "Steal marked suit", "Return", "Steal the marked suit"
        )
        self.steal_pick_action.setShortcuts([QKeySequence("Return"), QKeySequence("Enter")])
        for action in (
            self.draw_action, self.end_turn_action, self.concede_action, self.rematch_action,
            self.claim_action, self.hide_result_action, *self.steal_actions, self.steal_prev_action,
            self.steal_next_action, self.steal_pick_action,
        ):
            self.addAction(action)
        self.queued = QueuedKey([self.draw_action, self.end_turn_action, *self.steal_actions,
                                 self.steal_pick_action])

    def _button(self, action: QAction, accessible: str, primary: bool = False) -> QToolButton:
        button = TableButton()
        button.setDefaultAction(action)
        button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        button.setAccessibleName(accessible)
        # Tab reaches it; a click does not keep the focus: it goes to the table, for the keys
        # (not to Concede once the clicked button is disabled, nor left in a lobby field).
        button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        button.clicked.connect(lambda: self.view.setFocus())
        button.setObjectName("primaryButton" if primary else "tableButton")
        return button

    def _build(self, log_inside: bool) -> None:
        header = QFrame()
        header.setObjectName("tableHeader")
        top = QHBoxLayout(header)
        top.setContentsMargins(14, 6, 10, 6)
        self.game_name = ElidedLabel()
        self.game_name.setObjectName("gameName")
        self.game_id = QLabel()
        self.game_id.setObjectName("gameId")
        self.game_id.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.copy_button = QToolButton()
        self.copy_button.setText("Copy id")
        self.copy_button.setObjectName("tableButton")
        self.copy_button.setAccessibleName("Copy the game id")
        self.watching = QLabel("Watching")
        self.watching.setObjectName("watchingBadge")
        self.watching.setToolTip("You are watching this game: the table is read-only")
        self.watching.setAccessibleName("Watching, read-only")
        top.addWidget(self.game_name, 1)
        top.addWidget(self.watching)
        top.addWidget(self.game_id)
        top.addWidget(self.copy_button)

        self.opponent = PlayerStrip()
        self.me = PlayerStrip()

        controls = QFrame()
        controls.setObjectName("controls")
        self._controls = QGridLayout(controls)
        self._controls.setContentsMargins(10, 6, 10, 6)
        self._controls.setSpacing(8)
        self.draw_button = self._button(self.draw_action, "Draw a card", primary=True)
        self.end_turn_button = self._button(self.end_turn_action, "End turn and bank the table")
        self.concede_button = self._button(self.concede_action, "Concede the game")
        self.claim_button = self._button(
            self.claim_action, "Claim the win: your opponent left the table", primary=True
        )
        self.claim_button.setVisible(False)
        # Claim and Concede share the last cell: Claim shows only when it may be used.
        self._last_cell = QWidget()
        last = QHBoxLayout(self._last_cell)
        last.setContentsMargins(0, 0, 0, 0)
        last.setSpacing(8)
        last.addWidget(self.claim_button)
        last.addWidget(self.concede_button)
        self.status = QLabel()
        self.status.setObjectName("status")
        # (no accessible name: a screen reader then reads what it says, not "Table status")
        self.status.setAccessibleDescription("Table status")
        self.status.setWordWrap(True)
        # Room for two lines whatever it says, so a longer line never moves the table.
        self.status.setMinimumHeight(2 * self.status.fontMetrics().lineSpacing())
        self.status.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self._narrow: bool | None = None
        from .table_coach import TableCoach  # the odds over the deck, and the coach

        self.coach = TableCoach(self.scene, self.my_turn, self)
        self.addAction(self.coach.action)
        self._arrange_controls(narrow=False)
        self.text_scale = 1.0
        self.menu_growth = 0  # pixels the window's menu bar grew by with the text (lent back)

        self.log = GameLog()
        # On the view's viewport, not the view: a scroll area shows screen readers only its
        # viewport and scroll bars, so the result and Rematch were not in the tree.
        self.game_over = GameOverPanel(self.rematch_action, self.hide_result_action,
                                       self.view.viewport())
        self._result_hidden = False  # the player put the result away: keep it so for this game
        # the result's accuracy line and Analysis button (table_analysis.py)
        self.result_analysis = ResultAnalysis(self.game_over, self)

        column = QVBoxLayout()
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(header)
        column.addWidget(self.opponent)
        column.addWidget(self.view, 1)
        column.addWidget(self.me)
        column.addWidget(self.coach.bar)
        column.addWidget(controls)
        self.column = column  # (a replay's bar goes in above the controls)
        outer = QHBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        outer.addLayout(column, 1)
        if log_inside:
            self.log.setParent(self)
            self.log.setMinimumWidth(220)
            self.log.setMaximumWidth(300)
            outer.addWidget(self.log)
        self.view.installEventFilter(self)

    def _arrange_controls(self, narrow: bool) -> None:
        """The buttons and the status line in one row; on a narrow table the status line
        gets a row of its own above the buttons, instead of wrapping into a thin column."""
        if narrow == self._narrow:
            return
        self._narrow = narrow
        grid = self._controls
        for widget in (self.draw_button, self.end_turn_button, self.status, self._last_cell):
            grid.removeWidget(widget)
        for column in range(4):
            grid.setColumnStretch(column, 0)
        if narrow:
            grid.addWidget(self.status, 0, 0, 1, 4)
            grid.addWidget(self.draw_button, 1, 0)
            grid.addWidget(self.end_turn_button, 1, 1)
            grid.addWidget(self._last_cell, 1, 3)
            grid.setColumnStretch(2, 1)
        else:
            grid.addWidget(self.draw_button, 0, 0)
            grid.addWidget(self.end_turn_button, 0, 1)
            grid.addWidget(self.status, 0, 2)
            grid.addWidget(self._last_cell, 0, 3)
            grid.setColumnStretch(2, 1)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._arrange_controls(narrow=self.width() < NARROW)
        self._rescale()

    def _rescale(self) -> None:
        """Text and the result panel grow with a large window (see table_scale)."""
        scale = scale_for(self.width(), self.height() + self.menu_growth)
        if scale == self.text_scale:
            return
        self.text_scale = scale
        self.setStyleSheet(scaled_sheet(scale))
        self.status.ensurePolished()
        self.status.setMinimumHeight(2 * self.status.fontMetrics().lineSpacing())
        self.game_over.rescale(scale)
        self.rescaled.emit(scale)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """A table key pressed while our turn's cards still move is kept and played once
        they are in place (see QueuedKey). (One pressed while a move waits for the server's
        answer is not: a double press would send the move twice.)"""
        if self._catching_up() and self.queued.offer(event):
            event.accept()
            return
        super().keyPressEvent(event)

    def _catching_up(self) -> bool:
        """Our turn, as last shown, while its cards move."""
        source, view = self.source, self.shown
        return (source is not None and view is not None and source.my_seat is not None
                and not source.read_only and not view.over and view.turn == source.my_seat
                and self.scene.busy and not source.pending)

    def _play_queued(self, mine: bool) -> None:
        """The key kept while the table was busy, once it no longer is (if still legal)."""
        source = self.source
        if not self.queued.waiting or self.scene.busy or (source is not None and source.pending):
            return
        action = self.queued.take()
        if action is not None and mine and action.isEnabled():
            QTimer.singleShot(0, self, action.trigger)  # (after this update is done)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.view and event.type() == QEvent.Type.Resize:
            QTimer.singleShot(0, self, self.game_over.refit)  # (once the view has its size)
        return False

    # ----- what TableWidget does for the frame -----
    def my_turn(self) -> bool:
        """Whether the player may act now (TableWidget knows)."""
        raise NotImplementedError

    def _update_controls(self) -> None:
        """Enable what the shown view allows (TableWidget knows the controls' rules)."""
        raise NotImplementedError
