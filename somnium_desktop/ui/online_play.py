"""Online play behind the lobby panel: the server, the sign-in, the live lobby, opening games.

Built once the window is up (its imports, requests and keyring among them, would slow the
first paint). Network work runs through an Operations runner; nothing here blocks the UI.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import requests
from PySide6.QtCore import QEvent, QObject, QTimer, Signal
from PySide6.QtWidgets import QWidget

from ..client.errors import ActionRefused, LobbyError, ServerUnreachable, SignedOut
from ..client.lifecycles import (
    CONNECTION,
    SIGN_IN,
    Connection,
    ConnectionEvent,
    Machine,
    SignIn,
    SignInEvent,
)
from ..client.lobby_client import Account, GameDetail, GameSummary, LobbyClient
from ..client.lobby_list import LobbyChange, LobbyList
from ..client.local_server import LocalServer
from ..client.online import OnlineGame
from ..client.server_address import address_problem
from ..client.signin_changes import last_change
from ..client.sse import READ_TIMEOUT, EventStream, ServerEvent
from ..client.tasks import Generation, Operations, emit_from_thread
from .lobby_panel import LobbyPanel
from .online_options import OnlineOptions, TokenStores, begin_built_in
from .settings import Settings

if TYPE_CHECKING:
    from ..client.auth_session import AuthSession
    from ..client.credentials import Stored, TokenStore
    from ..client.signin import TokenSet
    from ..game.actions import Action
    from .signin_dialog import SigninDialog

BUILT_IN = "built-in, on this computer"
AFTER_LOBBY_AT_LATEST_MS = 1500
SIGN_IN_CHECK_MS = 5000  # how often the marker of a changed shared sign-in is looked at
LOOKUP_AGAIN_MS = 1000  # a lookup that failed just as the lobby came back is tried once more


def _who(client: LobbyClient, auth: AuthSession) -> Account:
    """On a worker: whose sign-in this is; noted beside it for the other windows."""
    account = client.me()
    auth.claim(account.id)
    return account


class SystemTokenStores:
    """The OS keyring when it is a secure one; otherwise the player's choice, asked once."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._this_session: dict[str, TokenStore] = {}

    def existing(self, key: str) -> TokenStore | None:
        from ..client.credentials import NeedsChoice, Persistence, store_for

        try:
            return store_for(key)
        except NeedsChoice:
            if self.settings.plaintext_tokens:
                return store_for(key, choice=Persistence.PLAINTEXT_FILE)
            return self._this_session.get(key)

    def ask(self, key: str, parent: QWidget) -> TokenStore | None:
        from ..client.credentials import MemoryStore, PlaintextFileStore
        from .signin_dialog import ask_for_store

        store = self.existing(key) or ask_for_store(key, parent)
        if isinstance(store, PlaintextFileStore):
            self.settings.plaintext_tokens = True
        elif isinstance(store, MemoryStore):
            self._this_session[key] = store
        return store


