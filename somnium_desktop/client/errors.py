"""What can go wrong talking to a lobby server, each kind a plain sentence for the player."""

from __future__ import annotations


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


class SignedOut(LobbyError):
    """The action needs a sign-in, and there is none (or it expired): sign in again."""


class ServerFailed(LobbyError):
    """The server broke while answering (a 5xx, or an answer that makes no sense)."""
