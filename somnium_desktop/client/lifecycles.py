"""The app's lifecycles as states and transitions: online play's and the card table's.

Online play: the connection, the sign-in and its store, the lookups made once the lobby is
listed, putting a game back on the table; each online game: its stream's link and sync, and
what the change being applied brought. The card table: what it shows (its phase).

Each is a plain table of (state, event) -> state, so that every transition can be tested by
itself; an event that the table does not list for the current state changes nothing (a late
or doubled event). The UI reads the state instead of keeping flags of its own.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable, Mapping
from typing import Generic, TypeVar

S = TypeVar("S", bound=enum.Enum)
E = TypeVar("E", bound=enum.Enum)
log = logging.getLogger("somnium_desktop.lifecycles")


class Machine(Generic[S, E]):
    """A state and the table of its transitions."""

    def __init__(self, name: str, table: Mapping[tuple[S, E], S], start: S,
                 on_change: Callable[[S, S], None] | None = None) -> None:
        self.name = name
        self.table = table
        self.state = start
        self.on_change = on_change

    def fire(self, event: E) -> bool:
        """Take the transition for `event`; False (nothing changes) when there is none."""
        after = self.table.get((self.state, event))
        if after is None:
            log.debug("%s: %s ignored in %s", self.name, event.name, self.state.name)
            return False
        before, self.state = self.state, after
        if before is not after and self.on_change is not None:
            self.on_change(before, after)
        return True

    def allows(self, event: E) -> bool:
        return (self.state, event) in self.table


class Connection(enum.Enum):
    """Where the app stands with its lobby server."""

    NONE = "no server"
    BAD_ADDRESS = "an address that is not used"
    STARTING = "the built-in server is starting"
    NOT_STARTED = "the built-in server did not start: it is started again after a delay"
    CONNECTING = "the lobby stream is opening"
    ONLINE = "the lobby is listed and live"
    DOWN = "the lobby stream is not live"
    REVIVING = "down, and the built-in server is being found or started again"
    CLOSED = "online play has ended"


class ConnectionEvent(enum.Enum):
    SET_SERVER = "a server is set"
    REFUSE_ADDRESS = "the address set is refused"
    START_BUILT_IN = "the built-in server is asked for"
    STARTED = "a server answers at a base address"
    START_FAILED = "the built-in server did not start"
    REVIVE = "the built-in server went away: find or start it again"
    LISTED = "the lobby stream listed the games, or came back"
    LOST = "the lobby stream is lost, misanswered or failed"
    CLOSE = "the app is closing"


C, CE = Connection, ConnectionEvent
CONNECTION: dict[tuple[Connection, ConnectionEvent], Connection] = {
    **{(state, CE.SET_SERVER): C.CONNECTING for state in C if state is not C.CLOSED},
    **{(state, CE.REFUSE_ADDRESS): C.BAD_ADDRESS for state in C if state is not C.CLOSED},
    **{(state, CE.START_BUILT_IN): C.STARTING for state in C if state is not C.CLOSED},
    **{(state, CE.CLOSE): C.CLOSED for state in C},
    (C.STARTING, CE.STARTED): C.CONNECTING,
    (C.STARTING, CE.START_FAILED): C.NOT_STARTED,  # (START_BUILT_IN again, after a delay)
    (C.CONNECTING, CE.LISTED): C.ONLINE,
    (C.CONNECTING, CE.LOST): C.DOWN,
    (C.DOWN, CE.LISTED): C.ONLINE,
    (C.DOWN, CE.LOST): C.DOWN,
    (C.ONLINE, CE.LOST): C.DOWN,
    (C.ONLINE, CE.LISTED): C.ONLINE,
    (C.DOWN, CE.REVIVE): C.REVIVING,
    (C.REVIVING, CE.STARTED): C.DOWN,  # (the stream comes back to it by itself)
    (C.REVIVING, CE.START_FAILED): C.DOWN,
    (C.REVIVING, CE.LOST): C.REVIVING,
    (C.REVIVING, CE.LISTED): C.ONLINE,
}


class SignIn(enum.Enum):
    """Where this window stands with the sign-in kept for the server."""

    SIGNED_OUT = "no sign-in"
    RESTORING = "a kept sign-in is being read and confirmed"
    IN_BROWSER = "the sign-in dialog is open"
    CONFIRMING = "tokens came; /me is asked whose they are"
    SIGNED_IN = "signed in, the account known"


class SignInEvent(enum.Enum):
    RESTORE = "a kept sign-in is looked for"
    RESTORED = "the kept sign-in and its account came"
    NONE_KEPT = "there was no kept sign-in (or it failed)"
    OPEN_DIALOG = "the player signs in through the browser"
    TOKENS = "the browser sign-in gave tokens"
    CANCELLED = "the dialog was closed without a sign-in"
    CONFIRMED = "/me said whose sign-in it is"
    FAILED = "confirming the sign-in failed"
    SIGNED_OUT = "signed out here, elsewhere, or refused by the server"


SI, IE = SignIn, SignInEvent
SIGN_IN: dict[tuple[SignIn, SignInEvent], SignIn] = {
    (SI.SIGNED_OUT, IE.RESTORE): SI.RESTORING,
    (SI.RESTORING, IE.RESTORED): SI.SIGNED_IN,
    (SI.RESTORING, IE.NONE_KEPT): SI.SIGNED_OUT,
    (SI.SIGNED_OUT, IE.OPEN_DIALOG): SI.IN_BROWSER,
    (SI.RESTORING, IE.OPEN_DIALOG): SI.IN_BROWSER,  # (the restore's answer is then dropped)
    (SI.SIGNED_IN, IE.OPEN_DIALOG): SI.IN_BROWSER,  # (the server refused it: sign in again)
    (SI.IN_BROWSER, IE.CANCELLED): SI.SIGNED_OUT,
    (SI.IN_BROWSER, IE.TOKENS): SI.CONFIRMING,
    (SI.SIGNED_IN, IE.TOKENS): SI.CONFIRMING,  # (another account, from another window)
    (SI.SIGNED_OUT, IE.TOKENS): SI.CONFIRMING,  # (the dialog's answer after a sign-out)
    (SI.CONFIRMING, IE.CONFIRMED): SI.SIGNED_IN,
    (SI.SIGNED_IN, IE.CONFIRMED): SI.SIGNED_IN,
    (SI.CONFIRMING, IE.FAILED): SI.SIGNED_OUT,
    **{(state, IE.SIGNED_OUT): SI.SIGNED_OUT for state in SI},
}


class TableLink(enum.Enum):
    """How an online game on the table follows its game's event stream."""

    OPENING = "the stream is opening"
    LIVE = "the stream is connected"
    RECONNECTING = "the stream was lost (or answered badly) and is trying again"
    GIVEN_UP = "the stream failed for good"
    CLOSED = "the game left the table"


