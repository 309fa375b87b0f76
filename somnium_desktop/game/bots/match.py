"""Bot against bot: play a whole game through the engine (for tests, benchmarks and tuning)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..actions import Action
from ..state import GameState, apply
from ..view import View, view_of
from . import Bot

# Called around every decision: (seat, view) -> a callable taking the chosen action.
Chooser = Callable[[Bot, View, int], Action]


def _ask(bot: Bot, view: View, seat: int) -> Action:
    return bot.choose(view, seat)


def play(start: GameState, bots: Sequence[Bot], ask: Chooser = _ask) -> GameState:
    """Play from `start` to the end, bots[seat] choosing for each seat; the final state.

    `ask` lets a caller wrap each decision (to time it, say); by default it just asks the bot.
    """
    state = start
    while not state.over:
        seat = state.turn
        action = ask(bots[seat], view_of(state), seat)
        state, _ = apply(state, seat, action)
    return state
