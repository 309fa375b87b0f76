"""The interface a card table talks to: one game seen from one seat, or watched."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from ..game.actions import Action, Concede, Draw, EndTurn, Steal
from ..game.cards import Suit
from ..game.view import View
from .ratings import RatingChange

if TYPE_CHECKING:
    from .replay import Replay


class TableSource(QObject):
    """A game as a table sees it, whatever runs it (the engine in process, or a server).

    Signals, always on the UI thread and in this order for each change:
    ``events(list[Event])`` with what happened (it may be left out when nothing did, e.g. on a
    first snapshot), then ``view_changed(View)`` with the view after those events. A table plays
    the events (animations, log) and then settles on the view. ``started()`` says a new game
    begins (a rematch, say): the next view is its first. ``error(str)`` carries a refusal or a
    failure in plain words; nothing is lost by it. ``notice(str)`` is news that is no error
    (waiting for a second player, a rematch offered, reconnecting), for the status line.
    ``pending_changed(bool)`` is true while one of our actions is on its way (input must wait).
    ``history(list[Event])`` carries what happened before the first view, for the game's log
    only (a game opened midway, or again after a restart); it may come after live events.

    Sources act asynchronously: an action's results arrive through the signals, never as a
    return value, so a network source and the in-process one look the same to the table. A
    network source keeps `pending` true from sending an action until the events it caused have
    been emitted (or it failed, with `error`), so the table never takes a second action on a
    stale view; events of the other seat may arrive at any time.
    """

    view_changed = Signal(object)
    events = Signal(object)
    error = Signal(str)
    notice = Signal(str)
    pending_changed = Signal(bool)
    started = Signal()
    history = Signal(object)
    watchers_changed = Signal(int)  # how many people watch the game (not its players)
    presence_changed = Signal()  # a player left the table or came back; a claim came in reach
    ratings_changed = Signal()  # a finished rated game's rating changes are known
    clock_changed = Signal()  # the clock of the player to move started afresh or stopped

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pending = False

    # What the table shows about the game.
    @property
    def game_name(self) -> str:
        raise NotImplementedError

    @property
    def game_id(self) -> str:
        raise NotImplementedError

    @property
    def id_label(self) -> str:
        """What the table calls game_id; "Game id" when others can join or watch by it."""
        return "Game id"

    @property
    def shares_id(self) -> bool:
        """Whether game_id is worth copying: another player can join or watch by it."""
        return True

    @property
    def has_chat(self) -> bool:
        """Whether the game has a chat at its table (a game followed on a server)."""
        return False

    @property
    def names(self) -> tuple[str, str]:
        """The two players' names, by seat."""
        raise NotImplementedError

    @property
    def my_seat(self) -> int | None:
        """The seat this table plays, or None when watching."""
        raise NotImplementedError

    # ----- ratings (online games between two people) -----
    @property
    def ratings(self) -> tuple[str, str]:
        """Each seat's rating as shown beside its name ("1500?"; "" for none)."""
        return ("", "")

    @property
    def user_ids(self) -> tuple[str | None, str | None]:
        """Each seat's player, whose page a click on their name opens (None: no page)."""
        return (None, None)

    @property
    def rating_changes(self) -> tuple[RatingChange, ...] | None:
        """What a finished rated game did to each seat's rating, once known."""
        return None

    @property
    def read_only(self) -> bool:
        """True when the table may only watch."""
        return self.my_seat is None

    @property
    def view(self) -> View | None:
        """The latest view, or None before the first one arrived."""
        raise NotImplementedError

    @property
    def can_rematch(self) -> bool:
        """Whether rematch() may be offered once the game is over."""
        return False

    @property
    def replaying(self) -> bool:
        """True for a finished game shown again step by step (a ReplaySource)."""
        return False

    @property
    def can_replay(self) -> bool:
        """Whether this game may be opened as a replay now (it has ended)."""
        return False

    def local_replay(self) -> Replay | None:
        """The replay of this game when the app holds it (offline); None: ask the server."""
        return None

    @property
    def watchers(self) -> int:
        """How many people watch the game now (an online game's observers)."""
        return 0

    def away(self, seat: int) -> bool:
        """Whether the player in `seat` has left the table (closed the app, lost the network)
        and not come back yet."""
        return False

    @property
    def can_claim(self) -> bool:
        """Whether claim() may be offered: the opponent has been away long enough."""
        return False

    @property
    def claim_in(self) -> int | None:
        """Seconds before the win may be claimed from an opponent who left (None: no such
        wait going on)."""
        return None

    @property
    def claimed_from(self) -> int | None:
        """The seat that was away when the other player claimed the win, if that ended it."""
        return None

    @property
    def shows_odds(self) -> bool:
        """Whether the table shows the odds of the next card: agreed at Create (online)."""
        return False

    @property
    def coached(self) -> bool:
        """Whether the coach may be asked (a game on this computer, never one with a person)."""
        return False
    @property
    def clock(self) -> tuple[int, float] | None:
        """The running clock: the seat to move and when it runs out (time.monotonic()), or
        None (no time control, or nobody's clock runs)."""
        return None

    @property
    def pending(self) -> bool:
        return self._pending

    def _set_pending(self, pending: bool) -> None:
        if pending != self._pending:
            self._pending = pending
            self.pending_changed.emit(pending)

    # What the table asks for; results come back through the signals.
    def act(self, action: Action) -> None:
        raise NotImplementedError

    def draw(self) -> None:
        self.act(Draw())

    def end_turn(self) -> None:
        self.act(EndTurn())

    def steal(self, suit: Suit) -> None:
        self.act(Steal(suit))

    def concede(self) -> None:
        self.act(Concede())

    def rematch(self) -> None:
        """Start a new game between the same players."""
        raise NotImplementedError

    def claim(self) -> None:
        """Win the game from an opponent who left the table (see can_claim)."""
        raise NotImplementedError

    def analysis_work(self) -> Callable[[], dict[str, Any]] | None:
        """Once the game is over: the work that gets its analysis as JSON data (the server's
        GET /games/{id}/analysis, or the core's analysis in process), to run off the UI
        thread; None when there is none to get."""
        return None

    def close(self) -> None:
        """Stop all work (timers, connections); the source emits nothing afterwards."""
