"""What the window's start does not pay for: a hidden replay bar's measuring, the network
client's modules for an offline table's chat, the odds' modules while no odds are shown."""

from __future__ import annotations

import subprocess
import sys

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from somnium_desktop.ui.replay_bar import ReplayBar

CHILD = """
import sys
from PySide6.QtWidgets import QApplication
app = QApplication([])
from somnium_desktop.game.bots import levels
from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.settings import Settings
from PySide6.QtCore import QSettings
window = MainWindow(Settings(QSettings(sys.argv[1], QSettings.Format.IniFormat)), levels())
window.show()
window.start_offline("careful", seed=3)
for _ in range(20):
    app.processEvents()
print(sorted(m for m in ("requests", "somnium_desktop.client.lobby_client",
                         "somnium_desktop.game.odds") if m in sys.modules))
"""


def test_a_hidden_replay_bar_is_measured_as_it_shows(qtbot: QtBot) -> None:
    """The bar's words are measured (whole and brief) once it shows, not at every style
    change while hidden: the window's start changed its style nine times."""
    holder = QWidget()
    qtbot.addWidget(holder)
    actions = [QAction(text, holder) for text in ("« Start", "◀ Back", "Forward ▶", "End »")]
    bar = ReplayBar(actions, QAction("Leave replay", holder), QAction("Analysis", holder),
                    holder)
    bar.hide()
    holder.show()
    bar.setStyleSheet("QToolButton { font-size: 14pt; }")  # (a style change, hidden)
    qtbot.wait(20)
    assert bar.widths == (0, 0)  # not measured yet
    bar.show()
    qtbot.waitUntil(lambda: bar.widths[0] > bar.widths[1] > 0)


def test_an_offline_table_loads_no_network_client(tmp_path: object) -> None:
    """Built for an offline game, the window (its column and the table's chat) imports no
    HTTP client: that cost 20 MB and 100 ms of the UI thread just after the first paint. Nor
    the odds (and `fractions`), about 10 ms, until odds are shown."""
    run = subprocess.run([sys.executable, "-c", CHILD, f"{tmp_path}/settings.ini"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines()[-1] == "[]", run.stdout
