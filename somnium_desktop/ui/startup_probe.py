"""For benchmarks: reports when the main window first painted the table (or when its lobby
first listed the games of its server), then quits."""

from __future__ import annotations

import time

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QWidget

from .main_window import MainWindow


def rss_kb() -> int:
    """The process's resident memory in KiB (Linux; 0 elsewhere)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class StartupProbe(QObject):
    """Watches the table's first paint; prints one JSON line of figures and quits the app.

    The figures: when the table was first painted, the CPU time to then, and how long filling
    the right-hand column took after it (the first frame is the table alone).

    With `lobby`, it waits on after the paint until the lobby has listed its server's games
    (online play starting after the first paint, as in the app) and the lobby panel has then
    been painted (what the player sees), and reports that moment too.
    """

    def __init__(self, window: MainWindow, started: float, lobby: bool = False) -> None:
        super().__init__(window)
        self.window = window
        self.started = started
        self.lobby = lobby
        self.done = False
        self.painted_at = 0.0
        self.column_at = 0.0
        self.cpu = 0.0
        self.listed_at = 0.0

    def install(self) -> None:
        self.window.table.view.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.Paint:
            return False
        if not self.done:
            self.done = True
            QTimer.singleShot(0, self.painted)  # once this paint has been done and flushed
        elif self.listed_at and self.lobby and isinstance(watched, QWidget):
            panel = self.window.lobby_panel
            if watched is panel or panel.isAncestorOf(watched):
                QTimer.singleShot(0, self.lobby_shown)  # the listed lobby, painted
        return False

    def painted(self) -> None:
        self.painted_at = time.monotonic()
        self.cpu = time.process_time()  # this process's CPU time to its first paint
        self.window.complete_column()  # (the app does it now too, if not done yet)
        self.column_at = time.monotonic()
        if not self.lobby:
            self.report("")
            return
        online = self.window.start_online()
        online.lobby_loaded.connect(self.lobby_listed)

    def lobby_listed(self) -> None:
        if self.lobby and not self.listed_at:
            self.listed_at = time.monotonic()
            app = QApplication.instance()
            assert app is not None
            app.installEventFilter(self)  # the panel's next paint shows the list
            QTimer.singleShot(1000, self.lobby_shown)  # (should no paint come, say so anyway)

    def lobby_shown(self) -> None:
        if self.lobby:
            self.lobby = False  # once
            app = QApplication.instance()
            assert app is not None
            app.removeEventFilter(self)
            self.report(f'"lobby_at": {time.monotonic()!r}, "listed_at": {self.listed_at!r}, ')

    def report(self, extra: str) -> None:
        now = self.painted_at
        column_ms = (self.column_at - now) * 1000
        # One JSON line, written by hand: importing json would be timed too.
        print(
            f'{{"painted_at": {now!r}, "since_module_start_ms": {(now - self.started) * 1000:.1f}, '
            f'{extra}"cpu_ms": {self.cpu * 1000:.1f}, "column_ms": {column_ms:.1f}, '
            f'"rss_kb": {rss_kb()}, "platform": "{QApplication.platformName()}"}}',
            flush=True,
        )
        QTimer.singleShot(250, self.finish)  # let the start-up's deferred work run first

    def finish(self) -> None:
        self.window.close()
        QApplication.quit()