class OnlinePlay(QObject):
    """Connects the lobby panel to a lobby server and opens its games as table sources."""

    game_opened = Signal(object)  # an OnlineGame, not started yet
    attention = Signal(str, str)  # title, text: worth a desktop notification in the background
    lobby_loaded = Signal()  # the lobby has listed the server's games (a snapshot came)
    left_server = Signal(object, str)  # the game on the table from it (or None), its address
    _lobby_event = Signal(object, object)  # stream token, ServerEvent
    _lobby_status = Signal(object, str, str)  # stream token, status, detail

    def __init__(
        self,
        settings: Settings,
        panel: LobbyPanel,
        window: QWidget,
        options: OnlineOptions | None = None,
    ) -> None:
        super().__init__(window)
        options = options or OnlineOptions()
        self.settings = settings
        self.panel = panel
        self.window = window
        self.stores: TokenStores = options.token_stores or SystemTokenStores(settings)
        self.open_browser = options.open_browser
        self.local = options.local_server
        self.read_timeout = options.read_timeout or READ_TIMEOUT
        self.ops = Operations(self)
        self.lobby = LobbyList()
        self.client: LobbyClient | None = None
        self.account: Account | None = None
        self.current: OnlineGame | None = None
        self.server_setting: str | None = None
        self.key = ""
        self.signin_dialog: SigninDialog | None = None
        self._stream: EventStream | None = None
        self._token: object | None = None
        self._server = Generation()  # moves on with every server connected to
        self._signin = Generation(within=self._server)  # and with every sign-in or sign-out
        self.connection = Machine("connection", CONNECTION, Connection.NONE)
        self.signing = Machine("sign-in", SIGN_IN, SignIn.SIGNED_OUT)
        self._reviving = False
        self._after_lobby: list[Callable[[], None]] = []
        self._checking = False
        self._writing = False  # (a sign-in's tokens are being put in the store)
        self._check_again = False
        self._after_lobby_done = False
        self._creating = False  # a game is being created: another Create waits for it
        self._down = ""  # what the message line says of the connection while it is down
        self._levels_missed = False  # looked up while the server could not be reached
        self._restore_missed = False
        # May a game be put on the table by itself (nothing is on it)? The window says.
        self.table_free: Callable[[], bool] = lambda: self.current is None or self.current.closed
        self._back_when_listed = False
        self._may_go_back = False  # the kept sign-in being restored may reopen a game (start)
        self._then_restored: list[Callable[[], None]] = []  # asked for while restoring
        self._lobby_seen: str | None = None  # the id of the last lobby event applied
        self._check_timer = QTimer(self)
        self._check_timer.setInterval(SIGN_IN_CHECK_MS)
        self._check_timer.timeout.connect(self._check_if_changed)
        self._seen_change = last_change()
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

    @property
    def built_in(self) -> bool:
        return self.server_setting == ""

    @property
    def _closed(self) -> bool:
        return self.connection.state is Connection.CLOSED

    @property
    def _online(self) -> bool:
        """The lobby stream is up and has listed the games: play is on."""
        return self.connection.state is Connection.ONLINE

    def _use_server(self, base: str, key: str) -> None:
        if not self.connection.fire(ConnectionEvent.STARTED):  # (the built-in one started)
            self.connection.fire(ConnectionEvent.SET_SERVER)
        self.key = key
        self.panel.set_server(BUILT_IN if self.built_in else base)
        self.panel.show_message("")
        http = requests.Session()
        self.client = client = LobbyClient(base, None, http)
        self._levels_missed = self._restore_missed = False
        self._open_lobby_stream()  # online play is on once it has listed the games
        # The rest once the lobby is listed (or a moment later if it cannot be): the keyring
        # and its imports take a few hundred milliseconds of CPU that the lobby comes first for.
        self._after_lobby_done = False
        self._may_go_back = True
        self._after_lobby = [lambda: self._load_levels(client),
                             lambda: self._restore_sign_in(client, key)]
        here = self._server.stamp()
        QTimer.singleShot(AFTER_LOBBY_AT_LATEST_MS, self,
                          lambda: self._lobby_listed() if here.current else None)

    def _lobby_listed(self) -> None:
        self._after_lobby_done = True
        waiting, self._after_lobby = self._after_lobby, []
        for then in waiting:
            then()

    def _load_levels(self, client: LobbyClient, again: bool = False) -> None:
        self._levels_missed = False

        def failed(error: LobbyError) -> None:
            if isinstance(error, ServerUnreachable):
                self._levels_missed = True  # (looked up again once the lobby is listed)
                if not self._online:
                    return  # (the lobby's line says the server cannot be reached)
                if not again:  # it came back while this was on its way
                    self._lookup_again(lambda: self._load_levels(client, again=True))
                    return
            self._show_error(error)

        self.ops.run(client.levels, self.panel.set_levels, failed,
                     label="Loading the computer levels…", owner=self._server.stamp())

    def _lookup_again(self, lookup: Callable[[], None]) -> None:
        here = self._server.stamp()
        QTimer.singleShot(LOOKUP_AGAIN_MS, self,
                          lambda: lookup() if here.current and not self._closed else None)

    def _restore_sign_in(
        self, client: LobbyClient, key: str, then: Callable[[], None] | None = None,
        again: bool = False,
    ) -> None:
        """A sign-in kept from before (in the keyring, say), and who it is."""
        if self.signing.state is SignIn.RESTORING:  # (what was asked waits for the one going)
            if then is not None:
                self._then_restored.append(then)
            return
        self.signing.fire(SignInEvent.RESTORE)
        stores, signin = self.stores, self._signin.stamp()
        base, http = client.base_url, client.http

        def restore() -> tuple[AuthSession | None, Account | None]:
            """On a worker: a sign-in kept from before, and who it is."""
            from ..client.auth_session import AuthSession

            store = stores.existing(key)
            if store is None or store.load() is None:
                return None, None
            auth = AuthSession(base, store, http)
            try:
                return auth, _who(LobbyClient(base, auth, http), auth)
            except SignedOut:
                return None, None

        def restored(found: tuple[AuthSession | None, Account | None]) -> None:
            self.signing.fire(SignInEvent.NONE_KEPT if found[1] is None else
                              SignInEvent.RESTORED)
            waiting = [then] if then is not None else []
            waiting += self._then_restored
            self._then_restored = []
            back, self._may_go_back = self._may_go_back, False
            if signin.current and client.auth is None and not self.account:
                client.auth, account = found
                if client.auth is not None:
                    self._signin.move_on()
                self._set_account(account)
                if account is not None and waiting:
                    self.panel.show_message(f"Signed in as {account.display_name} "
                                            "(the sign-in of your other Somnium window).")
                elif account is not None and back:
                    self._back_to_game()
            if waiting and self.account is not None:
                for asked in waiting:
                    asked()
            elif waiting:
                self.panel.show_message("Not signed in: sign in, then try again.", error=True)

        def failed(error: LobbyError) -> None:
            self.signing.fire(SignInEvent.NONE_KEPT)
            if isinstance(error, ServerUnreachable):  # (what was asked waits for the retry)
                self._restore_missed = True  # (tried again once the lobby is listed)
                if not self._online:  # (the lobby's line says the server cannot be reached)
                    if then is not None:
                        self._then_restored.append(then)
                    return
                if not again:  # it came back while this was on its way
                    self._lookup_again(
                        lambda: self._restore_sign_in(client, key, then, again=True))
                    return
            self._then_restored = []
            self._show_error(error)

        self._restore_missed = False
        self.ops.run(restore, restored, failed, label="Signing in…", owner=self._server.stamp())

    def _disconnect(self) -> None:
        if self._stream is not None:
            self._stream.close()
        self._stream = self._token = None
        self.client = None
        self.lobby = LobbyList()
        self._set_account(None)
        self.signing.fire(SignInEvent.SIGNED_OUT)
        self.panel.set_games([], None)
        self._down, self._creating = "", False
        self._then_restored = []
        self._lobby_seen = None
        self.panel.set_connected(False)

    def _server_failed(self, error: LobbyError) -> None:
        self.connection.fire(ConnectionEvent.START_FAILED)
        self.panel.set_server(f"{BUILT_IN} (not running)" if self.built_in else
                              str(self.server_setting))
        self._down = str(error)  # (what Create and Join say while they wait)
        self._show_error(error)

    def _revive_built_in(self) -> None:
        """The built-in server went away (the app that started it quit): find or start one."""
        if self._reviving or not self.built_in or self.local is None:
            return
        self._reviving = True

        def found(base: str) -> None:
            client = self.client
            if client is not None:
                client.base_url = base
                if client.auth is not None:
                    client.auth.server_url = base

        def done() -> None:
            self._reviving = False

        self.ops.run(self.local.ensure, found, self._show_error,
                     label="Starting the built-in server…", owner=self._server.stamp(),
                     on_done=done)

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
        if change.kind == "snapshot":
            self._go_online()
            self.lobby_loaded.emit()
            self._lobby_listed()
            if self._back_when_listed:
                self._back_to_game()
        self._tell(change, before)

    def _known(self, event: ServerEvent) -> GameSummary | None:
        try:
            game = event.json().get("game")
        except (ValueError, AttributeError):
            return None
        return self.lobby.games.get(str(game.get("id"))) if isinstance(game, dict) else None

    def _show_games(self) -> None:
        self.panel.set_games(self.lobby.newest_first(), self.account.id if self.account else None)

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
            if self._levels_missed:
                self._load_levels(client)
            if self._restore_missed:
                self._restore_sign_in(client, self.key)

    def _waiting(self) -> bool:
        """True (and says why) if the lobby is not live, so online play has to wait."""
        if self._online:
            return False
        self.panel.show_message(self._down or "Connecting to the server: a moment…", error=True,
                                keep=True)
        return True

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

    def _say(self, text: str, title: str) -> None:
        self.panel.show_message(text)
        self.attention.emit(title, text)

    def _back_to_game(self) -> None:
        """Signed in by a kept sign-in (at start-up, or back on this server): put a game this
        player is still playing back on the table, if nothing else is on it. Their turn first,
        then the newest."""
        account = self.account
        if account is None or self._closed:
            return
        if not self.lobby.loaded:
            self._back_when_listed = True
            return
        self._back_when_listed = False
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

    def _on_table(self, game_id: str) -> bool:
        game = self.current
        return game is not None and not game.closed and game.game_id == game_id

    # ----- signing in -----
    def _set_account(self, account: Account | None) -> None:
        before, self.account = self.account, account
        self.panel.set_account(account.display_name if account else None)
        self._show_games()
        if (before.id if before else None) == (account.id if account else None):
            return
        stream = self._stream
        if stream is not None and self.client is not None:  # signed now as someone else
            stream.close()
            self._open_lobby_stream(self._lobby_seen)
        current = self.current
        if current is None or current.closed:
            return
        listed = self.lobby.games.get(current.game_id)
        if account is not None and current.my_seat is None and listed is not None \
                and listed.seat_of(account.id) is not None:
            self._open(current.game_id, listed)  # our own game, opened before: play it
        else:
            current.sign_again()  # (signed out: no longer at the table by this stream)

    def sign_in(self, then: Callable[[], None] | None = None, why: str = "") -> None:
        """Sign in through the browser; then carry on with `then` (what the player asked for)."""
        client = self.client
        if client is None:
            self.panel.show_message("Not connected to a server yet.", error=True)
            return
        if self._waiting():
            return
        if self.signin_dialog is not None and self.signin_dialog.isVisible():
            self.signin_dialog.raise_()
            return
        auth, stores, key = client.auth, self.stores, self.key

        def look() -> tuple[bool, TokenStore | None]:
            """On a worker (a keyring may take its time): is a sign-in kept already (another
            window's), and the store a new one goes in, if known without asking."""
            if auth is not None:
                return False, auth.store
            kept = stores.existing(key)
            return kept is not None and kept.load() is not None, kept

        def seen(found: tuple[bool, TokenStore | None]) -> None:
            kept, store = found
            if kept:  # signed in meanwhile in another window: that sign-in it is
                self._restore_sign_in(client, key, then)
            else:
                self._sign_in_with(client, store, then, why)

        self.ops.run(look, seen, self._show_error, label="Signing in…",
                     owner=self._server.stamp())

    def _sign_in_with(self, client: LobbyClient, store: TokenStore | None,
                      then: Callable[[], None] | None, why: str) -> None:
        """Open the sign-in dialog; the tokens it gets go to `store` (asked for if None)."""
        if self.signin_dialog is not None and self.signin_dialog.isVisible():
            self.signin_dialog.raise_()  # (a second click while the first looked)
            return
        store = store or self.stores.ask(self.key, self.window)
        if store is None:
            self.panel.show_message(f"Not signed in{why}.")
            return
        from .signin_dialog import SigninDialog

        if self.open_browser is not None:
            dialog = SigninDialog(client.base_url, self.window, open_browser=self.open_browser)
        else:
            dialog = SigninDialog(client.base_url, self.window)
        self._forget_dialog()
        self.signin_dialog = dialog
        self.signing.fire(SignInEvent.OPEN_DIALOG)
        dialog.signed_in.connect(lambda tokens: self._signed_in(client, store, tokens, then))
        dialog.rejected.connect(lambda: self._cancelled(why))
        dialog.open()

    def _sign_in_ended(self) -> None:
        """Signed out (here, in another window, or refused): what was on its way for the
        sign-in is dropped when it answers."""
        self._signin.move_on()
        self.signing.fire(SignInEvent.SIGNED_OUT)

    def _cancelled(self, why: str) -> None:
        self.signing.fire(SignInEvent.CANCELLED)
        self.panel.show_message(f"Sign-in cancelled{why}.")

    def _forget_dialog(self) -> None:
        old, self.signin_dialog = self.signin_dialog, None
        if old is not None:
            old.dispose()  # (once its worker is done: nothing here waits for it)

    def _signed_in(
        self,
        client: LobbyClient,
        store: TokenStore,
        tokens: TokenSet,
        then: Callable[[], None] | None,
    ) -> None:
        if client is not self.client:
            return
        self._signin.move_on()  # (what was on its way for an earlier sign-in is dropped)
        from ..client.auth_session import AuthSession

        auth = client.auth if client.auth is not None else AuthSession(
            client.base_url, store, client.http
        )
        client.auth = auth
        self.signing.fire(SignInEvent.TOKENS)
        owner = self._signin.stamp()

        def known(account: Account) -> None:
            self.signing.fire(SignInEvent.CONFIRMED)
            self._set_account(account)
            self.panel.show_message(f"Signed in as {account.display_name}.")
            if then is not None:
                then()

        def failed(error: LobbyError) -> None:
            self.signing.fire(SignInEvent.FAILED)
            self._show_error(error)

        def kept(_: None) -> None:
            # Dropped if this sign-in ends before /me answers (signed out here or elsewhere).
            self.ops.run(lambda: _who(client, auth), known, failed, label="Signing in…",
                         owner=owner)

        # The tokens go into the store (the keyring) on a worker; a look at the store waits
        # for that (it would find it empty and sign out).
        self._writing = True
        self.ops.run(lambda: auth.adopt(tokens), kept, failed, label="Signing in…",
                     owner=owner, on_done=self._written)

    def _written(self) -> None:
        self._writing = False
        self._look_again_if_asked()

    def sign_out(self) -> None:
        client = self.client
        if client is None or client.auth is None:
            return
        auth, client.auth = client.auth, None
        self._sign_in_ended()
        self._set_account(None)
        self.ops.run(auth.sign_out, lambda _: self.panel.show_message("Signed out."),
                     self._show_error, label="Signing out…")

    # ----- the sign-in shared with the other windows -----
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.WindowActivate:
            self.check_sign_in()
        return False

    def _check_if_changed(self) -> None:
        """On the timer: look at the sign-in only if some window wrote or cleared one since the
        last look (a marker file; the keyring itself is not asked on a timer)."""
        change = last_change()
        if change != self._seen_change:
            self._seen_change = change
            self.check_sign_in()

    def check_sign_in(self) -> None:
        """Follow the sign-in kept for this server, which every Somnium window of this user
        shares: signed out in another window signs out here; signed in there (as anyone)
        signs in here as the same account."""
        client = self.client
        if client is None or self._closed:
            return
        if self._checking or self._writing:  # one at a time; another once this one is done
            self._check_again = True
            return
        auth, stores, key = client.auth, self.stores, self.key
        if auth is None and self.account is None and not self._after_lobby_done:
            return  # (the kept sign-in is being restored)

        def look() -> Stored | None:
            """On a worker: what the store holds now."""
            from ..client.credentials import Stored

            store = auth.store if auth is not None else stores.existing(key)
            return Stored.read(store) if store is not None else None

        def seen(stored: Stored | None) -> None:
            if client.auth is not auth:
                return
            if auth is not None and stored is None:
                client.auth = None
                self._sign_in_ended()
                self._set_account(None)
                self.panel.show_message("Signed out (in another Somnium window).")
            elif auth is not None and stored is not None and stored.user_id is not None \
                    and self.account is not None and stored.user_id != self.account.id:
                auth.forget_access()  # its access token is the old account's
                self.ops.run(lambda: _who(client, auth), self._now_signed_in_as,
                             self._show_error, label="Signing in…",
                             owner=self._signin.stamp())
            elif auth is None and stored is not None and self.account is None:
                self._restore_sign_in(client, key)

        self._checking = True
        self.ops.run(look, seen, lambda error: None, quiet=True, owner=self._server.stamp(),
                     on_done=self._looked)

    def _looked(self) -> None:
        self._checking = False
        self._look_again_if_asked()

    def _look_again_if_asked(self) -> None:
        if self._check_again:
            self._check_again = False
            QTimer.singleShot(0, self, self.check_sign_in)  # (after this look is acted on)

    def _now_signed_in_as(self, account: Account) -> None:
        self._set_account(account)
        self.panel.show_message(
            f"Signed in as {account.display_name} (signed in in another Somnium window).")

    def _signed_in_then(self, action: Callable[[], None], why: str) -> None:
        """Run `action` now if signed in, else after signing in."""
        if self.account is not None and self.client is not None and self.client.auth:
            action()
        else:
            self.sign_in(then=action, why=why)

    # ----- games -----
    def create(self, name: str, level: str | None) -> None:
        if self._waiting():
            return
        self._signed_in_then(lambda: self._create(name, level), ": the game was not created")

    def _create(self, name: str, level: str | None) -> None:
        client, account = self.client, self.account
        if client is None or account is None:
            return
        if self._creating:
            return  # (a double click, or Enter pressed twice: one table)
        title = name or f"{account.display_name}'s table"
        self._creating = True

        def created(detail: GameDetail) -> None:
            self._creating = False
            if self.panel.name_field.text().strip() == name:
                self.panel.name_field.clear()  # a second Create must not repeat this table
            self._open_detail(detail)

        def failed(error: LobbyError) -> None:
            self._creating = False
            self._failed(error, lambda: self._create(name, level))

        self.ops.run(lambda: client.create(title, level), created, failed,
                     label="Creating the game…")

    def join(self, game_id: str) -> None:
        if self._waiting():
            return
        self._signed_in_then(lambda: self._join(game_id), ": the game was not joined")

    def _join(self, game_id: str) -> None:
        client = self.client
        if client is None:
            return

        def refused(error: LobbyError) -> None:
            if isinstance(error, ActionRefused) and error.code == "already_seated":
                self.panel.show_message("You already play in that game: it is on your table.")
                current = self.current
                if current is None or current.game_id != game_id or current.closed:
                    self.watch(game_id)  # our own table: play it
            elif isinstance(error, ActionRefused) and error.code in ("game_started",
                                                                      "seat_taken", "host_away"):
                self.panel.show_message(f"{error} Watching it instead.")
                self.watch(game_id)
            else:
                self._failed(error, lambda: self._join(game_id))

        def joined(detail: GameDetail) -> None:
            if self.panel.game_id_field.text().strip().upper() == game_id:
                self.panel.game_id_field.clear()  # (done with; the table shows the id)
            self._open_detail(detail)

        self.ops.run(lambda: client.join(game_id), joined, refused,
                     label="Joining the game…")

    def watch(self, game_id: str) -> None:
        """Open a game: your seat if you sit at it, else watching (no sign-in needed)."""
        if self.client is None:
            return
        self._open(game_id.strip().upper(), self.lobby.games.get(game_id.strip().upper()))

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

    def _move_signed_out(self, game: OnlineGame, action: Action) -> None:
        """A move refused for want of a sign-in: sign in, then play it (if it still may be)."""
        self._lost_sign_in()

        def again() -> None:
            view = game.view
            if self.current is game and not game.closed and view is not None \
                    and view.turn == game.my_seat and action in view.legal and not game.pending:
                game.act(action)

        self.sign_in(then=again, why=": the move was not played")

    def _lost_sign_in(self) -> None:
        client = self.client
        if client is not None:
            client.auth = None
        self._sign_in_ended()
        self._set_account(None)
        self.panel.show_message("You are signed out: sign in again to play on.", error=True)

    def _failed(self, error: LobbyError, retry: Callable[[], None]) -> None:
        if isinstance(error, SignedOut):
            self._lost_sign_in()
            self.sign_in(then=retry)
        else:
            self._show_error(error)

    def _show_error(self, error: LobbyError) -> None:
        self.panel.show_message(str(error), error=True)

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
