"""The table's parts: elided labels, buttons, player strips, the log and the result panel."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import (
    QAction,
    QColor,
    QKeySequence,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from .scene import ACCENT
from .style import repolish

if TYPE_CHECKING:
    pass

RESULT_SHARE = 0.3  # of the table's width: the least the result panel takes
RESULT_MARGINS = (36, 18)  # pixels around the result's words at scale 1 (sides, top and bottom)
CLOSE_OFFSET = 6  # pixels from the result panel's top right corner to its close button's
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
    """One player's name, rating and score; lit while it is that player's turn. A click on
    a person's name asks for their page (`name_clicked`)."""

    name_clicked = Signal()

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
        # ----- the rating beside the name, and the name as a link to the player's page -----
        self.rating = QLabel()
        self.rating.setObjectName("playerRating")
        self.rating.hide()
        self._linked = False
        self.name.installEventFilter(self)
        self.clock = QLabel()  # the running clock of a timed game (table_clock.py)
        self.clock.setObjectName("playerClock")
        self.clock.hide()
        layout.addWidget(self.marker)
        layout.addWidget(self.name)
        layout.addWidget(self.rating)
        layout.addWidget(self.score)
        layout.addWidget(self.clock)
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

    def set_clock(self, text: str, warning: bool) -> None:
        """The player's clock ("0:27"; "" hides it), as a warning in its last seconds."""
        if text == self.clock.text() and warning == bool(self.clock.property("warning")):
            return
        self.clock.setText(text)
        self.clock.setVisible(bool(text))
        self.clock.setProperty("warning", warning)
        repolish(self.clock)
        self._name_for_readers()

    def _name_for_readers(self) -> None:
        note, score = self.note.text(), self.score.text() or "0 points"
        rated = f" rated {self.rating.text()}" if self.rating.text() else ""
        clock = f", {self.clock.text()} left" if self.clock.text() else ""
        self.setAccessibleName(f"{self.name.text()}{rated}, {score}{clock}"
                               + (f", {note}" if note else ""))

    def set_rating(self, rating: str, linked: bool) -> None:
        """The player's rating beside their name ("1500?"; "" for none), and whether a click
        on the name opens their page."""
        self.rating.setText(rating)
        self.rating.setVisible(bool(rating))
        self.rating.setToolTip("Rating (a question mark: provisional, few games yet)"
                               if rating.endswith("?") else "Rating")
        self._linked = linked
        self.name.setCursor(Qt.CursorShape.PointingHandCursor if linked
                            else Qt.CursorShape.ArrowCursor)
        self.name.setToolTip(f"{self.name.text()}'s page: rating and games" if linked else "")
        self._name_for_readers()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.name and self._linked \
                and event.type() == QEvent.Type.MouseButtonRelease:
            self.name_clicked.emit()
            return True
        return super().eventFilter(watched, event)

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
        # Scrolled to its end, it stays there as its lines wrap anew (the window resized).
        self._at_end = True
        self.verticalScrollBar().valueChanged.connect(self._scrolled)
        self.verticalScrollBar().rangeChanged.connect(self._rewrapped)

    def _scrolled(self, value: int) -> None:
        self._at_end = value >= self.verticalScrollBar().maximum()

    def _rewrapped(self, _low: int, high: int) -> None:
        if self._at_end:
            self.verticalScrollBar().setValue(high)

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
        layout.setContentsMargins(*RESULT_MARGINS, *RESULT_MARGINS)
        layout.setSpacing(8)
        self.corner = CLOSE_OFFSET  # the close button's, from the top right corner (pixels)
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
        # ----- what a rated game did to both ratings -----
        self.ratings = QLabel()
        self.ratings.setObjectName("gameOverRatings")
        self.ratings.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.ratings.setTextFormat(Qt.TextFormat.PlainText)
        # (no accessible name: a screen reader then reads the changes, not "Rating changes")
        self.ratings.setAccessibleDescription("Rating changes")
        self.ratings.hide()
        self.rematch = QToolButton()
        self.rematch.setDefaultAction(rematch)
        self.rematch.setObjectName("primaryButton")
        self.rematch.setAccessibleName("Rematch")
        layout.addWidget(self.title)
        layout.addWidget(self.detail)
        layout.addWidget(self.ratings)
        layout.addWidget(self.rematch, 0, Qt.AlignmentFlag.AlignHCenter)
        self.hide()

    def add_button(self, action: QAction, name: str) -> QToolButton:
        """A button under Rematch for `action`, shown while the action is enabled (under, not
        beside: the panel keeps its width, a share of the table's)."""
        button = QToolButton()
        button.setDefaultAction(action)
        button.setObjectName("tableButton")
        button.setAccessibleName(name)
        button.setVisible(action.isEnabled())
        self.box.addWidget(button, 0, Qt.AlignmentFlag.AlignHCenter)

        def follow(enabled: bool) -> None:
            button.setVisible(enabled)
            if not self.isHidden():
                self.refit()

        action.enabledChanged.connect(follow)
        return button

    def show_result(self, title: str, detail: str, can_rematch: bool) -> None:
        self.title.setText(title)
        self.detail.setText(detail)
        self.rematch.setVisible(can_rematch)
        self.refit()
        self.show()
        self.raise_()

    def show_ratings(self, text: str) -> None:
        """Each player's rating change, one a line ("" hides them: an unrated game)."""
        self.ratings.setText(text)
        self.ratings.setVisible(bool(text))
        if not self.isHidden():
            self.refit()

    def refit(self) -> None:
        """Its size for what it says (in the table's text size), never less than a share of
        the table's width (it grows with the window), in the middle of the table."""
        parent = self.parentWidget()
        if parent is not None:
            self.setMinimumWidth(min(parent.width(), round(parent.width() * RESULT_SHARE)))
        self.adjustSize()
        self.close_button.adjustSize()
        self.close_button.move(self.width() - self.close_button.width() - self.corner,
                               self.corner)
        self.place()

    def rescale(self, scale: float) -> None:
        """Its margins and its close button's offset at the table's text `scale`."""
        margin = round(RESULT_MARGINS[0] * scale), round(RESULT_MARGINS[1] * scale)
        self.box.setContentsMargins(*margin, *margin)
        self.corner = round(CLOSE_OFFSET * scale)
        if not self.isHidden():
            self.refit()

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


def table_action(
    parent: QObject, text: str, shortcut: str, name: str, *, repeat: bool = False
) -> QAction:
    """A table's action, off until the table enables it. A key held down does it once, unless
    `repeat` (stepping through a replay): the system's key repeat would draw again."""
    action = new_action(text, parent)
    action.setAutoRepeat(repeat)
    if shortcut:
        action.setShortcut(QKeySequence(shortcut))
    action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    action.setToolTip(f"{name} ({shortcut})" if shortcut else name)
    action.setEnabled(False)
    return action
