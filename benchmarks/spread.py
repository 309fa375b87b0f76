"""Fit how far the final margin strays from the value model's estimate, position by position.

    python -m benchmarks.spread --games 4000 --processes 2
    python -m benchmarks.spread --pair expert:classic-8-50 --games 3000 --processes 2

Plays the pairing on deals from seed 200,000 on (away from benchmarks/bots.py's deals) and takes
every turn boundary where the second player is about to move (calibrate.py's boundaries). For the
player whose turn just ended it computes the model's expected final margin and the variance of
the suits' final tops (model.suit_terms). Per band of cards left it fits, by least squares, the
squared error of the real final margin as weight * variance + per_fool * Fools left + per_death
* Death left + rest, and prints:
- those four numbers, and `scale`: what brings their mean over the band's positions to SPREAD
  squared, the typical spread the model's other curves were tuned with;
- the log loss of the results under SPREAD alone, under the fitted spread (scaled), and under
  the spread model.py uses now.
model.py's CARD_WEIGHT, FOOL_VARIANCE, DEATH_VARIANCE and REST_VARIANCE are the scaled fit of
classic self-play (`--games 4000`, bands of 3 cards), smoothed by hand. The least squares are
unconstrained: with few games a weight can come out negative (the fitted spread is then floored,
and its loss can be worse than SPREAD's), and past 30 cards or so the Fools and Death left hardly
vary, so their terms and `rest` cannot be told apart there.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence

from benchmarks.bots import in_parts
from benchmarks.calibrate import boundaries
from benchmarks.correction import solve
from somnium_desktop.game.bots.model import (
    SPREAD,
    SUITS,
    chance,
    spread_squared,
    suit_terms,
    top,
)

FIRST_DEAL = 200_000
# cards left, Fools left, Death left, expected margin, variance, real final margin
Row = tuple[int, int, int, float, float, int]


class Recorder:
    """Turn boundaries of one pairing, for the worker processes (a picklable callable)."""

    def __init__(self, pair: tuple[str, str]) -> None:
        self.pair = pair

    def __call__(self, numbers: list[int]) -> list[Row]:
        rows: list[Row] = []
        for number in numbers:  # a pair of games, each player going first in one
            for pos, _, _, margin in boundaries(self.pair, 2, FIRST_DEAL + 2 * number):
                expected = variance = 0.0
                for s in range(SUITS):
                    # pos is the mover's: its "theirs" is the player whose turn just ended
                    mean, spread = suit_terms(
                        top(pos.theirs[s]), top(pos.mine[s]), pos.masks[s], pos.left
                    )
                    expected += mean
                    variance += spread
                rows.append((pos.left, pos.fools, pos.death, expected, variance, -margin))
        return rows


def result(margin: int) -> float:
    return 1.0 if margin > 0 else 0.0 if margin < 0 else 0.5


def log_loss(p: float, y: float) -> float:
    p = min(max(p, 1e-9), 1 - 1e-9)
    return -(y * math.log(p) + (1 - y) * math.log(1 - p))


def fit(rows: list[Row], width: int) -> None:
    bands: dict[int, list[Row]] = {}
    for row in rows:
        bands.setdefault(row[0] // width, []).append(row)
    print(
        "left   positions  weight  per_fool  per_death   rest  scale   "
        "loss: SPREAD  fitted  model.py"
    )
    for band in sorted(bands):
        part = bands[band]
        features = [[row[4], row[1], row[2], 1.0] for row in part]
        targets = [(row[5] - row[3]) ** 2 for row in part]
        normal = [[sum(f[i] * f[j] for f in features) for j in range(4)] for i in range(4)]
        moment = [sum(f[i] * t for f, t in zip(features, targets, strict=True)) for i in range(4)]
        for i in range(4):
            normal[i][i] += 1e-6  # a band may never see Death or a Fool
        weights = solve(normal, moment)
        fitted = [sum(w * x for w, x in zip(weights, f, strict=True)) for f in features]
        typical = sum(SPREAD[row[0]] ** 2 for row in part) / len(part)
        scale = typical / (sum(fitted) / len(fitted))
        losses = [0.0, 0.0, 0.0]
        for row, guess in zip(part, fitted, strict=True):
            left, fools, death, expected, variance, margin = row
            y = result(margin)
            losses[0] += log_loss(chance(expected, SPREAD[left] ** 2), y)
            losses[1] += log_loss(chance(expected, max(0.25, scale * guess)), y)
            spread2 = spread_squared(variance, fools, death, left)
            losses[2] += log_loss(chance(expected, spread2), y)
        low = band * width
        w = weights
        print(
            f"{low:2d}-{min(54, low + width - 1):2d}  {len(part):9d}  {w[0]:6.2f}  {w[1]:8.1f}  "
            f"{w[2]:9.1f}  {w[3]:5.1f}  {scale:5.2f}   "
            + "  ".join(f"{loss / len(part):.4f}" for loss in losses)
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--pair", default="classic-8-50:classic-8-50", help="A:B")
    parser.add_argument("--width", type=int, default=3, help="cards left per band")
    parser.add_argument("--processes", type=int, default=1)
    args = parser.parse_args(argv)
    a, b = args.pair.split(":", 1)
    rows: list[Row] = []
    for part in in_parts(Recorder((a, b)), args.games // 2, args.processes):
        rows.extend(part)
    fit(rows, args.width)


if __name__ == "__main__":
    main()
