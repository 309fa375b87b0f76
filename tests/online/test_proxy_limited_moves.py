"""A move refused by nginx's own rate limit (its 429 or 503 page, no lobby server's answer) is
sent again under the same id after the wait nginx asks for, and played once."""

from __future__ import annotations

from pathlib import Path

import pytest
import requests
from pytestqt.qtbot import QtBot

from somnium_desktop.client.online import OnlineGame
from somnium_desktop.client.tasks import Operations
from somnium_desktop.game import Draw
from somnium_server.play import games
from tests.packaging.nginx import Nginx
from tests.server.helpers import LiveServer, server_settings

from .behind_nginx import answered, limited_site, played_once, seated_behind, shut
from .helpers import short_game

MOVES = r"^/games/[^/]+/actions$"


@pytest.mark.parametrize(("status", "retry_after", "retry_ms", "notice"), [
    (429, 2, (50, 50), "The server asks to wait (too many moves at once)"),
    (429, None, (300, 1000, 2000, 4000), "The server asks to wait (too many moves at once)"),
    (503, 2, (50, 50), "The server is not answering just now"),
])
def test_a_move_refused_by_the_proxys_limit_is_sent_again_and_played_once(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    status: int, retry_after: int | None, retry_ms: tuple[int, ...], notice: str,
) -> None:
    monkeypatch.setattr(games, "new_game", lambda seed: short_game())
    server = LiveServer(server_settings(tmp_path / "lobby.sqlite3", local_accounts=True))
    proxy = Nginx(tmp_path / "nginx", server.base.removeprefix("http://"),
                  site=limited_site(MOVES, status, retry_after))
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(proxy.cert))  # trust the test certificate
    ada, joined, me = seated_behind(server.base, proxy)  # Ada plays through nginx
    operations = Operations()
    game = OnlineGame(ada, joined.id, operations, user_id=me, first=joined,
                      retry_delays_ms=retry_ms)
    notices: list[str] = []
    errors: list[str] = []
    game.notice.connect(notices.append)
    game.error.connect(errors.append)
    path = f"/games/{joined.id}/actions"
    try:
        game.start()
        qtbot.waitUntil(lambda: game.stream is not None and game.stream.connected, timeout=5000)
        # someone else at this address has just moved: nginx lets the next one wait
        assert requests.post(proxy.base + path, json={}, timeout=5).status_code == 422
        game.act(Draw())
        qtbot.waitUntil(lambda: any(n.startswith(notice) for n in notices), timeout=5000)
        qtbot.waitUntil(lambda: not game.pending or bool(errors), timeout=15000)
        assert errors == []
        statuses = answered(proxy, path)
        assert statuses[0] == 422 and statuses[1] == status and statuses[-1] == 200
        played_once(server.base, joined, game)
    finally:
        shut(game, operations, proxy, server)
