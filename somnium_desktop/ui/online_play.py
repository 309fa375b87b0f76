"""Online play behind the lobby panel: the server and the live lobby, with its parts.

The sign-in is in online_signin, opening games in online_games, the state they share in
online_base; client.lifecycles has the connection's and the sign-in's states. Built once the
window is up (its imports, requests and keyring among them, would slow the first paint).
Network work runs through an Operations runner; nothing here blocks the UI.
"""

from __future__ import annotations

import requests
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QWidget

from ..client.errors import LobbyError, ServerUnreachable
from ..client.lifecycles import (
    Connection,
    ConnectionEvent,
    GoingBack,
    GoingBackEvent,
    Lookup,
    LookupEvent,
    SignInEvent,
)
from ..client.lobby_client import LobbyClient
from ..client.lobby_list import LobbyChange, LobbyList
from ..client.lobby_records import GameSummary, LevelInfo
from ..client.local_server import LocalServer
from ..client.server_address import address_problem
from ..client.sse import EventStream, ServerEvent
from ..client.tasks import emit_from_thread
from .lobby_panel import LobbyPanel
from .online_base import (
    AFTER_LOBBY_AT_LATEST_MS,
    BUILT_IN,
    SIGN_IN_CHECK_MS,
    START_AGAIN_LAST_MS,
    START_AGAIN_MS,
)
from .online_games import GamesPart
from .online_options import OnlineOptions, begin_built_in
from .online_signin import SignInPart

__all__ = ["BUILT_IN", "OnlinePlay"]


