"""Game analysis speed: whole finished games judged decision by decision, as the server would.

    python -m benchmarks.analysis --games 200

It first plays the games (untimed; deal g from seed g plus --seed, the first player
alternating; by default the expert against Hard, --pair A:B for other levels), then times, per
game, building the analysis input from the stored actions (public_game) and analysing it
(analyse): p50, p95 and max per game (with the slowest deal), the decisions per game, and the
load average beside them. It also prints, per level, the marks its decisions earned per game
and its mean accuracy.
Target: p95 under 2 s (docs/targets.md).
"""

from __future__ import annotations

import argparse
import os
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from benchmarks.ranks import percentile
from somnium_desktop.game.actions import Action
from somnium_desktop.game.analysis import analyse, public_game
from somnium_desktop.game.bots import make_bot
from somnium_desktop.game.state import GameState, apply, new_game
from somnium_desktop.game.view import view_of

TARGET_P95 = 2.0  # seconds per game
PLURALS = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}


def game(number: int, pair: tuple[str, str]) -> tuple[GameState, list[tuple[int, Action]]]:
    """A game's start and its actions, as the server stores them."""
    first = number % 2
    start = replace(new_game(number), turn=first, first=first)
    bots = (make_bot(pair[0], number), make_bot(pair[1], number + 1))
    actions: list[tuple[int, Action]] = []
    state = start
    while not state.over:
        seat = state.turn
        action = bots[seat].choose(view_of(state), seat)
        actions.append((seat, action))
        state, _ = apply(state, seat, action)
    return start, actions


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0, help="deal g is seed g + SEED")
    parser.add_argument("--pair", default="expert:hard", help="the levels of seats 0 and 1, A:B")
    args = parser.parse_args(argv)
    a, _, b = args.pair.partition(":")
    games = [game(args.seed + n, (a, b or a)) for n in range(args.games)]
    load_before = os.getloadavg()
    times: list[float] = []
    decisions = 0
    marks: dict[str, Counter[str]] = {a: Counter(), b or a: Counter()}
    accuracy: dict[str, list[float]] = {a: [], b or a: []}
    levels = (a, b or a)  # by seat (the seat that starts alternates)
    for start, actions in games:
        began = time.perf_counter()
        analysis = analyse(public_game(start, actions))
        times.append(time.perf_counter() - began)
        decisions += len(analysis.decisions)
        for judged in analysis.decisions:
            if judged.mark:
                marks[levels[judged.seat]][judged.mark] += 1
        for seat, figure in enumerate(analysis.accuracy):
            if figure is not None:
                accuracy[levels[seat]].append(figure)
    load_after = os.getloadavg()
    p95 = percentile(times, 0.95)
    print(
        f"{len(games)} games ({args.pair}), {decisions / len(games):.0f} decisions each: "
        f"analysis p50 {percentile(times, 0.5):.3f} s, p95 {p95:.3f} s, max {max(times):.3f} s "
        f"(deal {args.seed + times.index(max(times))}); "
        f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after"
    )
    for level, found in marks.items():
        each = ", ".join(
            f"{found[mark] / len(games):.2f} {plural}" for mark, plural in PLURALS.items()
        )
        mean = sum(accuracy[level]) / max(1, len(accuracy[level]))
        print(f"{level}: per game {each}; mean accuracy {mean:.2f}%")
    verdict = "met" if p95 < TARGET_P95 else "NOT met"
    print(f"target p95 < {TARGET_P95:.0f} s a game: {verdict}")


if __name__ == "__main__":
    main()
