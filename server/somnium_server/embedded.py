"""The built-in lobby server the desktop app runs on this computer (`-m somnium_server.embedded`).

It listens on 127.0.0.1 and a free port, keeps its SQLite file in the data directory it is
given and offers local accounts (a name only). One runs per data directory: it holds an
exclusive lock on `server.lock` while it lives and writes `server.json` (port, pid) once it
listens, so every app instance on this computer finds and shares it. The data directory is
made (or made again) 0700 and its files there 0600 (also ones an older release left 0644):
only this user reads the games.

The app that started it keeps its standard input open; when that closes (the app quit or
died), the server stays while other app instances still have event streams open, and exits
once none has had one for `--idle` seconds.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from somnium_server.private import keep_files_private, private_file, private_folder

if TYPE_CHECKING:
    from somnium_server.config import Settings

LOCK_FILE = "server.lock"
STATE_FILE = "server.json"
DATABASE = "somnium.sqlite3"
ALREADY_RUNNING = 3  # exit status when another server holds the lock


def lock(path: Path) -> IO[bytes] | None:
    """Hold an exclusive lock on `path` for as long as the returned file stays open."""
    handle = open(path, "a+b")  # noqa: SIM115 (held for the process's life)
    try:
        if sys.platform == "win32":
            import msvcrt

            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return None
    return handle


def write_state(data_dir: Path, state: dict[str, Any]) -> None:
    """Write server.json in one step (a reader never sees half of it)."""
    temporary = data_dir / f"{STATE_FILE}.{os.getpid()}"
    temporary.write_text(json.dumps(state), encoding="utf-8")
    os.replace(temporary, data_dir / STATE_FILE)


def forget_state(data_dir: Path) -> None:
    """Remove server.json if it still names this process."""
    path = data_dir / STATE_FILE
    with contextlib.suppress(OSError, ValueError):
        if json.loads(path.read_text(encoding="utf-8")).get("pid") == os.getpid():
            path.unlink()


def settings_for(data_dir: Path, keepalive: float = 15.0) -> Settings:
    """The built-in server's settings: loopback only, local accounts, quiet logs."""
    from somnium_server.config import Settings

    return Settings(
        host="127.0.0.1", port=0, database=data_dir / DATABASE, local_accounts=True,
        access_log=False, log_level="warning", keepalive=keepalive,
        max_streams=256,  # every app instance on this computer comes from 127.0.0.1
    )


def watch_owner(gone: threading.Event) -> None:
    """Set `gone` once standard input closes: the app that started us is no more."""

    def read() -> None:
        with contextlib.suppress(OSError, ValueError):
            while sys.stdin.buffer.read(4096):
                pass
        gone.set()

    threading.Thread(target=read, name="owner", daemon=True).start()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m somnium_server.embedded",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--idle", type=float, default=5.0,
                        help="seconds without streams before leaving, once the app is gone")
    parser.add_argument("--keepalive", type=float, default=15.0)
    args = parser.parse_args(argv)
    data_dir: Path = args.data_dir
    keep_files_private()
    private_folder(data_dir, tighten=True)  # games, decks' order, sign-ins: this user's only
    private_file(data_dir / LOCK_FILE)  # (an older release's was 0644)
    held = lock(data_dir / LOCK_FILE)  # first: a second server gives up before its imports
    if held is None:
        print(json.dumps({"running": True}), flush=True)
        return ALREADY_RUNNING
    try:
        from somnium_server.cli import uvicorn_config
        from somnium_server.embedded_server import EmbeddedServer
        from somnium_server.logs import log_to_stderr

        settings = settings_for(data_dir, args.keepalive)
        log_to_stderr(settings.log_level)
        server = EmbeddedServer(uvicorn_config(settings), data_dir, args.idle)
        watch_owner(server.owner_gone)
        listening = socket.socket()
        listening.bind(("127.0.0.1", 0))
        server.run(sockets=[listening])
        return 0
    finally:
        forget_state(data_dir)
        held.close()


if __name__ == "__main__":
    sys.exit(main())
