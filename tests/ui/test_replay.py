"""Replays on the table, offline: a game against the computer played, then shown again."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from somnium_desktop.client.describe import Speaker
from somnium_desktop.client.offline import OfflineGame
from somnium_desktop.client.replay import Replay, ReplayStep
from somnium_desktop.client.replay_source import ReplaySource
from somnium_desktop.game import new_game
from somnium_desktop.game.events import Event, GameEnded, TurnPassed
from somnium_desktop.game.view import View, view_of
from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.table import TableWidget
from tests.client.helpers import PlainBot
from tests.ui.driver import activate, play_to_the_end
from tests.ui.odds_shown import odds_shown
from tests.ui.test_main_window import window  # noqa: F401  (the main window, offline)


def expected_lines(events: list[Event], names: tuple[str, str], seat: int) -> list[str]:
    speaker = Speaker(names, seat)
    return [speaker.describe(event) for event in events]


def settled(qtbot: QtBot, table: TableWidget, view: View) -> None:
    qtbot.waitUntil(lambda: not table.scene.busy and table.shown == view, timeout=5000)


def test_an_offline_game_replays_step_by_step(
    qtbot: QtBot, window: MainWindow  # noqa: F811
) -> None:
    window.table.coach.set_practice_odds(True)  # (the offline setting: odds on the table)
    game = window.start_offline(seed=11)
    assert isinstance(game, OfflineGame)
    assert not window.table.coach.bar.isHidden()  # the coach, offline
    qtbot.waitUntil(lambda: odds_shown(window.table) != [], timeout=5000)
    views: list[View] = [game.view]
    caused: list[list[Event]] = [[]]
    game.events.connect(lambda events: caused.append(list(events)))
    game.view_changed.connect(views.append)
    table = window.table
    assert not table.replaying.open_action.isEnabled()  # (not before the end)
    play_to_the_end(qtbot, table)
    assert views[-1].over
    played = table.log.lines()
    button = table.replay_button
    qtbot.waitUntil(button.isVisible)
    assert table.replaying.open_action in window.game_menu.actions()
    QTest.keyClick(table, Qt.Key.Key_P)  # (the button, and the Game menu, do the same)

    replay = table.replay
    assert replay is not None and isinstance(window.source, ReplaySource)
    assert replay.length == len(views) - 1 and replay.step == 0
    assert [step.view for step in replay.steps] == views  # public views, as played
    assert all(type(step.view) is View for step in replay.steps)
    settled(qtbot, table, views[0])
    assert table.replaying.bar.isVisible() and table.replaying.bar.position.text() == \
        f"Move 0 of {replay.length}"
    assert table.log.count() == 0 and table.game_name.text().startswith("Replay: ")
    for action in (table.draw_action, table.end_turn_action, table.concede_action,
                   table.rematch_action, *table.steal_actions):
        assert not action.isEnabled()
    assert not table.draw_button.isVisible() and table.watching.text() == "Replay"
    # a replay shows what was played: no coach, no odds (even with the offline setting)
    assert table.coach.bar.isHidden() and not table.coach.action.isEnabled()
    assert odds_shown(table) == []

    activate(qtbot, table)
    history: list[Event] = []
    for step in (1, 2, 3):
        QTest.keyClick(table, Qt.Key.Key_Right)
        history += caused[step]
        settled(qtbot, table, views[step])
        assert replay.step == step
        assert table.log.lines() == expected_lines(history, game.names, 0)
    QTest.keyClick(table, Qt.Key.Key_Left)
    settled(qtbot, table, views[2])
    assert table.log.lines() == expected_lines(caused[1] + caused[2], game.names, 0)
    assert odds_shown(table) == [] and table.coach.bar.isHidden()
    assert table.replaying.bar.position.text() == f"Move 2 of {replay.length}"
    QTest.keyClick(table, Qt.Key.Key_End)
    settled(qtbot, table, views[-1])
    assert table.log.lines() == played  # the whole log, as it was at the end
    bar = table.log.verticalScrollBar()
    assert bar.maximum() > 0 and bar.value() == bar.maximum()
    window.resize(1024, 640)  # its lines wrap anew: the log keeps showing the last ones
    qtbot.waitUntil(lambda: bar.value() == bar.maximum() and window.width() == 1024)
    assert not table.replaying.forward_action.isEnabled()
    assert not table.game_over.isHidden()  # the result, without Rematch nor Replay
    assert not table.game_over.rematch.isVisible() and not button.isVisible()
    QTest.keyClick(table, Qt.Key.Key_Home)
    settled(qtbot, table, views[0])
    assert table.log.count() == 0 and not table.replaying.back_action.isEnabled()
    QTest.mouseClick(table.replaying.bar.buttons[2], Qt.MouseButton.LeftButton)  # Forward
    settled(qtbot, table, views[1])
    table.replay_go_to(len(views) + 5)  # clamped
    settled(qtbot, table, views[-1])
    table.replay_go_to(4)
    settled(qtbot, table, views[4])
    assert replay.step == 4 and table.log.lines() == expected_lines(
        [e for events in caused[1:5] for e in events], game.names, 0)

    QTest.mouseClick(table.replaying.bar.leave_button, Qt.MouseButton.LeftButton)
    assert table.source is None and table.replay is None
    assert not table.replaying.bar.isVisible() and table.draw_button.isHidden()

    # A replay asked for while a game is in play asks first: No keeps the game, Yes leaves it.
    second = window.start_offline(seed=12)
    for answer in (QMessageBox.StandardButton.No, QMessageBox.StandardButton.Yes):
        window.replays.open(replay, offline=True)
        box = window.replays.confirm
        assert box is not None and table.source is second
        box.done(answer)
    assert table.source is not second and table.replay is replay and replay.step == 0
    settled(qtbot, table, views[0])
    assert table.log.count() == 0


def test_a_replay_of_ones_own_game_says_your_turn_and_leaving_it_clears_the_table(
    qtbot: QtBot, window: MainWindow  # noqa: F811
) -> None:
    window.start_offline(seed=5)
    table = window.table
    play_to_the_end(qtbot, table)
    activate(qtbot, window)
    QTest.keyClick(table, Qt.Key.Key_P)
    replay = table.replay
    assert replay is not None
    said: set[str] = set()
    for step in range(replay.length):  # (the last step ends the game)
        table.replay_go_to(step)
        settled(qtbot, table, replay.steps[step].view)
        said.add(table.status.text())
    assert said == {"Replay: it is your turn.", "Replay: it is Computer's turn."}
    assert "points" in table.view.accessibleDescription()  # the position, for screen readers
    table.replaying.leave_action.trigger()
    assert table.source is None and table.game_name.text() == "No game yet"
    assert table.view.accessibleDescription() == ""  # no position left to describe


def test_a_replay_step_holds_a_view_never_a_game_state() -> None:
    state = new_game(3)
    with pytest.raises(TypeError):
        ReplayStep(None, None, (), state)  # type: ignore[arg-type]
    replay = Replay([ReplayStep(None, None, (), view_of(state))], ("A", "B"), game_id="x",
                    name="x")
    assert replay.length == 0 and replay.forward() == 0 and replay.back() == 0
    assert replay.label == "Move 0 of 0"


def test_headlines_start_turns(qtbot: QtBot) -> None:
    state = new_game(5)
    game = OfflineGame(lambda seed: PlainBot(1), seed=5, deal=lambda s: state, pace_ms=0)
    caught: list[Event] = []
    game.events.connect(caught.extend)
    game.start()
    game.concede()
    replay = game.local_replay()
    assert replay is not None and replay.end() == 1
    assert [headline for _, headline in replay.lines()] == \
        [isinstance(e, TurnPassed | GameEnded) for e in caught]
    game.close()


@pytest.mark.usefixtures("app_style")  # (its paddings: the whole words are wide)
def test_the_replay_bar_says_less_on_a_small_window_and_never_widens_it(
    qtbot: QtBot, window: MainWindow  # noqa: F811
) -> None:
    # (wide enough for the whole words beside the column's share of the window, in the app's
    # own style; at 1280 px, beside the column's share, the bar already says less)
    window.resize(1600, 900)
    window.start_offline(seed=11)
    table = window.table
    play_to_the_end(qtbot, table)
    qtbot.waitUntil(table.replay_button.isVisible)
    QTest.keyClick(table, Qt.Key.Key_P)
    bar = table.replaying.bar
    qtbot.waitUntil(bar.isVisible)
    words = [button.text() for button in bar.buttons]
    assert not bar.brief and "« Start" in words and "Leave replay" in words

    window.resize(1024, 640)
    qtbot.waitUntil(lambda: window.size().width() == 1024 and window.size().height() == 640)
    qtbot.wait(30)
    assert bar.brief and [b.text() for b in bar.buttons][:2] == ["«", "◀"]
    for button in bar.buttons:  # each whole, inside the bar, its words not cut
        assert bar.rect().contains(button.geometry()), button.toolTip()
        assert button.width() >= button.sizeHint().width(), button.text()
        assert button.accessibleName() == button.defaultAction().toolTip()
    window.resize(1600, 900)
    qtbot.waitUntil(lambda: not bar.brief)
    assert [button.text() for button in bar.buttons] == words
