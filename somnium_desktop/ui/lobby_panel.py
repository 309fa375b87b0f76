"""The lobby panel: the account, the server, "Create game", the live list of games, join by id.

A view only: it shows what it is given and says what the player asked for through signals
(the OnlinePlay controller does the work).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from .accessibility import announce

if TYPE_CHECKING:  # (types only: the panel is built at start-up, before any HTTP is imported)
    from ..client.lobby_client import GameSummary, LevelInfo

COLUMNS = ("Game", "Player 1", "Player 2", "Status", "Watching")
NARROW = 80  # at most this wide (in pixels), the columns after the game's name
NAME, SEAT_1, SEAT_2, STATUS, WATCHING = range(len(COLUMNS))
OPEN = "open"  # a click watches (or, at one's own table, plays)
JOIN = "join"  # a click takes the open seat


def status_text(game: GameSummary) -> str:
    """How a lobby line stands: waiting for a player, whose turn it is, who won."""
    if game.status == "waiting":
        return "Waiting"
    if game.status == "playing":
        if game.turn is None:
            return "Playing"
        return f"{game.names[game.turn]}'s turn"
    if game.winner is not None and game.winner in (0, 1):
        return f"{game.names[game.winner]} won"
    return "Finished"


class GameList(QTableWidget):
    """The lobby's games. Arrow keys move; Enter (or a click) on a game's name watches it, on
    an open seat takes that seat."""

    chosen = Signal(str, str)  # what to do (OPEN or JOIN), the game id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(COLUMNS), parent)
        self.setObjectName("gameList")
        self.setAccessibleName("Games in the lobby")
        self.setAccessibleDescription(
            "Enter on a game's name watches it; Enter on an open seat joins the game."
        )
        self.setHorizontalHeaderLabels(COLUMNS)
        self.verticalHeader().setVisible(False)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setTabKeyNavigation(False)  # Tab leaves the list; arrows move inside it
        self.setWordWrap(False)
        self.setShowGrid(False)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(NAME, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(36)
        self.cellClicked.connect(self._choose)
        self.games: list[GameSummary] = []

    def keyPressEvent(self, event: QKeyEvent) -> None:
        keys = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space)
        if event.key() in keys and self.currentRow() >= 0:
            self._choose(self.currentRow(), max(0, self.currentColumn()))
            return
        super().keyPressEvent(event)

    def _choose(self, row: int, column: int) -> None:
        item = self.item(row, column)
        data = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        if isinstance(data, tuple):
            self.chosen.emit(*data)

    def show_games(self, games: Sequence[GameSummary], me: str | None) -> None:
        """Show these games; the current game and column stay where they were."""
        current = self.currentRow()
        kept_id = self.games[current].id if 0 <= current < len(self.games) else None
        kept_column = max(0, self.currentColumn())
        self.games = list(games)
        self.setRowCount(len(self.games))
        for row, game in enumerate(self.games):
            self._fill(row, game, me)
        for column in (SEAT_1, SEAT_2, STATUS, WATCHING):  # what fits; the name gets the rest
            self.resizeColumnToContents(column)
            self.setColumnWidth(column, min(self.columnWidth(column), NARROW))
        if kept_id is not None:
            row = next((n for n, g in enumerate(self.games) if g.id == kept_id), -1)
            if row >= 0:
                self.setCurrentCell(row, kept_column)

    def _fill(self, row: int, game: GameSummary, me: str | None) -> None:
        mine = game.seat_of(me) is not None
        name = QTableWidgetItem(game.name)
        verb = "play" if mine else "watch"
        name.setData(Qt.ItemDataRole.UserRole, (OPEN, game.id))
        name.setData(Qt.ItemDataRole.AccessibleTextRole,
                     f"{game.name}, game {game.id}: press Enter to {verb}")
        if mine:
            font = QFont(name.font())
            font.setBold(True)
            name.setFont(font)
        name.setToolTip(f"{game.name} (game {game.id}): click to {verb}")
        self.setItem(row, NAME, name)
        open_seat = game.open_seat()
        for column, seat in ((SEAT_1, 0), (SEAT_2, 1)):
            label = game.names[seat]
            item = QTableWidgetItem(label)
            if seat == open_seat and not mine:
                item.setText("Join")
                item.setData(Qt.ItemDataRole.UserRole, (JOIN, game.id))
                item.setToolTip("Click to take this seat")
                item.setData(Qt.ItemDataRole.AccessibleTextRole,
                             f"Open seat at {game.name}: press Enter to join")
                item.setForeground(self.palette().link())
                font = QFont(item.font())
                font.setUnderline(True)
                item.setFont(font)
            else:
                item.setData(Qt.ItemDataRole.UserRole, (OPEN, game.id))
                item.setData(Qt.ItemDataRole.AccessibleTextRole, f"Seat {seat + 1}: {label}")
            self.setItem(row, column, item)
        status = QTableWidgetItem(status_text(game))
        status.setToolTip(status_text(game))
        watching = QTableWidgetItem(str(game.observers))
        watching.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
        watching.setData(Qt.ItemDataRole.AccessibleTextRole, f"{game.observers} watching")
        for column, cell in ((STATUS, status), (WATCHING, watching)):
            cell.setData(Qt.ItemDataRole.UserRole, (OPEN, game.id))
            self.setItem(row, column, cell)

    def row_of(self, game_id: str) -> int:
        return next((n for n, g in enumerate(self.games) if g.id == game_id), -1)


class LobbyPanel(QFrame):
    """The online half of the right-hand column."""

    sign_in_clicked = Signal()
    sign_out_clicked = Signal()
    create_clicked = Signal(str, object)  # the table's name, a computer level key or None
    open_clicked = Signal(str)  # a game id: watch it (or play, at one's own table)
    join_clicked = Signal(str)  # a game id: take its open seat

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sidePanel")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 14, 14, 8)
        layout.setSpacing(6)

        title = QLabel("Play online")
        title.setObjectName("panelTitle")
        self.account = QLabel("Not signed in")
        self.account.setObjectName("panelHint")
        self.account.setAccessibleName("Account")
        self.sign_in_button = QPushButton("Sign &in")
        self.sign_in_button.setAccessibleName("Sign in")
        self.sign_out_button = QPushButton("Sign &out")
        self.sign_out_button.setAccessibleName("Sign out")
        self.sign_in_button.clicked.connect(self.sign_in_clicked)
        self.sign_out_button.clicked.connect(self.sign_out_clicked)
        self.sign_out_button.hide()
        account_row = QHBoxLayout()
        account_row.addWidget(self.account, 1)
        account_row.addWidget(self.sign_in_button)
        account_row.addWidget(self.sign_out_button)
        self.server = QLabel("Server: connecting…")
        self.server.setObjectName("panelHint")
        self.server.setWordWrap(True)
        self.server.setAccessibleName("Lobby server")
        self.server.setToolTip("Change the server in Settings (Ctrl+,)")

        self.name_field = QLineEdit()
        self.name_field.setPlaceholderText("Name of the new game")
        self.name_field.setAccessibleName("Name of the new game")
        self.name_field.setMaxLength(60)
        self.opponent = QComboBox()
        self.opponent.setAccessibleName("Opponent")
        self.set_levels([])
        self.create_button = QPushButton("Crea&te game")
        self.create_button.setObjectName("primaryButton")
        self.create_button.setAccessibleName("Create game")
        self.create_button.clicked.connect(self._create)
        self.name_field.returnPressed.connect(self._create)
        create_row = QHBoxLayout()
        create_row.addWidget(self.opponent, 1)
        create_row.addWidget(self.create_button)

        self.games = GameList()
        self.games.chosen.connect(self._chosen)
        games_label = QLabel("Games (Ctrl+L)")  # (Alt+L is the offline level picker's)
        games_label.setObjectName("panelHint")
        games_label.setBuddy(self.games)

        self.game_id_field = QLineEdit()
        self.game_id_field.setPlaceholderText("Game id, e.g. 7KQ3MZP")
        self.game_id_field.setAccessibleName("Game id to join")
        self.game_id_field.setMaxLength(16)
        self.join_button = QPushButton("&Join")
        self.join_button.setAccessibleName("Join the game with this id")
        self.join_button.clicked.connect(self._join_by_id)
        self.game_id_field.returnPressed.connect(self._join_by_id)
        join_row = QHBoxLayout()
        join_row.addWidget(self.game_id_field, 1)
        join_row.addWidget(self.join_button)

        self.progress = QProgressBar()
        self.progress.setRange(0, 0)  # busy, length unknown
        self.progress.setMaximumHeight(6)
        self.progress.setTextVisible(False)
        self.progress.setAccessibleName("Working")
        self.progress.hide()
        self.message = QLabel()
        self.message.setObjectName("status")
        self.message.setWordWrap(True)
        self.message.setAccessibleName("Lobby message")
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        layout.addWidget(title)
        layout.addLayout(account_row)
        layout.addWidget(self.server)
        layout.addWidget(self.name_field)
        layout.addLayout(create_row)
        layout.addWidget(games_label)
        layout.addWidget(self.games, 1)
        layout.addLayout(join_row)
        layout.addWidget(self.progress)
        layout.addWidget(self.message)
        self.set_connected(False)

    # ----- shown -----
    def set_account(self, name: str | None) -> None:
        self.account.setText(f"Signed in as {name}" if name else "Not signed in")
        self.sign_in_button.setVisible(not name)
        self.sign_out_button.setVisible(bool(name))

    def set_connected(self, connected: bool) -> None:
        """Creating, joining and signing in wait for a server to talk to."""
        for widget in (self.create_button, self.join_button, self.sign_in_button,
                       self.sign_out_button):
            widget.setEnabled(connected)

    def set_server(self, text: str) -> None:
        self.server.setText(f"Server: {text}")

    def set_levels(self, levels: Sequence[LevelInfo]) -> None:
        chosen = self.opponent.currentData()
        self.opponent.clear()
        self.opponent.addItem("A person (anyone may join)", None)
        for level in levels:
            self.opponent.addItem(f"The computer: {level.label}", level.key)
        self.opponent.setCurrentIndex(max(0, self.opponent.findData(chosen)))

    def set_games(self, games: Sequence[GameSummary], me: str | None) -> None:
        self.games.show_games(games, me)

    def set_busy(self, busy: bool, label: str = "") -> None:
        self.progress.setVisible(busy)
        if busy and label:
            self.progress.setToolTip(label)
            self.progress.setAccessibleDescription(label)

    def show_message(self, text: str, error: bool = False) -> None:
        """A line under the lobby (read out too); errors in red."""
        self.message.setText(text)
        self.message.setProperty("error", error)
        self.message.style().unpolish(self.message)
        self.message.style().polish(self.message)
        if text:
            self.announce(text)

    def announce(self, text: str) -> None:
        announce(self.games, text)

    # ----- asked for -----
    def _create(self) -> None:
        self.create_clicked.emit(self.name_field.text().strip(), self.opponent.currentData())

    def _join_by_id(self) -> None:
        game_id = self.game_id_field.text().strip().upper()
        if game_id:
            self.join_clicked.emit(game_id)

    def _chosen(self, what: str, game_id: str) -> None:
        (self.join_clicked if what == JOIN else self.open_clicked).emit(game_id)

    def focus_games(self) -> None:
        self.games.setFocus(Qt.FocusReason.ShortcutFocusReason)
        if self.games.currentRow() < 0 and self.games.rowCount():
            self.games.setCurrentCell(0, NAME)

    def focus_join(self) -> None:
        self.game_id_field.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.game_id_field.selectAll()
