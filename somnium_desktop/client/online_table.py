"""An online game as the table reads it: names, seats, view, presence and the claim."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from PySide6.QtCore import Signal

from ..game.actions import Action
from ..game.view import View
from .errors import LobbyError
from .lifecycles import Change, ChangeEvent, Machine, TableEvent, TableLink
from .lobby_client import LobbyClient
from .lobby_records import GameDetail, GameSummary
from .ratings import RatingChange
from .source import TableSource
from .sse import EventStream
from .tasks import Generation, Operations

# resending an action after a dropped connection or a gateway's 502-504
RETRY_DELAYS_MS = (300, 1000, 2000, 4000, 8000)


@dataclass
class Outgoing:
    """An action on its way: made against `version`, retried under the same id."""

    action: Action
    version: int
    tries: int = 0


class GameOnTable(TableSource):
    """What the table shows of an online game; FollowedGame keeps it up to date."""

    your_turn = Signal()  # it has just become this seat's turn (see turn_came_with_opponent)
    opponent_joined = Signal(str)  # who took the other seat
    signed_out = Signal(object)  # an action found no valid sign-in: that action (not played)
    chat_said = Signal(object)  # a chat message (the server's `chat` event's "message" dict)
    _arrived = Signal(object, object)  # stream token, ServerEvent (from the reader's thread)
    _stream_said = Signal(object, str, str)  # stream token, status, detail

    # Set by FollowedGame.__init__; what the table is shown from.
    _summary: GameSummary | None
    _user_id: str | None
    _game_id: str
    _view: View | None
    _presence: tuple[tuple[bool, bool], ...]  # per seat: away, claimable
    _watchers: int
    _ops: Operations
    _claim_at: float | None  # (monotonic) when the win may be claimed
    _claimed_from: int | None
    _clock: tuple[int, float] | None  # the seat to move, when its clock runs out (monotonic)
    _clock_told: tuple[int, float] | None  # the seat and server's deadline it was set from
    change: Machine[Change, ChangeEvent]  # what the change being applied brought
    _stream: EventStream | None
    link: Machine[TableLink, TableEvent]
    _client: LobbyClient
    _game: Generation
    _rating_changes: tuple[RatingChange, ...] | None = None

    # ----- what the table shows -----
    @property
    def game_id(self) -> str:
        return self._game_id

    @property
    def game_name(self) -> str:
        return self._summary.name if self._summary is not None else f"Game {self._game_id}"

    @property
    def names(self) -> tuple[str, str]:
        return self._summary.names if self._summary is not None else ("Player 1", "Player 2")

    @property
    def my_seat(self) -> int | None:
        return self._summary.seat_of(self._user_id) if self._summary is not None else None

    @property
    def view(self) -> View | None:
        return self._view if self.status != "waiting" else None

    @property
    def shows_odds(self) -> bool:
        return self._summary is not None and self._summary.odds

    @property
    def status(self) -> str:
        """The game's state: waiting, playing or finished ("" before anything is known)."""
        return self._summary.status if self._summary is not None else ""

    @property
    def can_rematch(self) -> bool:
        closed = isinstance(self._summary, GameDetail) and self._summary.closed
        return self.my_seat is not None and not closed

    @property
    def closed(self) -> bool:
        return self.link.state is TableLink.CLOSED

    def away(self, seat: int) -> bool:
        return seat < len(self._presence) and self._presence[seat][0]

    @property
    def watchers(self) -> int:
        return self._watchers

    def _set_watchers(self, count: int) -> None:
        if count != self._watchers:
            self._watchers = count
            self.watchers_changed.emit(count)

    @property
    def can_claim(self) -> bool:
        seat, view = self.my_seat, self._view
        if seat is None or view is None or view.over or self.status != "playing":
            return False
        other = 1 - seat
        return other < len(self._presence) and self._presence[other][1] \
            and not self._ops.running((self, "claim"))

    @property
    def claimed_from(self) -> int | None:
        return self._claimed_from

    @property
    def claim_in(self) -> int | None:
        seat = self.my_seat
        if self._claim_at is None or seat is None or not self.away(1 - seat) \
                or self.can_claim or self.status != "playing":
            return None
        return max(0, math.ceil(self._claim_at - time.monotonic()))

    @property
    def clock(self) -> tuple[int, float] | None:
        return self._clock if self.status == "playing" else None

    def _set_clock(self, seat: int | None, left: float | None,
                   deadline: float | None = None) -> None:
        """The server's clock: `left` seconds for `seat` from now (None: none running), to the
        server's `deadline`. That deadline told again (by a stream that came back) keeps the
        clock as it is: its last seconds are warned of once."""
        if seat is None or left is None:
            clock, told = None, None
        elif deadline is not None and (seat, deadline) == self._clock_told:
            return
        else:
            clock = (seat, time.monotonic() + left)
            told = None if deadline is None else (seat, deadline)
        self._clock_told = told
        if clock != self._clock:
            self._clock = clock
            self.clock_changed.emit()

    @property
    def turn_came_with_opponent(self) -> bool:
        """While your_turn is emitted: whether the turn came with the opponent taking the open
        seat (the game began on it), which the lobby announces already."""
        return self.change.state in (Change.SEATED, Change.SEATED_BEGUN)

    @property
    def stream(self) -> EventStream | None:
        return self._stream

    # ----- ratings -----
    @property
    def ratings(self) -> tuple[str, str]:
        found = {p.seat: p.rating for p in self._summary.players} if self._summary else {}
        return (found.get(0, ""), found.get(1, ""))

    @property
    def user_ids(self) -> tuple[str | None, str | None]:
        found = {p.seat: p.user_id for p in self._summary.players if p.kind == "person"} \
            if self._summary else {}
        return (found.get(0), found.get(1))

    @property
    def rating_changes(self) -> tuple[RatingChange, ...] | None:
        return self._rating_changes

    def _set_rating_changes(self, changes: tuple[RatingChange, ...] | None) -> None:
        if changes is not None and changes != self._rating_changes:
            self._rating_changes = changes
            self.ratings_changed.emit()

    def _fetch_rating_changes(self) -> None:
        """A rated game has just ended: what it did to both ratings (the game's detail)."""
        if self._summary is None or not self._summary.rated or self._rating_changes:
            return
        client, game_id = self._client, self._game_id

        def got(detail: GameDetail) -> None:
            self._set_rating_changes(detail.rating_changes)

        def failed(_error: LobbyError) -> None:
            pass  # (the result stands without them; the player's page has them)

        self._ops.run(lambda: client.game(game_id), got, failed, quiet=True,
                      owner=self._game.stamp(), exclusive=(self, "ratings"))