class OnlinePlay(SignInPart, GamesPart):
    """Connects the lobby panel to a lobby server and opens its games as table sources."""

    def _wire(self, panel: LobbyPanel, window: QWidget) -> None:
        """At the end of __init__: the timers, the streams' signals and the panel's buttons."""
        self._check_timer = QTimer(self)
        self._check_timer.setInterval(SIGN_IN_CHECK_MS)
        self._check_timer.timeout.connect(self._check_if_changed)
        self._check_timer.start()
        window.installEventFilter(self)  # coming back to the window looks at once
        self.ops.busy_changed.connect(lambda busy: panel.set_busy(busy, self.ops.label))
        self.ops.progress.connect(lambda label: panel.set_busy(self.ops.busy, label))
        self._lobby_event.connect(self._on_lobby_event)
        self._lobby_status.connect(self._on_lobby_status)
        panel.sign_in_clicked.connect(lambda: self.sign_in())
        panel.sign_out_clicked.connect(self.sign_out)
        panel.create_clicked.connect(self.create)
        panel.join_clicked.connect(self.join)
        panel.open_clicked.connect(self.watch)
        panel.replay_clicked.connect(self.open_replay)

    # ----- the server -----
    def start(self) -> None:
        """Connect to the server in the settings (the built-in one when none is set)."""
        self.set_server(self.settings.server_url)

    def set_server(self, url: str) -> None:
        if self._closed or url == self.server_setting:
            return
        if self.server_setting is not None:  # its game (or the one watched) goes with it
            game, self.current = self.current, None
            if game is not None and game.closed:
                game = None
            self.left_server.emit(game, BUILT_IN if self.built_in else self.server_setting)
        leaving_built_in = self.built_in
        self._disconnect()
        if leaving_built_in and url and self.local is not None:
            self.local.close()  # unused now: it leaves once no other window uses it either
        self.server_setting = url
        self._server.move_on()  # what was on its way for the server before is dropped
        problem = address_problem(url) if url else ""
        if problem:  # (stored by hand, say): nothing is sent there, sign-ins least of all
            self.panel.set_server(url)
            self.connection.fire(ConnectionEvent.REFUSE_ADDRESS)
            self._down = problem  # (what Create and Join say while they wait)
            self.panel.show_message(f"{problem} Change it in Settings (Ctrl+,).", error=True,
                                    keep=True)
            return
        if url:
            self._use_server(url, url)
            return
        self._start_wait_ms = START_AGAIN_MS
        self._start_built_in()

    def _start_built_in(self) -> None:
        """Find the built-in server or start it, on a worker; its lobby is followed next."""
        local = self.local_server()
        self.connection.fire(ConnectionEvent.START_BUILT_IN)
        self.panel.set_server(f"{BUILT_IN} (starting…)")
        self.ops.run(local.ensure, lambda base: self._use_server(base, local.key),
                     self._server_failed, label="Starting the built-in server…",
                     owner=self._server.stamp())

    def local_server(self) -> LocalServer:
        if self.local is None:
            self.local = begin_built_in(OnlineOptions())
        return self.local

    def _use_server(self, base: str, key: str) -> None:
        if not self.connection.fire(ConnectionEvent.STARTED):  # (the built-in one started)
            self.connection.fire(ConnectionEvent.SET_SERVER)
        self.key = key
        self.panel.set_server(BUILT_IN if self.built_in else base)
        self.panel.show_message("")
        self._down = ""  # (a start that failed before this one is not what holds now)
        http = requests.Session()
        self.client = client = LobbyClient(base, None, http)
        self.levels_lookup.fire(LookupEvent.RESET)
        self.restore_lookup.fire(LookupEvent.RESET)
        self._open_lobby_stream()  # online play is on once it has listed the games
        # The rest once the lobby is listed (or a moment later if it cannot be): the keyring
        # and its imports take a few hundred milliseconds of CPU that the lobby comes first for.
        self.going_back.fire(GoingBackEvent.SERVER_SET)
        self._after_lobby = [lambda: self._load_levels(client),
                             lambda: self._restore_sign_in(client, key)]
        here = self._server.stamp()
        QTimer.singleShot(AFTER_LOBBY_AT_LATEST_MS, self,
                          lambda: self._lobby_listed() if here.current else None)

    def _lobby_listed(self) -> None:
        waiting, self._after_lobby = self._after_lobby, []
        for then in waiting:
            then()

    def _load_levels(self, client: LobbyClient, again: bool = False) -> None:
        self.levels_lookup.fire(LookupEvent.ASK)

        def loaded(levels: list[LevelInfo]) -> None:
            self.levels_lookup.fire(LookupEvent.ANSWERED)
            self.panel.set_levels(levels)

        def failed(error: LobbyError) -> None:
            if isinstance(error, ServerUnreachable):
                self.levels_lookup.fire(LookupEvent.UNREACHABLE)  # (again once listed)
                if not self._online:
                    return  # (the lobby's line says the server cannot be reached)
                if not again:  # it came back while this was on its way
                    self._lookup_again(lambda: self._load_levels(client, again=True))
                    return
            self._show_error(error)

        self.ops.run(client.levels, loaded, failed,
                     label="Loading the computer levels…", owner=self._server.stamp())

    def _disconnect(self) -> None:
        if self._stream is not None:
            self._stream.close()
        self._stream = self._token = None
        self.client = None
        self.lobby = LobbyList()
        self._set_account(None)
        self.signing.fire(SignInEvent.SIGNED_OUT)
        self.panel.set_games([], None)
        self._down = ""
        self._then_restored = []
        self._lobby_seen = None
        self.panel.set_connected(False)

    def _server_failed(self, error: LobbyError) -> None:
        """The built-in server did not start (a data folder that cannot be written, a start
        that timed out): the lobby says why and when it is started again, and it is, after
        a wait that doubles with each failure. Setting a server or closing ends the waits."""
        self.connection.fire(ConnectionEvent.START_FAILED)
        wait, why = self._start_wait_ms, str(error)
        self._start_wait_ms = min(wait * 2, START_AGAIN_LAST_MS)
        self.panel.set_server(f"{BUILT_IN} (not running)")
        self._tell_down(f"{why} Trying again in {wait // 1000} s.")
        here = self._server.stamp()
        QTimer.singleShot(wait, self,
                          lambda: self._start_again(why) if here.current else None)

    def _start_again(self, why: str) -> None:
        """The wait after a failed start is over: the built-in server is started again."""
        if self.connection.state is Connection.NOT_STARTED:
            self._tell_down(f"{why} Trying again…")
            self._start_built_in()

    def _tell_down(self, why: str) -> None:
        """What the lobby's line says until the server is there (Create and Join say it too)."""
        self._down = why
        self.panel.show_message(why, error=True, keep=True)

    def _revive_built_in(self) -> None:
        """The built-in server went away (the app that started it quit): find or start one."""
        if not self.built_in or self.local is None \
                or not self.connection.fire(ConnectionEvent.REVIVE):  # (one at a time)
            return

        def found(base: str) -> None:
            self.connection.fire(ConnectionEvent.STARTED)
            client = self.client
            if client is not None:
                client.base_url = base
                if client.auth is not None:
                    client.auth.server_url = base

        def failed(error: LobbyError) -> None:
            self.connection.fire(ConnectionEvent.START_FAILED)
            self._show_error(error)

        self.ops.run(self.local.ensure, found, failed,
                     label="Starting the built-in server…", owner=self._server.stamp())

    # ----- the live lobby -----
    def _open_lobby_stream(self, last_event_id: str | None = None) -> None:
        """The lobby's stream, signed while signed in: it keeps the player at their tables
        (the server shows a player with no signed stream open as away)."""
        client = self.client
        assert client is not None
        token = object()
        self._token = token
        self._stream = EventStream(
            client.lobby_events_url,
            lambda event: emit_from_thread(self._lobby_event, token, event),
            lambda status, detail: emit_from_thread(self._lobby_status, token, status, detail),
            headers=client.stream_headers,
            refused=client.stream_refused,
            last_event_id=last_event_id,
            read_timeout=self.read_timeout,
            name="lobby",
        )
        self._stream.start()

    def _on_lobby_event(self, token: object, event: ServerEvent) -> None:
        if token is not self._token:
            return
        if event.id is not None:
            self._lobby_seen = event.id  # (a stream opened again resumes after this one)
        before = self._known(event)
        change = self.lobby.apply(event)
        if change is None:
            return
        self._show_games()
        self.lobby_changed.emit(change.kind)
        if change.kind == "snapshot":
            self._go_online()
            self.lobby_loaded.emit()
            self._lobby_listed()
            if self.going_back.state is GoingBack.WHEN_LISTED:
                self._back_to_game()
        self._tell(change, before)

    def _known(self, event: ServerEvent) -> GameSummary | None:
        try:
            game = event.json().get("game")
        except (ValueError, AttributeError):
            return None
        return self.lobby.games.get(str(game.get("id"))) if isinstance(game, dict) else None

    def _on_lobby_status(self, token: object, status: str, detail: str) -> None:
        if token is not self._token:
            return
        if status == "reconnecting":
            if self.lobby.loaded:
                self._go_offline("Lobby: the connection to the server was lost; reconnecting…")
            else:  # never connected: nothing was lost
                self._go_offline(self._unreachable())
            self._revive_built_in()
        elif status == "misanswered":  # (not "cannot be reached": it answers, but so)
            self._go_offline(f"{self._where()} answers, but {detail}. Trying again…")
        elif status == "connected":
            if self.lobby.loaded:  # back: the stream resumes (a snapshot may not come)
                self._go_online()
        elif status == "failed":
            self._go_offline(f"The lobby cannot be followed: {detail}.")

    def _where(self) -> str:
        client = self.client
        return "The built-in server" if self.built_in or client is None else \
            f"The server {client.host}"

    def _unreachable(self) -> str:
        """What the lobby's line says while a server never connected to is not answering."""
        return f"{self._where()} cannot be reached; trying again…"

    def _go_offline(self, why: str) -> None:
        """The lobby is not live: creating, joining and signing in wait for it."""
        self.connection.fire(ConnectionEvent.LOST)
        self.panel.set_connected(False)
        self._down = why
        if self.panel.message.text() != why:  # (said once, not on every retry)
            self.panel.show_message(why, error=True, keep=True)

    def _go_online(self) -> None:
        """The lobby is live: play is on, and what could not be looked up while it was not
        (the computer levels, a kept sign-in) is looked up again."""
        was, self._down = self._down, ""
        if self._online or not self.connection.fire(ConnectionEvent.LISTED):
            return
        self.panel.set_connected(True)
        if was and self.panel.message.text() == was:
            again = " again" if was != self._unreachable() else ""
            self.panel.show_message(f"Connected to the server{again}.")
        client = self.client
        if client is not None and self._after_lobby_done:
            if self.levels_lookup.state is Lookup.MISSED:
                self._load_levels(client)
            if self.restore_lookup.state is Lookup.MISSED:
                self._restore_sign_in(client, self.key)

    def _tell(self, change: LobbyChange, before: GameSummary | None) -> None:
        """Say what matters to this player: their opponent came, their turn came."""
        game, me = change.game, self.account.id if self.account else None
        seat = game.seat_of(me) if game is not None else None
        if game is None or seat is None:
            return
        if change.kind == "seat_taken" and before is not None:
            taken = before.open_seat()
            if taken is not None and taken != seat:
                turn = ": it is your turn" if game.turn == seat else ""
                self._say(f"{game.names[taken]} joined your game “{game.name}”{turn}.",
                          "Your opponent is here")
        elif change.kind == "turn_passed" and game.turn == seat and not self._on_table(game.id):
            self._say(f"It is your turn in “{game.name}”.", "Your turn")

    # ----- the end -----
    def close(self) -> None:
        """Stop every stream and operation; let go of the built-in server."""
        self.connection.fire(ConnectionEvent.CLOSE)
        self._check_timer.stop()
        self.window.removeEventFilter(self)
        if self.signin_dialog is not None:
            self.signin_dialog.reject()  # (its worker ends by itself: nothing waits for it)
            self.signin_dialog.dispose()
        self._disconnect()
        self.ops.close()
        if self.local is not None:
            self.local.close()
