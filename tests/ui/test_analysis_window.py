"""The Analysis of a finished offline game: it opens from the result panel, the accuracy shows
under the result, and the graph's points and the decisions' rows go to their moment."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from somnium_desktop.client.analysis import AnalysisState, accuracy_line
from somnium_desktop.client.offline import OfflineGame
from somnium_desktop.game import Concede, Event
from somnium_desktop.game.events import GameEnded
from somnium_desktop.ui.analysis_view import AnalysisView, WinChanceGraph
from somnium_desktop.ui.table import TableWidget
from somnium_desktop.ui.table_analysis import ResultAnalysis
from tests.client.helpers import PlainBot
from tests.ui.conftest import on_screen
from tests.ui.driver import play_to_the_end
from tests.ui.test_accessibility_tree import found


class ReplayTable(TableWidget):
    """A table with the replay's contract (`replay_go_to(step)`): it keeps where it was sent."""

    def __init__(self) -> None:
        super().__init__()
        self.went: list[int] = []

    def replay_go_to(self, step: int) -> None:
        self.went.append(step)


@pytest.fixture
def replay_table(qtbot: QtBot) -> Iterator[TableWidget]:
    yield from on_screen(qtbot, ReplayTable())


def click_point(qtbot: QtBot, graph: WinChanceGraph, step: int) -> list[int]:
    with qtbot.waitSignal(graph.moment_chosen, timeout=2000) as blocker:
        QTest.mouseClick(graph, Qt.MouseButton.LeftButton,
                         pos=graph.point_of_step(step).toPoint())
    return list(blocker.args or [])


def test_the_analysis_opens_from_the_result_and_clicks_go_to_their_moment(
    qtbot: QtBot, replay_table: TableWidget
) -> None:
    table = replay_table
    assert isinstance(table, ReplayTable)
    game = OfflineGame(lambda s: PlainBot(2), seed=11, pace_ms=0)
    actions: list[Event] = []
    game.events.connect(actions.extend)
    table.set_source(game)
    game.start()
    play_to_the_end(qtbot, table)
    assert isinstance(actions[-1], GameEnded)
    block = table.result_analysis
    assert block.button.isVisible() and block.button.text() == "Analysis"
    qtbot.waitUntil(lambda: block.state is AnalysisState.READY, timeout=30000)
    data = block.data
    assert data is not None
    # the accuracy under the result, the player first
    assert block.accuracy.isVisible()
    assert block.accuracy.text() == accuracy_line(data, game.names, 0, "\n")
    assert block.accuracy.text().startswith("Accuracy: you ")
    QTest.mouseClick(block.button, Qt.MouseButton.LeftButton)
    dialog = block.dialog
    assert dialog is not None
    qtbot.waitExposed(dialog)
    view: AnalysisView = dialog.view
    decisions = data["decisions"]
    assert view.decisions.topLevelItemCount() == len(decisions) > 0
    assert view.graph.steps == [d["step"] for d in decisions] + [data["end_step"]]
    # the graph shows the player's chance, ending on the result
    winner = game.view.winner
    assert view.graph.values[-1] == (0.5 if winner is None else float(winner == 0))
    assert view.accuracy.text().startswith(accuracy_line(data, game.names, 0))
    marked = [d["step"] for d in decisions if d["mark"]]
    for step in {0, data["end_step"], *marked[:2], decisions[len(decisions) // 2]["step"]}:
        assert click_point(qtbot, view.graph, step) == [step]
        assert table.went[-1] == step  # the table's replay was sent there
        assert view.graph.chosen == step
    row = view.row_of_step(decisions[-1]["step"])
    assert row is not None
    view.decisions.scrollToItem(row)
    rect = view.decisions.visualItemRect(row)
    assert rect.isValid()
    with qtbot.waitSignal(dialog.moment_chosen, timeout=2000) as blocker:
        QTest.mouseClick(view.decisions.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert blocker.args == [decisions[-1]["step"]] and table.went[-1] == decisions[-1]["step"]
    # a rematch is a new game: nothing analysed yet
    game.rematch()
    assert block.state is AnalysisState.NONE and not block.button.isVisible()


def conceded_and_analysed(qtbot: QtBot, table: TableWidget) -> ResultAnalysis:
    """An offline game conceded at once on `table`: its result's analysis, once it came."""
    game = OfflineGame(lambda s: PlainBot(2), seed=5, pace_ms=0)
    table.set_source(game)
    game.start()
    game.act(Concede())
    block = table.result_analysis
    qtbot.waitUntil(lambda: block.state is AnalysisState.READY, timeout=30000)
    return block


def test_a_conceded_game_ends_one_step_after_its_last_decision(
    qtbot: QtBot, table: TableWidget
) -> None:
    block = conceded_and_analysed(qtbot, table)
    assert block.data is not None
    assert block.data["decisions"] == [] and block.data["end_step"] == 1
    assert block.accuracy.text() == "Accuracy: you no choices\nComputer no choices"


def test_the_accuracy_is_read_as_it_says_and_told_when_it_comes(
    qtbot: QtBot, table: TableWidget
) -> None:
    block = conceded_and_analysed(qtbot, table)
    said = "Accuracy: you no choices, Computer no choices"
    qtbot.waitUntil(lambda: table.last_announcement == said)  # (it was never told)
    node = found(table, QAccessible.Role.StaticText, block.accuracy.text())
    assert node is not None  # (it was read as "Accuracy")
    assert node.text(QAccessible.Text.Description) == "The players' accuracy in this game"


def test_the_graph_emits_the_step_of_the_point_clicked(qtbot: QtBot) -> None:
    graph = WinChanceGraph()
    qtbot.addWidget(graph)
    graph.resize(500, 220)
    graph.show()
    qtbot.waitExposed(graph)
    graph.set_curve([0.5, 0.62, 0.2, 0.35, 1.0], [0, 1, 2, 3, 5],
                    [None, "blunder", None, "mistake", None])
    # higher chances are drawn higher
    assert graph.point_of_step(5).y() < graph.point_of_step(0).y() < graph.point_of_step(2).y()
    for step in (0, 1, 2, 3, 5):
        assert click_point(qtbot, graph, step) == [step]
    grabbed = graph.grab().toImage()
    assert grabbed.pixelColor(graph.point_of_step(1).toPoint()).name() == "#ff6b6b"
