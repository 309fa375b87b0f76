"""`somnium --smoke-test`: once the window has painted, check the art and the icon, then quit.

For installs and bundles: exits 0 only if the main window showed and painted, the card art was
found and holds every card, the window icon renders and there is a font to write with;
otherwise it says what is wrong and exits 1 (2 if the window never painted).
"""

from __future__ import annotations

import time

from PySide6.QtCore import QEvent, QObject, QSize, QTimer
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QApplication

from ..card_ids import ALL_IDS
from .cards import CardDeck
from .main_window import MainWindow

#: How long the window may take to paint before the smoke test gives up.
PAINT_DEADLINE_MS = 30_000
#: How long, after the paint, the app may take to set its window icon (it comes after online
#: play has begun), in checks 10 ms apart.
ICON_CHECKS = 200


def problems(window: MainWindow, deck: CardDeck) -> list[str]:
    """What is wrong with the window, the art or the icon; empty if all is well."""
    found = []
    if not window.isVisible():
        found.append("the main window is not visible")
    if not deck.path.is_file():
        found.append(f"the card art is missing: {deck.path}")
    elif not deck.renderer().isValid():
        found.append(f"the card art cannot be read: {deck.path}")
    else:
        missing = [element for element in ALL_IDS if not deck.has(element)]
        if missing:
            found.append(f"the card art lacks {len(missing)} elements, e.g. {missing[0]}")
    if window.windowIcon().pixmap(QSize(64, 64)).isNull():
        found.append("the window icon does not render")
    if not QFontDatabase.families():
        found.append("no fonts: every text is blank (install one, e.g. fonts-dejavu-core)")
    return found


class SmokeTest(QObject):
    """Waits for the table's first paint, then reports and quits with the outcome."""

    def __init__(self, window: MainWindow, deck: CardDeck, started: float) -> None:
        super().__init__(window)
        self.window = window
        self.deck = deck
        self.started = started
        self.painted = False
        self.icon_checks = 0

    def install(self) -> None:
        self.window.table.view.viewport().installEventFilter(self)
        QTimer.singleShot(PAINT_DEADLINE_MS, self.give_up)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if not self.painted and event.type() == QEvent.Type.Paint:
            self.painted = True
            # Once this paint is done and what the app does right after it (the icon, the
            # column: queued in this same paint) has been done too.
            QTimer.singleShot(0, lambda: QTimer.singleShot(0, self.report))
        return False

    def report(self) -> None:
        if self.window.windowIcon().isNull() and self.icon_checks < ICON_CHECKS:
            self.icon_checks += 1  # not set yet: the app sets it a little after the paint
            QTimer.singleShot(10, self.report)
            return
        elapsed = (time.monotonic() - self.started) * 1000
        found = problems(self.window, self.deck)
        print(f"smoke test: painted on {QApplication.platformName()} after {elapsed:.0f} ms; "
              f"card art {self.deck.path}", flush=True)
        for problem in found:
            print(f"smoke test: {problem}", flush=True)
        self.finish(1 if found else 0)

    def give_up(self) -> None:
        if not self.painted:
            print(f"smoke test: the window did not paint in {PAINT_DEADLINE_MS} ms", flush=True)
            self.finish(2)

    def finish(self, status: int) -> None:
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        app.setQuitOnLastWindowClosed(False)  # its quit would overwrite the status with 0
        self.window.close()
        app.exit(status)
