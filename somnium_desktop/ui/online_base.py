"""What the parts of online play share: its state, its signals and a few helpers."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QWidget

from ..client.errors import LobbyError
from ..client.lifecycles import (
    CONNECTION,
    GOING_BACK,
    LOOKUP,
    SIGN_IN,
    STORE_ACCESS,
    Connection,
    GoingBack,
    Lookup,
    Machine,
    SignIn,
    StoreAccess,
)
from ..client.lobby_client import LobbyClient
from ..client.lobby_list import LobbyList
from ..client.lobby_records import Account, GameSummary
from ..client.online import OnlineGame
from ..client.signin_changes import last_change
from ..client.sse import READ_TIMEOUT, EventStream
from ..client.tasks import Generation, Operations
from .lobby_panel import LobbyPanel
from .online_options import OnlineOptions, TokenStores
from .settings import Settings
from .token_stores import SystemTokenStores

if TYPE_CHECKING:
    from .signin_dialog import SigninDialog


BUILT_IN = "built-in, on this computer"
AFTER_LOBBY_AT_LATEST_MS = 1500
SIGN_IN_CHECK_MS = 5000  # how often the marker of a changed shared sign-in is looked at
LOOKUP_AGAIN_MS = 1000  # a lookup that failed just as the lobby came back is tried once more
START_AGAIN_MS = 2000  # a built-in server that did not start is started again after this...
START_AGAIN_LAST_MS = 30_000  # ...doubled after each failed start, up to this


class OnlineBase(QObject):
    """The state of online play; the parts (sign-in, games, the server and lobby) act on it."""

    game_opened = Signal(object)  # an OnlineGame, not started yet
    replay_opened = Signal(object)  # a Replay of a finished game, fetched from the server
    attention = Signal(str, str)  # title, text: worth a desktop notification in the background
    lobby_loaded = Signal()  # the lobby has listed the server's games (a snapshot came)
    lobby_changed = Signal(str)  # one lobby event changed the list: its kind ("snapshot", ...)
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
        self._replays = Generation(within=self._server)  # and with every replay asked for
        self.connection = Machine("connection", CONNECTION, Connection.NONE)
        self.signing = Machine("sign-in", SIGN_IN, SignIn.SIGNED_OUT)
        self._after_lobby: list[Callable[[], None]] = []
        self.store_access = Machine("sign-in store", STORE_ACCESS, StoreAccess.IDLE)
        self._down = ""  # what the message line says of the connection while it is down
        self._start_wait_ms = START_AGAIN_MS  # the wait after the built-in server's next failure
        self.levels_lookup = Machine("computer levels", LOOKUP, Lookup.IDLE)
        self.restore_lookup = Machine("kept sign-in", LOOKUP, Lookup.IDLE)
        # May a game be put on the table by itself (nothing is on it)? The window says.
        self.table_free: Callable[[], bool] = lambda: self.current is None or self.current.closed
        # Runs what opens a game (the window first asks to leave a game in play, saying why:
        # "to open game 7Q4K…"); nothing happens if the player says No.
        self.leave_table: Callable[[str, Callable[[], None]], None] = \
            lambda _why, then: then()
        self.going_back = Machine("back to a game", GOING_BACK, GoingBack.NO)
        self._then_restored: list[Callable[[], None]] = []  # asked for while restoring
        self._lobby_seen: str | None = None  # the id of the last lobby event applied
        self._seen_change = last_change()  # the shared sign-in's marker, when last looked at
        self._wire(panel, window)

    @property
    def built_in(self) -> bool:
        return self.server_setting == ""

    @property
    def _after_lobby_done(self) -> bool:
        """What waits for the lobby to be listed (the levels, the kept sign-in) has started."""
        return not self._after_lobby

    @property
    def _closed(self) -> bool:
        return self.connection.state is Connection.CLOSED

    @property
    def _online(self) -> bool:
        """The lobby stream is up and has listed the games: play is on."""
        return self.connection.state is Connection.ONLINE

    def _show_games(self) -> None:
        self.panel.set_games(self.lobby.newest_first(), self.account.id if self.account else None)

    def _waiting(self) -> bool:
        """True (and says why) if the lobby is not live, so online play has to wait."""
        if self._online:
            return False
        self.panel.show_message(self._down or "Connecting to the server: a moment…", error=True,
                                keep=True)
        return True

    def _say(self, text: str, title: str) -> None:
        self.panel.show_message(text)
        self.attention.emit(title, text)

    def _show_error(self, error: LobbyError) -> None:
        self.panel.show_message(str(error), error=True)

    def _lookup_again(self, lookup: Callable[[], None]) -> None:
        here = self._server.stamp()
        QTimer.singleShot(LOOKUP_AGAIN_MS, self,
                          lambda: lookup() if here.current and not self._closed else None)

    def _on_table(self, game_id: str) -> bool:
        game = self.current
        return game is not None and not game.closed and game.game_id == game_id

    # ----- what each part does for the others: declared for the type checker only, since
    # the parts that define them (SignInPart, GamesPart, OnlinePlay) come first in OnlinePlay
    if TYPE_CHECKING:
        def _wire(self, panel: LobbyPanel, window: QWidget) -> None: ...

        def _set_account(self, account: Account | None) -> None: ...

        def sign_in(self, then: Callable[[], None] | None = None, why: str = "") -> None: ...

        def _signed_in_then(self, action: Callable[[], None], why: str) -> None: ...

        def _lost_sign_in(self) -> None: ...

        def _restore_sign_in(
            self, client: LobbyClient, key: str, then: Callable[[], None] | None = None,
            again: bool = False,
        ) -> None: ...

        def _open(self, game_id: str, first: GameSummary | None) -> None: ...

        def _back_to_game(self) -> None: ...

        def _open_lobby_stream(self, last_event_id: str | None = None) -> None: ...
