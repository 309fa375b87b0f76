"""Soak: paints an animated table of 54 cards thousands of times; run as a child process.

Prints one JSON line: paints, grabs, seconds, and the reference count of None at the start and
at its lowest. PySide6 6.12.0 on Python 3.11 dropped a reference to None per Python paint and
aborted animated tables ("Fatal Python error: none_dealloc"); this catches any such leak.
"""

from __future__ import annotations

import json
import sys
import time

from PySide6.QtWidgets import QApplication

from somnium_desktop.ui.demo import dance
from somnium_desktop.ui.table import TableWidget


def main(seconds: float, paints: int) -> int:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    table = TableWidget()
    table.resize(1000, 680)
    table.show()
    app.processEvents()
    animation = dance(table.scene, period_ms=700)
    animation.start()
    none_start = sys.getrefcount(None)
    none_low = none_start
    done = grabs = 0
    started = time.monotonic()
    while done < paints and time.monotonic() - started < seconds:
        app.processEvents()
        table.view.viewport().repaint()
        done += 1
        if done % 25 == 0:
            table.view.grab()
            grabs += 1
            none_low = min(none_low, sys.getrefcount(None))
    animation.stop()
    table.close()
    app.processEvents()
    none_low = min(none_low, sys.getrefcount(None))
    print(json.dumps({
        "paints": done, "grabs": grabs, "seconds": round(time.monotonic() - started, 1),
        "none_start": none_start, "none_low": none_low,
    }), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(float(sys.argv[1]), int(sys.argv[2])))
