"""The table's teaching: the odds of the next card over the deck, and the coach's advice."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QFrame, QHBoxLayout, QSizePolicy, QToolButton

from ..client.tasks import Generation, Operations
from ..game.view import View
from .scene_geometry import ACCENT
from .table_widgets import table_action
from .wrapped_label import WrappedLabel

if TYPE_CHECKING:  # (the coach and its expert load when first asked, not at start-up)
    from ..client.source import TableSource
    from ..game.bots.strong import StrongBot
    from ..game.coach import Advice
    from .scene import TableScene

COACH_KEY = "H"  # and "?": What would the expert do?
COACH_ASK = "What would the expert do?"
COACH_WAIT = "The coach answers on your turn."


def odds_lines(view: View) -> list[str]:
    """The odds over the deck: a title, then the next card's chance to bust the table and to
    be Death, and the Fools left (all from the public view)."""
    from ..game.odds import odds, percent  # (with the first odds shown: not at start-up)

    chances = odds(view)
    return ["Odds", f"Bust {percent(chances.bust)}", f"Death {percent(chances.death)}",
            f"Fools left {chances.fools}"]


def odds_sentence(view: View) -> str:
    """The odds in a sentence, for the tooltip and screen readers."""
    from ..game.odds import odds, percent

    chances = odds(view)
    return (f"The next card: {percent(chances.bust)} that it busts the table "
            f"({chances.busting} of {chances.unseen} unseen cards), {percent(chances.death)} "
            f"that it is Death; {chances.fools} Fools left.")


class TableCoach(QObject):
    """The odds over the deck (when the game shows them) and the coach (offline games only).

    The odds follow the view the table settled on. The coach's answer is worked out on a worker
    (the expert may take a moment) and is for the position it was asked about: it is dropped,
    and the answer shown is cleared, as soon as the table shows another position.
    """

    odds_changed = Signal()  # odds_words changed: the odds came, went or moved

    def __init__(self, scene: TableScene, may_act: Callable[[], bool],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.scene = scene
        self._may_act = may_act
        self.practice_odds = False  # the player's setting: odds in offline games
        self.source: TableSource | None = None
        self._view: View | None = None  # the position the odds and the answer are for
        self.odds_words = ""  # the odds shown, in a sentence for screen readers ("": none)
        self._expert: StrongBot | None = None  # one per game: its endgame solver remembers
        self._ops = Operations(self)
        self._asked = Generation()  # moves on with the position: a late answer is dropped
        self._again = False  # asked while a thought on an old position was still running
        self.action = table_action(self, COACH_ASK, COACH_KEY,
                                   "What would the expert do? The win chance of each option")
        self.action.setShortcuts([QKeySequence(COACH_KEY), QKeySequence("?")])
        self.action.triggered.connect(self.ask)
        self.scene.odds_labels[0].setBrush(ACCENT)  # the block's title, "Odds"
        self._build()

    def _build(self) -> None:
        self.bar = QFrame()
        self.bar.setObjectName("coachBar")
        row = QHBoxLayout(self.bar)
        row.setContentsMargins(10, 2, 10, 2)
        row.setSpacing(8)
        self.button = QToolButton()
        self.button.setDefaultAction(self.action)
        self.button.setObjectName("tableButton")
        self.button.setAccessibleName(COACH_ASK)
        self.button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.answer = WrappedLabel()  # (its lines never taken from the cards above)
        self.answer.setObjectName("coachAnswer")
        self.answer.setAccessibleDescription("The coach's answer")
        self.answer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.answer.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        row.addWidget(self.button)
        row.addWidget(self.answer, 1)
        self.bar.setVisible(False)

    # ----- following the table -----
    def set_source(self, source: TableSource | None) -> None:
        """A game on the table (or none): the coach starts afresh, with a new expert."""
        self.source = source
        self._expert = None
        self._view = None
        self._clear()
        self.bar.setVisible(source is not None and source.coached)
        self.refresh(None)

    def set_practice_odds(self, shown: bool) -> None:
        """The setting for offline games changed: the odds show or go at once."""
        self.practice_odds = shown
        self._show_odds(self._view)

    @property
    def odds_shown(self) -> bool:
        """Whether this game shows the odds: agreed at Create, or offline with the setting."""
        source = self.source
        return source is not None and (
            source.shows_odds or (source.coached and self.practice_odds))

    def refresh(self, view: View | None) -> None:
        """The table's controls changed (called with the view it settled on): a new position
        clears the answer; the coach may be asked only when the player may act."""
        if view is not self._view:
            self._view = view
            self._clear()
            self._show_odds(view)
        coached = self.source is not None and self.source.coached
        self.action.setEnabled(coached and view is not None and self._may_act())

    def _show_odds(self, view: View | None) -> None:
        if view is None or view.over or not self.odds_shown:
            self.scene.set_odds([])
            self.scene.odds_labels[0].setToolTip("")
            words = ""
        else:
            self.scene.set_odds(odds_lines(view))
            words = odds_sentence(view)
            for label in self.scene.odds_labels:
                label.setToolTip(words)
        if words != self.odds_words:
            self.odds_words = words
            self.odds_changed.emit()

    def _clear(self) -> None:
        self._asked.move_on()
        self.answer.show_text("")
        self.answer.setToolTip("")

    # ----- the coach -----
    def ask(self) -> None:
        """What would the expert do here? Worked out on a worker; shown when it comes."""
        source, view = self.source, self._view
        if source is None or not source.coached or view is None or source.my_seat is None:
            return
        if not self._may_act() or view.turn != source.my_seat:
            self.answer.show_text(COACH_WAIT)
            return
        from ..game.coach import advise

        if self._expert is None:
            from ..game.bots.strong import StrongBot

            self._expert = StrongBot()
        expert, seat = self._expert, source.my_seat
        self.answer.show_text("The coach is thinking…")
        started = self._ops.run(
            lambda: advise(view, seat, expert), self._answered, quiet=True,
            owner=self._asked.stamp(), on_done=self._thought, exclusive="coach",
            expected=(ValueError,), on_failure=lambda error: self.answer.show_text(str(error)))
        self._again = not started  # (the expert still thinks of a position gone: ask after)

    def _thought(self) -> None:
        if self._again:
            self._again = False
            self.ask()

    def _answered(self, advice: Advice) -> None:
        from ..game.coach import describe

        text = describe(advice)
        if advice.exact:
            text += " (exact: the rest of the game solved)"
        self.answer.show_text(text)
        self.answer.setToolTip(text)
        from .accessibility import announce

        announce(self.answer, text)
