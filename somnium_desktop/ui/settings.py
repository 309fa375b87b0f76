"""The user's settings (QSettings): motion, animation speed, the last computer level, the server."""

from __future__ import annotations

from PySide6.QtCore import QSettings

from ..app_names import APPLICATION as APPLICATION
from ..app_names import ORGANIZATION as ORGANIZATION
from ..app_names import SERVER_KEY

SPEEDS = (("Slow", 0.5), ("Normal", 1.0), ("Fast", 2.0), ("Very fast", 4.0))
DEFAULT_LEVEL = "normal"


def _bool(value: object) -> bool:
    if isinstance(value, str):
        return value.lower() in ("1", "true", "yes")
    return bool(value)


def server_address(text: str) -> str:
    """A lobby server's address as typed, made a URL: https:// unless it is on this computer."""
    from ..client.server_address import server_address as made_url  # (not needed at start-up)

    return made_url(text)


class Settings:
    """Typed access to the stored settings; tests pass a QSettings on a scratch file."""

    def __init__(self, store: QSettings | None = None) -> None:
        self.store = store if store is not None else QSettings(ORGANIZATION, APPLICATION)

    @property
    def reduced_motion(self) -> bool:
        """Cards jump to their places instead of flying."""
        return _bool(self.store.value("table/reduced_motion", False))

    @reduced_motion.setter
    def reduced_motion(self, value: bool) -> None:
        self.store.setValue("table/reduced_motion", bool(value))

    @property
    def animation_speed(self) -> float:
        """A factor on every animation's speed (and on the computer's pace)."""
        try:
            speed = float(self.store.value("table/animation_speed", 1.0))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return 1.0
        return min(max(speed, 0.25), 8.0)

    @animation_speed.setter
    def animation_speed(self, value: float) -> None:
        self.store.setValue("table/animation_speed", float(value))

    @property
    def level(self) -> str:
        """The computer level last picked."""
        return str(self.store.value("offline/level", DEFAULT_LEVEL))

    @level.setter
    def level(self, value: str) -> None:
        self.store.setValue("offline/level", value)

    @property
    def server_url(self) -> str:
        """The lobby server to play online on; empty for the built-in one on this computer."""
        return str(self.store.value(SERVER_KEY, "") or "").strip().rstrip("/")

    @server_url.setter
    def server_url(self, value: str) -> None:
        """Stores the address made a URL; raises AddressError (a ValueError saying why) for
        one that is no web address, or plain http to another computer."""
        from ..client.server_address import checked_address

        self.store.setValue(SERVER_KEY, checked_address(value))

    @property
    def practice_odds(self) -> bool:
        """Offline games show the odds of the next card over the deck (off by default)."""
        return _bool(self.store.value("offline/odds", False))

    @practice_odds.setter
    def practice_odds(self, value: bool) -> None:
        self.store.setValue("offline/odds", bool(value))

    @property
    def plaintext_tokens(self) -> bool:
        """The player chose to keep sign-ins in a plain file (there is no secure keyring)."""
        return _bool(self.store.value("online/plaintext_tokens", False))

    @plaintext_tokens.setter
    def plaintext_tokens(self, value: bool) -> None:
        self.store.setValue("online/plaintext_tokens", bool(value))

    def sync(self) -> None:
        self.store.sync()
