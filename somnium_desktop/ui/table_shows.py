"""The card table following its source: views, events, notices, presence and the status."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import SignalInstance

from ..client.describe import Speaker, count_phrase, result_title
from ..client.lifecycles import TablePhase, TablePhaseEvent
from ..client.ratings import change_text
from ..client.source import TableSource
from ..game.events import Event, GameEnded, TurnPassed
from ..game.view import View
from .accessibility import announce
from .style import repolish

if TYPE_CHECKING:
    pass
from .table_frame import TableFrame
from .table_widgets import (
    IDLE_HINT,
)


class TableShows(TableFrame):
    """Shows what the source says: the view settled on, the log, whose turn, the result."""

    # ----- the source -----
    def set_source(self, source: TableSource | None) -> None:
        """Play `source` on this table (None leaves an empty table); the old one is let go."""
        old = self.source
        if old is not None:
            for signal, slot in self._wiring(old):
                signal.disconnect(slot)
        self.source = source
        if source is None:
            self.scene.reset(0)
            self._show_idle()
        else:
            for signal, slot in self._wiring(source):
                signal.connect(slot)
            self._started()
            if source.view is not None:
                self._view_changed(source.view)
        self.clock_show.follow(source)
        self.source_changed.emit()

    def _wiring(self, source: TableSource) -> list[tuple[SignalInstance, Callable[..., None]]]:
        return [
            (source.events, self._events),
            (source.view_changed, self._view_changed),
            (source.error, self._error),
            (source.notice, self._notice),
            (source.pending_changed, self._pending_changed),
            (source.started, self._started),
            (source.presence_changed, self._presence_changed),
            (source.history, self._history),
            (source.watchers_changed, self._watchers_changed),
            (source.ratings_changed, self._show_rating_changes),
        ]

    def _started(self) -> None:
        source = self.source
        if source is None:
            return
        self.scene.reset(source.my_seat if source.my_seat is not None else 0)
        self.shown = None
        self.phase.fire(TablePhaseEvent.OPENED)
        self._first_view = True
        self._steal_focus = None
        self.queued.clear()
        self.log.clear()
        self.game_over.hide()
        self.result_analysis.reset()
        self.game_over.show_ratings("")
        self.speaker = Speaker(source.names, source.my_seat)
        self.coach.set_source(source)
        bottom = self.scene.bottom_seat  # (named now: a table waiting for a player has no view)
        self.me.set_player(self._display_name(bottom), None)
        self.opponent.set_player(self._display_name(1 - bottom), None)
        self._show_ratings()
        self.game_name.setText(source.game_name)
        self.game_id.setText(f"{source.id_label} {source.game_id}")
        self.copy_button.setVisible(source.shares_id)
        self.watching.setVisible(source.read_only)
        self.watching.setText("Replay" if source.replaying else "Watching")
        self._watchers_changed(source.watchers)
        self._result_hidden = False
        self._away = (False, False)
        self._show_buttons(not source.replaying)  # (a replay's bar has its own)
        self._presence_changed()

    def _told(self, event: Event) -> str:
        """The log's sentence for an event (a claimed win is told as such, not a concession)."""
        claimed = self.source.claimed_from if self.source is not None else None
        return self.speaker.describe(event, claimed)

    def _watchers_changed(self, count: int) -> None:
        """How many watch this game (others than this table), after its name: that part of
        the header gives way first on a narrow table (the name elides), never widening it."""
        self._watcher_count = count
        source = self.source
        if source is None:
            return
        others = count - (1 if source.read_only else 0)
        more = " more" if source.read_only else ""
        self.watchers_text = f"{others}{more} watching" if others > 0 else ""
        seen = f" · {self.watchers_text}" if self.watchers_text else ""
        self.game_name.setText(f"{source.game_name}{seen}")

    def _history(self, events: list[Event]) -> None:
        """What happened before this table opened the game: ahead of the log's lines."""
        earlier = [(self._told(e), isinstance(e, TurnPassed | GameEnded)) for e in events]
        self.log.put_first(earlier)

    def _presence_changed(self) -> None:
        """A player left the table or came back: their strip, the log and the controls."""
        source = self.source
        if source is None:
            return
        away = (source.away(0), source.away(1))
        bottom = self.scene.bottom_seat
        self.me.set_note("away" if away[bottom] else "")
        self.opponent.set_note("away" if away[1 - bottom] else "")
        over = source.view is not None and source.view.over  # (nobody is awaited any more)
        for seat in (0, 1):
            if away[seat] != self._away[seat] and seat != source.my_seat and not over:
                name = self._display_name(seat)
                said = (f"{name} left the table." if away[seat]
                        else f"{name} is back at the table.")
                self.log.add_line(said)
                self.announce(said)
        self._away = away
        self._update_controls()

    def _events(self, events: list[Event]) -> None:
        self.scene.play(events)
        self._update_controls()

    def _view_changed(self, view: View) -> None:
        self.scene.settle(view, animate=not self._first_view)
        self._first_view = False
        self._update_controls()

    def _pending_changed(self, _pending: bool) -> None:
        self._update_controls()

    def _error(self, message: str) -> None:
        self._say(message, error=True)

    def _notice(self, message: str) -> None:
        self._say(message, error=False)

    def _say(self, message: str, error: bool) -> None:
        """A message in the status line (red for an error), read out too."""
        self._told_last = True
        self.status.setText(message)
        self.status.setProperty("error", error)
        repolish(self.status)
        self.announce(message)

    def _event_played(self, event: Event) -> None:
        text = self._told(event)
        self.log.add_line(text, headline=isinstance(event, TurnPassed | GameEnded))
        self.announce(text)

    def announce(self, text: str) -> None:
        """Tell screen readers what happened (an accessibility announcement)."""
        self.last_announcement = text
        announce(self.view, text)

    # ----- what the table shows -----
    def _show_idle(self) -> None:
        self.phase.fire(TablePhaseEvent.CLEARED)
        self.game_name.setText("No game yet")
        self.game_id.setText("")
        self.copy_button.setVisible(False)
        self.watching.setVisible(False)
        self._watcher_count = 0
        self.opponent.set_player("Opponent", None)
        self.me.set_player("You", None)
        for strip in (self.me, self.opponent):
            strip.set_rating("", False)
        self.opponent.set_active(False)
        self.me.set_active(False)
        self.game_over.hide()
        self.log.clear()
        self.coach.set_source(None)
        self.status.setText(IDLE_HINT)
        self.view.setAccessibleDescription("")  # (it told the position of the game gone)
        self.scene.set_deck_info(len(self.scene.deck_pile), 3, True)
        self._show_buttons(False)
        self._update_controls()

    def _show_buttons(self, shown: bool) -> None:
        """The game's buttons, hidden while there is no game (the hint gets their room)."""
        self._buttons_shown = shown
        for button in (self.draw_button, self.end_turn_button, self.concede_button):
            button.setVisible(shown)

    def _settled(self, view: View) -> None:
        source = self.source
        if source is None:
            return
        self.shown = view
        if view.over or view.turn != source.my_seat:
            # A key kept while our cards moved was for a turn that is over: it must not wait
            # (behind the opponent's cards) and then play on our next turn.
            self.queued.clear()
        self.phase.fire(TablePhaseEvent.ENDED if view.over else TablePhaseEvent.WATCHED
                        if source.read_only else TablePhaseEvent.PLAYED)
        over = self.phase.state is TablePhase.OVER
        bottom = self.scene.bottom_seat
        names = source.names
        scores = view.scores
        self.me.set_player(self._display_name(bottom), scores[bottom])
        self.opponent.set_player(self._display_name(1 - bottom), scores[1 - bottom])
        self._show_ratings()
        self.me.set_active(not over and view.turn == bottom)
        self.opponent.set_active(not over and view.turn != bottom)
        if over:
            title = result_title(view.winner, source.my_seat, names)
            detail = f"{names[0]} {scores[0]} · {names[1]} {scores[1]}"
            if view.conceded_by is not None and view.conceded_by == source.claimed_from:
                detail += f"  ({self.speaker.object(view.conceded_by)} left the table)"
            elif view.conceded_by is not None:
                detail += f"  ({self.speaker.object(view.conceded_by)} conceded)"
            elif view.timed_out is not None:  # (a clocked game: table_clock.py)
                detail += f"  ({self.speaker.subject(view.timed_out)} ran out of time)"
            self.result_analysis.game_over(source)
            if not self._result_hidden:
                self.game_over.show_result(title, detail, source.can_rematch)
                self._show_rating_changes()
        else:
            self.game_over.hide()
        self._describe()
        self._update_controls()

    # ----- ratings: beside the names, a click on a name, the change at the end -----
    def _show_ratings(self) -> None:
        source = self.source
        if source is None:
            return
        bottom = self.scene.bottom_seat
        for strip, seat in ((self.me, bottom), (self.opponent, 1 - bottom)):
            strip.set_rating(source.ratings[seat], source.user_ids[seat] is not None)

    def _name_clicked(self, strip_is_mine: bool) -> None:
        source = self.source
        if source is not None:
            seat = self.scene.bottom_seat if strip_is_mine else 1 - self.scene.bottom_seat
            user_id = source.user_ids[seat]
            if user_id is not None:
                self.player_page_requested.emit(user_id)

    def _show_rating_changes(self) -> None:
        """A finished rated game: each player's rating before and after, in the result."""
        source = self.source
        changes = source.rating_changes if source is not None else None
        if source is None or not changes:
            self.game_over.show_ratings("")
            return
        text = "\n".join(change_text(source.names[c.seat], c) for c in changes)
        if text != self.game_over.ratings.text():
            self.game_over.show_ratings(text)
            self.announce("Ratings: " + "; ".join(text.splitlines()))

    def _display_name(self, seat: int) -> str:
        if self.source is None:
            return ""
        name = self.source.names[seat]
        if seat == self.source.my_seat and name != "You":
            return f"{name} (you)"
        return name

    def _describe(self) -> None:
        """The card table's description for screen readers: the position shown, then the
        odds when the game shows them (the odds are otherwise only drawn on the table)."""
        view = self.shown
        if self.source is None or view is None:
            return
        odds = self.coach.odds_words
        self.view.setAccessibleDescription(f"{self._summary(view)} {odds}".rstrip())

    def _summary(self, view: View) -> str:
        names = self.source.names if self.source else ("", "")
        table = ", ".join(card.label for card in view.table) or "nothing"
        return (
            f"{names[0]} {view.scores[0]} points, {names[1]} {view.scores[1]} points. "
            f"On the table: {table}. {count_phrase(view.deck_count, 'card')} in the deck, "
            f"{count_phrase(view.fools_left, 'Fool')}, "
            f"Death {'still in' if view.death_left else 'gone'}."
        )
