"""Opening the Players dialog and player pages on the lobby's server, off the UI thread; they
close when the lobby leaves that server."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QDialog, QWidget

from ..client.tasks import lifetime
from .players_dialog import Fetch, PlayerPage, PlayersDialog

if TYPE_CHECKING:
    from .main_window import MainWindow
    from .online_play import OnlinePlay


def _fetch(online: OnlinePlay) -> Fetch:
    """Fetches for a dialog: its answer is dropped once the dialog is deleted."""
    def fetch(dialog: QObject, work: Callable[[], dict[str, Any]],
              done: Callable[[dict[str, Any]], None], failed: Callable[[str], None]) -> None:
        online.ops.run(work, done, lambda error: failed(str(error)), "Loading players",
                       owner=lifetime(dialog))
    return fetch


def _of_the_server(dialog: QDialog, online: OnlinePlay) -> None:
    """`dialog` shows what the lobby's server holds: it closes when the lobby leaves that
    server (a player page's Replay would ask the next one)."""
    online.left_server.connect(dialog.close)


def open_players(parent: QWidget, online: OnlinePlay,
                 open_page: Callable[[str], object] | None = None) -> PlayersDialog | None:
    """The leaderboard of the server the lobby is on (None while there is none); a player
    chosen opens their page (through `open_page`, when given)."""
    client = online.client
    if client is None:
        return None
    dialog = PlayersDialog(parent, _fetch(online), client.leaderboard)
    dialog.player_chosen.connect(
        open_page or (lambda user_id: open_player(parent, online, user_id)))
    dialog.setObjectName("players-dialog")
    _of_the_server(dialog, online)
    dialog.show()
    return dialog


def open_player(parent: QWidget, online: OnlinePlay, user_id: str) -> PlayerPage | None:
    """A player's page on the lobby's server."""
    client = online.client
    if client is None:
        return None
    page = PlayerPage(parent, _fetch(online), lambda: client.player(user_id))
    page.replay_requested.connect(online.open_replay)
    page.setObjectName("player-page")
    _of_the_server(page, online)
    page.show()
    return page


def open_page(window: MainWindow, user_id: str) -> PlayerPage | None:
    """A player's page over the window; its Replay asks the window (`replay_requested`)."""
    page = open_player(window, window.start_online(), user_id)
    if page is not None:
        page.replay_requested.connect(window.replay_requested)
    window.player_page = page
    return page


def open_leaderboard(window: MainWindow) -> PlayersDialog | None:
    """Game → Players…: the leaderboard, whose players open as pages over the window."""
    return open_players(window, window.start_online(), lambda uid: open_page(window, uid))


def wire_player_pages(window: MainWindow) -> None:
    """A click on a player's name opens their page: on the table, in the lobby's list and on
    a chat message."""
    for asked in (window.table.player_page_requested, window.lobby_panel.player_clicked,
                  window.chat_view.player_page_requested):
        asked.connect(lambda user_id: open_page(window, user_id))
