"""For benchmarks: reports when the main window first painted the table (or when its lobby
first listed the games of its server), then quits."""

from __future__ import annotations

import time

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication

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
    (online play starting after the first paint, as in the app) and reports that moment too.
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

    def install(self) -> None:
        self.window.table.view.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if not self.done and event.type() == QEvent.Type.Paint:
            self.done = True
            QTimer.singleShot(0, self.painted)  # once this paint has been done and flushed
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
        if self.lobby:
            self.lobby = False  # once
            self.report(f'"lobby_at": {time.monotonic()!r}, ')

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
