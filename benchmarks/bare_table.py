"""Reference for the start-up benchmark: the barest PySide6 table of 54 SVG cards.

A window with a QGraphicsView showing the 54 cards rendered from the deck art, and nothing
else (no menus, no panel, no log, no game code); it prints when it was first painted, in the
same form as `python -m somnium_desktop --benchmark-startup`, then quits.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QRectF, Qt, QTimer
from PySide6.QtGui import QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QApplication, QGraphicsScene, QGraphicsView

ART = Path(__file__).resolve().parent.parent / "resources" / "cards" / "deck.svg"
SUITS = ("angels", "suns", "wands", "cups", "towers", "swords", "dragons", "pentacles",
         "moons", "demons")


class FirstPaint(QObject):
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            watched.removeEventFilter(self)
            QTimer.singleShot(0, report)
        return False


def report() -> None:
    now = time.monotonic()
    print(f'{{"painted_at": {now!r}, "cpu_ms": {time.process_time() * 1000:.1f}, '
          f'"rss_kb": 0, "platform": "{QApplication.platformName()}"}}', flush=True)
    QApplication.quit()


def main() -> int:
    app = QApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(ART))
    ids = [f"{s}_{v}" for s in SUITS for v in range(3, 8)] + ["fool"] * 3 + ["death"]
    scene = QGraphicsScene()
    for i, element in enumerate(ids):
        pixmap = QPixmap(70, 98)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        renderer.render(painter, element, QRectF(0, 0, 70, 98))
        painter.end()
        scene.addPixmap(pixmap).setPos((i % 12) * 76, (i // 12) * 104)
    view = QGraphicsView(scene)
    view.resize(1280, 800)
    probe = FirstPaint()
    view.viewport().installEventFilter(probe)
    view.show()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
