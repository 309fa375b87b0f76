"""Resigning while the other player moves: the concession, refused as made against an older
version, is made again once the table has caught up, and the game ends conceded."""

from __future__ import annotations

import uuid

from pytestqt.qtbot import QtBot

from somnium_desktop.client.lobby_client import LobbyClient
from somnium_desktop.client.online import OnlineGame
from somnium_desktop.client.tasks import Operations
from somnium_desktop.game import Concede, Draw
from tests.server.helpers import LiveServer
from tests.signin.helpers import local_client

from .proxy import losing_proxy_for


def test_a_concession_made_as_the_other_player_moves_is_made_again(
    qtbot: QtBot, lobby: LiveServer
) -> None:
    ada, bea = local_client(lobby.base, "Ada"), local_client(lobby.base, "Bea")
    joined = bea.join(ada.create("Table").id)
    proxy = losing_proxy_for(bea, lobby.base)  # (it records what is sent)
    operations = Operations()
    game = OnlineGame(bea, joined.id, operations, user_id=bea.me().id, first=joined,
                      retry_delays_ms=(50, 100))
    errors: list[str] = []
    game.error.connect(errors.append)
    try:
        game.start()
        assert game.my_seat == 1 and game.view is not None and game.view.turn == 0
        # Ada draws; Bea resigns before her table has heard of it (no event handled between)
        ada.act(joined.id, joined.version, Draw(), uuid.uuid4().hex)
        game.act(Concede())
        qtbot.waitUntil(lambda: game.view is not None and game.view.over, timeout=10000)
        assert errors == []
        assert game.view.conceded_by == 1 and game.view.winner == 0
        first, again = proxy.action_ids()  # refused as stale, then made anew
        assert first != again
        steps = LobbyClient(lobby.base).replay(joined.id)["steps"]
        assert [step["action"]["type"] for step in steps if step["action"]] == ["draw", "concede"]
    finally:
        game.close()
        operations.close()
        assert operations.wait_idle()
        proxy.close()
