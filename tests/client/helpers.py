"""A tiny computer player for tests: predictable, so games can be driven step by step."""

from __future__ import annotations

from somnium_desktop.game import Action, Draw, EndTurn, Steal, View


class PlainBot:
    """Steals the first suit offered, banks once the table holds `keep` cards, else draws."""

    def __init__(self, keep: int = 2) -> None:
        self.keep = keep
        self.calls = 0

    def choose(self, view: View, seat: int) -> Action:
        self.calls += 1
        assert view.turn == seat, "a bot is only asked on its own turn"
        if view.steal_pending:
            return Steal(view.stealable[0])
        if len(view.table) >= self.keep and EndTurn() in view.legal:
            return EndTurn()
        return Draw()
