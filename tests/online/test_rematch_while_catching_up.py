"""Rematches and catching up: a rematch taken while the finished game's catch-up is on its
way (the new game's moves are shown, not held for the game before's catch-up), and one that
happened among the events a catch-up covers (followed all the same)."""

from __future__ import annotations

import uuid

from pytestqt.qtbot import QtBot

from somnium_desktop.client.lifecycles import TableLink
from somnium_desktop.client.lobby_client import LobbyClient
from somnium_desktop.client.online import OnlineGame
from somnium_desktop.client.tasks import Operations
from somnium_desktop.game import Concede, Draw
from tests.server.helpers import LiveServer
from tests.signin.helpers import local_client

from .gap_proxy import GapProxy


def through(proxy: GapProxy, client: LobbyClient) -> LobbyClient:
    """`client`, every request of it (its sign-in's too) through `proxy`."""
    client.base_url = proxy.base
    assert client.auth is not None
    client.auth.server_url = proxy.base
    return client


def test_a_rematch_taken_during_a_catch_up_shows_the_new_games_moves(
    qtbot: QtBot, lobby: LiveServer
) -> None:
    ada, bea = local_client(lobby.base, "Ada"), local_client(lobby.base, "Bea")
    joined = bea.join(ada.create("Table").id)
    proxy = GapProxy(int(lobby.base.rsplit(":", 1)[1]))
    through(proxy, bea)
    operations = Operations()
    game = OnlineGame(bea, joined.id, operations, user_id=bea.me().id, first=joined,
                      read_timeout=5, backoff=(0.05,))
    errors: list[str] = []
    game.error.connect(errors.append)
    try:
        game.start()
        qtbot.waitUntil(lambda: game.link.state is TableLink.LIVE, timeout=5000)
        # Ada resigns and asks for a rematch; Bea's stream loses the first of those events,
        # so her table asks for the game again, and that answer is slow
        proxy.skip = joined.seq + 1
        proxy.hold(f"GET /games/{joined.id} HTTP".encode())
        ada.act(joined.id, joined.version, Concede(), uuid.uuid4().hex)
        ada.rematch(joined.id)
        qtbot.waitUntil(proxy.asked.is_set, timeout=5000)
        proxy.skip = None
        # Bea agrees meanwhile: her table follows the players to the new game
        game.rematch()
        qtbot.waitUntil(lambda: game.game_id != joined.id and game.view is not None,
                        timeout=5000)
        rematch = game.game_id
        assert rematch == ada.game(joined.id).rematch_game_id
        # the new game's stream loses an event too: that game needs a catch-up of its own
        first = ada.game(rematch)
        proxy.skip = first.seq + 1
        version = first.version
        for _ in range(2):
            view = ada.game(rematch).view
            assert view is not None and not view.over
            mover = ada if view.turn == 0 else bea
            version = mover.act(rematch, version, Draw(), uuid.uuid4().hex).version
        # (before the slow answer about the game before comes, or not)
        qtbot.waitUntil(lambda: game.view == bea.game(rematch).view, timeout=5000)
        proxy.release.set()
        qtbot.wait(300)
        assert game.view == bea.game(rematch).view
        assert errors == []
    finally:
        game.close()
        operations.close()
        assert operations.wait_idle()
        proxy.close()


def test_a_watcher_whose_catch_up_spans_the_rematch_follows_it(
    qtbot: QtBot, lobby: LiveServer
) -> None:
    """The rematch's event, among those a catch-up's snapshot covers, is not applied on its
    own: the snapshot, which names the new game, takes the watcher there all the same."""
    ada, bea = local_client(lobby.base, "Ada"), local_client(lobby.base, "Bea")
    joined = bea.join(ada.create("Table").id)
    ada.act(joined.id, joined.version, Concede(), uuid.uuid4().hex)
    proxy = GapProxy(int(lobby.base.rsplit(":", 1)[1]))
    operations = Operations()
    game = OnlineGame(LobbyClient(proxy.base), joined.id, operations, read_timeout=5,
                      backoff=(0.05,))
    try:
        game.start()
        qtbot.waitUntil(lambda: game.view is not None and game.view.over, timeout=5000)
        proxy.skip = ada.game(joined.id).seq + 1  # Ada's ask, lost on the way
        ada.rematch(joined.id)
        bea.rematch(joined.id)  # (its events show the gap: the watcher catches up)
        rematch = ada.game(joined.id).rematch_game_id
        assert rematch is not None
        qtbot.waitUntil(lambda: game.game_id == rematch, timeout=5000)
        qtbot.waitUntil(lambda: game.view == ada.game(rematch).view, timeout=5000)
    finally:
        game.close()
        operations.close()
        assert operations.wait_idle()
        proxy.close()
