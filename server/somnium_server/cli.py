"""`somnium-server`: read the settings and serve the app with uvicorn."""

from __future__ import annotations

import gc
import os
import resource
import socket
import sys
from collections.abc import Sequence

import uvicorn
from starlette.types import ASGIApp

from somnium_server.config import Settings, load_settings
from somnium_server.context import context_of
from somnium_server.logs import log_to_stderr, uvicorn_log_config
from somnium_server.private import keep_files_private
from somnium_server.storage import DatabaseUnavailable

# Container objects allocated (net) between young collections; Python's default is 700. The
# requests in flight hold tens of thousands at once under load: below that, a young collection
# ran every few dozen actions and found little to free (about 30 us per action here).
GC_YOUNG = 50_000


class Server(uvicorn.Server):
    """uvicorn that ends the endless event streams first, so shutting down does not hang.

    With `settle_memory`, what start-up built is set aside from the garbage collector once
    the games are loaded: full collections of it stalled the event loop for 50-150 ms a
    second under load.
    """

    settle_memory = False

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.settle_memory:
            gc.collect()
            gc.freeze()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        ctx = context_of(self.config.app)
        if ctx is not None:
            ctx.hub.close_all()
        await super().shutdown(sockets)


def uvicorn_config(settings: Settings, app: ASGIApp | None = None) -> uvicorn.Config:
    """The uvicorn setup shared by the command, the built-in server and the tests (the app:
    create_app's)."""
    if app is None:
        from somnium_server.app import create_app

        app = create_app(settings)
    return uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        log_config=uvicorn_log_config(),
        access_log=settings.access_log,
        loop="uvloop" if sys.platform != "win32" else "asyncio",
        http="httptools",
        # the client's address from X-Forwarded-For, from these proxies only
        proxy_headers=True,
        forwarded_allow_ips=os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1"),
        ws="none",
        lifespan="on",
        timeout_graceful_shutdown=1,
        backlog=4096,
    )


def _raise_file_limit() -> None:
    """Many open event streams need many sockets: lift the soft limit to the hard one."""
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft < hard:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ValueError, OSError):
        pass


def collect_less() -> None:
    """Fewer young garbage collections: most objects die young, by reference counting."""
    gc.set_threshold(GC_YOUNG, 20, 100)


def main(argv: Sequence[str] | None = None) -> None:
    keep_files_private()  # the SQLite file and its folder: the games and decks' order
    settings = load_settings(argv)
    log_to_stderr(settings.log_level)
    _raise_file_limit()
    collect_less()
    try:
        config = uvicorn_config(settings)
    except DatabaseUnavailable as error:
        sys.exit(f"somnium-server: {error}")
    server = Server(config)
    server.settle_memory = True
    server.run()