class TableEvent(enum.Enum):
    CONNECTED = "the stream connected"
    DROPPED = "the stream was lost or misanswered"
    FAILED = "the stream gave up"
    REOPEN = "a new stream is opened (signed again, or a rematch)"
    CLOSE = "the game leaves the table"


T, TE = TableLink, TableEvent
TABLE_LINK: dict[tuple[TableLink, TableEvent], TableLink] = {
    (T.OPENING, TE.CONNECTED): T.LIVE,
    (T.OPENING, TE.DROPPED): T.RECONNECTING,
    (T.LIVE, TE.DROPPED): T.RECONNECTING,
    (T.RECONNECTING, TE.DROPPED): T.RECONNECTING,
    (T.RECONNECTING, TE.CONNECTED): T.LIVE,
    (T.LIVE, TE.REOPEN): T.OPENING,
    (T.GIVEN_UP, TE.REOPEN): T.OPENING,
    (T.OPENING, TE.REOPEN): T.OPENING,
    (T.RECONNECTING, TE.REOPEN): T.RECONNECTING,  # (still down: say so once it is back)
    **{(state, TE.FAILED): T.GIVEN_UP for state in (T.OPENING, T.LIVE, T.RECONNECTING)},
    **{(state, TE.CLOSE): T.CLOSED for state in T},
}


