"""An online game followed through its event stream: snapshots, numbered events, resyncs."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QObject

from ..game.events import Event
from ..game.view import View
from .errors import LobbyError
from .lifecycles import (
    CHANGE,
    SYNC,
    TABLE_LINK,
    Change,
    ChangeEvent,
    Machine,
    Sync,
    SyncEvent,
    TableEvent,
    TableLink,
)
from .lobby_client import LobbyClient
from .lobby_records import (
    GameDetail,
    GameEvent,
    GameSummary,
    Seat,
    clock_deadline,
    clock_left,
    presence_of,
)
from .online_table import RETRY_DELAYS_MS, GameOnTable, Outgoing
from .sse import BACKOFF, READ_TIMEOUT, EventStream, ServerEvent
from .tasks import Generation, Operations, emit_from_thread


class FollowedGame(GameOnTable):
    """Applies what the game's stream says, once each and in order; catches up when it skipped."""

    @property
    def has_chat(self) -> bool:
        return True

    def __init__(
        self,
        client: LobbyClient,
        game_id: str,
        operations: Operations,
        *,
        user_id: str | None = None,
        first: GameSummary | None = None,
        read_timeout: float = READ_TIMEOUT,
        backoff: Sequence[float] = BACKOFF,
        retry_delays_ms: Sequence[int] = RETRY_DELAYS_MS,
        parent: QObject | None = None,
    ) -> None:
        """`first` is what is known already (a lobby line, or the answer to create or join)."""
        super().__init__(parent)
        self._client = client
        self._ops = operations
        self._user_id = user_id
        self._game_id = game_id.strip().upper()
        self._read_timeout = read_timeout
        self._backoff = tuple(backoff)
        self._retry_ms = tuple(retry_delays_ms)
        self._summary: GameSummary | None = first
        self._view: View | None = None
        self._seq = 0
        self._version = 0
        self._batch: list[Event] = []
        self._outstanding: dict[str, Outgoing] = {}
        self._await_seq = 0
        # the stream's numbered events that came while a snapshot was fetched (_resync):
        # applied after it, those newer than it
        self._held: list[GameEvent] = []
        # run once it has caught up, each with what to tell the player if it failed instead
        self._after_resync: list[tuple[Callable[[], None], str]] = []
        self.sync = Machine("game stream", SYNC, Sync.BLIND)
        self.change = Machine("game change", CHANGE, Change.PLAIN)
        self.link = Machine("table", TABLE_LINK, TableLink.OPENING)
        self._game = Generation()  # moves on when the game leaves the table or is switched
        self._stream: EventStream | None = None
        self._token: object | None = None
        self._presence: tuple[tuple[bool, bool], ...] = ()  # per seat: away, claimable
        self._claimed_from: int | None = None
        self._claim_at: float | None = None  # (monotonic) when the win may be claimed
        self._clock: tuple[int, float] | None = None
        self._clock_told: tuple[int, float] | None = None
        self._watchers = first.observers if first is not None else 0
        self._arrived.connect(self._on_arrived)
        self._stream_said.connect(self._on_stream_status)

    # ----- running -----
    def start(self) -> None:
        """Show what is known and follow the game's event stream."""
        first = self._summary
        if isinstance(first, GameDetail):
            self._apply_snapshot(first)
            # after its events, and after no chat message: the chat said at the table before
            # (a player who joins reads what was said while the table waited)
            self._open_stream(f"{first.seq}.0")
        else:
            self._open_stream(None)

    def close(self) -> None:
        self.link.fire(TableEvent.CLOSE)
        self._game.move_on()  # (what is on its way for it is dropped as it answers)
        self._outstanding.clear()
        self._held = []
        self._after_resync = []
        self._close_stream()

    def _open_stream(self, last_event_id: str | None) -> None:
        token = object()
        client, game_id = self._client, self._game_id
        self._token = token
        self.sync.fire(SyncEvent.OPENED_BLIND if last_event_id is None else SyncEvent.OPENED_AFTER)
        self._stream = EventStream(
            lambda: client.events_url(game_id),
            lambda event: emit_from_thread(self._arrived, token, event),
            lambda status, detail: emit_from_thread(self._stream_said, token, status, detail),
            headers=client.stream_headers,
            refused=client.stream_refused,
            last_event_id=last_event_id,
            read_timeout=self._read_timeout,
            backoff=self._backoff,
            name=f"game-{game_id}",
        )
        self._stream.start()

    def sign_again(self) -> None:
        """Follow the game under the client's sign-in as it is now (in, out, or someone else):
        the server counts who is at the table by the streams they signed."""
        if self.closed or self._stream is None:
            return
        self.link.fire(TableEvent.REOPEN)
        self._close_stream()
        self._open_stream(str(self._seq) if self.sync.state is Sync.SYNCED else None)

    def analysis_work(self) -> Callable[[], dict[str, Any]] | None:
        if self._view is None or not self._view.over:
            return None
        client, game_id = self._client, self._game_id
        return lambda: client.analysis(game_id)

    @property
    def client(self) -> LobbyClient:
        """The server the game is on (chat at the table writes through it)."""
        return self._client

    @property
    def user_id(self) -> str | None:
        """Who the app is signed in as, if anyone."""
        return self._user_id

    def _close_stream(self) -> None:
        if self._stream is not None:
            self._stream.close()
        self._stream = None
        self._token = None

    def _on_arrived(self, token: object, event: ServerEvent) -> None:
        if token is not self._token or self.closed:
            return
        try:
            data = event.json()
            if event.event == "observers":
                self._set_watchers(int(data["count"]))
            elif event.event == "presence":
                self._claim_wait(data["players"])
                self._set_presence(presence_of(data["players"]))
            elif event.event == "clock":  # the server's clock: not part of the game either
                seat = data.get("seat")
                self._set_clock(None if seat is None else int(seat), clock_left(data),
                                clock_deadline(data))
            elif event.event == "chat":  # not part of the game: never changes its version
                self.chat_said.emit(dict(data["message"]))
            elif event.event == "snapshot":
                self._apply_snapshot(GameDetail.from_dict(data["game"]))
            elif self.sync.state is Sync.SYNCED and self._catching_up:
                self._hold(GameEvent.from_dict(data))
            elif self.sync.state is Sync.SYNCED:
                self._ingest([GameEvent.from_dict(data)], from_stream=True)
        except (ValueError, KeyError, TypeError) as error:
            self.error.emit(f"The server sent something the app cannot read ({error}).")
            self._resync()

    def _on_stream_status(self, token: object, status: str, detail: str) -> None:
        if token is not self._token or self.closed:
            return
        was = self.link.state
        if status in ("reconnecting", "misanswered"):
            self.link.fire(TableEvent.DROPPED)
            if was is not TableLink.RECONNECTING and status == "reconnecting":
                self.notice.emit(f"Connection lost ({detail}): reconnecting…")
            elif was is not TableLink.RECONNECTING:
                self.notice.emit(f"The server answers, but {detail}. Trying again…")
        elif status == "connected":
            self.link.fire(TableEvent.CONNECTED)
            if was is TableLink.RECONNECTING:
                self._say_where_we_are()
        elif status == "failed":
            self.link.fire(TableEvent.FAILED)
            self._await_seq = self._seq
            self._update_pending()
            self.error.emit(f"This game cannot be followed: {detail}.")

    # ----- applying what the server says -----
    def _apply_snapshot(self, detail: GameDetail) -> None:
        """Show the game as `detail` has it; one that came after the events seen here (a
        catch-up), with a rematch among those missed, follows the players to it as that
        event would have."""
        before, seen = self._summary, self._seq
        self._summary = detail
        self.sync.fire(SyncEvent.SNAPSHOT)
        self._seq, self._version = detail.seq, detail.version
        self._batch = []
        self.change.fire(ChangeEvent.SNAPSHOT)
        fresh = not isinstance(before, GameDetail) or before.id != detail.id or (
            (before.status == "waiting") != (detail.status == "waiting")
        )
        if fresh:
            self._view = None
            self.started.emit()
            if detail.status != "waiting" and detail.seq:
                self._fetch_history(detail.id, detail.seq)
        self._claimed_from = detail.claimed_from
        self._set_rating_changes(detail.rating_changes)
        self._set_watchers(detail.observers)
        if detail.status == "waiting" or detail.closed or detail.view is None:
            self._say_waiting()
        else:
            self._show(detail.view, [])
        self._update_pending()
        self._set_presence(detail.presence)
        view = detail.view
        self._set_clock(view.turn if view is not None and not view.over else None,
                        detail.clock_left, detail.clock_deadline)
        if detail.rematch_game_id is not None and 0 < seen < detail.seq:
            self._switch(detail.rematch_game_id)

    def _fetch_history(self, game_id: str, seq: int) -> None:
        """The game's events up to the snapshot (`seq`), for the log: emitted as history."""
        client = self._client

        def got(events: list[GameEvent]) -> None:
            earlier = [e.engine_event() for e in events if e.seq <= seq]
            self.history.emit([e for e in earlier if e is not None])

        def failed(error: LobbyError) -> None:
            pass  # (the log only starts later: nothing of the game is lost)

        self._ops.run(lambda: client.log(game_id), got, failed, quiet=True,
                      owner=self._game.stamp())

    def _claim_wait(self, players: list[dict[str, object]]) -> None:
        """When the win may be claimed from the opponent, if the server counts down to it."""
        seat = self.my_seat
        wait = next((p.get("claim_in") for p in players
                     if seat is not None and p.get("seat") == 1 - seat), None)
        at = time.monotonic() + float(wait) if isinstance(wait, int | float) else None
        counting = (at is None) != (self._claim_at is None)
        self._claim_at = at
        if counting:  # (the countdown starts or stops: the status line says so)
            self.presence_changed.emit()

    def _set_presence(self, presence: tuple[tuple[bool, bool], ...]) -> None:
        if presence != self._presence:
            self._presence = presence
            self.presence_changed.emit()

    def _ingest(self, events: Sequence[GameEvent], from_stream: bool) -> None:
        """Apply numbered events once each, in order; a gap in the stream asks for a resync."""
        switch_to: str | None = None
        for index, event in enumerate(events):
            if event.seq <= self._seq:
                continue
            if event.seq != self._seq + 1 or self._summary is None:
                if from_stream:  # (kept: newer than the snapshot, they are applied after it)
                    self._held.extend(events[index:])
                    self._resync()
                break  # an answer ahead of the stream: the stream will bring it in order
            self._seq, self._version = event.seq, event.version
            engine = event.engine_event()
            if engine is not None:
                self._batch.append(engine)
            elif event.kind == "rematch":
                switch_to = str(event.data["game_id"])
            else:
                self._table_event(event)
            if event.view is not None and self.status != "waiting":
                self._settle_change(event.view)
            if event.view is not None:  # (the last event of a change)
                self.change.fire(ChangeEvent.CHANGE_END)
        self._update_pending()
        if switch_to is not None:
            self._switch(switch_to)

    def _settle_change(self, view: View) -> None:
        batch, self._batch = self._batch, []
        if self.change.fire(ChangeEvent.VIEW_SHOWN):  # the game has just begun: a first view,
            self.started.emit()  # nothing to animate
            batch = []
        if view.over and self._summary is not None and self._summary.status != "finished":
            self._summary = replace(self._summary, status="finished", winner=view.winner)
            self._fetch_rating_changes()
        if batch or view != self._view:  # a table event leaves the view as it was
            self._show(view, batch)

    def _turn_is_mine(self, view: View | None) -> bool:
        seat = self.my_seat
        return view is not None and seat is not None and not view.over and view.turn == seat

    def _show(self, view: View, events: list[Event]) -> None:
        was_mine = self._turn_is_mine(self._view)
        self._view = view
        if events:
            self.events.emit(events)
        self.view_changed.emit(view)
        if self._turn_is_mine(view) and not was_mine:
            self.your_turn.emit()

    def _table_event(self, event: GameEvent) -> None:
        """Seats taken and left, the start, a closed table, a rematch asked for."""
        summary = self._summary
        assert summary is not None
        kind, data = event.kind, event.data
        if kind in ("seat_taken", "seat_left"):
            seat = (Seat.from_dict(data["player"]) if kind == "seat_taken"
                    else Seat(int(data["seat"]), "open"))
            leaving = summary.players[seat.seat].label if seat.open else ""
            players = tuple(seat if p.seat == seat.seat else p for p in summary.players)
            self._summary = replace(summary, players=players)
            if seat.seat == self.my_seat:
                return
            if not seat.open:
                self.change.fire(ChangeEvent.OPPONENT_SEATED)
                self.opponent_joined.emit(seat.label)
                self.notice.emit(f"{seat.label} took the open seat.")
            else:
                self.notice.emit(f"{leaving} left the table.")
                self._say_waiting()
        elif kind == "game_started":
            self._summary = replace(summary, status="playing")
            self.change.fire(ChangeEvent.GAME_STARTED)
        elif kind == "game_closed":
            if isinstance(summary, GameDetail):
                self._summary = replace(summary, status="finished", closed=True)
            else:
                self._summary = replace(summary, status="finished")
            self.notice.emit("The host closed this table before the game began.")
        elif kind == "win_claimed":
            self._claimed_from = int(data["away"])
        elif kind == "rematch_offered":
            asking = int(data["seat"])
            if asking == self.my_seat:
                other = summary.names[1 - asking]
                self.notice.emit(f"Rematch asked for: waiting for {other} to agree.")
            else:
                press = ": press R to play again" if self.my_seat is not None else ""
                self.notice.emit(f"{summary.names[asking]} asks for a rematch{press}.")

    def _say_waiting(self) -> None:
        if isinstance(self._summary, GameDetail) and self._summary.closed:
            self.notice.emit("The host closed this table before the game began.")
        elif self.my_seat is not None:
            self.notice.emit(f"Waiting for a second player. Share the game id {self._game_id} "
                             "to invite someone.")
        else:
            self.notice.emit("Waiting for a second player to take the open seat.")

    def _say_where_we_are(self) -> None:
        """After a reconnection: put the usual status line back."""
        if self.view is not None:
            self.view_changed.emit(self.view)
        else:
            self._say_waiting()

    def _hold(self, event: GameEvent) -> None:
        """A stream event that came while a snapshot is fetched: applied now if it follows on
        from the table in order (its moves told as they happen), else held for after it."""
        held = sorted([*self._held, event], key=lambda held_event: held_event.seq)
        self._held, game_id = [], self._game_id
        self._ingest(held, from_stream=False)  # (stops at a gap, asking nothing)
        if self._game_id == game_id:  # (not followed to a rematch meanwhile)
            self._held = [held_event for held_event in held if held_event.seq > self._seq]

    @property
    def _catch_up(self) -> tuple[object, ...]:
        """The key of this game's catch-up (one at a time). One for a game left since (a
        rematch followed) is not this one's: its answer is dropped, and meanwhile this
        game's events are not held for it, nor its own catch-up kept from starting."""
        return (self, "resync", self._game.count)

    @property
    def _catching_up(self) -> bool:
        return self._ops.running(self._catch_up)

    def _resync(self, then: Callable[[], None] | None = None, undone: str = "") -> None:
        """Fetch the whole game again (the stream skipped something). The stream's events
        that come meanwhile are held, and applied after the snapshot when newer than it: the
        snapshot may have been taken before them. `then` runs once the table has caught up
        (this catch-up, or the one already on its way); if it failed, the player is told
        `undone` (what was not done) with the error."""
        if self.closed:
            return
        if then is not None:
            self._after_resync.append((then, undone))
        client, game_id = self._client, self._game_id

        def held() -> list[GameEvent]:
            events, self._held = self._held, []
            return sorted(events, key=lambda event: event.seq)

        def caught_up(detail: GameDetail) -> None:
            if detail.seq >= self._seq:
                self._apply_snapshot(detail)
            self._ingest(held(), from_stream=True)  # (still a gap: caught up again)
            if not self._catching_up:
                waiting, self._after_resync = self._after_resync, []
                for step, _undone in waiting:
                    step()

        def failed(error: LobbyError) -> None:
            waiting, self._after_resync = self._after_resync, []
            self._ingest(held(), from_stream=False)  # (what follows on in order)
            self.error.emit(" ".join([str(error), *(undone for _, undone in waiting if undone)]))

        # One at a time. (A closed game may be deleted: it must not emit. Its answer is
        # dropped then, as when the game was switched.)
        self._ops.run(lambda: client.game(game_id), caught_up, failed,
                      label="Catching up with the game…", owner=self._game.stamp(),
                      exclusive=self._catch_up)

    def _switch(self, game_id: str) -> None:
        """Follow the players to a new game (a rematch)."""
        if self.closed or game_id == self._game_id:
            return
        self._close_stream()
        self._game.move_on()  # (answers about the game before are dropped)
        self.link.fire(TableEvent.REOPEN)
        self._game_id = game_id
        self._outstanding.clear()
        self._seq = self._version = self._await_seq = 0
        self._batch = []
        self._held = []
        self._after_resync = []
        self._claimed_from = None
        self._rating_changes = None
        self._update_pending()
        self._set_presence(())
        self._set_clock(None, None)
        self._open_stream(None)

    def _update_pending(self) -> None:
        self._set_pending(bool(self._outstanding) or self._seq < self._await_seq)
