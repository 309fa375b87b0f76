"""Resigning while the other player moves: the concession, refused as made against an older
version, is made again once the table has caught up, and the game ends conceded."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from pytestqt.qtbot import QtBot

from somnium_desktop.client.lobby_client import LobbyClient
from somnium_desktop.client.lobby_records import GameDetail
from somnium_desktop.client.online import OnlineGame
from somnium_desktop.client.tasks import Operations
from somnium_desktop.game import Concede, Draw
from tests.server.helpers import LiveServer
from tests.signin.helpers import local_client

from .proxy import LosingProxy, losing_proxy_for


@dataclass
class Table:
    """Ada (seat 0, to move) through a plain client; Bea's table through a LosingProxy."""

    ada: LobbyClient
    joined: GameDetail
    proxy: LosingProxy
    game: OnlineGame
    errors: list[str]

    def ada_draws(self) -> None:
        """Ada draws; Bea's table has not heard of it (no Qt event is handled meanwhile)."""
        self.ada.act(self.joined.id, self.joined.version, Draw(), uuid.uuid4().hex)


@contextmanager
def bea_at_the_table(lobby: LiveServer) -> Iterator[Table]:
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
        yield Table(ada, joined, proxy, game, errors)
    finally:
        game.close()
        operations.close()
        assert operations.wait_idle()
        proxy.close()


def test_a_concession_made_as_the_other_player_moves_is_made_again(
    qtbot: QtBot, lobby: LiveServer
) -> None:
    with bea_at_the_table(lobby) as table:
        table.ada_draws()
        table.game.act(Concede())
        qtbot.waitUntil(lambda: table.game.view is not None and table.game.view.over,
                        timeout=10000)
        view = table.game.view
        assert table.errors == [] and view is not None
        assert view.conceded_by == 1 and view.winner == 0
        first, again = table.proxy.action_ids()  # refused as stale, then made anew
        assert first != again
        steps = LobbyClient(lobby.base).replay(table.joined.id)["steps"]
        assert [step["action"]["type"] for step in steps if step["action"]] == ["draw",
                                                                               "concede"]


def test_a_concession_whose_catch_up_fails_says_it_was_not_made(
    qtbot: QtBot, lobby: LiveServer
) -> None:
    with bea_at_the_table(lobby) as table:
        table.ada_draws()
        table.proxy.arm(f"GET /games/{table.joined.id} HTTP".encode())  # (its answer is lost)
        table.game.act(Concede())
        qtbot.waitUntil(lambda: table.errors != [], timeout=10000)
        assert table.errors[0].endswith("Your resignation was not made: resign again."), \
            table.errors
        assert table.proxy.dropped == 1 and len(table.proxy.action_ids()) == 1  # not again
        view = LobbyClient(lobby.base).game(table.joined.id).view
        assert view is not None and not view.over
