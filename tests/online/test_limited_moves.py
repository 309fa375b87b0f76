"""Moves faster than the server's move limit: each move refused with HTTP 429 is sent again
under the same id after the server's Retry-After, and every move is played once, in order."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from somnium_desktop.client.lobby_client import LobbyClient
from somnium_desktop.client.online import OnlineGame
from somnium_desktop.client.tasks import Operations
from somnium_desktop.game import Action, Concede, EndTurn, action_from_dict
from somnium_desktop.game.view import View
from somnium_server.config import RateLimit
from tests.server.helpers import LiveServer, server_settings
from tests.signin.helpers import local_client

from .proxy import losing_proxy_for

MOVES = 10


def quick_move(view: View) -> Action:
    """Bank as soon as there is a card to bank, else the first legal move (a draw)."""
    if view.table and EndTurn() in view.legal:
        return EndTurn()
    return view.legal[0]


def test_moves_refused_by_the_move_limit_are_sent_again_and_each_played_once(
    qtbot: QtBot, tmp_path: Path
) -> None:
    server = LiveServer(server_settings(tmp_path / "lobby.sqlite3", local_accounts=True,
                                        rate_act=RateLimit(3, 1)))  # 3 moves, then 1 per 1/3 s
    ada = local_client(server.base, "Ada")
    level = ada.levels()[0].key
    created = ada.create("Against the computer", level=level)
    proxy = losing_proxy_for(ada, server.base)  # (it records what is sent)
    operations = Operations()
    game = OnlineGame(ada, created.id, operations, user_id=ada.me().id, first=created,
                      retry_delays_ms=(50, 100, 200, 400, 800))
    notices: list[str] = []
    errors: list[str] = []
    game.notice.connect(notices.append)
    game.error.connect(errors.append)
    sent: list[Action] = []
    try:
        game.start()
        def my_turn() -> bool:
            return (not game.pending and game.view is not None
                    and (game.view.over or game.view.turn == game.my_seat))

        while len(sent) < MOVES:  # as fast as the table lets the player move
            qtbot.waitUntil(my_turn, timeout=15000)
            assert errors == [] and game.view is not None
            if game.view.over:
                break
            sent.append(quick_move(game.view))
            game.act(sent[-1])
        # (a finished game can be replayed: its actions, by seat; conceded on one's turn, as
        # sent while the computer moves it would be stale, 409)
        qtbot.waitUntil(my_turn, timeout=15000)
        assert game.view is not None
        if not game.view.over:
            sent.append(Concede())
            game.act(sent[-1])
        qtbot.waitUntil(lambda: game.view is not None and game.view.over, timeout=15000)
        assert errors == [] and len(sent) > MOVES // 2
        asked = "The server asks to wait (too many moves at once): sending your move again"
        assert any(notice.startswith(asked) for notice in notices)
        ids = proxy.action_ids()
        assert len(set(ids)) == len(sent) < len(ids)  # some sent again, under the same id
        steps = LobbyClient(server.base).replay(created.id)["steps"]
        played = [action_from_dict(step["action"]) for step in steps
                  if step["seat"] == game.my_seat]
        assert played == sent  # each once, in the order made
    finally:
        game.close()
        operations.close()
        assert operations.wait_idle()
        proxy.close()
        server.stop()