class StoreAccess(enum.Enum):
    """This window's use of the shared sign-in's store: one look or write at a time."""

    IDLE = "nothing is looking at or writing the store"
    LOOKING = "a look at the store is on its way"
    LOOKING_THEN_AGAIN = "a look is on its way, and another was asked for meanwhile"
    WRITING = "a sign-in's tokens are being written"
    WRITING_THEN_LOOK = "tokens are being written; a look waits for them (else: empty store)"


class StoreEvent(enum.Enum):
    LOOK = "a look is asked for"
    LOOKED = "the look is done"
    WRITE = "a sign-in's tokens are being written"
    WRITTEN = "they are"


A, AE = StoreAccess, StoreEvent
STORE_ACCESS: dict[tuple[StoreAccess, StoreEvent], StoreAccess] = {
    (A.IDLE, AE.LOOK): A.LOOKING,
    (A.LOOKING, AE.LOOK): A.LOOKING_THEN_AGAIN,
    (A.LOOKING_THEN_AGAIN, AE.LOOK): A.LOOKING_THEN_AGAIN,
    (A.LOOKING, AE.LOOKED): A.IDLE,
    (A.LOOKING_THEN_AGAIN, AE.LOOKED): A.IDLE,  # (and the next look starts)
    (A.IDLE, AE.WRITE): A.WRITING,
    (A.LOOKING, AE.WRITE): A.WRITING_THEN_LOOK,  # (the look on its way is of the old sign-in)
    (A.LOOKING_THEN_AGAIN, AE.WRITE): A.WRITING_THEN_LOOK,
    (A.WRITING, AE.WRITE): A.WRITING,
    (A.WRITING_THEN_LOOK, AE.WRITE): A.WRITING_THEN_LOOK,
    (A.WRITING, AE.LOOK): A.WRITING_THEN_LOOK,
    (A.WRITING_THEN_LOOK, AE.LOOK): A.WRITING_THEN_LOOK,
    (A.WRITING, AE.WRITTEN): A.IDLE,
    (A.WRITING_THEN_LOOK, AE.WRITTEN): A.IDLE,  # (and the look that waited starts)
}


class Lookup(enum.Enum):
    """Something online play looks up on the server (the computer levels, a kept sign-in)."""

    IDLE = "not asked since the server was set, or answered"
    ASKING = "asked; the answer is on its way"
    MISSED = "the server could not be reached: asked again once the lobby is listed"


class LookupEvent(enum.Enum):
    ASK = "the lookup is asked for"
    ANSWERED = "it answered (or failed for another reason than the server's absence)"
    UNREACHABLE = "the server could not be reached"
    RESET = "another server is set"


L, LE = Lookup, LookupEvent
LOOKUP: dict[tuple[Lookup, LookupEvent], Lookup] = {
    **{(state, LE.ASK): L.ASKING for state in L},
    **{(state, LE.RESET): L.IDLE for state in L},
    (L.ASKING, LE.ANSWERED): L.IDLE,
    **{(state, LE.UNREACHABLE): L.MISSED for state in L},  # (a late miss is asked again too)
}


class GoingBack(enum.Enum):
    """Whether a game this player still plays is put back on the table by itself."""

    NO = "nothing is to be put back"
    MAY = "the kept sign-in being restored for this server may put a game back"
    WHEN_LISTED = "signed in before the lobby was listed: a game is put back once it is"


class GoingBackEvent(enum.Enum):
    SERVER_SET = "a server is set: its kept sign-in is restored"
    RESTORED = "the kept sign-in was restored (or not)"
    NOT_LISTED = "a game was to be put back, but the lobby is not listed yet"
    DONE = "the lobby is listed: a game was put back, or there was none"


B, BE = GoingBack, GoingBackEvent
GOING_BACK: dict[tuple[GoingBack, GoingBackEvent], GoingBack] = {
    **{(state, BE.SERVER_SET): B.MAY for state in B},
    (B.MAY, BE.RESTORED): B.NO,
    **{(state, BE.NOT_LISTED): B.WHEN_LISTED for state in B},
    **{(state, BE.DONE): B.NO for state in B},
}


class Sync(enum.Enum):
    """Whether an online game's numbered events can be applied: a snapshot must come first."""

    BLIND = "the stream opened from the start: numbered events wait for its snapshot"
    SYNCED = "a snapshot is known: numbered events after it are applied in order"


