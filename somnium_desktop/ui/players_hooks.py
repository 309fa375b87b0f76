"""Opening the Players dialog and player pages on the lobby's server, off the UI thread."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QWidget

from .players_dialog import PlayerPage, PlayersDialog

if TYPE_CHECKING:
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
    page.replay_requested.connect(online.open_replay)
    page.setObjectName("player-page")
    page.show()
    return page
