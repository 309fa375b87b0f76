"""Decision regret: the win share a bot's choices give away, measured against the exact solver.

    python -m benchmarks.regret --left 8 --games 400 --processes 2
    python -m benchmarks.regret --bot hard --left 6 --left 7 --games 200
    python -m benchmarks.regret --against classic --left 9 --left 10 --games 600 --processes 2

Plays the bot (seat 0) against an opponent (default classic-8-50) on deals from --seed (70,000 on,
away from bots.py's and calibrate.py's deals), the first player alternating. At each of the bot's
decisions with exactly --left cards in the deck it solves the position and records the regret: the
best action's value minus the value of the action the bot took. The solve is against a perfect
opponent by default (endgame.py: every order of the unseen cards, both players at their best);
with --against classic it is against the opponent it really meets, classic-8-50 (versus.py: the
opponent's turns by classic's own rules), which is what the expert's play is judged by in matches.
Positions the solver cannot finish within --budget nodes are counted and left out. It prints, per
cards left and kind of decision (bank-or-draw, steal), the decisions, how many were wrong, and the
regret per decision and per game.

Unlike a match result, a judged decision carries no luck: it is compared with the exact best,
not with how the cards then fell. Which positions come up still depends on the deals and on the
bot's own play (two versions meet the same deals, and the same positions until they first decide
differently). The per-game regret says how much winning share is left at that point of the game,
against the opponent judged by. It only reaches the last cards, where the solver runs: 9-10 cards
against classic (a cold solve there takes 0.1-10 s), about 9 against a perfect opponent.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import partial

from benchmarks.bots import bot_named, in_parts
from somnium_desktop.game.actions import Action, Draw, Steal
from somnium_desktop.game.bots.endgame import BANK, DRAW, Endgame, OutOfBudget
from somnium_desktop.game.bots.model import SUITS, Position
from somnium_desktop.game.bots.versus import AgainstHard
from somnium_desktop.game.state import apply, new_game
from somnium_desktop.game.view import View, view_of

FIRST_DEAL = 70_000
TABLE_CAP = SUITS
JUDGES = ("best", "classic")  # --against: a perfect opponent, or classic-8-50's own rules
CLASSIC_NAMES = ("classic-8-50", "hard")  # the opponent versus.py models


@dataclass
class Line:
    """One row of the report: the decisions of one kind at one number of cards left."""

    decisions: int = 0
    wrong: int = 0
    regret: float = 0.0
    unsolved: int = 0

    def add(self, other: Line) -> None:
        self.decisions += other.decisions
        self.wrong += other.wrong
        self.regret += other.regret
        self.unsolved += other.unsolved


@dataclass
class Regret:
    """What the bot gave away, by (cards left, "bank-or-draw" or "steal")."""

    games: int = 0
    lines: dict[tuple[int, str], Line] = field(default_factory=dict)

    def line(self, left: int, kind: str) -> Line:
        return self.lines.setdefault((left, kind), Line())

    def add(self, other: Regret) -> None:
        self.games += other.games
        for key, line in other.lines.items():
            self.line(*key).add(line)


def exact_options(
    view: View, seat: int, budget: int, against: str = "best"
) -> dict[int, float] | None:
    """The exact value of each action open to `seat` (BANK, DRAW or a suit to steal), against a
    perfect opponent or against classic-8-50's rules, or None if the solver needs more than
    `budget` positions."""
    pos = Position.of(view, seat)
    table = dict(pos.table)
    suits = [(pos.mine[s], pos.theirs[s], pos.masks[s], table.get(s, 0)) for s in range(SUITS)]
    solver = AgainstHard() if against == "classic" else Endgame()
    try:
        return solver.options(suits, pos.fools, pos.death, pos.left, view.steal_pending, budget)
    except OutOfBudget:
        return None


def option_of(action: Action) -> int:
    """The solver's key for an action."""
    if isinstance(action, Steal):
        return int(action.suit)
    return DRAW if isinstance(action, Draw) else BANK


