"""An online game as a table sees it: a seat at a game on a lobby server, or watching one.

Here its moves, rematch and claim; following its stream is in online_follow, what the table
reads of it in online_table."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from PySide6.QtCore import QTimer

from ..game.actions import Action, Concede
from .errors import (
    ActionRefused,
    LobbyError,
    RateLimited,
    ServerFailed,
    ServerUnreachable,
    SignedOut,
)
from .lobby_records import GameDetail, GameEvent
from .online_follow import FollowedGame
from .online_table import RETRY_DELAYS_MS, Outgoing

__all__ = ["LONGEST_MOVE_WAIT_MS", "RETRY_DELAYS_MS", "OnlineGame"]

# a move refused by the server's rate limit (HTTP 429) is sent again after its Retry-After,
# but after this long at most (it may then be refused again, with a new Retry-After)
LONGEST_MOVE_WAIT_MS = 10_000


class OnlineGame(FollowedGame):
    """A game on a lobby server, played from one seat or watched (`user_id` not seated).

    The game's event stream is the truth: a snapshot first (or after falling too far behind),
    then numbered events; each change's last event carries the view after it. An action is
    sent with the version it was made against and an id of our own; after a dropped
    connection, or a gateway's HTTP 502, 503 or 504 (the server behind it restarting or gone),
    it is sent again under the same id, so the server plays it exactly once; refused by the
    server's rate limit (HTTP 429), it is sent again after the wait the server asks for. A
    concession refused because the game moved on meanwhile is made again once the table has
    caught up (resigning means the same at any version).
    `pending` stays true until the events it caused have arrived (from its answer or the
    stream, whichever comes first; events are applied once, in order, by number). After a
    rematch the source follows the players to the new game (`started` says so).
    """

    @property
    def can_replay(self) -> bool:
        view = self.view
        return view is not None and view.over and not self.closed

    # ----- actions -----
    def act(self, action: Action) -> None:
        self._make(action, 0)

    def _make(self, action: Action, tries: int) -> None:
        if self.closed or self.my_seat is None or self._summary is None:
            return
        action_id = uuid.uuid4().hex
        self._outstanding[action_id] = Outgoing(action, self._version, tries)
        self._update_pending()
        self._send(action_id)

    def _concede_again(self, tries: int) -> None:
        """Resign at the version the table has caught up with, unless the game is over."""
        view = self.view
        if view is not None and not view.over:
            self._make(Concede(), tries)

    def _send(self, action_id: str) -> None:
        out = self._outstanding.get(action_id)
        if out is None or self.closed:
            return
        client, game_id = self._client, self._game_id
        self._ops.run(
            lambda: client.act(game_id, out.version, out.action, action_id),
            lambda result: self._acted(action_id, result.seq, result.events),
            lambda error: self._act_failed(action_id, error),
            label="Sending your move…", owner=self._game.stamp(),
            on_unexpected=lambda error: self._act_broke(action_id, error),
        )

    def _acted(self, action_id: str, seq: int, events: Sequence[GameEvent]) -> None:
        self._outstanding.pop(action_id, None)
        self._await_seq = max(self._await_seq, seq)
        self._ingest(events, from_stream=False)

    def _act_failed(self, action_id: str, error: LobbyError) -> None:
        out = self._outstanding.get(action_id)
        if out is None:
            return
        if isinstance(error, RateLimited) and out.tries < len(self._retry_ms):
            asked = round(error.wait * 1000)  # (none asked: as after a dropped connection)
            delay = min(asked or self._retry_ms[out.tries], LONGEST_MOVE_WAIT_MS)
            out.tries += 1
            self.notice.emit(f"The server asks to wait (too many moves at once): sending your "
                             f"move again in {max(1, round(delay / 1000))} s…")
            QTimer.singleShot(delay, self, lambda: self._send(action_id))
            return
        gateway = isinstance(error, ServerFailed) and error.passing
        if (gateway or isinstance(error, ServerUnreachable)) and out.tries < len(self._retry_ms):
            asked = round(error.wait * 1000) if isinstance(error, ServerFailed) else 0
            delay = max(self._retry_ms[out.tries], min(asked, LONGEST_MOVE_WAIT_MS))
            out.tries += 1
            self.notice.emit("The server is not answering just now: sending your move again…"
                             if gateway else "The connection dropped: sending your move again…")
            QTimer.singleShot(delay, self, lambda: self._send(action_id))
            return
        del self._outstanding[action_id]
        self._update_pending()
        stale = isinstance(error, ActionRefused) and error.code == "stale_version"
        if stale and isinstance(out.action, Concede) and out.tries < len(self._retry_ms):
            # (resigning means the same whatever was played meanwhile, e.g. by a computer
            # that moved as the player resigned: made again at the newest version)
            self._resync(then=lambda: self._concede_again(out.tries + 1),
                         undone="Your resignation was not made: resign again.")
            return
        if isinstance(error, SignedOut):
            self.signed_out.emit(out.action)
        if stale:
            message = ("The game moved on before your move arrived, so it was not played; "
                       "the table shows the game as it is now.")
            self._resync()
        elif gateway or isinstance(error, ServerUnreachable):
            message = (f"{error} Your move may not have been played: the table will show it "
                       "once the server answers again.")
        else:
            message = str(error)
        self.error.emit(message)

    def _act_broke(self, action_id: str, error: BaseException) -> None:
        """Sending the move failed in a way the app did not foresee (the error dialog shows
        it): the move is no longer pending, so the player can make it again."""
        self._act_failed(action_id, LobbyError(
            f"Your move may not have been played ({type(error).__name__}: {error}); the table "
            "shows it once the server has it."))

    def rematch(self) -> None:
        if self.closed or self.my_seat is None:
            return
        client, game_id = self._client, self._game_id

        def answered(detail: GameDetail) -> None:
            if detail.rematch_game_id:
                self._switch(detail.rematch_game_id)

        self._ops.run(lambda: client.rematch(game_id), answered,
                      lambda error: self.error.emit(str(error)),
                      label="Asking for a rematch…", owner=self._game.stamp())

    def claim(self) -> None:
        """Claim the win from the opponent who left; the game's end comes on the stream."""
        if self.closed or not self.can_claim:
            return
        client, game_id = self._client, self._game_id

        def done() -> None:
            self.presence_changed.emit()

        def answered(detail: GameDetail) -> None:
            done()
            if detail.seq > self._seq:  # the stream is behind: catch up from the answer
                self._resync()

        def refused(error: LobbyError) -> None:
            done()
            if isinstance(error, ActionRefused) and error.code in ("opponent_here",
                                                                   "too_early"):
                return  # (came back meanwhile: presence says so, and the log)
            self.error.emit(str(error))

        self._ops.run(lambda: client.claim(game_id), answered, refused,
                      label="Claiming the win…", owner=self._game.stamp(),
                      exclusive=(self, "claim"))
        self.presence_changed.emit()  # (the claim is on its way: not offered twice)