class SyncEvent(enum.Enum):
    OPENED_BLIND = "a stream is opened with no event to resume after"
    OPENED_AFTER = "a stream is opened to resume after a known event"
    SNAPSHOT = "a snapshot of the game is applied"


Y, YE = Sync, SyncEvent
SYNC: dict[tuple[Sync, SyncEvent], Sync] = {
    **{(state, YE.OPENED_BLIND): Y.BLIND for state in Y},
    **{(state, YE.OPENED_AFTER): Y.SYNCED for state in Y},
    **{(state, YE.SNAPSHOT): Y.SYNCED for state in Y},
}


class Change(enum.Enum):
    """What the change of an online game being applied (its events up to a view) brought."""

    PLAIN = "moves, or nothing yet"
    BEGUN = "the game began: its next view is a first one, nothing to animate"
    SEATED = "the opponent took the open seat"
    SEATED_BEGUN = "the opponent took the open seat and the game began"


class ChangeEvent(enum.Enum):
    OPPONENT_SEATED = "the opponent took the open seat"
    GAME_STARTED = "the game began"
    VIEW_SHOWN = "the change's view is shown (the first one of a game just begun)"
    CHANGE_END = "the change's last event (the one with a view) is applied"
    SNAPSHOT = "a snapshot of the game is applied: its view is the first one"


G, GE = Change, ChangeEvent
CHANGE: dict[tuple[Change, ChangeEvent], Change] = {
    (G.PLAIN, GE.OPPONENT_SEATED): G.SEATED,
    (G.SEATED, GE.OPPONENT_SEATED): G.SEATED,
    (G.BEGUN, GE.OPPONENT_SEATED): G.SEATED_BEGUN,
    (G.SEATED_BEGUN, GE.OPPONENT_SEATED): G.SEATED_BEGUN,
    (G.PLAIN, GE.GAME_STARTED): G.BEGUN,
    (G.BEGUN, GE.GAME_STARTED): G.BEGUN,
    (G.SEATED, GE.GAME_STARTED): G.SEATED_BEGUN,
    (G.SEATED_BEGUN, GE.GAME_STARTED): G.SEATED_BEGUN,
    (G.BEGUN, GE.VIEW_SHOWN): G.PLAIN,
    (G.SEATED_BEGUN, GE.VIEW_SHOWN): G.SEATED,
    (G.SEATED, GE.CHANGE_END): G.PLAIN,
    (G.SEATED_BEGUN, GE.CHANGE_END): G.BEGUN,
    (G.BEGUN, GE.SNAPSHOT): G.PLAIN,
    (G.SEATED_BEGUN, GE.SNAPSHOT): G.SEATED,
}


class TablePhase(enum.Enum):
    """What the card table shows, from the view it has settled on."""

    EMPTY = "no game on the table"
    WAITING = "a game is on the table, its first view not settled yet (a player may be awaited)"
    PLAYING = "a running game with a seat of this player's: the controls follow its turn"
    WATCHING = "a running game watched, read-only"
    OVER = "the game is over: its result shows"


class TablePhaseEvent(enum.Enum):
    CLEARED = "the table is left empty"
    OPENED = "a game is put on the table, or begins again (a rematch, a new deal)"
    PLAYED = "a view of a running game settles, seated"
    WATCHED = "a view of a running game settles, watching"
    ENDED = "a view of a finished game settles"


P, PE = TablePhase, TablePhaseEvent
TABLE_PHASE: dict[tuple[TablePhase, TablePhaseEvent], TablePhase] = {
    **{(state, PE.CLEARED): P.EMPTY for state in P},
    **{(state, PE.OPENED): P.WAITING for state in P},
    (P.WAITING, PE.PLAYED): P.PLAYING,
    (P.PLAYING, PE.PLAYED): P.PLAYING,
    (P.WAITING, PE.WATCHED): P.WATCHING,
    (P.WATCHING, PE.WATCHED): P.WATCHING,
    **{(state, PE.ENDED): P.OVER for state in (P.WAITING, P.PLAYING, P.WATCHING, P.OVER)},
}
