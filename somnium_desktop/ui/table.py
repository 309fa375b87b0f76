"""The card table widget: header, both players, the scene, the controls, the log and game over."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal, SignalInstance
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QColor,
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..client.describe import Speaker, result_title
from ..client.source import TableSource
from ..game.actions import Action, Draw, EndTurn, Steal
from ..game.cards import Suit
from ..game.events import Event, GameEnded, TurnPassed
from ..game.view import View
from .accessibility import announce
from .cards import CardDeck
from .queued_keys import QueuedKey
from .scene import ACCENT, STEAL_KEYS, TableScene
from .style import repolish
from .table_scale import scale_for, scaled_sheet
from .view import TableView

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMessageBox

RESULT_SHARE = 0.3  # of the table's width: the least the result panel takes
NARROW = 640  # a table narrower than this (pixels) puts its status line above the buttons


IDLE_HINT = (
    "Play the computer offline (Ctrl+N), or create, join or watch a game in the lobby (Ctrl+L)."
)

class ElidedLabel(QLabel):
    """A one-line label that shortens its text with "…" to fit, instead of widening the
    window to its whole length."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""
        self.setTextFormat(Qt.TextFormat.PlainText)  # (a game's name is the players' words)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(60)

    def setText(self, text: str) -> None:
        self._full = text
        self.setToolTip(text)
        self.setAccessibleName(text)  # screen readers get the whole of it
        self._elide()

    def text(self) -> str:
        return self._full

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._elide()

    def _elide(self) -> None:
        shown = self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight,
                                              max(0, self.contentsRect().width()))
        super().setText(shown)


class TableButton(QToolButton):
    """A table's button: never narrower than its words. (The style sheet's min-width makes a
    fixed minimum, below the text's width, which a layout would squeeze the button down to;
    the status line beside it wraps instead.)"""

    def event(self, event: QEvent) -> bool:
        done = super().event(event)
        if event.type() in (QEvent.Type.Show, QEvent.Type.StyleChange, QEvent.Type.FontChange):
            wanted = self.sizeHint().width()  # (the style sheet's own minimum is set by now)
            if self.minimumWidth() != wanted:
                self.setMinimumWidth(wanted)
        return done


class PlayerStrip(QFrame):
    """One player's name and score; lit while it is that player's turn."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("playerStrip")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 4, 12, 4)
        layout.setSpacing(10)
        self.marker = QLabel("●")
        self.marker.setObjectName("turnMarker")
        self.name = QLabel()
        self.name.setObjectName("playerName")
        self.score = QLabel()
        self.score.setObjectName("playerScore")
        self.note = QLabel()
        self.note.setObjectName("playerNote")
        layout.addWidget(self.marker)
        layout.addWidget(self.name)
        layout.addWidget(self.score)
        layout.addWidget(self.note, 1)
        self.set_active(False)

    def set_player(self, name: str, score: int | None) -> None:
        self.name.setText(name)
        self.score.setText("" if score is None else f"{score} points")
        self._name_for_readers()

    def set_note(self, note: str) -> None:
        """A word after the score ("away" for a player who left the table)."""
        self.note.setText(note)
        self._name_for_readers()

    def _name_for_readers(self) -> None:
        note, score = self.note.text(), self.score.text() or "0 points"
        self.setAccessibleName(f"{self.name.text()}, {score}" + (f", {note}" if note else ""))

    def set_active(self, active: bool) -> None:
        self.setProperty("active", active)
        self.marker.setVisible(active)
        repolish(self)


class GameLog(QTextEdit):
    """Every action of the game, one plain sentence (a paragraph) per event; read-only,
    selectable and copyable. A new turn starts with a little space and a brighter line."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("gameLog")
        self.setAccessibleName("Game log")
        self.setReadOnly(True)
        self.setUndoRedoEnabled(False)
        self.setAcceptRichText(False)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self._lines: list[str] = []
        self._headlines: list[bool] = []

    def put_first(self, lines: list[tuple[str, bool]]) -> None:
        """Lines (text, headline) ahead of those there already: a game's history."""
        after = list(zip(self._lines, self._headlines, strict=True))
        self.clear()
        for text, headline in lines + after:
            self.add_line(text, headline)

    def add_line(self, text: str, headline: bool = False) -> None:
        from PySide6.QtGui import QTextBlockFormat, QTextCharFormat, QTextCursor  # (not at start)

        block = QTextBlockFormat()
        block.setBottomMargin(2)
        look = QTextCharFormat()
        if headline:
            block.setTopMargin(7)
            look.setForeground(QColor(ACCENT))
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        if self._lines:
            cursor.insertBlock(block, look)
        else:
            cursor.setBlockFormat(block)
        cursor.insertText(text, look)
        self._lines.append(text)
        self._headlines.append(headline)
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())

    def clear(self) -> None:
        self._lines.clear()
        self._headlines.clear()
        super().clear()

    def lines(self) -> list[str]:
        return list(self._lines)

    def count(self) -> int:
        return len(self._lines)