def is_choice(view: View) -> bool:
    """Whether the player to move has more than one thing it may do."""
    if view.steal_pending:
        return len(view.stealable) > 1
    return bool(view.table) and len(view.table) < TABLE_CAP


def measure(
    pair: tuple[str, str],
    games: Sequence[int],
    seed: int,
    lefts: frozenset[int],
    budget: int,
    against: str = "best",
) -> Regret:
    """Play the given game numbers; judge pair[0]'s decisions at the given cards left."""
    found = Regret()
    for number in games:
        first = number % 2
        state = replace(new_game(seed + number), turn=first, first=first)
        bots = (bot_named(pair[0], seed + number), bot_named(pair[1], seed + number + 1))
        while not state.over:
            seat = state.turn
            view = view_of(state)
            action = bots[seat].choose(view, seat)
            if seat == 0 and view.deck_count in lefts and is_choice(view):
                kind = "steal" if view.steal_pending else "bank-or-draw"
                line = found.line(view.deck_count, kind)
                options = exact_options(view, seat, budget, against)
                if options is None:
                    line.unsolved += 1
                else:
                    lost = max(options.values()) - options[option_of(action)]
                    line.decisions += 1
                    line.wrong += lost > 1e-9
                    line.regret += lost
            state, _ = apply(state, seat, action)
        found.games += 1
    return found


def run(
    pair: tuple[str, str],
    games: int,
    seed: int,
    lefts: frozenset[int],
    budget: int,
    processes: int,
    against: str = "best",
) -> Regret:
    """Judge `games` games' decisions, split over `processes` worker processes."""
    total = Regret()
    work = partial(measure, pair, seed=seed, lefts=lefts, budget=budget, against=against)
    for part in in_parts(work, games, processes):
        total.add(part)
    return total


def report(pair: tuple[str, str], found: Regret, seconds: float, against: str = "best") -> str:
    judge = "playing by classic-8-50's rules" if against == "classic" else "at its best"
    lines = [
        f"{pair[0]} vs {pair[1]}: {found.games} games in {seconds:.0f} s; regret in win share "
        f"against the exact solve, the opponent {judge}",
        "left  decision      judged  wrong  regret/decision  regret/game  unsolved",
    ]
    for (left, kind), line in sorted(found.lines.items()):
        per_decision = line.regret / line.decisions if line.decisions else 0.0
        per_game = line.regret / found.games if found.games else 0.0
        lines.append(
            f"{left:4d}  {kind:12s}  {line.decisions:6d}  {line.wrong:5d}  "
            f"{per_decision:15.4f}  {per_game:11.4f}  {line.unsolved:8d}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bot", default="expert", help="the bot judged (a level or classic-I-A)")
    parser.add_argument("--opponent", default="classic-8-50")
    parser.add_argument("--left", type=int, action="append", help="cards left (repeatable; 8)")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=FIRST_DEAL, help="the first deal's seed")
    parser.add_argument(
        "--budget", type=int, default=300_000, help="solver positions per decision at most"
    )
    parser.add_argument("--processes", type=int, default=1, choices=(1, 2))
    parser.add_argument(
        "--against",
        default="best",
        choices=JUDGES,
        help="solve with the opponent at its best, or playing by classic-8-50's rules",
    )
    args = parser.parse_args(argv)
    if args.against == "classic" and args.opponent not in CLASSIC_NAMES:
        parser.error(
            f"--against classic solves with the opponent as classic-8-50; "
            f"--opponent is {args.opponent}"
        )
    pair = (args.bot, args.opponent)
    lefts = frozenset(args.left or [8])
    start = time.perf_counter()
    found = run(pair, args.games, args.seed, lefts, args.budget, args.processes, args.against)
    print(report(pair, found, time.perf_counter() - start, args.against), flush=True)


if __name__ == "__main__":
    main()
