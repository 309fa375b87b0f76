"""Where the refresh token is kept: the OS keyring, memory only, or an opted-in plaintext file."""

from __future__ import annotations

import contextlib
import enum
import json
import os
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import keyring
import keyring.backend
import keyring.core
import keyring.errors
from keyring.backends import chainer, fail

from .signin_changes import mark_changed

SERVICE = "somnium-desktop"
PLAINTEXT_WARNING = (
    "The refresh token will be written unencrypted to a file readable only by your user. "
    "Anyone who can read your files can then sign in as you on this server."
)


class TokenStore(Protocol):
    """Keeps one server's refresh token."""

    def load(self) -> str | None: ...
    def save(self, token: str) -> None: ...
    def clear(self) -> None: ...


class KeyringStore:
    """The refresh token in a keyring backend, under SERVICE and the server URL."""

    def __init__(self, server_url: str, backend: keyring.backend.KeyringBackend) -> None:
        self.server_url = server_url
        self.backend = backend

    def load(self) -> str | None:
        return self.backend.get_password(SERVICE, self.server_url)

    def save(self, token: str) -> None:
        self.backend.set_password(SERVICE, self.server_url, token)
        mark_changed()

    def clear(self) -> None:
        with contextlib.suppress(keyring.errors.PasswordDeleteError):
            self.backend.delete_password(SERVICE, self.server_url)
        mark_changed()


class MemoryStore:
    """The refresh token for this run of the app only."""

    def __init__(self) -> None:
        self._token: str | None = None

    def load(self) -> str | None:
        return self._token

    def save(self, token: str) -> None:
        self._token = token

    def clear(self) -> None:
        self._token = None


class PlaintextFileStore:
    """Refresh tokens in a JSON file (mode 0600) by server URL; only ever by explicit opt-in."""

    def __init__(self, server_url: str, path: Path) -> None:
        self.server_url = server_url
        self.path = path

    def _read(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return {}
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def _write(self, data: dict[str, str]) -> None:
        """In one step (a new file put in place): another window reading it meanwhile sees the
        old sign-ins or the new ones, never none."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(f"{self.path.name}.{os.getpid()}.{threading.get_ident()}")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out)
        os.replace(temporary, self.path)
        mark_changed()

    def load(self) -> str | None:
        return self._read().get(self.server_url)

    def save(self, token: str) -> None:
        data = self._read()
        data[self.server_url] = token
        self._write(data)

    def clear(self) -> None:
        data = self._read()
        if data.pop(self.server_url, None) is not None:
            self._write(data)


def default_plaintext_path() -> Path:
    import platformdirs

    return Path(platformdirs.user_config_dir("somnium-desktop")) / "credentials.json"


@dataclass(frozen=True)
class Stored:
    """What a store keeps for a server: the refresh token and, once known, whose it is.

    Kept as the bare token until the account is known, then as JSON with both; the account
    lets another window of the app tell "signed in as someone else" from "refreshed"."""

    refresh_token: str
    user_id: str | None = None

    @classmethod
    def read(cls, store: TokenStore) -> Stored | None:
        value = store.load()
        if value is None:
            return None
        if not value.startswith("{"):
            return cls(value)
        try:
            data = json.loads(value)
            return cls(str(data["refresh_token"]), data.get("user_id"))
        except (ValueError, KeyError, TypeError):
            return None

    def write(self, store: TokenStore) -> None:
        if self.user_id is None:
            store.save(self.refresh_token)
        else:
            store.save(json.dumps({"refresh_token": self.refresh_token, "user_id": self.user_id}))


def default_lock_path() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("somnium-desktop")) / "signin.lock"


@contextlib.contextmanager
def refresh_lock(path: Path | None = None) -> Iterator[None]:
    """Held while a refresh token is spent. Every window of the app (every process) of this
    user shares the sign-in of a server; they take turns, because a refresh token spent twice
    ends the sign-in at the server (reuse detection)."""
    path = path or default_lock_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as handle:
        if sys.platform == "win32":
            import msvcrt

            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_LOCK, 1)  # (retries for 10 s)
            try:
                yield
            finally:
                handle.seek(0)
                msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


@dataclass(frozen=True)
class KeyringVerdict:
    """Whether a keyring backend can keep secrets safely, and if not, why (for the player)."""

    secure: bool
    reason: str


def _backends(backend: keyring.backend.KeyringBackend) -> list[keyring.backend.KeyringBackend]:
    if isinstance(backend, chainer.ChainerBackend):
        return list(backend.backends)
    return [backend]


def assess_keyring(backend: keyring.backend.KeyringBackend | None = None) -> KeyringVerdict:
    """Judge a backend (the default one when None) as keyring itself does: priority >= 1."""
    backend = backend or keyring.get_keyring()
    parts = _backends(backend)
    if not parts or all(isinstance(b, fail.Keyring) for b in parts):
        return KeyringVerdict(
            False,
            "No system keyring is available (no Secret Service, KWallet, macOS Keychain or "
            "Windows Credential Locker answered).",
        )
    if any(keyring.core.recommended(b) for b in parts):
        return KeyringVerdict(True, f"Sign-in is kept in {type(backend).__name__}.")
    names = ", ".join(f"{type(b).__module__}.{type(b).__name__}" for b in parts)
    return KeyringVerdict(
        False,
        f"The only keyring available ({names}) is not a secure one: it would keep the "
        "sign-in in plain text.",
    )


class Persistence(enum.Enum):
    """The player's answer when no secure keyring exists."""

    SESSION_ONLY = "session"
    PLAINTEXT_FILE = "plaintext"


class NeedsChoice(Exception):
    """No secure keyring: the player must choose a Persistence (the message says why)."""

    def __init__(self, verdict: KeyringVerdict) -> None:
        super().__init__(verdict.reason)
        self.verdict = verdict


def store_for(
    server_url: str,
    backend: keyring.backend.KeyringBackend | None = None,
    choice: Persistence | None = None,
    plaintext_path: Path | None = None,
) -> TokenStore:
    """The token store for a server: the keyring when it is secure, otherwise the player's choice.

    Raises NeedsChoice when the keyring is not secure and no choice was made; never falls back to
    plaintext by itself.
    """
    backend = backend or keyring.get_keyring()
    verdict = assess_keyring(backend)
    if verdict.secure:
        return KeyringStore(server_url, backend)
    if choice is None:
        raise NeedsChoice(verdict)
    return chosen_store(server_url, choice, plaintext_path)


def chosen_store(
    server_url: str, choice: Persistence, plaintext_path: Path | None = None
) -> TokenStore:
    """The store the player chose when the keyring is not secure; touches no keyring, so it
    may be called on the UI thread once the keyring was judged elsewhere."""
    if choice is Persistence.SESSION_ONLY:
        return MemoryStore()
    return PlaintextFileStore(server_url, plaintext_path or default_plaintext_path())
