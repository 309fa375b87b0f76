"""The lobby panel: the account, the server, "Create game", the live list of games, join by id.

A view only: it shows what it is given and says what the player asked for through signals
(the OnlinePlay controller does the work).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QFontMetrics, QKeyEvent, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..client.ratings import with_rating
from .accessibility import announce
from .column_widths import share_out
from .lobby_menu import JOIN, OPEN, PLAYER, REPLAY, line_choices
from .rated_box import RatedBox
from .style import repolish

if TYPE_CHECKING:  # (types only: the panel is built at start-up, before any HTTP is imported)
    from ..client.lobby_client import GameSummary, LevelInfo

COLUMNS = ("Game", "Player 1", "Player 2", "Status", "Watching")
NARROW = 80  # pixels: the least a column after the game's name is given, crowded
NAME, SEAT_1, SEAT_2, STATUS, WATCHING = range(len(COLUMNS))
NARROW_COLUMNS = (SEAT_1, SEAT_2, STATUS, WATCHING)
MEASURED = (NAME, *NARROW_COLUMNS)
# What the list may be narrowed to: (label, key).
SHOWN = (("All games", "all"), ("Open seats", "open"), ("In play", "playing"),
         ("Finished", "finished"), ("My games", "mine"))
EMPTY_HINTS = {
    "open": "No open seat right now: create a game above.",
    "playing": "No game in play right now.",
    "finished": "No finished game yet.",
    "mine": "You play no game on this server yet.",
}
ODDS_TIP = ("Both tables show the chance that the next card busts the table or is Death, and "
            "the Fools left. Never in a rated game.")
MESSAGE_KEPT_MS = 30_000  # news in the message line goes after this (errors stay)
CELL_PADDING = 12  # around a cell's text (pixels)
HEADER_PADDING = 20  # around a header's text


def shown_in(key: str, game: GameSummary, me: str | None) -> bool:
    """Whether the list narrowed to `key` (see SHOWN) shows this game."""
    mine = game.seat_of(me) is not None
    if key == "open":
        return game.open_seat() is not None and not mine and not game.host_away
    if key in ("playing", "finished"):
        return game.status == key
    if key == "mine":
        return mine
    return True


def short(name: str) -> str:
    """A seat's name without its note: "Computer (Normal)" is "Computer" (the seat's column
    says the level)."""
    return name.split(" (", 1)[0] if name.endswith(")") and " (" in name else name


CLOCK_CHOICES = (("No clock", None), ("30 s a move", 30), ("60 s a move", 60))


def status_text(game: GameSummary) -> str:
    """How a lobby line stands: waiting for a player, whose turn it is, who won."""
    if game.host_away:
        return "Host away"
    if game.status == "waiting":
        return "Waiting"
    if game.status == "playing":
        if game.turn is None:
            return "Playing"
        return f"{short(game.names[game.turn])}'s turn"
    if game.winner is not None and game.winner in (0, 1):
        return f"{short(game.names[game.winner])} won"
    return "Finished"


def status_line(game: GameSummary) -> str:
    """The status column: how the game stands, "rated" for a rated game, and "odds shown"
    when its tables show them (a joiner agrees to them by joining)."""
    return status_text(game) + (" · rated" if game.rated else "") + (
        " · odds shown" if game.odds else "")


class GameList(QTableWidget):
    """The lobby's games. Arrow keys move; Enter (or a click) on a game's name watches it, on
    an open seat takes that seat, on a person's name opens their page."""

    chosen = Signal(str, str)  # what to do (OPEN, JOIN or PLAYER), the game id or user id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(COLUMNS), parent)
        self.setObjectName("gameList")
        self.setAccessibleName("Games in the lobby")
        self.setAccessibleDescription(
            "Enter on a game's name watches it; Enter on an open seat joins the game; "
            "Enter on a player's name opens their page."
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
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(
            lambda at: self.menu_for(self.rowAt(at.y())).exec(self.viewport().mapToGlobal(at)))
        self.games: list[GameSummary] = []
        self._me: str | None = None
        self._live = True  # the server is reachable: an open seat can be taken
        self.hint = QLabel(self.viewport())  # what an empty list means
        self.hint.setObjectName("panelHint")
        self.hint.setWordWrap(True)
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.hide()
        self._widths = self._header_widths()

    def changeEvent(self, event: QEvent) -> None:
        """A new font (the column's text grows on a wide window): the lines shown take it,
        keeping their bold and underlined cells, and the columns are measured again."""
        super().changeEvent(event)
        if event.type() != QEvent.Type.FontChange:
            return
        for row in range(self.rowCount()):
            for column in range(self.columnCount()):
                item = self.item(row, column)
                if item is not None:
                    font = QFont(self.font())
                    font.setBold(item.font().bold())
                    font.setUnderline(item.font().underline())
                    item.setFont(font)
        self._measure((), again=True)

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

    def menu_for(self, row: int) -> QMenu:
        """A line's right-click menu: watch or play, join, replay, the players' pages."""
        menu = QMenu(self)
        if 0 <= row < len(self.games):
            for label, what, target in line_choices(self.games[row], self._me, self._live):
                action = menu.addAction(label)
                action.setData((what, target))
                action.triggered.connect(lambda _=False, a=action: self.chosen.emit(*a.data()))
        return menu

    def show_games(self, games: Sequence[GameSummary], me: str | None) -> None:
        """Show these games, changing only the lines that changed: the marked cell, the
        selection, the scroll position and the keyboard focus stay where they were."""
        new = list(games)
        current = self.currentRow()
        kept_id = self.games[current].id if 0 <= current < len(self.games) else None
        kept_column = max(0, self.currentColumn())
        top = self._top_line()
        everything = me != self._me or not self.games
        self._me = me
        wanted = {game.id for game in new}
        changed: list[int] = []
        for row in range(len(self.games) - 1, -1, -1):  # gone: bottom up
            if self.games[row].id not in wanted:
                self.removeRow(row)
                del self.games[row]
        for row, game in enumerate(new):
            if row < len(self.games) and self.games[row].id == game.id:
                if everything or self.games[row] != game:
                    self.games[row] = game
                    changed.append(row)
                continue
            moved = self.row_of(game.id)
            if moved >= 0:  # (lines only move if the order changes)
                self.removeRow(moved)
                del self.games[moved]
            self.insertRow(row)
            self.games.insert(row, game)
            changed.append(row)
        for row in changed:
            self._fill(row, self.games[row], me)
        self._measure(changed, again=everything)
        if kept_id is not None and self.currentRow() >= 0:
            row = self.row_of(kept_id)
            if row >= 0 and row != self.currentRow():
                self.setCurrentCell(row, kept_column)
        if top is not None:
            self._keep_top(*top)

    def set_hint(self, text: str) -> None:
        """Said in the list while it is empty (nothing to show, or nothing matches)."""
        self.hint.setText(text)
        self.hint.setVisible(bool(text) and self.rowCount() == 0)
        self._place_hint()

    def _place_hint(self) -> None:
        self.hint.setGeometry(self.viewport().rect().adjusted(10, 10, -10, -10))

    def set_live(self, live: bool) -> None:
        """While the server cannot be reached an open seat is no link (joining waits)."""
        if live != self._live:
            self._live = live
            for row, game in enumerate(self.games):
                self._fill(row, game, self._me)

    def _top_line(self) -> tuple[str, int] | None:
        """The game on the first visible line and its offset, when the list is scrolled."""
        if self.verticalScrollBar().value() == 0:
            return None
        row = self.rowAt(0)
        return (self.games[row].id, self.rowViewportPosition(row)) if row >= 0 else None

    def _keep_top(self, game_id: str, offset: int) -> None:
        """Scroll so that `game_id` is where it was (lines came or went above it)."""
        row = self.row_of(game_id)
        if row < 0:
            return
        self.updateGeometries()  # the scroll bar's range, for the rows added
        bar = self.verticalScrollBar()
        if self.verticalScrollMode() == QAbstractItemView.ScrollMode.ScrollPerItem:
            bar.setValue(row)
        else:
            bar.setValue(bar.value() + self.rowViewportPosition(row) - offset)

    def _cell(self, row: int, column: int, text: str, action: tuple[str, str]) -> QTableWidgetItem:
        """The cell's item (made once, then updated in place) with its text and its action."""
        item = self.item(row, column)
        if item is None:
            item = QTableWidgetItem()
            self.setItem(row, column, item)
        item.setText(text)
        item.setData(Qt.ItemDataRole.UserRole, action)
        return item

    def _fill(self, row: int, game: GameSummary, me: str | None) -> None:
        mine = game.seat_of(me) is not None
        verb = "play" if mine else "watch"
        opened = (OPEN, game.id)
        name = self._cell(row, NAME, game.name, opened)
        name.setData(Qt.ItemDataRole.AccessibleTextRole,
                     f"{game.name}, game {game.id}: press Enter to {verb}")
        font = QFont(self.font())
        font.setBold(mine)
        name.setFont(font)
        seen = f" · {game.observers} watching" if game.observers else ""
        name.setToolTip(f"{game.name} (game {game.id}): click to {verb}{seen}")
        open_seat = game.open_seat()
        for column, seat in ((SEAT_1, 0), (SEAT_2, 1)):
            label = game.names[seat]
            joinable = seat == open_seat and not mine and not game.host_away
            person = game.players[seat] if seat < len(game.players) else None
            shown = with_rating(label, person.rating) if person is not None else label
            page = (PLAYER, person.user_id) if person is not None and person.user_id \
                and person.kind == "person" else None
            item = self._cell(row, column, "Join" if joinable else shown,
                              (JOIN, game.id) if joinable else page or opened)
            font = QFont(self.font())
            font.setUnderline(joinable and self._live)
            item.setFont(font)
            if joinable and not self._live:
                item.setToolTip("The server cannot be reached: you can join once it is back")
                item.setData(Qt.ItemDataRole.AccessibleTextRole,
                             f"Open seat at {game.name}: you can join once the server is back")
                item.setForeground(self.palette().placeholderText())
            elif joinable:
                item.setToolTip("Click to take this seat")
                item.setData(Qt.ItemDataRole.AccessibleTextRole,
                             f"Open seat at {game.name}: press Enter to join")
                item.setForeground(self.palette().link())
            elif game.is_away(seat):
                item.setToolTip(f"{label} has left (their app is closed)")
                item.setData(Qt.ItemDataRole.AccessibleTextRole,
                             f"Seat {seat + 1}: {label}, away")
                item.setForeground(self.palette().placeholderText())
            elif seat == open_seat and game.host_away:
                item.setToolTip("The host has left this table: you can join once they are back")
                item.setData(Qt.ItemDataRole.AccessibleTextRole,
                             f"Open seat at {game.name}: the host has left")
                item.setForeground(self.palette().placeholderText())
            elif page is not None:
                item.setToolTip(f"{shown}: click for {label}'s page (rating and games)")
                item.setData(Qt.ItemDataRole.AccessibleTextRole,
                             f"Seat {seat + 1}: {shown}: press Enter for their page")
                item.setData(Qt.ItemDataRole.ForegroundRole, None)
            else:
                item.setToolTip(label)
                item.setData(Qt.ItemDataRole.AccessibleTextRole, f"Seat {seat + 1}: {label}")
                item.setData(Qt.ItemDataRole.ForegroundRole, None)
        finished = game.status == "finished"
        line = status_line(game)
        about = ("a rated game, it counts for both players' ratings" if game.rated
                 else "not rated") + (
            "; both tables show the odds of the next card" if game.odds else "") + (
            f"; {game.move_seconds} s a move" if game.move_seconds else "")
        status = self._cell(row, STATUS, line, (REPLAY, game.id) if finished else opened)
        status.setToolTip(f"{status_text(game)}: {about}" + (
            "; click to replay the game" if finished else ""))
        status.setData(Qt.ItemDataRole.AccessibleTextRole,
                       f"{line}: press Enter to replay" if finished else None)
        font = QFont(self.font())
        font.setUnderline(finished)
        status.setFont(font)
        watching = self._cell(row, WATCHING, str(game.observers), opened)
        watching.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
        watching.setData(Qt.ItemDataRole.AccessibleTextRole, f"{game.observers} watching")

    # ----- column widths -----
    def _measure(self, rows: Sequence[int], again: bool) -> None:
        """Widen the columns for the texts of these rows (all rows when `again`): only the
        lines that changed are measured, not the whole list on every event."""
        if again:
            self._widths = dict(self._header_widths())
            rows = range(self.rowCount())
        for row in rows:
            for column in MEASURED:
                item = self.item(row, column)
                if item is not None:
                    width = QFontMetrics(item.font()).horizontalAdvance(item.text()) \
                        + CELL_PADDING
                    if width > self._widths[column]:
                        self._widths[column] = width
        self._fit_columns()

    def _header_widths(self) -> dict[int, int]:
        metrics = self.horizontalHeader().fontMetrics()
        return {column: metrics.horizontalAdvance(COLUMNS[column]) + HEADER_PADDING
                for column in MEASURED}

    def least_name(self) -> int:
        """The least the game's name column ever gets: its header in full, a few letters."""
        header = self.horizontalHeader().fontMetrics().horizontalAdvance(COLUMNS[NAME])
        return max(header + HEADER_PADDING, self.fontMetrics().horizontalAdvance("Table 12"))

    def name_room(self) -> int:
        """The least the game's name column gets while there is room: also a third of the
        list (a name tells games apart better than the observer count)."""
        return max(self.least_name(), self.viewport().width() // 3)

    def _fit_columns(self) -> None:
        """Every column as wide as its longest text when the list has the room. Else the
        seats and the status keep their words ("Bea's turn", not "Bea's t…") and the name
        takes the rest, down to name_room(); below that the observer count goes (each
        name's tooltip still says it), and then the widest columns give alike (see
        share_out; a cut text elides, its tooltip says it whole), never below a header."""
        width = self.viewport().width()
        headers = self._header_widths()
        least = {c: self.least_name() if c == NAME else min(headers[c], NARROW)
                 for c in MEASURED}
        wanted = {c: max(self._widths[c], least[c]) for c in MEASURED}
        others = [c for c in NARROW_COLUMNS if c != WATCHING]
        crowded = sum(wanted.values()) > width and \
            width - self.name_room() - sum(wanted[c] for c in others) < wanted[WATCHING]
        if self.isColumnHidden(WATCHING) != crowded:
            self.setColumnHidden(WATCHING, crowded)
        columns = others if crowded else list(NARROW_COLUMNS)
        floors = [least[c] for c in columns]
        room = max(0, width - (self.least_name() if sum(floors) + self.name_room() > width
                               else self.name_room()))
        if sum(floors) > room:  # (too narrow even for their headers: the name's stays)
            floor = self.horizontalHeader().minimumSectionSize()
            floors = [max(floor, lo * room // sum(floors)) for lo in floors]
        # The status first (it says the most: "Bea's turn"), then the rest share what is left.
        first = columns.index(STATUS)
        rest_floors = sum(floors) - floors[first]
        status = max(floors[first], min(wanted[STATUS], room - rest_floors))
        others = [c for c in columns if c != STATUS]
        shared = share_out([wanted[c] for c in others], room - status,
                           [lo for c, lo in zip(columns, floors, strict=True) if c != STATUS])
        sizes = [status if c == STATUS else shared[others.index(c)] for c in columns]
        for column, size in zip(columns, sizes, strict=True):
            if self.columnWidth(column) != size:
                self.setColumnWidth(column, size)  # (the name's column stretches to the rest)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_columns()
        self._place_hint()

    def row_of(self, game_id: str) -> int:
        return next((n for n, g in enumerate(self.games) if g.id == game_id), -1)


class LobbyPanel(QFrame):
    """The online half of the right-hand column."""

    sign_in_clicked = Signal()
    sign_out_clicked = Signal()
    create_clicked = Signal(str, object)  # the table's name, a computer level key or None
    open_clicked = Signal(str)  # a game id: watch it (or play, at one's own table)
    join_clicked = Signal(str)  # a game id: take its open seat
    replay_clicked = Signal(str)  # a finished game's id: replay it
    player_clicked = Signal(str)  # a user id: open their page

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
        self.account.setAccessibleDescription("Account")  # (its name is what it says)
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
        self.server.setAccessibleDescription("Lobby server")
        self.server.setToolTip("Change the server in Settings (Ctrl+,)")

        self.name_field = QLineEdit()
        self.name_field.setPlaceholderText("Name of the new game")
        self.name_field.setAccessibleName("Name of the new game")
        self.name_field.setMaxLength(60)
        self.opponent = QComboBox()
        self.opponent.setAccessibleName("Opponent")
        # It gives way on a narrow column (its entries elide) so Create game keeps its words.
        self.opponent.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.opponent.setMinimumContentsLength(12)
        self.set_levels([])
        self.rated_box = RatedBox(self.opponent)  # rated or casual (two people only)
        self.create_button = QPushButton("Crea&te game")
        self.create_button.setObjectName("primaryButton")
        self.create_button.setAccessibleName("Create game")
        self.create_button.clicked.connect(self._create)
        self.name_field.returnPressed.connect(self._create)
        # the time control of a new game: none, or a clock for each move (clocks)
        self.clock_choice = QComboBox()
        self.clock_choice.setAccessibleName("Time control")
        self.clock_choice.setToolTip("A clock for each move: who runs out of time loses")
        for label, seconds in CLOCK_CHOICES:
            self.clock_choice.addItem(label, seconds)
        name_row = QHBoxLayout()  # the new game's name, and its clock
        name_row.addWidget(self.name_field, 1)
        name_row.addWidget(self.clock_choice)
        create_row = QHBoxLayout()
        create_row.addWidget(self.opponent, 1)
        create_row.addWidget(self.create_button)
        # The odds at Create: both players agree (the joiner by joining); never when rated.
        self.odds_box = QCheckBox("Show the odds to both players")
        self.odds_box.setAccessibleName("Show the odds to both players")
        self.odds_box.setToolTip(ODDS_TIP)
        for changed in (self.rated_box.toggled, self.opponent.currentIndexChanged):
            changed.connect(lambda *_: self.set_odds_allowed(not self.rated_box.rated()))
        self.set_odds_allowed(not self.rated_box.rated())

        self.games = GameList()
        self.games.chosen.connect(self._chosen)
        games_label = QLabel("Games (Ctrl+L)")  # (Alt+L is the offline level picker's)
        games_label.setObjectName("panelHint")
        games_label.setBuddy(self.games)
        self.shown = QComboBox()
        self.shown.setAccessibleName("Which games the list shows")
        for label, key in SHOWN:
            self.shown.addItem(label, key)
        self.shown.currentIndexChanged.connect(lambda _: self._show_chosen())
        games_row = QHBoxLayout()
        games_row.addWidget(games_label, 1)
        games_row.addWidget(self.shown)
        self._all_games: list[GameSummary] = []
        self._me: str | None = None

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
        self._said = 0  # lines said so far (a line's timer clears only that line)
        self.message = QLabel()
        self.message.setObjectName("status")
        self.message.setWordWrap(True)
        self.message.setAccessibleDescription("Lobby message")
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        layout.addWidget(title)
        layout.addLayout(account_row)
        layout.addWidget(self.server)
        options_row = QHBoxLayout()  # rated or casual, and the odds (never both)
        options_row.addWidget(self.rated_box)
        options_row.addWidget(self.odds_box, 1)
        layout.addLayout(name_row)
        layout.addLayout(create_row)
        layout.addLayout(options_row)
        layout.addLayout(games_row)
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
        """Creating, joining and signing in wait for the lobby to be live. (Signing out does
        not: it is forgotten here even when the server cannot be told.)"""
        for widget in (self.create_button, self.join_button, self.sign_in_button):
            widget.setEnabled(connected)
        self.games.set_live(connected)
        self._show_chosen()

    def set_server(self, text: str) -> None:
        self.server.setText(f"Server: {text}")

    def set_levels(self, levels: Sequence[LevelInfo]) -> None:
        """The opponents offered: a person, or the server's computer levels. The one chosen
        stays while it is offered; the Rated and odds boxes hear only of a real change (not
        of the list rebuilt, which would untick the odds asked for)."""
        chosen = self.opponent.currentData()
        blocked = self.opponent.blockSignals(True)
        self.opponent.clear()
        self.opponent.addItem("Anyone may join", None)
        for level in levels:
            self.opponent.addItem(f"Computer: {level.label}", level.key)
        self.opponent.setCurrentIndex(max(0, self.opponent.findData(chosen)))
        self.opponent.blockSignals(blocked)
        if self.opponent.currentData() != chosen:
            self.opponent.currentIndexChanged.emit(self.opponent.currentIndex())

    def set_games(self, games: Sequence[GameSummary], me: str | None) -> None:
        self._all_games, self._me = list(games), me
        self._show_chosen()

    def _show_chosen(self) -> None:
        """The games the list is narrowed to (Show: all, open seats, in play, ...)."""
        key = self.shown.currentData() or "all"
        shown = [g for g in self._all_games if shown_in(key, g, self._me)]
        self.games.show_games(shown, self._me)
        self.games.set_hint(self._empty_hint(key) if not shown else "")

    def _empty_hint(self, key: str) -> str:
        if not self.create_button.isEnabled():
            return ""  # (not listed yet, or the server is away: the message line says so)
        if key == "mine" and self._me is None:
            return "Sign in to see your games."
        if not self._all_games:
            return "No games on this server yet: create one above."
        return EMPTY_HINTS.get(key, "")

    def set_busy(self, busy: bool, label: str = "") -> None:
        self.progress.setVisible(busy)
        if busy and label:
            self.progress.setToolTip(label)
            self.progress.setAccessibleDescription(label)

    def show_message(self, text: str, error: bool = False, keep: bool = False) -> None:
        """A line under the lobby (read out too), errors in red. It goes after a while
        (MESSAGE_KEPT_MS) unless another line replaced it, or it is to be kept (what holds
        while it is true: the server cannot be reached, say)."""
        self.message.setText(text)
        self.message.setProperty("error", error)
        repolish(self.message)
        if text:
            self.announce(text)
        self._said += 1
        if text and not keep:
            said = self._said
            QTimer.singleShot(MESSAGE_KEPT_MS, self,
                              lambda: self.show_message("") if said == self._said else None)

    def announce(self, text: str) -> None:
        announce(self.games, text)

    def set_odds_allowed(self, allowed: bool) -> None:
        """The odds may be asked for (not while a rated game is chosen)."""
        self.odds_box.setEnabled(allowed)
        if not allowed:
            self.odds_box.setChecked(False)
        self.odds_box.setToolTip(ODDS_TIP if allowed else "Never in a rated game")

    # ----- asked for -----
    def _create(self) -> None:
        self.create_clicked.emit(self.name_field.text().strip(), self.opponent.currentData())

    def _join_by_id(self) -> None:
        game_id = self.game_id_field.text().strip().upper()
        if game_id:
            self.join_clicked.emit(game_id)

    def _chosen(self, what: str, target: str) -> None:
        asked = {JOIN: self.join_clicked, REPLAY: self.replay_clicked,
                 PLAYER: self.player_clicked}
        asked.get(what, self.open_clicked).emit(target)

    def rated(self) -> bool:
        """Whether the game to create is rated (never against the computer)."""
        return self.rated_box.rated()

    def focus_games(self) -> None:
        self.games.setFocus(Qt.FocusReason.ShortcutFocusReason)
        if self.games.currentRow() < 0 and self.games.rowCount():
            self.games.setCurrentCell(0, NAME)

    def focus_join(self) -> None:
        self.game_id_field.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.game_id_field.selectAll()
