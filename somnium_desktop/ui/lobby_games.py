"""The lobby's list of games: its columns, its lines, what a line says, how it narrows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QModelIndex, QObject, QSize, Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics, QKeyEvent, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QMenu,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from ..client.ratings import with_rating
from .cell_cuts import cut_seat, cut_status
from .column_widths import share_out
from .lobby_menu import JOIN, OPEN, PLAYER, REPLAY, line_choices

if TYPE_CHECKING:  # (types only: the list is built at start-up, before any HTTP is imported)
    from ..client.lobby_records import GameSummary

COLUMNS = ("Game", "Player 1", "Player 2", "Status", "Watching")
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
CELL_PADDING = 12  # around a cell's text (pixels)
HEADER_PADDING = 20  # around a header's text
LEAST_LINES = 2  # whole lines of games the list shows at the least (behind a game's log)
# A seat's (name, rating) or a status's (line, words): the text a cell cuts to its width.
WHOLE = Qt.ItemDataRole.UserRole + 1


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
        header.installEventFilter(self)  # (its font changes after the list's: see eventFilter)
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
        self.updateGeometry()  # (its lines' height, so its least height, changed)

    def height_for(self, lines: int) -> int:
        """Its height with its header and `lines` whole lines of games in sight."""
        return self.horizontalHeader().sizeHint().height() + 2 * self.frameWidth() \
            + self.verticalHeader().defaultSectionSize() * lines

    def minimumSizeHint(self) -> QSize:
        """As narrow as a list may be, and tall enough for LEAST_LINES whole lines: never a
        line cut through its words."""
        return QSize(super().minimumSizeHint().width(), self.height_for(LEAST_LINES))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """The header's new font comes after the list's (a wide window's column restyled):
        the columns are measured again for its words, or they would keep the old font's
        widths and the headers run together."""
        if watched is self.horizontalHeader() and event.type() == QEvent.Type.FontChange:
            self._measure((), again=True)
            self.updateGeometry()  # (a taller header)
        return super().eventFilter(watched, event)

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
        selection, the scroll position and the keyboard focus stay where they were (a marked
        game that leaves the list leaves no cell marked)."""
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
        if kept_id is not None:
            row = self.row_of(kept_id)
            if row < 0:  # it left the list: no other game's line takes its place (an Enter
                # meant for it must not join or open another)
                self.setCurrentIndex(QModelIndex())
                self.clearSelection()
            elif row != self.currentRow():
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
            self._fit_texts()  # (filled whole again: cut to the columns as before)

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
            item.setData(WHOLE, None if joinable or person is None
                         else (label, person.rating))
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
        status.setData(WHOLE, (line, status_text(game)))
        status.setToolTip(f"{status_text(game)}: {about}" + (
            "; click to replay the game" if finished else ""))
        status.setData(Qt.ItemDataRole.AccessibleTextRole,  # (whole, when the cell is cut)
                       f"{line}: press Enter to replay" if finished else line)
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
                if item is None:
                    continue
                metrics = QFontMetrics(item.font())
                whole = item.data(WHOLE)
                text = item.text() if not isinstance(whole, tuple) else \
                    whole[0] if column == STATUS else with_rating(*whole)
                width = metrics.horizontalAdvance(text) + CELL_PADDING
                self._widths[column] = max(self._widths[column], width)
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
        seats keep their names and ratings first (what a player scans the lobby for), the
        status takes what they leave (its words alone, "Waiting", when its whole line does
        not fit: "rated" is in its tooltip) and the name the rest, down to name_room() (or
        its own width, when less: a short name leaves the players their ratings); below
        that the observer count goes (each name's tooltip still says it), then the status
        gives down to its header, then the seats, the widest first (see share_out), never
        below a header, a name cut before its rating ("Robi… (1487?)"). A cut text's
        tooltip says it whole."""
        width = self.viewport().width()
        headers = self._header_widths()
        least = {c: self.least_name() if c == NAME else headers[c] for c in MEASURED}
        wanted = {c: max(self._widths[c], least[c]) for c in MEASURED}
        others = [c for c in NARROW_COLUMNS if c != WATCHING]
        name_room = min(self.name_room(), wanted[NAME])
        crowded = sum(wanted.values()) > width and \
            width - name_room - sum(wanted[c] for c in others) < wanted[WATCHING]
        if self.isColumnHidden(WATCHING) != crowded:
            self.setColumnHidden(WATCHING, crowded)
        columns = others if crowded else list(NARROW_COLUMNS)
        floors = [least[c] for c in columns]
        room = max(0, width - (self.least_name() if sum(floors) + name_room > width
                               else name_room))
        if sum(floors) > room:  # (too narrow even for their headers: the name's stays)
            floor = self.horizontalHeader().minimumSectionSize()
            floors = [max(floor, lo * room // sum(floors)) for lo in floors]
        # The seats first (the status keeping its header), then the status takes the rest.
        status_floor = floors[columns.index(STATUS)]
        seats = [c for c in columns if c != STATUS]
        shared = share_out([wanted[c] for c in seats], room - status_floor,
                           [lo for c, lo in zip(columns, floors, strict=True) if c != STATUS])
        status = max(status_floor, min(wanted[STATUS], room - sum(shared)))
        sizes = [status if c == STATUS else shared[seats.index(c)] for c in columns]
        for column, size in zip(columns, sizes, strict=True):
            if self.columnWidth(column) != size:
                self.setColumnWidth(column, size)  # (the name's column stretches to the rest)
        self._fit_texts()

    def _fit_texts(self) -> None:
        """Each seat's and status's text as its column's width lets it be (see cut_seat and
        cut_status)."""
        for column in (SEAT_1, SEAT_2, STATUS):
            room = self.columnWidth(column) - CELL_PADDING
            for row in range(self.rowCount()):
                item = self.item(row, column)
                whole = item.data(WHOLE) if item is not None else None
                if item is None or not isinstance(whole, tuple):
                    continue
                metrics = QFontMetrics(item.font())
                cut = cut_seat if column != STATUS else cut_status
                text = cut(metrics, room, *whole)
                if item.text() != text:
                    item.setText(text)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_columns()
        self._place_hint()

    def row_of(self, game_id: str) -> int:
        return next((n for n, g in enumerate(self.games) if g.id == game_id), -1)
