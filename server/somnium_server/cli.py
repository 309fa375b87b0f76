"""`somnium-server`: read the settings and serve the app with uvicorn."""

from __future__ import annotations

import logging
import resource
import sys
from collections.abc import Sequence

import uvicorn

from .app import create_app
from .config import Settings, load_settings


def uvicorn_config(settings: Settings, **extra: object) -> uvicorn.Config:
    """The uvicorn setup shared by the command and the tests."""
    return uvicorn.Config(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        access_log=settings.access_log,
        loop="uvloop" if sys.platform != "win32" else "asyncio",
        http="httptools",
        ws="none",
        lifespan="on",
        timeout_graceful_shutdown=1,
        backlog=4096,
        **extra,  # type: ignore[arg-type]
    )


def _raise_file_limit() -> None:
    """Many open event streams need many sockets: lift the soft limit to the hard one."""
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft < hard:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ValueError, OSError):
        pass


def main(argv: Sequence[str] | None = None) -> None:
    settings = load_settings(argv)
    logging.basicConfig(level=settings.log_level.upper())
    _raise_file_limit()
    uvicorn.Server(uvicorn_config(settings)).run()
