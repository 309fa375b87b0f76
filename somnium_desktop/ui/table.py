"""The card table widget: header, both players, the scene, the controls, the log and game over.

Its parts are in table_widgets, their layout in table_frame, following the source in
table_shows; here the player's input (keys, buttons, stealing, conceding, the claim)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import (
    QCloseEvent,
    QGuiApplication,
)
from PySide6.QtWidgets import (
    QApplication,
    QWidget,
)

from ..client.describe import result_title
from ..client.lifecycles import TablePhase
from ..client.replay import Replay
from ..client.source import TableSource
from ..game.actions import Action, Draw, EndTurn, Steal
from ..game.cards import Suit
from .cards import CardDeck
from .replay_bar import ReplayMode
from .style import repolish
from .table_scale import chrome_sheet
from .table_shows import TableShows
from .table_widgets import (
    new_action,
)

__all__ = ["TableWidget", "new_action"]


class TableWidget(TableShows):
    """The card table for any TableSource: offline, an online seat, or watching (read-only).

    Keyboard: D draws, E ends the turn, R asks for a rematch once the game is over. During a
    steal the number keys 1-9 and 0 pick Angels to Demons, or Left/Right move among the
    stealable suits and Enter steals the one marked. Concede is on its button (Alt+C) and in the
    Game menu, and asks to confirm. W claims the win from an opponent who left the table and
    stayed away (online; its button shows only then).
    """

    def __init__(
        self,
        deck: CardDeck | None = None,
        parent: QWidget | None = None,
        *,
        log_inside: bool = True,
    ) -> None:
        super().__init__(deck, parent, log_inside=log_inside)
        self._conceding: tuple[TableSource, str] | None = None  # said Yes to, not sent yet
        self.replaying = ReplayMode(self)
        self.column.insertWidget(self.column.count() - 1, self.replaying.bar)
        self.replaying.moved.connect(self.result_analysis.window.follow)
        self.source_changed.connect(lambda: self.result_analysis.window.shows(self.source))
        self.replay_button = self.game_over.add_button(self.replaying.open_action,
                                                       "Replay this game")
        self._connect()

    @property
    def replay(self) -> Replay | None:
        """The replay on the table (None unless it shows one)."""
        return self.replaying.replay

    def replay_go_to(self, step: int) -> None:
        """Show the replay after `step` actions (0: the deal; clamped to its length); a
        finished game on the table is opened as its replay first, at that step."""
        if self.replay is None:
            self.replaying.open_at(step)
        else:
            self.replaying.go_to(step)

    def _connect(self) -> None:
        """The actions, the scene and the timer to what they do."""
        self._countdown.timeout.connect(self._tick)
        self.scene.event_played.connect(self._event_played)
        self.scene.settled.connect(self._settled)
        self.coach.odds_changed.connect(self._describe)
        self.result_analysis.accuracy_came.connect(self.announce)
        self.scene.busy_changed.connect(lambda _busy: self._update_controls())
        self.scene.steal_clicked.connect(self.steal)
        self.claim_action.triggered.connect(self.claim)
        self.hide_result_action.triggered.connect(self.hide_result)
        self.draw_action.triggered.connect(self.draw)
        self.end_turn_action.triggered.connect(self.end_turn)
        self.concede_action.triggered.connect(self.ask_concede)
        self.rematch_action.triggered.connect(self.rematch)
        for suit, action in zip(Suit, self.steal_actions, strict=True):
            action.triggered.connect(lambda _=False, suit=suit: self.steal(suit))
        self.steal_prev_action.triggered.connect(lambda: self._move_steal_focus(-1))
        self.steal_next_action.triggered.connect(lambda: self._move_steal_focus(1))
        self.steal_pick_action.triggered.connect(self._steal_focused)
        self.copy_button.clicked.connect(self.copy_game_id)
        self.me.name_clicked.connect(lambda: self._name_clicked(True))
        self.opponent.name_clicked.connect(lambda: self._name_clicked(False))
        self._show_idle()

    # ----- input -----
    def my_turn(self) -> bool:
        """True when this table may act now: our turn, nothing pending or moving."""
        source, view = self.source, self.shown
        return (
            source is not None
            and view is not None
            and source.my_seat is not None
            and self.phase.state is TablePhase.PLAYING
            and not source.pending
            and not self.scene.busy
            and view.turn == source.my_seat
        )

    def stealing(self) -> bool:
        return self.my_turn() and self.shown is not None and self.shown.steal_pending

    def _update_controls(self) -> None:
        source, view = self.source, self.shown
        mine = self.my_turn()
        legal = view.legal if view is not None and mine else ()
        self.draw_action.setEnabled(Draw() in legal)
        self.end_turn_action.setEnabled(EndTurn() in legal)
        steal = self.stealing()
        suits = view.stealable if steal and view is not None else ()
        if steal and self._steal_focus not in suits:
            self._steal_focus = suits[0] if suits else None
        if not steal:
            self._steal_focus = None
        for suit, action in zip(Suit, self.steal_actions, strict=True):
            action.setEnabled(suit in suits)
        for action in (self.steal_prev_action, self.steal_next_action, self.steal_pick_action):
            action.setEnabled(steal)
        self.scene.set_stealable(suits, self._steal_focus)
        seated = source is not None and source.my_seat is not None and not source.read_only
        running = self.phase.state in (TablePhase.PLAYING, TablePhase.WATCHING)
        idle = source is not None and not source.pending and not self.scene.busy
        # A player may concede at any time (rules.md, rule 12): cards moving or a move of
        # theirs on its way, Yes concedes as soon as that move is back (_concede_said).
        self.concede_action.setEnabled(seated and running)
        self.rematch_action.setEnabled(
            source is not None and source.can_rematch and self.phase.state is TablePhase.OVER
            and not self.scene.busy
        )
        claim = seated and running and idle and source is not None and source.can_claim
        self.claim_action.setEnabled(claim)
        self.claim_button.setVisible(claim)
        # Claim takes Concede's place (conceding a game one may claim makes no sense; Alt+C
        # and the Game menu still can), so the row keeps its width on a small window.
        self.concede_button.setVisible(self._buttons_shown and not claim)
        self.hide_result_action.setEnabled(not self.game_over.isHidden())
        self.coach.refresh(view)
        self._update_status(mine, steal)
        self._play_queued(mine)
        self._concede_said()
        self.replaying.update()

    def _claim_wait(self) -> str:
        """' You may claim the win in 1:40 if they are not back.' while the server counts."""
        seconds = self.source.claim_in if self.source is not None else None
        if seconds is None or seconds <= 0:
            return ""
        self._counting = True
        return (f" You may claim the win in {seconds // 60}:{seconds % 60:02d} if they are "
                "not back.")

    def _update_status(self, mine: bool, steal: bool) -> None:
        self._counting = False
        self._write_status(mine, steal)
        if self._counting != self._countdown.isActive():  # (ticks while it counts down)
            (self._countdown.start if self._counting else self._countdown.stop)()

    def _tick(self) -> None:
        """The countdown's second: the status line again, unless it holds news just told."""
        if not self._told_last:
            self._update_controls()

    def _write_status(self, mine: bool, steal: bool) -> None:
        source, view = self.source, self.shown
        if source is None or view is None:
            return
        if self._catching_up():
            return  # our cards still move: the line says what it said until they are in place
        self._told_last = False
        self.status.setProperty("error", False)
        repolish(self.status)
        phase = self.phase.state
        if phase is TablePhase.OVER:
            title = result_title(view.winner, source.my_seat, source.names)
            text = f"Game over: {title}" + ("" if title.endswith("!") else ".")
            other = 1 - source.my_seat if source.my_seat is not None else None
            if other is not None and (source.away(other) or source.claimed_from == other):
                text += f" {self._display_name(other)} has left the table."
            elif self.rematch_action.isEnabled():
                text += " Press R for a rematch."
        elif phase is TablePhase.WATCHING:
            doing = "Replay" if source.replaying else "Watching"
            text = f"{doing}: it is {self.speaker.possessive(view.turn)} turn."
            for seat in (view.turn, 1 - view.turn):
                if source.away(seat):
                    text += f" {self._display_name(seat)} has left the table."
        elif steal:
            text = "A Fool! Steal a card: click a glowing suit, or press the number on it."
        elif mine:
            text = self._your_turn_text()
            other = 1 - view.turn
            if self.claim_action.isEnabled():
                text += f" {self._display_name(other)} has left: W claims the win."
            elif source.away(other):
                text += f" {self._display_name(other)} has left the table.{self._claim_wait()}"
        elif self.claim_action.isEnabled():
            other = 1 - (source.my_seat or 0)
            text = (f"{self._display_name(other)} left the table and has not come back: "
                    "claim the win (W), or wait for them.")
        elif source.pending:
            text = "Sending…"
        elif view.turn != source.my_seat and source.away(view.turn):
            wait = self._claim_wait() or " Waiting for them to come back."
            text = f"{self._display_name(view.turn)} left the table.{wait}"
        elif view.turn != source.my_seat:
            text = f"{self._display_name(view.turn)} is playing…"
        else:
            text = ""
        self.status.setText(text)

    def _your_turn_text(self) -> str:
        """What the player may do now, as the buttons allow it."""
        can_draw, can_end = self.draw_action.isEnabled(), self.end_turn_action.isEnabled()
        if can_draw and can_end:
            return "Your turn: draw (D), or end your turn (E) to bank the table."
        if can_end:
            return "No more draws with ten cards on the table: end your turn (E) to bank them."
        return "Your turn: draw a card (D)."

    def draw(self) -> None:
        if self.draw_action.isEnabled() and self.source is not None:
            self._act_started()
            self.source.draw()

    def end_turn(self) -> None:
        if self.end_turn_action.isEnabled() and self.source is not None:
            self._act_started()
            self.source.end_turn()

    def steal(self, suit: Suit) -> None:
        if self.stealing() and self.shown is not None and suit in self.shown.stealable:
            self._act_started()
            assert self.source is not None
            self.source.steal(suit)

    def take(self, action: Action) -> None:
        """Act as the player's click or key would: draw, end the turn or steal (a concede asks
        first). Nothing happens if the table does not take that input now."""
        if isinstance(action, Steal):
            self.steal(action.suit)
        elif isinstance(action, EndTurn):
            self.end_turn()
        elif isinstance(action, Draw):
            self.draw()
        else:
            self.ask_concede()

    def _act_started(self) -> None:
        # Input waits until the result has been played: disable at once, before any reply.
        for action in (self.draw_action, self.end_turn_action, *self.steal_actions):
            action.setEnabled(False)

    def hide_result(self) -> None:
        """Put the game-over panel away (its close button, or Esc) to see the final table."""
        if not self.game_over.isHidden():
            focus = QApplication.focusWidget()
            self._result_hidden = True
            self.game_over.hide()
            if focus is None or self.game_over.isAncestorOf(focus):
                self.view.setFocus()  # (from its close button; elsewhere the focus stays)
            self._update_controls()

    def _move_steal_focus(self, step: int) -> None:
        view = self.shown
        if not self.stealing() or view is None or not view.stealable:
            return
        suits = list(view.stealable)
        index = suits.index(self._steal_focus) if self._steal_focus in suits else -step
        self._steal_focus = suits[(index + step) % len(suits)]
        self.scene.set_stealable(suits, self._steal_focus)
        self.announce(f"{self._steal_focus.label} marked; press Enter to steal it.")

    def _steal_focused(self) -> None:
        if self._steal_focus is not None:
            self.steal(self._steal_focus)

    def ask_concede(self) -> None:
        """Ask to confirm, then concede (non-blocking: the table keeps running meanwhile)."""
        if not self.concede_action.isEnabled() or self.source is None:
            return
        from PySide6.QtWidgets import QMessageBox  # (lazy: only when asked)

        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Concede the game?",
            "Concede this game? You lose it whatever the scores.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self,
        )
        box.setDefaultButton(QMessageBox.StandardButton.No)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.setStyleSheet(chrome_sheet(self.text_scale))  # (in the table's text size)
        asked = (self.source, self.source.game_id)  # the answer concedes this game only
        box.finished.connect(lambda result: self._concede_answered(result, asked))
        self._confirm = box
        box.open()

    def _concede_answered(self, result: int, asked: tuple[TableSource, str]) -> None:
        from PySide6.QtWidgets import QMessageBox

        self._confirm = None
        self._conceding = asked if result == QMessageBox.StandardButton.Yes else None
        self._concede_said()

    def _concede_said(self) -> None:
        """Concede the game the player said Yes for, while it is still on the table and
        running: at once, cards moving or not (a player may concede at any time), or once a
        move of theirs on its way has come back (a concession sent meanwhile would be
        refused as made against an old version)."""
        asked, source = self._conceding, self.source
        if asked is None or source is None:
            return
        view = source.view
        if source is not asked[0] or source.game_id != asked[1] or view is None or view.over \
                or source.my_seat is None or source.read_only:
            self._conceding = None
        elif not source.pending:
            self._conceding = None
            self._act_started()
            source.concede()

    def rematch(self) -> None:
        if self.rematch_action.isEnabled() and self.source is not None:
            self.source.rematch()

    def claim(self) -> None:
        """Claim the win from an opponent who left (no question: nothing is lost by it)."""
        if self.claim_action.isEnabled() and self.source is not None:
            self.claim_action.setEnabled(False)
            self.source.claim()

    def copy_game_id(self) -> None:
        if self.source is not None:
            QGuiApplication.clipboard().setText(self.source.game_id)
            self.announce("Game id copied.")

    def closeEvent(self, event: QCloseEvent) -> None:
        self.scene.clear_queue()
        super().closeEvent(event)
