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
import time

from PySide6.QtCore import QSettings, QSize
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.settings import Settings
from somnium_desktop.ui.style import apply_style
from tests.online.helpers import LEVELS

SETTLE_MS = 150


def settle(window: MainWindow) -> None:
    """Wait SETTLE_MS, then until the window's size and minimum stay the same for a
    further SETTLE_MS (a loaded machine may take longer to lay it out), at most 5 s."""
    deadline = time.monotonic() + 5
    QTest.qWait(SETTLE_MS)
    while time.monotonic() < deadline:
        before = (window.size(), window.minimumSizeHint())
        QTest.qWait(SETTLE_MS)
        if (window.size(), window.minimumSizeHint()) == before:
            return


def pair(size: QSize) -> list[int]:
    return [size.width(), size.height()]


def main(settings_file: str) -> None:
    app = QApplication([])
    apply_style(app, set_style=False)
    settings = Settings(QSettings(settings_file, QSettings.Format.IniFormat))
    first = MainWindow(settings, LEVELS)
    first.resize(2560, 1440)
    first.show()
    settle(first)
    first.close()  # (its geometry saved)
    window = MainWindow(settings, LEVELS, column_after_paint=True)
    window.show()
    settle(window)
    window.complete_column()  # (as the app does after the first paint)
    settle(window)
    seen = {"started": pair(window.size()), "least_large": pair(window.minimumSizeHint())}
    window.resize(1024, 640)
    settle(window)
    seen |= {"small": pair(window.size()), "least_small": pair(window.minimumSizeHint())}
    window.resize(2560, 1440)
    settle(window)
    window.resize(window.minimumSizeHint())  # (the least, as the large window measures it)
    settle(window)
    seen |= {"least": pair(window.size()), "least_after": pair(window.minimumSizeHint())}
    window.close()
    print(json.dumps(seen))
    app.quit()


if __name__ == "__main__":
    main(sys.argv[1])
