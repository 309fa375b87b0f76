"""Engine speed: random games (random legal actions, Concede left out) and actions per second.

python benchmarks/engine.py --games 2000
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence

from somnium_desktop.game.actions import Concede
from somnium_desktop.game.state import apply, legal_actions, new_game


def random_game(seed: int) -> int:
    """Play one game with random legal moves; the number of actions it took."""
    rng = random.Random(seed)
    state = new_game(seed)
    actions = 0
    while not state.over:
        seat = state.turn
        choices = [a for a in legal_actions(state, seat) if not isinstance(a, Concede)]
        state, _ = apply(state, seat, rng.choice(choices))
        actions += 1
    return actions


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    actions = sum(random_game(seed) for seed in range(args.games))
    seconds = time.perf_counter() - start
    print(
        f"{args.games} random games, {actions} actions in {seconds:.2f} s: "
        f"{args.games / seconds:.0f} games/s, {actions / seconds:.0f} actions/s "
        f"({actions / args.games:.1f} actions a game)"
    )


if __name__ == "__main__":
    main()
