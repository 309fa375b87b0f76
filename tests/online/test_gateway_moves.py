"""A move sent while the server behind nginx restarts: nginx answers 502, the app sends it again
under the same id once the server is back, and it is played once."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from somnium_desktop.client.online import OnlineGame
from somnium_desktop.client.tasks import Operations
from somnium_desktop.game import Draw
from somnium_server.play import games
from tests.packaging.nginx import Nginx
from tests.server.helpers import LiveServer, free_port, server_settings

from .behind_nginx import played_once, seated_behind, shut
from .helpers import short_game


def test_a_move_answered_502_while_the_server_restarts_is_sent_again_and_played_once(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(games, "new_game", lambda seed: short_game())
    settings = server_settings(tmp_path / "lobby.sqlite3", local_accounts=True,
                               port=free_port())  # (started again on the same port)
    server = LiveServer(settings)
    proxy = Nginx(tmp_path / "nginx", server.base.removeprefix("http://"))
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(proxy.cert))  # trust the test certificate
    ada, joined, me = seated_behind(server.base, proxy)  # Ada plays through nginx
    operations = Operations()
    game = OnlineGame(ada, joined.id, operations, user_id=me, first=joined,
                      backoff=(0.1, 0.2), retry_delays_ms=(200, 400, 800, 1600, 3200))
    notices: list[str] = []
    errors: list[str] = []
    game.notice.connect(notices.append)
    game.error.connect(errors.append)
    try:
        game.start()
        qtbot.waitUntil(lambda: game.stream is not None and game.stream.connected, timeout=5000)
        server.stop()  # the host restarts the server: nginx answers 502 meanwhile
        game.act(Draw())
        again = "The server is not answering just now: sending your move again…"
        qtbot.waitUntil(lambda: again in notices, timeout=5000)
        assert game.pending and errors == []
        server = LiveServer(settings)
        qtbot.waitUntil(lambda: not game.pending, timeout=10000)
        assert errors == []
        played_once(server.base, joined, game)
    finally:
        shut(game, operations, proxy, server)  # (the restarted server, if it was)
