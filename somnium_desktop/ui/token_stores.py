"""Where sign-ins are kept: the OS keyring when secure, else the player's choice, asked once."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QWidget

from .settings import Settings

if TYPE_CHECKING:
    from ..client.credentials import TokenStore


class SystemTokenStores:
    """The OS keyring when it is a secure one; otherwise the player's choice, asked once."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._this_session: dict[str, TokenStore] = {}

    def existing(self, key: str) -> TokenStore | None:
        from ..client.signin_changes import last_change

        kept_somewhere = last_change() or self.settings.plaintext_tokens
        if not kept_somewhere and key not in self._this_session:
            # No sign-in was ever kept on this computer (keeping one leaves the marker): none
            # to look up, and the keyring (with its backends, some 10 MB) stays unloaded.
            return None
        from ..client.credentials import NeedsChoice, Persistence, store_for

        try:
            return store_for(key)
        except NeedsChoice:
            if self.settings.plaintext_tokens:
                return store_for(key, choice=Persistence.PLAINTEXT_FILE)
            return self._this_session.get(key)

    def ask(self, key: str, parent: QWidget) -> TokenStore | None:
        from ..client.credentials import MemoryStore, PlaintextFileStore
        from .signin_dialog import ask_for_store

        store = self.existing(key) or ask_for_store(key, parent)
        if isinstance(store, PlaintextFileStore):
            self.settings.plaintext_tokens = True
        elif isinstance(store, MemoryStore):
            self._this_session[key] = store
        return store