class GameOverPanel(QFrame):
    """Shown over the table when the game ends: the result and Rematch. Its close button (or
    Esc) puts it away, to look over the final banks; the status line keeps the result."""

    def __init__(self, rematch: QAction, hide_action: QAction, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("gameOver")
        self.setAccessibleName("Game over")
        layout = self.box = QVBoxLayout(self)
        layout.setContentsMargins(36, 18, 36, 18)
        layout.setSpacing(8)
        self.close_button = QToolButton(self)  # in the top right corner, outside the layout
        self.close_button.setText("✕")
        self.close_button.setToolTip("Hide the result (Esc)")
        self.close_button.clicked.connect(hide_action.trigger)
        self.close_button.setObjectName("closeButton")
        self.close_button.setAccessibleName("Hide the result")
        self.close_button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.title = QLabel()
        self.title.setObjectName("gameOverTitle")
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.detail = QLabel()
        self.detail.setObjectName("gameOverDetail")
        self.detail.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.rematch = QToolButton()
        self.rematch.setDefaultAction(rematch)
        self.rematch.setObjectName("primaryButton")
        self.rematch.setAccessibleName("Rematch")
        layout.addWidget(self.title)
        layout.addWidget(self.detail)
        layout.addWidget(self.rematch, 0, Qt.AlignmentFlag.AlignHCenter)
        self.hide()

    def show_result(self, title: str, detail: str, can_rematch: bool) -> None:
        self.title.setText(title)
        self.detail.setText(detail)
        self.rematch.setVisible(can_rematch)
        self.refit()
        self.show()
        self.raise_()

    def refit(self) -> None:
        """Its size for what it says (in the table's text size), never less than a share of
        the table's width (it grows with the window), in the middle of the table."""
        parent = self.parentWidget()
        if parent is not None:
            self.setMinimumWidth(min(parent.width(), round(parent.width() * RESULT_SHARE)))
        self.adjustSize()
        self.close_button.adjustSize()
        self.close_button.move(self.width() - self.close_button.width() - 6, 6)
        self.place()

    def place(self) -> None:
        parent = self.parentWidget()
        if parent is not None:
            self.move((parent.width() - self.width()) // 2, (parent.height() - self.height()) // 2)


def new_action(text: str, parent: QObject) -> QAction:
    """QAction(text, parent), made so PySide does not load QIcon (and its 150-member enum) at
    start-up to tell that constructor from QAction(icon, text, parent)."""
    action = QAction(parent)
    action.setText(text)
    return action


def _action(parent: QObject, text: str, shortcut: str, name: str) -> QAction:
    action = new_action(text, parent)
    if shortcut:
        action.setShortcut(QKeySequence(shortcut))
    action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    action.setToolTip(f"{name} ({shortcut})" if shortcut else name)
    action.setEnabled(False)
    return action


class TableWidget(QWidget):
    """The card table for any TableSource: offline, an online seat, or watching (read-only).

    Keyboard: D draws, E ends the turn, R asks for a rematch once the game is over. During a
    steal the number keys 1-9 and 0 pick Angels to Demons, or Left/Right move among the
    stealable suits and Enter steals the one marked. Concede is on its button (Alt+C) and in the
    Game menu, and asks to confirm. W claims the win from an opponent who left the table and
    stayed away (online; its button shows only then).
    """

    source_changed = Signal()

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
        self._countdown.timeout.connect(self._tick)
        self._counting = False
        self._told_last = False  # the status line holds a notice or an error (not ours)

        self._make_actions()
        self._build(log_inside)
        self.scene.event_played.connect(self._event_played)
        self.scene.settled.connect(self._settled)
        self.scene.busy_changed.connect(lambda _busy: self._update_controls())
        self.scene.steal_clicked.connect(self.steal)
        self._show_idle()

    # ----- building -----
    def _make_actions(self) -> None:
        self.draw_action = _action(self, "&Draw", "D", "Draw a card")
        self.end_turn_action = _action(self, "&End turn", "E", "End the turn and bank the table")
        self.concede_action = _action(self, "Con&cede…", "Alt+C", "Concede the game")
        self.rematch_action = _action(self, "&Rematch", "R", "Play again")
        self.claim_action = _action(
            self, "Claim the &win", "W", "Claim the win: your opponent left the table"
        )
        self.claim_action.triggered.connect(self.claim)
        self.hide_result_action = _action(self, "Hide the result", "Esc", "Hide the result")
        self.hide_result_action.triggered.connect(self.hide_result)
        self.draw_action.triggered.connect(self.draw)
        self.end_turn_action.triggered.connect(self.end_turn)
        self.concede_action.triggered.connect(self.ask_concede)
        self.rematch_action.triggered.connect(self.rematch)
        self.steal_actions: list[QAction] = []
        for suit, key in zip(Suit, STEAL_KEYS, strict=True):
            action = _action(self, f"Steal {suit.label}", key, f"Steal {suit.label}")
            action.triggered.connect(lambda _=False, suit=suit: self.steal(suit))
            self.steal_actions.append(action)
        self.steal_prev_action = _action(self, "Previous suit", "Left", "Previous stealable suit")
        self.steal_next_action = _action(self, "Next suit", "Right", "Next stealable suit")
        self.steal_pick_action = _action(
            self, "Steal marked suit", "Return", "Steal the marked suit"
        )
        self.steal_pick_action.setShortcuts([QKeySequence("Return"), QKeySequence("Enter")])
        self.steal_prev_action.triggered.connect(lambda: self._move_steal_focus(-1))
        self.steal_next_action.triggered.connect(lambda: self._move_steal_focus(1))
        self.steal_pick_action.triggered.connect(self._steal_focused)
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
        self.copy_button.clicked.connect(self.copy_game_id)
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
        self._arrange_controls(narrow=False)
        self.text_scale = 1.0

        self.log = GameLog()
        # On the view's viewport, not the view: a scroll area shows screen readers only its
        # viewport and scroll bars, so the result and Rematch were not in the tree.
        self.game_over = GameOverPanel(self.rematch_action, self.hide_result_action,
                                       self.view.viewport())
        self._result_hidden = False  # the player put the result away: keep it so for this game

        column = QVBoxLayout()
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(header)
        column.addWidget(self.opponent)
        column.addWidget(self.view, 1)
        column.addWidget(self.me)
        column.addWidget(controls)
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
        scale = scale_for(self.width(), self.height())
        if scale == self.text_scale:
            return
        self.text_scale = scale
        self.setStyleSheet(scaled_sheet(scale))
        self.status.ensurePolished()
        self.status.setMinimumHeight(2 * self.status.fontMetrics().lineSpacing())
        margin = round(36 * scale), round(18 * scale)
        self.game_over.box.setContentsMargins(*margin, *margin)
        if not self.game_over.isHidden():
            self.game_over.refit()

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

    # ----- the source -----
    def set_source(self, source: TableSource | None) -> None:
        """Play `source` on this table (None leaves an empty table); the old one is let go."""
        old = self.source
        if old is not None:
            for signal, slot in self._wiring(old):
                signal.disconnect(slot)
        self.source = source
        if source is None:
            self.scene.reset(0)
            self._show_idle()
        else:
            for signal, slot in self._wiring(source):
                signal.connect(slot)
            self._started()
            if source.view is not None:
                self._view_changed(source.view)
        self.source_changed.emit()

    def _wiring(self, source: TableSource) -> list[tuple[SignalInstance, Callable[..., None]]]:
        return [
            (source.events, self._events),
            (source.view_changed, self._view_changed),
            (source.error, self._error),
            (source.notice, self._notice),
            (source.pending_changed, self._pending_changed),
            (source.started, self._started),
            (source.presence_changed, self._presence_changed),
            (source.history, self._history),
            (source.watchers_changed, self._watchers_changed),
        ]

    def _started(self) -> None:
        source = self.source
        if source is None:
            return
        self.scene.reset(source.my_seat if source.my_seat is not None else 0)
        self.shown = None
        self._first_view = True
        self._steal_focus = None
        self.queued.clear()
        self.log.clear()
        self.game_over.hide()
        self.speaker = Speaker(source.names, source.my_seat)
        bottom = self.scene.bottom_seat  # (named now: a table waiting for a player has no view)
        self.me.set_player(self._display_name(bottom), None)
        self.opponent.set_player(self._display_name(1 - bottom), None)
        self.game_name.setText(source.game_name)
        self.game_id.setText(f"{source.id_label} {source.game_id}")
        self.copy_button.setVisible(source.shares_id)
        self.watching.setVisible(source.read_only)
        self._watchers_changed(source.watchers)
        self._result_hidden = False
        self._away = (False, False)
        self._show_buttons(True)
        self._presence_changed()

    def _told(self, event: Event) -> str:
        """The log's sentence for an event (a claimed win is told as such, not a concession)."""
        claimed = self.source.claimed_from if self.source is not None else None
        return self.speaker.describe(event, claimed)

    def _watchers_changed(self, count: int) -> None:
        """How many watch this game (others than this table), after its name: that part of
        the header gives way first on a narrow table (the name elides), never widening it."""
        self._watcher_count = count
        source = self.source
        if source is None:
            return
        others = count - (1 if source.read_only else 0)
        more = " more" if source.read_only else ""
        self.watchers_text = f"{others}{more} watching" if others > 0 else ""
        seen = f" · {self.watchers_text}" if self.watchers_text else ""
        self.game_name.setText(f"{source.game_name}{seen}")

    def _history(self, events: list[Event]) -> None:
        """What happened before this table opened the game: ahead of the log's lines."""
        earlier = [(self._told(e), isinstance(e, TurnPassed | GameEnded)) for e in events]
        self.log.put_first(earlier)

    def _presence_changed(self) -> None:
        """A player left the table or came back: their strip, the log and the controls."""
        source = self.source
        if source is None:
            return
        away = (source.away(0), source.away(1))
        bottom = self.scene.bottom_seat
        self.me.set_note("away" if away[bottom] else "")
        self.opponent.set_note("away" if away[1 - bottom] else "")
        over = source.view is not None and source.view.over  # (nobody is awaited any more)
        for seat in (0, 1):
            if away[seat] != self._away[seat] and seat != source.my_seat and not over:
                name = self._display_name(seat)
                said = (f"{name} left the table." if away[seat]
                        else f"{name} is back at the table.")
                self.log.add_line(said)
                self.announce(said)
        self._away = away
        self._update_controls()

    def _events(self, events: list[Event]) -> None:
        self.scene.play(events)
        self._update_controls()

    def _view_changed(self, view: View) -> None:
        self.scene.settle(view, animate=not self._first_view)
        self._first_view = False
        self._update_controls()

    def _pending_changed(self, _pending: bool) -> None:
        self._update_controls()

    def _error(self, message: str) -> None:
        self._say(message, error=True)

    def _notice(self, message: str) -> None:
        self._say(message, error=False)

    def _say(self, message: str, error: bool) -> None:
        """A message in the status line (red for an error), read out too."""
        self._told_last = True
        self.status.setText(message)
        self.status.setProperty("error", error)
        repolish(self.status)
        self.announce(message)

    def _event_played(self, event: Event) -> None:
        text = self._told(event)
        self.log.add_line(text, headline=isinstance(event, TurnPassed | GameEnded))
        self.announce(text)

    def announce(self, text: str) -> None:
        """Tell screen readers what happened (an accessibility announcement)."""
        self.last_announcement = text
        announce(self.view, text)

    # ----- what the table shows -----
    def _show_idle(self) -> None:
        self.game_name.setText("No game yet")
        self.game_id.setText("")
        self.copy_button.setVisible(False)
        self.watching.setVisible(False)
        self._watcher_count = 0
        self.opponent.set_player("Opponent", None)
        self.me.set_player("You", None)
        self.opponent.set_active(False)
        self.me.set_active(False)
        self.game_over.hide()
        self.log.clear()
        self.status.setText(IDLE_HINT)
        self.scene.set_deck_info(len(self.scene.deck_pile), 3, True)
        self._show_buttons(False)
        self._update_controls()

    def _show_buttons(self, shown: bool) -> None:
        """The game's buttons, hidden while there is no game (the hint gets their room)."""
        self._buttons_shown = shown
        for button in (self.draw_button, self.end_turn_button, self.concede_button):
            button.setVisible(shown)

    def _settled(self, view: View) -> None:
        source = self.source
        if source is None:
            return
        self.shown = view
        bottom = self.scene.bottom_seat
        names = source.names
        scores = view.scores
        self.me.set_player(self._display_name(bottom), scores[bottom])
        self.opponent.set_player(self._display_name(1 - bottom), scores[1 - bottom])
        self.me.set_active(not view.over and view.turn == bottom)
        self.opponent.set_active(not view.over and view.turn != bottom)
        if view.over:
            title = result_title(view.winner, source.my_seat, names)
            detail = f"{names[0]} {scores[0]} · {names[1]} {scores[1]}"
            if view.conceded_by is not None and view.conceded_by == source.claimed_from:
                detail += f"  ({self.speaker.object(view.conceded_by)} left the table)"
            elif view.conceded_by is not None:
                detail += f"  ({self.speaker.object(view.conceded_by)} conceded)"
            if not self._result_hidden:
                self.game_over.show_result(title, detail, source.can_rematch)
        else:
            self.game_over.hide()
        self.view.setAccessibleDescription(self._summary(view))
        self._update_controls()

    def _display_name(self, seat: int) -> str:
        if self.source is None:
            return ""
        name = self.source.names[seat]
        if seat == self.source.my_seat and name != "You":
            return f"{name} (you)"
        return name

    def _summary(self, view: View) -> str:
        names = self.source.names if self.source else ("", "")
        table = ", ".join(card.label for card in view.table) or "nothing"
        return (
            f"{names[0]} {view.scores[0]} points, {names[1]} {view.scores[1]} points. "
            f"On the table: {table}. {view.deck_count} cards in the deck, "
            f"{view.fools_left} Fools, Death {'still in' if view.death_left else 'gone'}."
        )

    # ----- input -----
    def my_turn(self) -> bool:
        """True when this table may act now: our turn, nothing pending or moving."""
        source, view = self.source, self.shown
        return (
            source is not None
            and view is not None
            and source.my_seat is not None
            and not source.read_only
            and not source.pending
            and not self.scene.busy
            and not view.over
            and view.turn == source.my_seat
        )

    def stealing(self) -> bool:
        return self.my_turn() and self.shown is not None and self.shown.steal_pending

    def _update_controls(self) -> None:
        source, view = self.source, self.shown
        mine = self.my_turn()
        legal = view.legal if view is not None and mine else ()
        self.draw_action.setEnabled(Draw() in legal)
        self.end_turn_action.setEnabled(EndTurn() in legal)
        steal = self.stealing()
        suits = view.stealable if steal and view is not None else ()
        if steal and self._steal_focus not in suits:
            self._steal_focus = suits[0] if suits else None
        if not steal:
            self._steal_focus = None
        for suit, action in zip(Suit, self.steal_actions, strict=True):
            action.setEnabled(suit in suits)
        for action in (self.steal_prev_action, self.steal_next_action, self.steal_pick_action):
            action.setEnabled(steal)
        self.scene.set_stealable(suits, self._steal_focus)
        seated = source is not None and source.my_seat is not None and not source.read_only
        running = view is not None and not view.over
        idle = source is not None and not source.pending and not self.scene.busy
        self.concede_action.setEnabled(seated and running and idle)
        self.rematch_action.setEnabled(
            source is not None and source.can_rematch and view is not None and view.over
            and not self.scene.busy
        )
        claim = seated and running and idle and source is not None and source.can_claim
        self.claim_action.setEnabled(claim)
        self.claim_button.setVisible(claim)
        # Claim takes Concede's place (conceding a game one may claim makes no sense; Alt+C
        # and the Game menu still can), so the row keeps its width on a small window.
        self.concede_button.setVisible(self._buttons_shown and not claim)
        self.hide_result_action.setEnabled(not self.game_over.isHidden())
        self._update_status(mine, steal)
        self._play_queued(mine)

    def _claim_wait(self) -> str:
        """' You may claim the win in 1:40 if they are not back.' while the server counts."""
        seconds = self.source.claim_in if self.source is not None else None
        if seconds is None or seconds <= 0:
            return ""
        self._counting = True
        return (f" You may claim the win in {seconds // 60}:{seconds % 60:02d} if they are "
                "not back.")

    def _update_status(self, mine: bool, steal: bool) -> None:
        self._counting = False
        self._write_status(mine, steal)
        if self._counting != self._countdown.isActive():  # (ticks while it counts down)
            (self._countdown.start if self._counting else self._countdown.stop)()

    def _tick(self) -> None:
        """The countdown's second: the status line again, unless it holds news just told."""
        if not self._told_last:
            self._update_controls()

    def _write_status(self, mine: bool, steal: bool) -> None:
        source, view = self.source, self.shown
        if source is None or view is None:
            return
        self._told_last = False
        self.status.setProperty("error", False)
        repolish(self.status)
        if view.over:
            title = result_title(view.winner, source.my_seat, source.names)
            text = f"Game over: {title}" + ("" if title.endswith("!") else ".")
            other = 1 - source.my_seat if source.my_seat is not None else None
            if other is not None and (source.away(other) or source.claimed_from == other):
                text += f" {self._display_name(other)} has left the table."
            elif self.rematch_action.isEnabled():
                text += " Press R for a rematch."
        elif source.read_only:
            text = f"Watching: it is {self._display_name(view.turn)}'s turn."
            for seat in (view.turn, 1 - view.turn):
                if source.away(seat):
                    text += f" {self._display_name(seat)} has left the table."
        elif steal:
            text = "A Fool! Steal a card: click a glowing suit, or press the number on it."
        elif mine:
            text = self._your_turn_text()
            other = 1 - view.turn
            if self.claim_action.isEnabled():
                text += f" {self._display_name(other)} has left: W claims the win."
            elif source.away(other):
                text += f" {self._display_name(other)} has left the table.{self._claim_wait()}"
        elif self.claim_action.isEnabled():
            other = 1 - (source.my_seat or 0)
            text = (f"{self._display_name(other)} left the table and has not come back: "
                    "claim the win (W), or wait for them.")
        elif source.pending:
            text = "Sending…"
        elif view.turn != source.my_seat and source.away(view.turn):
            wait = self._claim_wait() or " Waiting for them to come back."
            text = f"{self._display_name(view.turn)} left the table.{wait}"
        elif view.turn != source.my_seat:
            text = f"{self._display_name(view.turn)} is playing…"
        else:
            text = ""
        self.status.setText(text)

    def _your_turn_text(self) -> str:
        """What the player may do now, as the buttons allow it."""
        can_draw, can_end = self.draw_action.isEnabled(), self.end_turn_action.isEnabled()
        if can_draw and can_end:
            return "Your turn: draw (D), or end your turn (E) to bank the table."
        if can_end:
            return "No more draws with ten cards on the table: end your turn (E) to bank them."
        return "Your turn: draw a card (D)."

    def draw(self) -> None:
        if self.draw_action.isEnabled() and self.source is not None:
            self._act_started()
            self.source.draw()

    def end_turn(self) -> None:
        if self.end_turn_action.isEnabled() and self.source is not None:
            self._act_started()
            self.source.end_turn()

    def steal(self, suit: Suit) -> None:
        if self.stealing() and self.shown is not None and suit in self.shown.stealable:
            self._act_started()
            assert self.source is not None
            self.source.steal(suit)

    def take(self, action: Action) -> None:
        """Act as the player's click or key would: draw, end the turn or steal (a concede asks
        first). Nothing happens if the table does not take that input now."""
        if isinstance(action, Steal):
            self.steal(action.suit)
        elif isinstance(action, EndTurn):
            self.end_turn()
        elif isinstance(action, Draw):
            self.draw()
        else:
            self.ask_concede()

    def _act_started(self) -> None:
        # Input waits until the result has been played: disable at once, before any reply.
        for action in (self.draw_action, self.end_turn_action, *self.steal_actions):
            action.setEnabled(False)

    def hide_result(self) -> None:
        """Put the game-over panel away (its close button, or Esc) to see the final table."""
        if not self.game_over.isHidden():
            focus = QApplication.focusWidget()
            self._result_hidden = True
            self.game_over.hide()
            if focus is None or self.game_over.isAncestorOf(focus):
                self.view.setFocus()  # (from its close button; elsewhere the focus stays)
            self._update_controls()

    def _move_steal_focus(self, step: int) -> None:
        view = self.shown
        if not self.stealing() or view is None or not view.stealable:
            return
        suits = list(view.stealable)
        index = suits.index(self._steal_focus) if self._steal_focus in suits else -step
        self._steal_focus = suits[(index + step) % len(suits)]
        self.scene.set_stealable(suits, self._steal_focus)
        self.announce(f"{self._steal_focus.label} marked; press Enter to steal it.")

    def _steal_focused(self) -> None:
        if self._steal_focus is not None:
            self.steal(self._steal_focus)

    def ask_concede(self) -> None:
        """Ask to confirm, then concede (non-blocking: the table keeps running meanwhile)."""
        if not self.concede_action.isEnabled() or self.source is None:
            return
        from PySide6.QtWidgets import QMessageBox  # (lazy: only when asked)

        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Concede the game?",
            "Concede this game? You lose it whatever the scores.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self,
        )
        box.setDefaultButton(QMessageBox.StandardButton.No)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        asked = (self.source, self.source.game_id)  # the answer concedes this game only
        box.finished.connect(lambda result: self._concede_answered(result, asked))
        self._confirm = box
        box.open()

    def _concede_answered(self, result: int, asked: tuple[TableSource, str]) -> None:
        from PySide6.QtWidgets import QMessageBox

        self._confirm = None
        yes = result == QMessageBox.StandardButton.Yes
        source = self.source
        if yes and source is asked[0] and source.game_id == asked[1] \
                and self.concede_action.isEnabled():
            self._act_started()
            source.concede()

    def rematch(self) -> None:
        if self.rematch_action.isEnabled() and self.source is not None:
            self.source.rematch()

    def claim(self) -> None:
        """Claim the win from an opponent who left (no question: nothing is lost by it)."""
        if self.claim_action.isEnabled() and self.source is not None:
            self.claim_action.setEnabled(False)
            self.source.claim()

    def copy_game_id(self) -> None:
        if self.source is not None:
            QGuiApplication.clipboard().setText(self.source.game_id)
            self.announce("Game id copied.")

    def closeEvent(self, event: QCloseEvent) -> None:
        self.scene.clear_queue()
        super().closeEvent(event)
