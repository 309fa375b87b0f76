"""The coach: what the expert would do in a position, and each option's chance of winning."""

from __future__ import annotations

from dataclasses import dataclass

from .actions import Action, Draw, EndTurn, Steal
from .bots.strong import StrongBot
from .odds import percent
from .view import View


@dataclass(frozen=True, slots=True)
class Advice:
    """The expert's view of one decision for the player to move (`seat`).

    `options` holds every option open to the player with its chance of winning (a draw counting
    half), as the expert's model values it, best first; `choice` is the expert's own pick.
    """

    seat: int
    choice: Action
    options: tuple[tuple[Action, float], ...]
    exact: bool  # the values come from solving the rest of the game, not from the model

    def worth(self, action: Action) -> float:
        """The chance of winning after `action`; KeyError if it was not open."""
        for option, value in self.options:
            if option == action:
                return value
        raise KeyError(action)


def advise(view: View, seat: int, expert: StrongBot | None = None) -> Advice:
    """The expert's advice to `seat`, whose turn it must be (ValueError otherwise).

    Pass the same `expert` for a whole game to reuse what its endgame solver has found.
    """
    if view.over or view.turn != seat:
        raise ValueError("advice is for the player to move in a game still running")
    weighing = (expert or StrongBot()).weigh(view, seat)
    ranked = sorted(weighing.values.items(), key=lambda item: (-item[1], label(item[0])))
    return Advice(seat, weighing.choice, tuple(ranked), weighing.exact)


def label(action: Action) -> str:
    """An option's name in words: "Bank", "Draw", "Steal Angels"."""
    if isinstance(action, Steal):
        return f"Steal {action.suit.label}"
    if isinstance(action, Draw):
        return "Draw"
    if isinstance(action, EndTurn):
        return "Bank"
    return "Concede"


def describe(advice: Advice) -> str:
    """The advice in plain words, e.g. "The expert would bank. Bank: 58% to win; Draw: 51%"."""
    choice = label(advice.choice)
    choice = choice[0].lower() + choice[1:]
    words = "; ".join(
        f"{label(action)}: {percent(value)}{' to win' if index == 0 else ''}"
        for index, (action, value) in enumerate(advice.options)
    )
    if not words:
        return f"The expert would {choice}."
    return f"The expert would {choice}. {words}"
