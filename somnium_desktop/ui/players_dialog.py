"""The Players dialog (the server's leaderboard) and a player's page: rating, history, games."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..client.analysis import percent
from ..client.ratings import rating_text
from .dialog_scale import in_window_text_size

# (the dialog it is for, work on a worker thread, its answer on the UI thread, a failure's
# message on the UI thread; neither comes once the dialog is deleted)
Fetch = Callable[[QObject, Callable[[], dict[str, Any]], Callable[[dict[str, Any]], None],
                  Callable[[str], None]], None]
RESULTS = {1.0: "won", 0.5: "drew", 0.0: "lost"}
HISTORY_LINES = 8  # the most lines the rating history shows before it scrolls


class PlayersDialog(QDialog):
    """The leaderboard; a double-click (or Enter) on a player opens their page."""

    player_chosen = Signal(str)  # user id

    def __init__(self, parent: QWidget | None, fetch: Fetch,
                 leaderboard: Callable[[], dict[str, Any]]) -> None:
        super().__init__(parent)
        self.setWindowTitle("Players")
        self.note = QLabel("Loading the leaderboard…")
        self.note.setWordWrap(True)
        self.board = QTableWidget(0, 4)
        self.board.setHorizontalHeaderLabels(["#", "Player", "Rating", "Rated games"])
        self.board.setAccessibleName("Leaderboard")
        self.board.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.board.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.board.verticalHeader().hide()
        self.board.cellActivated.connect(self._chosen)
        self.board.cellDoubleClicked.connect(self._chosen)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for widget in (self.note, self.board, buttons):
            layout.addWidget(widget)
        self.resize(480, 420)
        in_window_text_size(self)
        fetch(self, leaderboard, self.show_board, self.note.setText)

    def show_board(self, data: dict[str, Any]) -> None:
        players = data.get("players", [])
        self.note.setText(
            f"Players with at least {data.get('min_games', '?')} rated games, best first."
            if players else
            f"Nobody has played {data.get('min_games', '?')} rated games yet."
        )
        self.board.setRowCount(len(players))
        for row, line in enumerate(players):
            cells = [str(line["rank"]), str(line["name"]), rating_text(line["rating"]),
                     str(line["played"])]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, line["id"])
                self.board.setItem(row, column, item)

    def _chosen(self, row: int, _column: int) -> None:
        item = self.board.item(row, 0)
        if item is not None:
            self.player_chosen.emit(str(item.data(Qt.ItemDataRole.UserRole)))


class PlayerPage(QDialog):
    """One player: name, rating, record, rating history and recent games. Replay (or a
    double-click) on a finished game asks for its replay (`replay_requested`; replays are
    shown elsewhere)."""

    replay_requested = Signal(str)  # game id

    def __init__(self, parent: QWidget | None, fetch: Fetch,
                 page: Callable[[], dict[str, Any]]) -> None:
        super().__init__(parent)
        self.setWindowTitle("Player")
        self.title = QLabel("Loading…")
        self.title.setObjectName("panelTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)  # (a name is the player's words)
        self.title.setAccessibleName("Player")
        self.record = QLabel("")
        self.history = QListWidget()
        self.history.setAccessibleName("Rating history")
        self.games = QListWidget()
        self.games.setAccessibleName("Recent games")
        self.games.itemActivated.connect(self._replay)
        self.games.itemDoubleClicked.connect(self._replay)
        self.games.currentItemChanged.connect(lambda *_: self._enable_replay())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.replay_button = buttons.addButton("&Replay", QDialogButtonBox.ButtonRole.ActionRole)
        self.replay_button.setAccessibleName("Replay the chosen game")
        self.replay_button.clicked.connect(lambda: self._replay(self.games.currentItem()))
        self._enable_replay()
        self._fit_history()
        layout = QVBoxLayout(self)
        for widget in (self.title, self.record, QLabel("Rating history"), self.history,
                       QLabel("Recent games (Replay, or a double-click, replays a finished one)"),
                       self.games, buttons):
            layout.addWidget(widget)
        self.resize(460, 520)
        in_window_text_size(self)
        fetch(self, page, self.show_page, self.title.setText)

    def show_page(self, data: dict[str, Any]) -> None:
        name = str(data["name"])
        self.setWindowTitle(f"Player: {name}")
        rating = data["rating"]
        settled = "provisional" if rating.get("provisional") else "settled"
        self.title.setText(f"{name}: {rating_text(rating)} (±{rating['deviation']}, {settled})")
        self.record.setText(f"{data['played']} rated games: {data['won']} won, "
                            f"{data['lost']} lost, {data['drawn']} drawn")
        self.history.clear()
        for point in data.get("history", []):
            change = point["after"] - point["before"]
            result = RESULTS.get(float(point["score"]), "played")
            self.history.addItem(f"{point['after']} ({change:+d}): {result}, "
                                 f"game {point['game_id']}")
        self._fit_history()
        self.games.clear()
        for game in data.get("recent", []):
            names = " against ".join(str(p.get("name") or "Open seat") for p in game["players"])
            accuracy = game.get("accuracy")  # once the game's analysis has been computed
            told = f", accuracy {percent(accuracy)}" if accuracy is not None else ""
            item = QListWidgetItem(
                f"{game['name']} ({game['id']}): {names}, {game['status']}{told}"
            )
            item.setData(Qt.ItemDataRole.UserRole, (game["id"], game["status"]))
            self.games.addItem(item)
        finished = [row for row in range(self.games.count())
                    if self._chosen_finished(self.games.item(row)) is not None]
        if self.games.count():  # (the newest finished game: Replay is ready for it)
            self.games.setCurrentRow(finished[0] if finished else 0)

    def _fit_history(self) -> None:
        """The rating history as tall as its lines (one at least, HISTORY_LINES at most, then
        it scrolls): the recent games take the rest of the page."""
        lines = min(max(self.history.count(), 1), HISTORY_LINES)
        line = self.history.sizeHintForRow(0) if self.history.count() \
            else self.history.fontMetrics().lineSpacing()
        self.history.setFixedHeight(line * lines + 2 * self.history.frameWidth())

    def _chosen_finished(self, item: QListWidgetItem | None) -> str | None:
        """The game id of a finished game's line (None for any other)."""
        if item is None:
            return None
        game_id, status = item.data(Qt.ItemDataRole.UserRole)
        return str(game_id) if status == "finished" else None

    def _enable_replay(self) -> None:
        finished = self._chosen_finished(self.games.currentItem()) is not None
        self.replay_button.setEnabled(finished)
        self.replay_button.setToolTip("" if finished else "Choose a finished game to replay")

    def _replay(self, item: QListWidgetItem | None) -> None:
        game_id = self._chosen_finished(item)
        if game_id is not None:
            self.replay_requested.emit(game_id)
