"""For benchmarks: the app run as a player runs it, with a mark printed at the moments its
resident memory is worth reading from outside (the lobby listed, a whole game played)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QApplication

from ..game import Action, Draw, EndTurn, Steal, View
from .main_window import MainWindow

SETTLE_MS = 1500  # quiet time before a mark (deferred work done, caches filled)
READ_MS = 1000  # time left to the reader after a mark, before the app moves on
TICK_MS = 50  # how often the player looks at the table


def choose(view: View, seat: int) -> Action:
    """A plain player: steal the opponent's richest suit, bank two cards (or near the end of
    the deck), else draw."""
    if view.steal_pending:
        bank = view.banks[1 - seat]
        return Steal(max(view.stealable, key=lambda s: max(c.value for c in bank if c.suit == s)))
    if EndTurn() in view.legal and (len(view.table) >= 2 or view.deck_count <= 3):
        return EndTurn()
    return Draw()


class MemoryProbe(QObject):
    """Waits for the lobby to list its server's games (online play started by the app as
    usual), marks; plays one whole offline game on the table, as clicks and keys would, at
    the player's animation speed; marks again; quits.

    A mark is one line on standard output, `{"stage": ..., "pid": ...}`: the benchmark reads
    /proc of this process (and of the built-in server) while the app waits."""

    def __init__(self, window: MainWindow, level: str = "normal", seed: int = 7) -> None:
        super().__init__(window)
        self.window = window
        self.level = level
        self.seed = seed
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.tick)

    def install(self) -> None:
        """Called after the first paint, as the app's own start of online play (which this
        starts, or finds started)."""
        self.window.start_online().lobby_loaded.connect(self.lobby_listed)

    def lobby_listed(self) -> None:
        if self.timer.isActive() or self.window.source is not None:
            return  # (a snapshot again, after a reconnect)
        QTimer.singleShot(SETTLE_MS, lambda: self.mark("lobby", self.play))

    def mark(self, stage: str, then: Callable[[], object]) -> None:
        sys.stdout.write(f'{{"stage": "{stage}", "pid": {os.getpid()}}}\n')
        sys.stdout.flush()
        QTimer.singleShot(READ_MS, then)

    def play(self) -> None:
        self.window.start_offline(self.level, seed=self.seed)
        self.timer.start(TICK_MS)

    def tick(self) -> None:
        table = self.window.table
        view = table.shown
        if view is not None and view.over and not table.scene.busy:
            self.timer.stop()
            QTimer.singleShot(SETTLE_MS, lambda: self.mark("game", self.finish))
        elif view is not None and table.my_turn():
            table.take(choose(view, view.turn))

    def finish(self) -> None:
        self.window.close()
        QApplication.quit()
