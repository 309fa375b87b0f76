"""The Analysis window and the replay of an online game, from a real server: a click on the
result panel's graph fetches the replay and opens it at that moment; a replay's Analysis button
gets the server's analysis, and its clicks move the replay."""

from __future__ import annotations

import random
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from somnium_desktop.client.analysis import AnalysisState
from somnium_desktop.client.online import OnlineGame
from somnium_desktop.client.replay_source import ReplaySource
from somnium_desktop.game.view import view_from_dict
from somnium_desktop.ui.table import TableWidget
from tests.server.helpers import LiveServer
from tests.ui.test_analysis_replay import click_point

from .helpers import close_windows, open_window, play, seated_game


def at_step(qtbot: QtBot, table: TableWidget, step: int, view: object) -> None:
    """The table's replay is at `step`, showing the server's view there, settled."""
    qtbot.waitUntil(lambda: table.replay is not None and table.replay.step == step
                    and not table.scene.busy and table.shown == view, timeout=10000)


def test_the_graph_opens_an_online_replay_and_a_replays_analysis_moves_it(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    game_id, players = seated_game(lobby)
    play(players, game_id, 200, random.Random(3))
    expected = lobby.get(f"/games/{game_id}/analysis").json()
    views = [view_from_dict(step["view"])
             for step in lobby.get(f"/games/{game_id}/replay").json()["steps"]]
    assert views[-1].over and len(expected["decisions"]) >= 3
    cy = open_window(qtbot, tmp_path, "Cy", lobby.base)
    try:
        assert cy.online is not None
        cy.online.watch(game_id)  # the finished game, watched: its result panel
        qtbot.waitUntil(lambda: isinstance(cy.source, OnlineGame), timeout=10000)
        table = cy.table
        block = table.result_analysis
        qtbot.waitUntil(lambda: block.state is AnalysisState.READY, timeout=30000)
        assert block.data == expected
        QTest.mouseClick(block.button, Qt.MouseButton.LeftButton)
        dialog = block.dialog
        assert dialog is not None
        qtbot.waitExposed(dialog)
        graph = dialog.view.graph
        middle = expected["decisions"][len(expected["decisions"]) // 2]["step"]
        click_point(qtbot, graph, middle)  # the replay is fetched, then shown there
        at_step(qtbot, table, middle, views[middle])
        assert isinstance(cy.source, ReplaySource) and cy.source.game_id == game_id
        assert block.dialog is dialog and dialog.isVisible()
        click_point(qtbot, graph, expected["end_step"])
        at_step(qtbot, table, expected["end_step"], views[expected["end_step"]])

        # The replay opened anew (the window closes with the game it was of): its own
        # Analysis button asks the server, and the window's clicks move the replay.
        QTest.mouseClick(table.replaying.bar.leave_button, Qt.MouseButton.LeftButton)
        assert cy.source is None and block.dialog is None
        cy.online.open_replay(game_id)
        at_step(qtbot, table, 0, views[0])
        QTest.mouseClick(table.replaying.bar.analysis_button, Qt.MouseButton.LeftButton)
        windows = table.result_analysis.window
        replayed = windows.dialog
        assert replayed is not None and replayed is not dialog
        qtbot.waitExposed(replayed)
        graph = replayed.view.graph
        qtbot.waitUntil(lambda: bool(graph.values), timeout=10000)
        assert graph.values == expected["curve"]  # watching: seat 0's side
        assert graph.steps == [d["step"] for d in expected["decisions"]] + [expected["end_step"]]
        for step in (expected["decisions"][-1]["step"], 1):
            click_point(qtbot, graph, step)
            at_step(qtbot, table, step, views[step])
            assert graph.chosen == step
    finally:
        close_windows(qtbot, cy)
