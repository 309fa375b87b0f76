"""The Analysis window and the replay, offline: a click on the graph of a finished game opens
its replay at that moment; a replay's Analysis button (and A) opens the window, whose clicks
move the replay and whose graph follows it."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from somnium_desktop.client.analysis import AnalysisState
from somnium_desktop.client.offline import OfflineGame
from somnium_desktop.client.replay_source import ReplaySource
from somnium_desktop.game.analysis import PublicGame
from somnium_desktop.game.analysis_data import analysed
from somnium_desktop.ui.analysis_view import AnalysisDialog, WinChanceGraph
from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.table import TableWidget
from tests.ui.driver import activate, play_to_the_end
from tests.ui.test_main_window import window  # noqa: F401  (the main window, offline)


def click_point(qtbot: QtBot, graph: WinChanceGraph, step: int) -> None:
    with qtbot.waitSignal(graph.moment_chosen, timeout=2000) as blocker:
        QTest.mouseClick(graph, Qt.MouseButton.LeftButton,
                         pos=graph.point_of_step(step).toPoint())
    assert blocker.args == [step]


def at_step(qtbot: QtBot, table: TableWidget, step: int) -> None:
    """The table's replay is at `step` and the table shows its view there, settled."""
    qtbot.waitUntil(lambda: table.replay is not None and table.replay.step == step
                    and not table.scene.busy and table.shown == table.replay.steps[step].view,
                    timeout=5000)


def finished(qtbot: QtBot, main: MainWindow) -> tuple[OfflineGame, dict[str, Any]]:
    """An offline game played to its end, and the analysis its result panel got."""
    game = main.start_offline(seed=11)
    assert isinstance(game, OfflineGame)
    play_to_the_end(qtbot, main.table)
    block = main.table.result_analysis
    qtbot.waitUntil(lambda: block.state is AnalysisState.READY, timeout=30000)
    assert block.data is not None
    return game, block.data


def test_a_click_on_the_result_panels_graph_opens_the_replay_there(
    qtbot: QtBot, window: MainWindow  # noqa: F811
) -> None:
    game, data = finished(qtbot, window)
    table = window.table
    block = table.result_analysis
    assert table.replay is None
    QTest.mouseClick(block.button, Qt.MouseButton.LeftButton)
    dialog = block.dialog
    assert isinstance(dialog, AnalysisDialog) and not dialog.isModal()
    qtbot.waitExposed(dialog)
    graph = dialog.view.graph
    middle = data["decisions"][len(data["decisions"]) // 2]["step"]
    assert 0 < middle < data["end_step"]
    click_point(qtbot, graph, middle)
    at_step(qtbot, table, middle)  # the game's replay, opened at that moment
    assert isinstance(window.source, ReplaySource) and window.source.game_id == game.game_id
    length = window.source.replay.length
    assert table.replaying.bar.position.text() == f"Move {middle} of {length}"
    # the window stays open (its game's replay) and later clicks move the replay
    assert block.dialog is dialog and dialog.isVisible()
    for step in (0, data["end_step"], middle - 1):
        click_point(qtbot, graph, step)
        at_step(qtbot, table, step)
        assert graph.chosen == step
    # stepping the replay moves the graph's mark
    activate(qtbot, table)
    QTest.keyClick(table, Qt.Key.Key_Right)
    at_step(qtbot, table, middle)
    assert graph.chosen == middle
    # leaving the replay closes the window
    QTest.mouseClick(table.replaying.bar.leave_button, Qt.MouseButton.LeftButton)
    assert window.source is None and block.dialog is None and not dialog.isVisible()


def test_a_replays_analysis_button_opens_the_window_and_its_clicks_move_the_replay(
    qtbot: QtBot, window: MainWindow  # noqa: F811
) -> None:
    _game, data = finished(qtbot, window)
    table = window.table
    activate(qtbot, table)
    QTest.keyClick(table, Qt.Key.Key_P)
    at_step(qtbot, table, 0)
    assert table.result_analysis.dialog is None
    bar = table.replaying.bar
    assert bar.analysis_button.isVisible() and table.replaying.analysis_action.isEnabled()
    QTest.mouseClick(bar.analysis_button, Qt.MouseButton.LeftButton)
    windows = table.result_analysis.window
    dialog = windows.dialog
    assert dialog is not None
    qtbot.waitExposed(dialog)
    graph = dialog.view.graph
    qtbot.waitUntil(lambda: bool(graph.values), timeout=30000)
    # computed from the replay's public views: the same analysis as the game's end
    assert graph.steps == [d["step"] for d in data["decisions"]] + [data["end_step"]]
    assert graph.values == data["curve"]  # (seat 0: the player's)
    assert dialog.view.decisions.topLevelItemCount() == len(data["decisions"])
    assert graph.chosen == 0  # the step the replay shows
    for step in (data["decisions"][-1]["step"], 1, data["end_step"]):
        click_point(qtbot, graph, step)
        at_step(qtbot, table, step)
    # A (the bar's Analysis) brings the same window back, closed or not
    dialog.close()
    activate(qtbot, table)
    QTest.keyClick(table, Qt.Key.Key_Home)
    at_step(qtbot, table, 0)
    QTest.keyClick(table, Qt.Key.Key_A)
    assert windows.dialog is dialog
    qtbot.waitUntil(dialog.isVisible, timeout=2000)
    assert graph.chosen == 0


def test_the_window_kept_for_the_replay_gets_the_analysis_still_worked_out(
    qtbot: QtBot, window: MainWindow, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    """The window opened from the result while the analysis is worked out, then the game's
    replay (P): the window stays, and the answer that comes fills it."""
    done = threading.Event()

    def held(game: PublicGame) -> dict[str, Any]:  # (a long game on a busy machine)
        done.wait(30)
        return analysed(game)

    monkeypatch.setattr("somnium_desktop.client.offline.analysed", held)
    try:
        window.start_offline(seed=11)
        table = window.table
        play_to_the_end(qtbot, table)
        block = table.result_analysis
        qtbot.waitUntil(lambda: block.state is AnalysisState.WORKING and block.button.isVisible(),
                        timeout=5000)
        QTest.mouseClick(block.button, Qt.MouseButton.LeftButton)
        dialog = block.dialog
        assert dialog is not None and not dialog.view.graph.values
        qtbot.waitUntil(table.replaying.open_action.isEnabled, timeout=5000)
        activate(qtbot, table)
        QTest.keyClick(table, Qt.Key.Key_P)
        at_step(qtbot, table, 0)
        assert isinstance(window.source, ReplaySource) and block.dialog is dialog
    finally:
        done.set()
    graph = dialog.view.graph
    qtbot.waitUntil(lambda: bool(graph.values), timeout=30000)
    assert dialog.view.decisions.topLevelItemCount() > 0
    assert graph.chosen == 0  # the step the replay shows
