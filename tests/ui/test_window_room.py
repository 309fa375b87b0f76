"""The window's room between the table and the column: shrinking a large window in one step
(one started large too), and the lobby's player columns whole on a wide one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QTableWidget
from pytestqt.qtbot import QtBot

from somnium_desktop.client.lobby_records import GameSummary, Seat
from somnium_desktop.ui.lobby_games import CELL_PADDING, SEAT_1, SEAT_2
from somnium_desktop.ui.main_window import MainWindow
from tests.ui.driver import play_to_the_end
from tests.ui.test_main_window import window

__all__ = ["window"]  # (the fixture)

pytestmark = pytest.mark.usefixtures("app_style")  # its paddings and bold labels

ADA = Seat(0, "person", "u-ada", "Ada", rating="1623")
ROBIN = Seat(1, "person", "u-robin", "Robin", rating="1487?")
BEATRICE = Seat(0, "person", "u-bea", "Beatrice", rating="1502")
RATED = [
    GameSummary("A1", "Friday night", "playing", (ADA, ROBIN), turn=0, observers=1, rated=True),
    GameSummary("B2", "Rematch", "playing", (BEATRICE, Seat(1, "person", "u-ada", "Ada",
                                                             rating="1623")), turn=1, rated=True),
    GameSummary("C3", "Robin's open table", "waiting",
                (Seat(0, "person", "u-robin", "Robin", rating="1487?"), Seat(1, "open"))),
]


def resized_once(qtbot: QtBot, window: MainWindow, size: QSize) -> None:
    """One resize, as a window manager's, then the event loop runs until the layout settles."""
    window.resize(size)
    qtbot.wait(100)


def test_one_step_takes_a_large_window_down(qtbot: QtBot, window: MainWindow) -> None:
    window.lobby_panel.set_games(RATED, me=None)
    window.start_offline("careful", seed=3)
    play_to_the_end(qtbot, window.table)
    QTest.keyClick(window.table, Qt.Key.Key_P)  # the replay's bar under the table
    qtbot.waitUntil(lambda: window.table.replay is not None)
    small = QSize(1024, 640)
    for _ in range(5):  # (its least height depends on its width: a status line wraps)
        if window.size() == window.minimumSizeHint():
            break
        resized_once(qtbot, window, window.minimumSizeHint())
    least = window.size()
    assert least.width() < 1024 and least == window.minimumSizeHint()
    shares = {}
    for size in (small, least):
        resized_once(qtbot, window, size)
        shares[size.width()] = window.splitter.sizes()
    for size in (small, least):
        resized_once(qtbot, window, QSize(2560, 1440))
        assert window.size() == QSize(2560, 1440)
        resized_once(qtbot, window, size)  # (clamped to the grown text's minimum before:
        assert window.width() == size.width()  # 1,000 to 1,100 pixels)
        assert window.height() == max(size.height(), window.minimumSizeHint().height())
        assert window.splitter.sizes() == shares[size.width()]  # the table keeps its share
    # at the least it was asked for: the least height itself moves with the wrapping of a
    # line of text at that width (468 or 439 pixels here, from one run to the next)
    assert window.size() == least.expandedTo(window.minimumSizeHint())


def player_cells_cut(window: MainWindow) -> list[tuple[str, int, int]]:
    """(text, width needed, column width) of the player cells too narrow for their text."""
    games = window.lobby_panel.games
    cut = []
    for row in range(games.rowCount()):
        for column in (SEAT_1, SEAT_2):
            item = games.item(row, column)
            assert item is not None
            needed = QFontMetrics(item.font()).horizontalAdvance(item.text()) + CELL_PADDING
            if needed > games.columnWidth(column):
                cut.append((item.text(), needed, games.columnWidth(column)))
    return cut


