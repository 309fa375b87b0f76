"""Opening the Players dialog and player pages on the lobby's server, off the UI thread."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QWidget

from .players_dialog import PlayerPage, PlayersDialog

if TYPE_CHECKING:
    from .main_window import MainWindow
    from .online_play import OnlinePlay


def _fetch(online: OnlinePlay) -> Callable[..., None]:
    def fetch(work: Callable[[], dict[str, Any]], done: Callable[[dict[str, Any]], None],
              failed: Callable[[str], None]) -> None:
        online.ops.run(work, done, lambda error: failed(str(error)), "Loading players")
    return fetch


def open_players(parent: QWidget, online: OnlinePlay) -> PlayersDialog | None:
    """The leaderboard of the server the lobby is on (None while there is none)."""
    client = online.client
    if client is None:
        return None
    dialog = PlayersDialog(parent, _fetch(online), client.leaderboard)
    dialog.player_chosen.connect(lambda user_id: open_player(parent, online, user_id))
    dialog.setObjectName("players-dialog")
    dialog.show()
    return dialog


def open_player(parent: QWidget, online: OnlinePlay, user_id: str) -> PlayerPage | None:
    """A player's page on the lobby's server."""
    client = online.client
    if client is None:
        return None
    page = PlayerPage(parent, _fetch(online), lambda: client.player(user_id))
    page.setObjectName("player-page")
    page.show()
    return page


def wire_player_pages(window: MainWindow) -> None:
    """A click on a player's name opens their page: on the table, in the lobby's list and on
    a chat message."""

    def open_page(user_id: str) -> None:
        page = open_player(window, window.start_online(), user_id)
        window.player_page = page

    window.table.player_page_requested.connect(open_page)
    window.lobby_panel.player_clicked.connect(open_page)
    window.chat_view.player_page_requested.connect(open_page)
