"""The analysis of a finished game, from its public views only: every decision judged by the
expert, the win chance over the game, and each player's accuracy (docs/bots.md)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .actions import Action, Concede, TimeOut
from .bots.strong import StrongBot
from .coach import Advice, advise
from .state import GameState, apply
from .view import View, view_of

# A decision that gives away at least this share of a game (the chance of winning of the
# expert's choice minus that of the option taken) is marked; docs/bots.md says why these.
INACCURACY = 0.02
MISTAKE = 0.05
BLUNDER = 0.10


@dataclass(frozen=True, slots=True)
class Move:
    """One decision as everyone saw it: the public view before it, and the action taken by the
    player to move (view.turn)."""

    view: View
    action: Action

    def __post_init__(self) -> None:
        if type(self.view) is not View:  # never a GameState: its deck order is secret
            raise TypeError("a move holds a public View, nothing more")
        if isinstance(self.action, Concede | TimeOut):
            raise ValueError("a concession or a time-out is not a decision to judge")


@dataclass(frozen=True, slots=True)
class PublicGame:
    """What the analysis reads: the decisions in order and the final view, all public."""

    moves: tuple[Move, ...]
    end: View

    def __post_init__(self) -> None:
        if type(self.end) is not View:
            raise TypeError("the end of a game is a public View")
        if not self.end.over:
            raise ValueError("only a finished game is analysed")
        for move in self.moves:
            if type(move) is not Move:
                raise TypeError("moves are Move objects")


@dataclass(frozen=True, slots=True)
class Judged:
    """One decision judged. Chances are the mover's (a draw counting half), in shares of a game.

    `before` is the chance with the expert's choice (`best`), `after` with the action taken;
    `lost` is how much the action gave away (never below 0), `mark` names it when it reaches a
    threshold. A forced decision (one option only) is never marked nor counted in accuracy.
    """

    seat: int
    view: View
    action: Action
    best: Action
    before: float
    after: float
    lost: float
    mark: str | None
    forced: bool
    advice: Advice


@dataclass(frozen=True, slots=True)
class Analysis:
    """A finished game judged: each decision, seat 0's chance of winning before each decision
    and at the end (`curve`, the result last), and each seat's accuracy (None: no choices)."""

    decisions: tuple[Judged, ...]
    curve: tuple[float, ...]
    accuracy: tuple[float | None, float | None]


def mark(lost: float) -> str | None:
    """The mark a decision earns for giving away `lost` of a game."""
    if lost >= BLUNDER:
        return "blunder"
    if lost >= MISTAKE:
        return "mistake"
    if lost >= INACCURACY:
        return "inaccuracy"
    return None


def judge(move: Move, expert: StrongBot) -> Judged:
    """One decision judged by `expert` (the one that judges every decision of that seat)."""
    seat = move.view.turn
    advice = advise(move.view, seat, expert)
    before = advice.worth(advice.choice)
    after = advice.worth(move.action)
    lost = max(0.0, before - after)
    forced = len(advice.options) == 1
    return Judged(
        seat=seat,
        view=move.view,
        action=move.action,
        best=advice.choice,
        before=before,
        after=after,
        lost=lost,
        mark=None if forced else mark(lost),
        forced=forced,
        advice=advice,
    )


def accuracy(decisions: Iterable[Judged], seat: int) -> float | None:
    """A seat's accuracy in percent: the mean over its unforced decisions of the chance of
    winning it kept, 1 minus what the decision gave away (docs/bots.md)."""
    kept = [1.0 - d.lost for d in decisions if d.seat == seat and not d.forced]
    return 100.0 * sum(kept) / len(kept) if kept else None


def result(end: View) -> float:
    """Seat 0's share of a finished game: 1 won, 0 lost, 1/2 drawn."""
    return 0.5 if end.winner is None else 1.0 - end.winner


def analyse(game: PublicGame) -> Analysis:
    """Judge every decision of a finished game, from public views only.

    Each seat's decisions are judged by an expert of its own that sees them in order, as a
    player would: an expert's own game is judged by the very choices it made.
    """
    if type(game) is not PublicGame:
        raise TypeError("analyse() takes a PublicGame: public views only")
    experts = (StrongBot(), StrongBot())
    decisions = tuple(judge(move, experts[move.view.turn]) for move in game.moves)
    curve = tuple(d.before if d.seat == 0 else 1.0 - d.before for d in decisions)
    return Analysis(
        decisions=decisions,
        curve=(*curve, result(game.end)),
        accuracy=(accuracy(decisions, 0), accuracy(decisions, 1)),
    )


def public_game(start: GameState, actions: Sequence[tuple[int, Action]]) -> PublicGame:
    """The analysis input of a finished game, from its start and its actions (seat, action) in
    order, as stored: replayed with the engine where the deck is known, keeping only public
    views. Raises IllegalAction if the actions do not replay, ValueError if they do not finish
    the game."""
    moves: list[Move] = []
    state = start
    for seat, action in actions:
        if not isinstance(action, Concede | TimeOut):  # (no choice of the player's to judge)
            moves.append(Move(view_of(state), action))
        state, _ = apply(state, seat, action)
    if not state.over:
        raise ValueError("the actions do not finish the game")
    return PublicGame(tuple(moves), view_of(state))
