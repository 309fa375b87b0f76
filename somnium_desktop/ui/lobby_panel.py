"""The lobby panel: the account, the server, "Create game", the live list of games, join by id.

A view only: it shows what it is given and says what the player asked for through signals
(the OnlinePlay controller does the work).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from .accessibility import announce
from .lobby_games import EMPTY_HINTS, NAME, SHOWN, GameList, shown_in
from .lobby_menu import JOIN, PLAYER, REPLAY
from .rated_box import RatedBox
from .style import repolish

if TYPE_CHECKING:  # (types only: the panel is built at start-up, before any HTTP is imported)
    from ..client.lobby_records import GameSummary, LevelInfo

ODDS_TIP = ("Both tables show the chance that the next card busts the table or is Death, and "
            "the Fools left. Never in a rated game.")
MESSAGE_KEPT_MS = 30_000  # news in the message line goes after this (errors stay)
CLOCK_CHOICES = (("No clock", None), ("30 s a move", 30), ("60 s a move", 60))
NOT_AN_ID = "That is no game id: type the game's letters and digits, e.g. 7KQ3MZP."


def game_id_in(text: str) -> str | None:
    """The game id in what was typed or pasted in the join field: the id alone ("7kq3mzp "),
    or as the table shows it ("Game id 7KQ3MZP"); None when there is no one id in it."""
    words: list[str] = [w for w in re.findall(r"[A-Za-z0-9]+", text)
                        if w.lower() not in ("game", "id")]
    if len(words) != 1 or len(words[0]) > 16:
        return None
    return words[0].upper()


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
        self.game_id_field.setMaxLength(40)  # (room for the id pasted as "Game id 7KQ3MZP")
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

    def typed_game_id(self) -> str | None:
        """The game id in the join field (see game_id_in)."""
        return game_id_in(self.game_id_field.text())

    def _join_by_id(self) -> None:
        game_id = self.typed_game_id()
        if game_id is not None:
            self.join_clicked.emit(game_id)
        elif self.game_id_field.text().strip():
            self.show_message(NOT_AN_ID, error=True)

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
