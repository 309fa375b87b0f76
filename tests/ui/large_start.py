"""A child program: the app's window started large from its saved settings, then shrunk.

Run as `python -m tests.ui.large_start SETTINGS_FILE` on a platform whose screen is
2560x1440 (test_window_room gives the offscreen platform such a screen): a window at 2560x1440
is closed (it saves its geometry in the settings), then a new one is built from them as the app
builds it (its column filled after the first frame), and resized once to 1024x640, then once to
its least size. Prints the sizes and minimums seen, as JSON.
"""

from __future__ import annotations

import json
import sys

from PySide6.QtCore import QSettings, QSize
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.settings import Settings
from somnium_desktop.ui.style import apply_style
from tests.online.helpers import LEVELS

SETTLE_MS = 150


def pair(size: QSize) -> list[int]:
    return [size.width(), size.height()]


def main(settings_file: str) -> None:
    app = QApplication([])
    apply_style(app, set_style=False)
    settings = Settings(QSettings(settings_file, QSettings.Format.IniFormat))
    first = MainWindow(settings, LEVELS)
    first.resize(2560, 1440)
    first.show()
    QTest.qWait(SETTLE_MS)
    first.close()  # (its geometry saved)
    window = MainWindow(settings, LEVELS, column_after_paint=True)
    window.show()
    QTest.qWait(SETTLE_MS)
    window.complete_column()  # (as the app does after the first paint)
    QTest.qWait(SETTLE_MS)
    seen = {"started": pair(window.size()), "least_large": pair(window.minimumSizeHint())}
    window.resize(1024, 640)
    QTest.qWait(SETTLE_MS)
    seen |= {"small": pair(window.size()), "least_small": pair(window.minimumSizeHint())}
    window.resize(2560, 1440)
    QTest.qWait(SETTLE_MS)
    window.resize(window.minimumSizeHint())  # (the least, as the large window measures it)
    QTest.qWait(SETTLE_MS)
    seen |= {"least": pair(window.size()), "least_after": pair(window.minimumSizeHint())}
    window.close()
    print(json.dumps(seen))
    app.quit()


if __name__ == "__main__":
    main(sys.argv[1])
