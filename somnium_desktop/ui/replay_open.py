"""Where replays open on the window's table: the result panel's Replay, leaving one, and
asking first when a game in play would be left for one (or for a game of the lobby)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt

from ..client.replay_source import ReplaySource
from .table_scale import chrome_sheet

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMessageBox

    from ..client.replay import Replay
    from ..client.source import TableSource
    from .main_window import MainWindow


def in_play(source: TableSource | None) -> bool:
    """Whether the table holds a game this player is playing and that is not over."""
    view = source.view if source is not None else None
    return source is not None and view is not None and not view.over \
        and source.my_seat is not None and not source.read_only


class Replays:
    """Opens replays on the window's table through `replace` (what puts a source on it):
    the table's Replay (a finished game again, offline from what the app holds, online from
    its server), a replay fetched by online play (its analysis asked of the same server), and
    Leave replay (an empty table)."""

    def __init__(self, window: MainWindow,
                 replace: Callable[[TableSource | None], None]) -> None:
        self.window = window
        self.replace = replace
        self.confirm: QMessageBox | None = None  # "leave the game in play?", while asked
        window.table.replaying.asked.connect(self.replay_shown_game)
        window.table.replaying.left.connect(lambda: self.open(None))

    def open(self, replay: Replay | None, offline: bool = False) -> None:
        """Show `replay` on the table from its deal (None: take the replay off)."""
        online = self.window.online
        client = online.client if online is not None and not offline else None

        def show() -> None:
            source = None
            if replay is not None:
                replay.start()
                game_id = replay.game_id
                source = ReplaySource(replay, offline=offline, analysis=None if client is None
                                      else lambda: client.analysis(game_id))
            self.replace(source)
            self.window.table.view.setFocus()

        self.leave_then(show)

    def replay_shown_game(self) -> None:
        """Replay the finished game on the table (online, once its replay has come)."""
        source, online = self.window.source, self.window.online
        if source is None or not source.can_replay:
            return
        local = source.local_replay()
        if local is not None:
            self.open(local, offline=True)
        elif online is not None:
            online.open_replay(source.game_id)

    def leave_then(self, then: Callable[[], None], title: str = "Leave the game for a replay?",
                   why: str = "to see this replay") -> None:
        """Run `then` at once, or once the player agreed to leave the game in play on the
        table (`title` and `why` say for what); the question does not block the window."""
        asked = self.window.source
        if asked is None or not in_play(asked):
            then()
            return
        from PySide6.QtWidgets import QMessageBox  # (lazy: only when asked)

        from ..client.offline import OfflineGame

        gone = ("The game against the computer is abandoned." if isinstance(asked, OfflineGame)
                else "It goes on on the server: the lobby takes you back to it.")
        box = QMessageBox(QMessageBox.Icon.Question, title,
                          f"Leave “{asked.game_name}” {why}? {gone}",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                          self.window)
        box.setDefaultButton(QMessageBox.StandardButton.No)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.setStyleSheet(chrome_sheet(self.window.table.text_scale))  # (the table's size)

        def answered(result: int) -> None:
            self.confirm = None
            if result == QMessageBox.StandardButton.Yes and self.window.source is asked:
                then()

        box.finished.connect(answered)
        self.confirm = box
        box.open()
