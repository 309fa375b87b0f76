"""Where sign-ins are kept: the OS keyring when secure, else the player's choice, asked once."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QWidget

from .settings import Settings

if TYPE_CHECKING:
    from ..client.credentials import KeyringVerdict, TokenStore


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

    def for_new(self, key: str) -> TokenStore | KeyringVerdict:
        """On a worker (the keyring may take its time, over D-Bus): the store a new sign-in
        goes in when known without asking (the secure keyring, a choice made before), else
        why the player must choose."""
        from ..client.credentials import NeedsChoice, store_for

        store = self.existing(key)
        if store is not None:
            return store
        try:
            return store_for(key)  # (judges the keyring: its backend, their priority)
        except NeedsChoice as needs:
            return needs.verdict

    def ask(self, key: str, why: KeyringVerdict, parent: QWidget) -> TokenStore | None:
        """On the UI thread, touching no keyring: the player's choice, and it is remembered."""
        from ..client.credentials import MemoryStore, PlaintextFileStore
        from .signin_dialog import ask_choice

        store = ask_choice(key, why, parent)
        if isinstance(store, PlaintextFileStore):
            self.settings.plaintext_tokens = True
        elif isinstance(store, MemoryStore):
            self._this_session[key] = store
        return store
