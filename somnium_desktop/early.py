"""What the app does before Qt is even imported: start the built-in server's boot early.

The built-in lobby server needs most of a second of CPU to start (its imports); begun here,
first thing, it boots on the other core while this process loads Qt and builds the window.
Light on purpose (no Qt, no third-party imports): it runs before everything else.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .client.local_server import LocalServer

ORGANIZATION = "Somnium"
APPLICATION = "Somnium Desktop"
SERVER_KEY = "online/server"  # the setting naming a lobby server (ui.settings)


def settings_file() -> Path | None:
    """Where QSettings keeps this app's settings (Linux: an INI file); None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / ORGANIZATION / f"{APPLICATION}.conf"


def server_is_set(path: Path) -> bool:
    """True when the settings name a lobby server (so the built-in one is not wanted).

    A quick look at the INI file QSettings writes (`[online]` then `server=...`); the app reads
    the setting properly later, this only decides whether to begin the built-in one early."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return False
    section = ""
    for line in lines:
        line = line.strip()
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
        elif section == "online" and line.partition("=")[0].strip() == "server":
            return bool(line.partition("=")[2].strip().strip('"'))
    return False


def begin_built_in_server() -> LocalServer | None:
    """Find or start the built-in server in the background, unless another server is set (or
    the settings cannot be read without Qt, on Windows and macOS: then `begin_after_qt` does it
    once Qt is loaded)."""
    path = settings_file()
    if path is None or server_is_set(path):
        return None
    return _local_server()


def begin_after_qt() -> LocalServer | None:
    """Where `begin_built_in_server` could not tell (Windows, macOS: the registry, a plist):
    the same, once Qt is imported, reading the setting through QSettings as the app does.

    Still before the window is built: on those systems too the server boots meanwhile."""
    if settings_file() is not None or server_set_in_qt():
        return None  # decided before Qt already, or another server is wanted
    return _local_server()


def server_set_in_qt() -> bool:
    """True when the app's settings name a lobby server, read through QSettings."""
    from PySide6.QtCore import QSettings

    return bool(str(QSettings(ORGANIZATION, APPLICATION).value(SERVER_KEY, "") or "").strip())


def _local_server() -> LocalServer:
    from .client.local_server import LocalServer, data_dir_for

    server = LocalServer(data_dir_for(APPLICATION, ORGANIZATION))
    server.warm_up()
    return server
