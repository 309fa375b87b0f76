"""Soak: offline games played to the end with the table's motion on; run as a child process.

The window, the offline game and the computer are the app's own; a timer acts for the player
the way clicks do, and the event loop runs as in the app (QApplication.exec). Prints one JSON
line: games finished, events played, seconds. Every move's animation group is deleted when it
finishes, inside the event loop: this is what crashed the app in its first turns when those
groups were freed inside their own `finished` signal.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication

from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.memory_probe import choose
from somnium_desktop.ui.settings import Settings


def main(games: int, speed: float, seconds: float) -> int:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    store = QSettings(str(Path(tempfile.mkdtemp()) / "soak.ini"), QSettings.Format.IniFormat)
    settings = Settings(store)
    settings.reduced_motion = False
    settings.animation_speed = speed
    window = MainWindow(settings)
    window.resize(1280, 800)
    window.show()
    table = window.table
    figures = {"games": 0, "events": 0}

    def played(_event: object) -> None:
        figures["events"] += 1

    table.scene.event_played.connect(played)
    started = time.monotonic()

    def tick() -> None:
        view = table.shown
        if time.monotonic() - started > seconds:
            app.quit()
        elif view is not None and view.over and not table.scene.busy:
            figures["games"] += 1
            if figures["games"] >= games:
                app.quit()
            else:
                table.rematch()
        elif view is not None and table.my_turn():
            table.take(choose(view, view.turn))

    timer = QTimer()
    timer.timeout.connect(tick)
    timer.start(20)
    QTimer.singleShot(0, lambda: window.start_offline("normal", seed=3))
    app.exec()
    timer.stop()
    window.close()
    print(json.dumps({**figures, "seconds": round(time.monotonic() - started, 1)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])))
