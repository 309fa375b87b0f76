"""The lobby: the list of games and its live stream (created, seat taken, finished, observers)."""

from __future__ import annotations

import secrets
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from .events import Channel, Subscriber, event_number, frame, missed

SNAPSHOT_GAMES = 200


class Lobby:
    """Numbers lobby events `<epoch>-<seq>`.

    The lobby's events live in memory only, so their numbers start again with each server
    start; the epoch, 64 random bits drawn at each start, keeps an id from before a restart
    (or from another server) from naming one of now: such an id is answered with a snapshot.
    """

    def __init__(self, window: int) -> None:
        self.channel = Channel()
        self.epoch = secrets.token_hex(8)
        self.seq = 0
        self.window: deque[tuple[int, bytes]] = deque(maxlen=window)

    def publish(self, kind: str, data: dict[str, Any]) -> None:
        """Send a lobby event to every lobby stream."""
        self.seq += 1
        data = {"type": kind, **data}
        message = frame(kind, data, f"{self.epoch}-{self.seq}")
        self.window.append((self.seq, message))
        self.channel.publish(message)

    def subscribe(
        self, last_event_id: str | None, snapshot: Callable[[], list[dict[str, Any]]]
    ) -> Subscriber:
        """A new lobby stream: the missed events if it can resume, else a snapshot first."""
        missed = self._missed(last_event_id)
        if missed is None:
            first = [
                frame("snapshot", {"type": "snapshot", "games": snapshot()},
                      f"{self.epoch}-{self.seq}")
            ]
        else:
            first = missed
        subscriber = Subscriber(first)
        self.channel.add(subscriber)
        return subscriber

    def _missed(self, last_event_id: str | None) -> list[bytes] | None:
        if not last_event_id:
            return None
        epoch, _, seq_text = last_event_id.partition("-")
        last_seen = event_number(seq_text)
        if epoch != self.epoch or last_seen is None:
            return None
        oldest = self.window[0][0] if self.window else None
        return missed(last_seen, self.seq, self.window, oldest)


def select(
    summaries: Iterable[dict[str, Any]],
    status: str | None,
    player: str | None,
    limit: int,
) -> list[dict[str, Any]]:
    """Lobby lines (given newest first) matching the filters, at most `limit` of them."""
    chosen: list[dict[str, Any]] = []
    for summary in summaries:
        if status is not None and summary["status"] != status:
            continue
        if player is not None and not any(
            p["user_id"] == player or (p["name"] or "").casefold() == player.casefold()
            for p in summary["players"]
        ):
            continue
        chosen.append(summary)
        if len(chosen) >= limit:
            break
    return chosen
