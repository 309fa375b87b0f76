"""What the app does before its widgets are loaded: begin the built-in server's boot early.

The built-in lobby server needs most of a second of CPU to start (its imports); begun here,
before QtGui and QtWidgets are imported and the window is built, it boots on the other core
meanwhile. The setting that names another server is read through QSettings (QtCore alone,
which needs no QApplication when it is given the organization and application names).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .client.local_server import LocalServer

ORGANIZATION = "Somnium"
APPLICATION = "Somnium Desktop"
SERVER_KEY = "online/server"  # the setting naming a lobby server (ui.settings)


def server_is_set() -> bool:
    """True when the app's settings name a lobby server (so the built-in one is not wanted)."""
    from PySide6.QtCore import QSettings

    return bool(str(QSettings(ORGANIZATION, APPLICATION).value(SERVER_KEY, "") or "").strip())


def begin_built_in_server() -> LocalServer | None:
    """Find or start the built-in server in the background, unless another server is set."""
    if server_is_set():
        return None
    from .client.local_server import LocalServer, data_dir_for

    server = LocalServer(data_dir_for(APPLICATION, ORGANIZATION))
    server.warm_up()
    return server
