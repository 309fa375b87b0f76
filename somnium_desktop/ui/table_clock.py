"""The running clock of the player to move, beside their name: counted down from the server's
deadline, and a warning in its last seconds (a style, a beep, and the screen reader)."""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QApplication

from .accessibility import announce

if TYPE_CHECKING:
    from ..client.source import TableSource
    from .table_frame import TableFrame

WARN_SECONDS = 10  # the last seconds of a clock are shown as a warning
TICK_MS = 250  # a quarter second: the shown second changes close to when it should


def clock_text(seconds: int) -> str:
    """ "0:27" """
    return f"{seconds // 60}:{seconds % 60:02d}"


class TableClock(QObject):
    """Shows the source's clock on the strip of the player to move, each quarter second."""

    def __init__(self, table: TableFrame) -> None:
        super().__init__(table)
        self.table = table
        self.source: TableSource | None = None
        self.timer = QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self.tick)
        self.warned: float | None = None  # the deadline already warned of (once each)
        self.left: int | None = None  # the seconds shown, if a clock is shown

    def follow(self, source: TableSource | None) -> None:
        """Count down `source`'s clock (None: none)."""
        if self.source is not None:
            self.source.clock_changed.disconnect(self.tick)
        self.source = source
        if source is not None:
            source.clock_changed.connect(self.tick)
        self.tick()

    def tick(self) -> None:
        table, source = self.table, self.source
        clock = source.clock if source is not None else None
        shown = table.shown
        if clock is None or source is None or (shown is not None and shown.over):
            self.timer.stop()
            self.left = None
            table.me.set_clock("", False)
            table.opponent.set_clock("", False)
            return
        seat, at = clock
        left = max(0, math.ceil(at - time.monotonic()))
        self.left = left
        warning = left <= WARN_SECONDS
        mine = seat == table.scene.bottom_seat
        (table.me if mine else table.opponent).set_clock(clock_text(left), warning)
        (table.opponent if mine else table.me).set_clock("", False)
        if warning and self.warned != at and seat == source.my_seat and left > 0:
            self.warned = at
            QApplication.beep()
            text = f"{left} seconds left to play."
            table.last_announcement = text
            announce(table.view, text, assertive=True)
        if not self.timer.isActive():
            self.timer.start()
