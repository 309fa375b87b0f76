"""Fit the strong bot's value model (model.py) on recorded games and print the fitted curves.

    python -m benchmarks.calibrate --games 1500                      # expert vs classic-8-50
    python -m benchmarks.calibrate --pair classic-8-50:classic-8-50  # classic self-play

Plays the pairing (deals from seed 50,000 on, away from benchmarks/bots.py's deals), records every
turn boundary where the SECOND player is about to move (for expert:X, the positions the expert's
value model judges: its turn just ended), then for each band of cards left:
- mover / other share: the share q that best predicts (least squares) each suit's final top, for
  the player about to move and for the other, by expected_top(top now, unseen, q): the model's
  MOVER_SHARE and OTHER_SHARE;
- rms: how far the final margin strays (root mean square) from the margin those predict: SPREAD.
The constants in model.py were read off this output (smoothed by hand) and then kept only where
they won paired matches (benchmarks/bots.py).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence
from dataclasses import replace

from benchmarks.bots import bot_named
from somnium_desktop.game.bots.model import SUITS, Position, Stacks, expected_top, stacks, top
from somnium_desktop.game.state import apply, new_game
from somnium_desktop.game.view import view_of

FIRST_DEAL = 50_000
Sample = tuple[Position, Stacks, Stacks, int]  # boundary, mover's final, other's final, margin


def boundaries(pair: tuple[str, str], games: int, first_deal: int = FIRST_DEAL) -> list[Sample]:
    """The turn boundaries of `games` games (deals from `first_deal` on) where pair[1] is about
    to move, with the ending."""
    samples: list[Sample] = []
    for number in range(games):
        first = number % 2
        state = replace(new_game(first_deal + number), turn=first, first=first)
        bots = (bot_named(pair[0], number), bot_named(pair[1], number + 1))
        seen = [Position.of(view_of(state), 1)] if state.turn == 1 else []
        while not state.over:
            seat = state.turn
            state, _ = apply(state, seat, bots[seat].choose(view_of(state), seat))
            if not state.over and state.turn != seat and state.turn == 1:
                seen.append(Position.of(view_of(state), 1))
        end = view_of(state)
        finals = (stacks(end, 1), stacks(end, 0))
        margin = end.scores[1] - end.scores[0]
        samples.extend((pos, *finals, margin) for pos in seen)
    return samples


def least(error: Callable[[float], float], low: float, high: float, steps: int = 40) -> float:
    """The minimum of a unimodal function on [low, high] (ternary search)."""
    for _ in range(steps):
        a, b = low + (high - low) / 3, high - (high - low) / 3
        if error(a) < error(b):
            high = b
        else:
            low = a
    return (low + high) / 2


def best_share(points: list[tuple[int, int, int]]) -> float:
    """The q minimising the squared error of expected_top(top, mask, q) against final tops."""
    return least(
        lambda q: sum((expected_top(t, m, q) - y) ** 2 for t, m, y in points), 0.01, 0.99, 30
    )


def fit(samples: list[Sample], width: int) -> None:
    bands: dict[int, list[Sample]] = {}
    for sample in samples:
        bands.setdefault(sample[0].left // width, []).append(sample)
    print("left   positions  mover_share  other_share  rms")
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
        if not movers:
            continue
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
        band_name = f"{low:2d}-{low + width - 1:2d}"
        print(f"{band_name}  {len(rows):9d}  {qm:11.3f}  {qo:11.3f}  {spread:5.2f}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1500)
    parser.add_argument("--pair", default="expert:classic-8-50", help="A:B, B's boundaries fitted")
    parser.add_argument("--width", type=int, default=2, help="cards left per band")
    args = parser.parse_args(argv)
    a, b = args.pair.split(":", 1)
    fit(boundaries((a, b), args.games), args.width)


if __name__ == "__main__":
    main()
