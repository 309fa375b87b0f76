"""Fit the strong bot's value model (model.py) on self-play games and print the fitted curves.

    python benchmarks/calibrate.py --games 2000

Plays classic(8, 50) against itself (or --players expert), records every turn boundary, then
for each band of cards left:
- MOVER_SHARE / OTHER_SHARE: the share q that best predicts (least squares) each suit's final
  top, for the player about to move and for the other, by expected_top(top now, unseen, q);
- SPREAD: how far the final margin strays (root mean square) from the margin those predict.
The constants in model.py were read off this output (rounded, smoothed by hand) and then kept
only where they won matches (benchmarks/bots.py).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence

from somnium_desktop.game.bots import Bot, make_bot
from somnium_desktop.game.bots.classic import ClassicBot
from somnium_desktop.game.bots.model import SUITS, Position, Stacks, expected_top, stacks, top
from somnium_desktop.game.state import apply, new_game
from somnium_desktop.game.view import view_of

GRID = [i / 40 for i in range(1, 40)]
Sample = tuple[Position, Stacks, Stacks, int]  # boundary, mover's final, other's final, margin


def boundaries(players: str, games: int) -> list[Sample]:
    """Every turn boundary of `games` self-play games, with how the game ended."""
    samples: list[Sample] = []
    for seed in range(games):
        bots: list[Bot]
        if players == "classic":
            bots = [ClassicBot(8, 50, seed), ClassicBot(8, 50, seed + 1)]
        else:
            bots = [make_bot(players, seed), make_bot(players, seed + 1)]
        state = new_game(10_000 + seed)
        seen = [(Position.of(view_of(state), state.turn), state.turn)]
        while not state.over:
            seat = state.turn
            state, _ = apply(state, seat, bots[seat].choose(view_of(state), seat))
            if not state.over and state.turn != seat:
                seen.append((Position.of(view_of(state), state.turn), state.turn))
        end = view_of(state)
        finals = (stacks(end, 0), stacks(end, 1))
        scores = end.scores
        for pos, mover in seen:
            margin = scores[mover] - scores[1 - mover]
            samples.append((pos, finals[mover], finals[1 - mover], margin))
    return samples


def best_share(points: list[tuple[int, int, int]]) -> float:
    """The q minimising the squared error of expected_top(top, mask, q) against final tops."""
    return min(GRID, key=lambda q: sum((expected_top(t, m, q) - y) ** 2 for t, m, y in points))


def fit(samples: list[Sample], width: int) -> None:
    bands: dict[int, list[Sample]] = {}
    for sample in samples:
        bands.setdefault(sample[0].left // width, []).append(sample)
    print("left   positions  mover_share  other_share  spread")
    for band in sorted(bands):
        rows = bands[band]
        movers = [
            (top(p.mine[s]), p.masks[s], top(f[s]))
            for p, f, _, _ in rows
            for s in range(SUITS)
            if p.masks[s]
        ]
        others = [
            (top(p.theirs[s]), p.masks[s], top(f[s]))
            for p, _, f, _ in rows
            for s in range(SUITS)
            if p.masks[s]
        ]
        qm, qo = best_share(movers), best_share(others)
        errors = []
        for pos, _, _, margin in rows:
            guess = sum(
                expected_top(top(pos.mine[s]), pos.masks[s], qm)
                - expected_top(top(pos.theirs[s]), pos.masks[s], qo)
                for s in range(SUITS)
            )
            errors.append((margin - guess) ** 2)
        spread = math.sqrt(sum(errors) / len(errors))
        low = band * width
        print(
            f"{low:2d}-{low + width - 1:2d}  {len(rows):9d}  {qm:11.3f}  {qo:11.3f}  {spread:6.2f}"
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", default="classic", help="classic, or a level key")
    parser.add_argument("--width", type=int, default=4, help="cards left per band")
    args = parser.parse_args(argv)
    fit(boundaries(args.players, args.games), args.width)


if __name__ == "__main__":
    main()