@pytest.mark.parametrize("size", [QSize(1366, 768), QSize(1920, 1080), QSize(2560, 1440)])
def test_the_players_ratings_show_whole_on_a_wide_window(
    qtbot: QtBot, window: MainWindow, size: QSize
) -> None:
    window.lobby_panel.set_games(RATED, me=None)
    resized_once(qtbot, window, size)
    assert window.size() == size
    assert player_cells_cut(window) == []  # ("Ada (16…", "Robin (1…" before)
    table, column = window.splitter.sizes()
    assert window.table.view.width() >= column, (table, column)


SCREEN = {"screens": [{"name": "large", "x": 0, "y": 0, "width": 2560, "height": 1440,
                       "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}


@pytest.mark.usefixtures("qapp")  # (for app_style: the window is in a child process)
def test_a_window_started_large_from_its_settings_has_the_base_minimum(
    tmp_path: Path,
) -> None:
    """A window whose saved geometry is 2560x1440, built as the app builds it (the column
    after the first frame), in a process of its own on a 2560x1440 offscreen screen."""
    screens = tmp_path / "screens.json"
    screens.write_text(json.dumps(SCREEN), encoding="utf-8")
    env = dict(os.environ, QT_QPA_PLATFORM=f"offscreen:configfile={screens}")
    run = subprocess.run(
        [sys.executable, "-m", "tests.ui.large_start", str(tmp_path / "settings.ini")],
        capture_output=True, text=True, timeout=120, env=env,
    )
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout.splitlines()[-1])
    assert seen["started"][0] > 2000, seen  # (restored large)
    assert seen["small"] == [1024, 640], seen  # one resize down
    base = seen["least_small"]  # (measured with the text at its base size)
    assert seen["least_large"][0] == base[0], seen  # (364: the column's room not counted)
    assert seen["least_large"][1] <= base[1], seen  # (a status line may wrap when narrow)
    assert seen["least"] == seen["least_after"], seen  # its least in one step


def shown(games: QTableWidget, cells: Iterable[tuple[int, int]]) -> dict[tuple[int, int], str]:
    """The text each of these cells shows."""
    texts = {}
    for row, column in cells:
        item = games.item(row, column)
        assert item is not None
        texts[(row, column)] = item.text()
    return texts


def least_size(qtbot: QtBot, window: MainWindow) -> QSize:
    """Resize the window to its least size (its least height depends on its width)."""
    for _ in range(5):
        if window.size() == window.minimumSizeHint():
            break
        resized_once(qtbot, window, window.minimumSizeHint())
    return window.size()


@pytest.mark.parametrize("size", [QSize(1024, 640), None], ids=["1024x640", "least"])
def test_the_players_ratings_show_whole_on_a_small_window(
    qtbot: QtBot, window: MainWindow, size: QSize | None
) -> None:
    """A player's name with its rating is what the lobby is scanned for: the status gives
    first ("Waiting", its "rated" in the tooltip), and a name cut keeps its rating while two
    of its letters fit beside it (else the name alone)."""
    window.lobby_panel.set_games(RATED, me=None)
    if size is None:
        least_size(qtbot, window)
    else:
        resized_once(qtbot, window, size)
    games = window.lobby_panel.games
    whole = {}
    for row, game in enumerate(RATED):
        for column, seat in ((SEAT_1, game.players[0]), (SEAT_2, game.players[1])):
            if seat.kind == "person":
                whole[(row, column)] = f"{seat.name} ({seat.rating})"
    if size is not None:
        assert player_cells_cut(window) == []  # ("Robin (1…" and "Cy (150…" before)
    cut = shown(games, whole)
    for (row, column), text in whole.items():
        item = games.item(row, column)
        assert item is not None
        rating = text[text.index("("):]
        name = text[:text.index(" (")]
        if item.text() != name:  # (too narrow for two letters and the rating: the name)
            assert item.text().endswith(rating), (item.text(), text)  # ("Robi…" before)
            assert item.text()[:2] == name[:2], (item.text(), text)  # (not "…(1487?)")
        assert text in item.toolTip()
    assert player_cells_cut(window) == []
    games.set_live(False)  # the server lost, then found again: the same texts
    games.set_live(True)
    assert shown(games, whole) == cut
    assert player_cells_cut(window) == []
