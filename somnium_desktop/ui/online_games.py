"""Online play's games: creating, joining, watching, and back to one's own game."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..client.errors import ActionRefused, LobbyError, SignedOut
from ..client.lifecycles import GoingBackEvent
from ..client.lobby_records import GameDetail, GameSummary
from ..client.online import OnlineGame
from ..client.replay import fetch as fetch_replay
from .online_base import OnlineBase

if TYPE_CHECKING:
    from ..game.actions import Action


class GamesPart(OnlineBase):
    """Opens the server's games as table sources."""

    def create(self, name: str, level: str | None) -> None:
        if self._waiting():
            return
        self._after_leaving(None, lambda: self._signed_in_then(
            lambda: self._create(name, level), ": the game was not created"))

    def _create(self, name: str, level: str | None) -> None:
        client, account = self.client, self.account
        if client is None or account is None:
            return
        title = name or f"{account.display_name}'s table"
        odds = self.panel.odds_box.isChecked()  # (a rated game refuses them: 422, told)
        rated = self.panel.rated()  # (rated or casual: ticked at Create)
        move_seconds = self.panel.clock_choice.currentData()  # (None: no clock)

        def created(detail: GameDetail) -> None:
            if self.panel.name_field.text().strip() == name:
                self.panel.name_field.clear()  # a second Create must not repeat this table
            self._open_detail(detail)

        def failed(error: LobbyError) -> None:
            self._failed(error, lambda: self._create(name, level))

        # One at a time on this server (a double click, or Enter pressed twice: one table);
        # the answer of a server since left is dropped.
        self.ops.run(lambda: client.create(title, level, move_seconds, rated=rated, odds=odds),
                     created, failed,
                     label="Creating the game…", owner=self._server.stamp(),
                     exclusive=(client, "create"))

    def join(self, game_id: str) -> None:
        if self._waiting():
            return
        self._after_leaving(game_id, lambda: self._signed_in_then(
            lambda: self._join(game_id), ": the game was not joined"))

    def _join(self, game_id: str) -> None:
        client = self.client
        if client is None:
            return

        def refused(error: LobbyError) -> None:
            if isinstance(error, ActionRefused) and error.code == "already_seated":
                self.panel.show_message("You already play in that game: it is on your table.")
                current = self.current
                if current is None or current.game_id != game_id or current.closed:
                    self._watch(game_id)  # our own table: play it
            elif isinstance(error, ActionRefused) and error.code in ("game_started",
                                                                      "seat_taken", "host_away"):
                self.panel.show_message(f"{error} Watching it instead.")
                self._watch(game_id)
            else:
                self._failed(error, lambda: self._join(game_id))

        def joined(detail: GameDetail) -> None:
            if self.panel.typed_game_id() == game_id:
                self.panel.game_id_field.clear()  # (done with; the table shows the id)
            self._open_detail(detail)

        self.ops.run(lambda: client.join(game_id), joined, refused,
                     label="Joining the game…", owner=self._server.stamp())

    def watch(self, game_id: str) -> None:
        """Open a game: your seat if you sit at it, else watching (no sign-in needed)."""
        if self.client is None:
            return
        game_id = game_id.strip().upper()
        self._after_leaving(game_id, lambda: self._watch(game_id))

    def _watch(self, game_id: str) -> None:
        """Open the game `game_id` (the player agreed to leave the one in play, if any)."""
        self._open(game_id, self.lobby.games.get(game_id))

    def _after_leaving(self, game_id: str | None, then: Callable[[], None]) -> None:
        """`then` once the player agreed to leave the game in play on the table (the window
        asks) for the game `game_id` (None: one to create); at once for the game on the
        table itself."""
        if game_id is not None and self._on_table(game_id):
            then()
        else:
            self.leave_table(f"to open game {game_id}" if game_id else
                             "to create a game online", then)

    def _open_detail(self, detail: GameDetail) -> None:
        self._open(detail.id, detail)

    def _open(self, game_id: str, first: GameSummary | None) -> None:
        client = self.client
        if client is None or self._closed:
            return
        game = OnlineGame(client, game_id, self.ops, first=first,
                          user_id=self.account.id if self.account else None,
                          read_timeout=self.read_timeout)
        game.signed_out.connect(lambda action: self._move_signed_out(game, action))
        self.current = game
        self.game_opened.emit(game)

    def open_replay(self, game_id: str) -> None:
        """Fetch a finished game's replay off the UI thread; `replay_opened` brings it. The
        last asked for opens: one asked before it, still on its way, is dropped."""
        client = self.client
        if client is None or self._closed:
            return
        game_id = game_id.strip().upper()
        if self.ops.running((client, "replay", game_id, self._replays.count)):
            return  # a double click: that game's replay, the last asked for, is on its way
        self._replays.move_on()
        user_id = self.account.id if self.account else None
        self.ops.run(lambda: fetch_replay(client, game_id, user_id),
                     self.replay_opened.emit, self._show_error, label="Loading the replay…",
                     owner=self._replays.stamp(),
                     exclusive=(client, "replay", game_id, self._replays.count))

    def _move_signed_out(self, game: OnlineGame, action: Action) -> None:
        """A move refused for want of a sign-in: sign in, then play it (if it still may be)."""
        self._lost_sign_in()

        def again() -> None:
            view = game.view
            if self.current is game and not game.closed and view is not None \
                    and view.turn == game.my_seat and action in view.legal and not game.pending:
                game.act(action)

        self.sign_in(then=again, why=": the move was not played")

    def _failed(self, error: LobbyError, retry: Callable[[], None]) -> None:
        if isinstance(error, SignedOut):
            self._lost_sign_in()
            self.sign_in(then=retry)
        else:
            self._show_error(error)

    def _back_to_game(self) -> None:
        """Signed in by a kept sign-in (at start-up, or back on this server): put a game this
        player is still playing back on the table, if nothing else is on it. Their turn first,
        then the newest."""
        account = self.account
        if account is None or self._closed:
            return
        if not self.lobby.loaded:
            self.going_back.fire(GoingBackEvent.NOT_LISTED)
            return
        self.going_back.fire(GoingBackEvent.DONE)
        if not self.table_free():
            return
        mine = [game for game in self.lobby.newest_first()
                if game.status == "playing" and game.seat_of(account.id) is not None]
        if not mine:
            return
        game = next((g for g in mine if g.turn == g.seat_of(account.id)), mine[0])
        self._open(game.id, game)
        more = len(mine) - 1
        also = (f" You play {more} more game{'s' if more > 1 else ''}: in bold in the list."
                if more else "")
        self.panel.show_message(f"Back at your game “{game.name}”.{also}")
