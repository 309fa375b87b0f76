"""Runs somnium-server with a test-only computer level "test" registered (for restart tests)."""

from __future__ import annotations

import random
import sys

from somnium_desktop.game import Action, View
from somnium_desktop.game.bots import Level, register
from somnium_server.cli import main


class PickyBot:
    """Picks a random legal action from the public view."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: View, seat: int) -> Action:
        return self.rng.choice(view.legal)


if __name__ == "__main__":
    register(Level("test", "Test", PickyBot))
    main(sys.argv[1:])
