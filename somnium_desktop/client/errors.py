"""What can go wrong talking to a lobby server, each kind a plain sentence for the player."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator


class LobbyError(Exception):
    """Something the player should hear about; str() is a plain sentence for them."""


class ServerUnreachable(LobbyError):
    """No answer: the server is down, the network is, or it took too long."""


class ActionRefused(LobbyError):
    """The server said no; `message` is its reason, `code` the machine-readable one."""

    def __init__(
        self, message: str, code: str = "", status: int = 0, version: int | None = None
    ) -> None:
        super().__init__(f"Refused: {message.rstrip('.')}.")
        self.message = message
        self.code = code
        self.status = status
        self.version = version


class RateLimited(ActionRefused):
    """The server, or a proxy in front of it, refuses more requests just now (HTTP 429);
    `wait` is the seconds its Retry-After asks for (0 without one). Nothing was done: it may
    be sent again."""

    def __init__(self, message: str, code: str = "", wait: float = 0.0) -> None:
        super().__init__(message, code, 429)
        self.wait = wait


class SignedOut(LobbyError):
    """The action needs a sign-in, and there is none (or it expired): sign in again."""


class ServerFailed(LobbyError):
    """The server broke while answering (a 5xx), or answered as no lobby server does (an
    error page, an answer that makes no sense); `status` is the HTTP status of an error
    answer (0 otherwise), `wait` the seconds its Retry-After asks for (0 without one)."""

    def __init__(self, message: str, status: int = 0, wait: float = 0.0) -> None:
        super().__init__(message)
        self.status = status
        self.wait = wait

    @property
    def passing(self) -> bool:
        """A gateway's or an overloaded server's answer (HTTP 502, 503, 504): the server
        behind it is restarting or went away; a request may have reached it or not."""
        return self.status in (502, 503, 504)


class KeyringFailed(LobbyError):
    """Where the sign-in is kept (the keyring, or the file chosen instead) could not be read
    or written: a locked keyring, say. The sign-in is not lost; the player may try again."""


@contextlib.contextmanager
def keyring_answers(doing: str) -> Iterator[None]:
    """A failure of the sign-in's store (or of the lock its windows take turns with) is
    KeyringFailed, said in plain words; `doing` is "read" or "written"."""
    try:
        yield
    except Exception as error:
        # (a keyring's error exists only once keyring is loaded: it is not loaded for this)
        errors = sys.modules.get("keyring.errors")
        if not isinstance(error, OSError) and not (
                errors is not None and isinstance(error, errors.KeyringError)):
            raise
        detail = str(error) or type(error).__name__
        raise KeyringFailed(f"The keyring could not be {doing} ({detail}): try again once it "
                            "answers (unlocked, say).") from error
