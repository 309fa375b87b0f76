"""What online play may be given (tests, packagers), and the start of the built-in server.

Light on purpose: right after the window's first paint, the main window reads it to begin
the built-in server before online play itself (and requests) is imported, so that the server
boots meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ..app_names import APPLICATION, ORGANIZATION  # not .settings: that imports Qt
from ..client.local_server import LocalServer, data_dir_for

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from ..client.credentials import KeyringVerdict, TokenStore

class TokenStores(Protocol):
    """Where each server's sign-in is kept (`key` names the server)."""

    def existing(self, key: str) -> TokenStore | None:
        """On a worker: the store to look in without asking anything (None: none yet)."""

    def for_new(self, key: str) -> TokenStore | KeyringVerdict:
        """On a worker: the store for a new sign-in when known without asking the player,
        else why they must be asked."""

    def ask(self, key: str, why: KeyringVerdict, parent: QWidget) -> TokenStore | None:
        """On the UI thread, without touching a keyring: the player's choice (None: they
        cancelled)."""


@dataclass
class OnlineOptions:
    """The parts of online play a test (or a packager) may choose; None takes the default."""

    token_stores: TokenStores | None = None  # the OS keyring (or the player's choice)
    open_browser: Callable[[str], object] | None = None  # the system browser
    local_server: LocalServer | None = None  # in the user's data directory
    read_timeout: float | None = None  # streams: client.sse.READ_TIMEOUT


def begin_built_in(options: OnlineOptions) -> LocalServer:
    """Find or start the built-in server in the background, before it is asked for."""
    if options.local_server is None:
        options.local_server = LocalServer(data_dir_for(APPLICATION, ORGANIZATION))
    options.local_server.warm_up()
    return options.local_server
