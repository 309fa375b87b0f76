"""The app playing through a real nginx: a seat behind it, and a rate limit of nginx's own."""

from __future__ import annotations

from somnium_desktop.client.lobby_client import LobbyClient
from somnium_desktop.client.lobby_records import GameDetail
from somnium_desktop.client.online import OnlineGame
from somnium_desktop.client.tasks import Operations
from tests.packaging.nginx import SITE, Nginx
from tests.server.helpers import LiveServer
from tests.signin.helpers import local_client

EVERY_SECONDS = 2  # one request of the limited paths every this many seconds, none in a burst


def limited_site(paths: str, status: int, retry_after: int | None) -> str:
    """The packaged site, where nginx answers `status` (429 or 503) to a request on `paths`
    (a regular expression of the path) that comes sooner than EVERY_SECONDS after the last
    one it let through, with its own error page, and Retry-After when `retry_after` is set."""
    site = SITE.read_text(encoding="utf-8")
    zone = (f'map $uri $limited {{ "~{paths}" $binary_remote_addr; default ""; }}\n'
            f"limit_req_zone $limited zone=limited:1m rate={60 // EVERY_SECONDS}r/m;\n\n")
    header = f"add_header Retry-After {retry_after} always;" if retry_after else ""
    limit = f"limit_req zone=limited; limit_req_status {status}; {header}"
    changes = [("upstream somnium_server {", zone + "upstream somnium_server {"),
               ("client_max_body_size 64k;", f"client_max_body_size 64k; {limit}")]
    if header:  # (the streams' location has an add_header of its own: nothing is inherited)
        changes.append(("add_header X-Accel-Buffering no;",
                        f"add_header X-Accel-Buffering no; {header}"))
    for old, new in changes:
        assert old in site, f"{SITE.name} no longer has {old!r}: update {__name__}"
        site = site.replace(old, new, 1)
    return site


def answered(proxy: Nginx, path: str) -> list[int]:
    """The statuses nginx gave the requests on `path`, oldest first (its own answers too)."""
    lines = (proxy.prefix / "access.log").read_text(encoding="utf-8").splitlines()
    return [int(line.rsplit(" ", 1)[1]) for line in lines if f" {path} HTTP/" in line]


def seated_behind(server: str, proxy: Nginx) -> tuple[LobbyClient, GameDetail, str]:
    """Ada's table, which Bea has joined (both straight on `server`, its base URL): Ada's
    client, now reaching the server through `proxy`, the game as the join left it, Ada's id."""
    ada, bea = local_client(server, "Ada"), local_client(server, "Bea")
    joined = bea.join(ada.create("Table").id)
    me = ada.me().id
    ada.base_url = proxy.base
    assert ada.auth is not None
    ada.auth.server_url = proxy.base
    return ada, joined, me


def played_once(server: str, joined: GameDetail, game: OnlineGame) -> None:
    """The one move made since `joined` is played on `server` once, as the table shows."""
    played = LobbyClient(server).game(joined.id)
    assert played.version == joined.version + 1
    assert game.view is not None and game.view == played.view


def shut(game: OnlineGame, operations: Operations, proxy: Nginx, server: LiveServer) -> None:
    """A move test's end: the game and its work closed, then nginx and the server stopped."""
    game.close()
    operations.close()
    assert operations.wait_idle()
    proxy.stop()
    server.stop()
