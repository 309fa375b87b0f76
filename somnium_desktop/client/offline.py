"""An offline game: the engine and a computer player in process, the human at one seat."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer

from ..game.actions import Action, Concede, Draw, EndTurn, Steal
from ..game.analysis import Move, PublicGame
from ..game.analysis_data import analysed
from ..game.bots import Bot
from ..game.errors import IllegalAction
from ..game.events import Event
from ..game.state import GameState, apply, new_game
from ..game.view import View, view_of
from .replay import Replay, ReplayStep
from .source import TableSource
from .tasks import Generation, Operations

BOT_PACE_MS = 600  # between the computer's actions, so the player can follow them


def new_seed() -> int:
    """A fresh game seed (32 bits, shown as the game id)."""
    return int.from_bytes(os.urandom(4), "big")


class OfflineGame(TableSource):
    """A game against the computer: the human's actions apply at once, the bot's are paced.

    The computer thinks on a worker (an Operations runner: a strong bot may take tens of
    milliseconds, which would stall the table's animations) while its pace runs, and its
    action is applied on the UI thread once both the pace and the thought are over. A thought
    about a game that moved on (a concession, a rematch, the game closed) is dropped as it
    comes back, and an answer already back but waiting for its pace is dropped with it;
    nothing waits for either.
    """

    def __init__(
        self,
        make_bot: Callable[[int], Bot],
        *,
        level_label: str = "",
        seed: int | None = None,
        human_seat: int = 0,
        pace_ms: int = BOT_PACE_MS,
        human_name: str = "You",
        deal: Callable[[int], GameState] = new_game,
        parent: QObject | None = None,
    ) -> None:
        """`make_bot` and `deal` turn a seed into the computer player and the game's start."""
        super().__init__(parent)
        self._make_bot = make_bot
        self._deal = deal
        self._level_label = level_label
        self._human = human_seat
        self._pace_ms = pace_ms
        self._human_name = human_name
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._bot_turn)
        self._ops = Operations(self)
        self._asked = Generation()  # moves on with each question to the bot, and on closing
        self._answer: Action | None = None
        self._closed = False
        self._state, self._view, self._bot, self._seed = self._fresh(seed)
        self._steps: list[ReplayStep] = []  # the public record of the game, for its replay

    def _fresh(self, seed: int | None) -> tuple[GameState, View, Bot, int]:
        seed = new_seed() if seed is None else seed
        self._moves: list[Move] = []  # the decisions so far, as public views (analysis)
        state = self._deal(seed)
        return state, view_of(state), self._make_bot(seed), seed

    def start(self) -> None:
        """Show the first view and let the computer move if it goes first."""
        self._steps = [ReplayStep(None, None, (), self._view)]
        self.started.emit()
        self.view_changed.emit(self._view)
        self._schedule_bot()

    # Identity.
    @property
    def game_name(self) -> str:
        level = f" ({self._level_label})" if self._level_label else ""
        return f"Offline: you against the computer{level}"

    @property
    def game_id(self) -> str:
        return f"{self._seed:08x}"

    @property
    def id_label(self) -> str:
        return "Deal"  # the seed: nobody else can join or watch a game on this computer

    @property
    def shares_id(self) -> bool:
        return False

    @property
    def seed(self) -> int:
        return self._seed

    @property
    def names(self) -> tuple[str, str]:
        bot = "Computer"
        return (self._human_name, bot) if self._human == 0 else (bot, self._human_name)

    @property
    def my_seat(self) -> int:
        return self._human

    @property
    def bot_seat(self) -> int:
        return 1 - self._human

    @property
    def view(self) -> View:
        return self._view

    @property
    def can_rematch(self) -> bool:
        return True

    @property
    def coached(self) -> bool:
        return True  # (the odds here are the player's setting: the table asks it)

    @property
    def can_replay(self) -> bool:
        return self._state.over

    def local_replay(self) -> Replay | None:
        """The finished game from its public views and events only (the deck is left out)."""
        if not self._state.over:
            return None
        return Replay(self._steps, self.names, game_id=self.game_id,
                      name="you against the computer", my_seat=self._human)

    @property
    def pace_ms(self) -> int:
        return self._pace_ms

    def set_pace(self, pace_ms: int) -> None:
        """Change the pause before each of the computer's actions."""
        self._pace_ms = max(0, pace_ms)

    # Actions.
    def act(self, action: Action) -> None:
        if self._closed:
            return
        try:
            self._apply(self._human, action)
        except IllegalAction as refused:
            self.error.emit(f"Not allowed: {refused}.")
            return
        self._schedule_bot()

    def rematch(self) -> None:
        if self._closed:
            return
        self._timer.stop()
        self._answer = None
        self._asked.move_on()
        self._state, self._view, self._bot, self._seed = self._fresh(None)
        self.start()

    def analysis_work(self) -> Callable[[], dict[str, Any]] | None:
        """The core's analysis of the finished game, from its public views only."""
        if not self._view.over:
            return None
        game = PublicGame(tuple(self._moves), self._view)
        return lambda: analysed(game)

    def close(self) -> None:
        self._closed = True
        self._timer.stop()
        self._asked.move_on()  # (a thought still on its way is dropped: nothing waits for it)
        self._ops.close()

    def _apply(self, seat: int, action: Action) -> None:
        before = self._view
        self._state, events = apply(self._state, seat, action)
        if not isinstance(action, Concede):
            self._moves.append(Move(before, action))
        # A thought about the game before is dropped, and so is an answer waiting for its
        # pace (the player conceded during the computer's turn: it must not be played).
        self._asked.move_on()
        self._answer = None
        self._timer.stop()
        self._view = view_of(self._state)
        self._steps.append(ReplayStep(seat, action, tuple(events), self._view))
        self._emit(events)

    def _emit(self, events: list[Event]) -> None:
        self.events.emit(events)
        self.view_changed.emit(self._view)

    def _schedule_bot(self) -> None:
        if self._closed or self._state.over or self._state.turn != self.bot_seat:
            return
        self._answer = None
        self._timer.start(self._pace_ms)
        view, bot, seat = self._view, self._bot, self.bot_seat
        # A broken bot's exception is raised on the UI thread by Operations: shown, not
        # swallowed.
        self._ops.run(lambda: bot.choose(view, seat), self._bot_answered, quiet=True,
                      owner=self._asked.stamp())

    def _bot_answered(self, answer: Action) -> None:
        self._answer = answer
        self._bot_turn()

    def _bot_turn(self) -> None:
        """Play the computer's answer once both it and the pace are in."""
        if self._closed or self._timer.isActive() or self._answer is None:
            return
        answer, self._answer = self._answer, None
        assert isinstance(answer, Draw | EndTurn | Steal | Concede)
        self._apply(self.bot_seat, answer)
        self._schedule_bot()
