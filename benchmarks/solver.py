"""Endgame solver speed: the expert's own solves (last cards against classic-8-50) replayed.

    python -m benchmarks.solver --games 40

It plays the games once to collect every position the expert hands its solver, then times a
fresh expert solving them all again in order (its memo kept from one to the next, as in play):
the total, each solve's p50/p99/max, and how many finished within the node budget.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import replace

from benchmarks.ranks import percentile
from somnium_desktop.game.bots.classic import ClassicBot
from somnium_desktop.game.bots.model import Position
from somnium_desktop.game.bots.strong import StrongBot
from somnium_desktop.game.state import apply, new_game
from somnium_desktop.game.view import view_of


def solves(games: int) -> list[tuple[Position, bool]]:
    """Every (position, steal pending) the expert tried to solve in `games` games."""
    found: list[tuple[Position, bool]] = []
    for number in range(games):
        first = number % 2
        state = replace(new_game(number), turn=first, first=first)
        bots = (StrongBot(number), ClassicBot(8, 50, number + 1))
        while not state.over:
            seat = state.turn
            view = view_of(state)
            if seat == 0:
                pos = Position.of(view, seat)
                if pos.left <= bots[0].endgame:
                    found.append((pos, view.steal_pending))
            state, _ = apply(state, seat, bots[seat].choose(view, seat))
    return found


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40)
    args = parser.parse_args(argv)
    positions = solves(args.games)
    bot = StrongBot()
    times: list[float] = []
    finished = 0
    start = time.perf_counter()
    for pos, steal_pending in positions:
        began = time.perf_counter()
        finished += bot.solve(pos, steal_pending) is not None
        times.append(time.perf_counter() - began)
    total = time.perf_counter() - start
    ms = [t * 1000 for t in times]
    print(
        f"{len(positions)} solves from {args.games} games in {total:.2f} s, "
        f"{finished} finished within {bot.budget} positions; each: p50 {percentile(ms, 0.5):.1f} "
        f"ms, p99 {percentile(ms, 0.99):.1f} ms, max {max(ms):.1f} ms"
    )


if __name__ == "__main__":
    main()
