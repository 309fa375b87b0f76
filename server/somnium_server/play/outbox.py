"""What this instance tells the other instances of its streams (live/peers.py): in order, only
the latest word on each user and each game, and told again until the database took it."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from somnium_server.live import peers
from somnium_server.play.backoff import pauses

log = logging.getLogger("somnium_server")

FIRST_PAUSE = 0.2  # seconds before a notice that could not be sent is tried again

Send = Callable[[str, str], Awaitable[None]]


def subject(kind: str, argument: str) -> str:
    """What a notice is about: a later notice on the same subject replaces it unsent."""
    if kind in (peers.HERE, peers.GONE):
        return f"user {argument}"
    if kind == peers.WATCH:
        return f"watch {argument.partition(':')[0]}"
    return f"{kind} {argument}"


@dataclass
class Outbox:
    """The notices not yet sent, oldest first, one per subject.

    A user's `here` followed by `gone` sent on two connections at once could reach the others
    in either order, leaving them sure of one who left; and a notice lost while the database
    was away left them so until that user's next stream. One sender at a time sends the
    notices in the order told; one that fails is sent again (with what was told since on
    its subject) after a pause.
    """

    pending: dict[str, tuple[str, str]] = field(default_factory=dict)  # subject -> notice
    sending: bool = False

    def tell(self, kind: str, argument: str) -> bool:
        """Queue a notice; True if no sender runs (the caller starts `send_all`)."""
        key = subject(kind, argument)
        self.pending.pop(key, None)  # (the earlier word on it is outdated: told at the end)
        self.pending[key] = (kind, argument)
        if self.sending:
            return False
        self.sending = True
        return True

    async def send_all(self, send: Send) -> None:
        """Send what is queued, and what is queued meanwhile, then stop."""
        try:
            waits = pauses(FIRST_PAUSE)
            while self.pending:
                key, notice = next(iter(self.pending.items()))
                try:
                    await send(*notice)
                except Exception as error:  # (the database away: all wait, in order)
                    log.warning("could not tell the other instances %s: %r; trying again",
                                notice[0], error)
                    await asyncio.sleep(next(waits))
                    continue
                waits = pauses(FIRST_PAUSE)
                if self.pending.get(key) == notice:  # (not told anew while it was sent)
                    del self.pending[key]
        finally:
            self.sending = False
