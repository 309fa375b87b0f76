"""The odds over the deck and the coach, on the real table in offline games."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from somnium_desktop.client.offline import OfflineGame
from somnium_desktop.game import Draw, EndTurn, new_game
from somnium_desktop.ui.settings import Settings
from somnium_desktop.ui.settings_dialog import SettingsDialog
from somnium_desktop.ui.table import TableWidget
from somnium_desktop.ui.table_coach import odds_sentence
from tests.client.helpers import PlainBot
from tests.ui.conftest import offline_window
from tests.ui.driver import activate, wait_for_input
from tests.ui.odds_shown import counted, odds_shown


def start(table: TableWidget, seed: int = 11) -> OfflineGame:
    game = OfflineGame(lambda s: PlainBot(2), seed=seed, deal=new_game, pace_ms=0)
    table.set_source(game)
    game.start()
    return game


def test_the_odds_follow_every_card_and_only_with_the_setting(
    qtbot: QtBot, table: TableWidget
) -> None:
    start(table)
    wait_for_input(qtbot, table)
    assert odds_shown(table) == []  # off by default
    table.coach.set_practice_odds(True)
    assert odds_shown(table) == ["Odds", "Bust 0%", "Death 2%", "Fools left 3"]
    seen: set[tuple[str, ...]] = set()
    for _ in range(12):
        wait_for_input(qtbot, table)
        view = table.shown
        assert view is not None
        if view.over:
            break
        assert odds_shown(table)[1:] == list(counted(view))
        seen.add(tuple(odds_shown(table)))
        tip = table.scene.odds_labels[1].toolTip()
        assert f"of {view.deck_count} unseen cards" in tip
        if view.steal_pending:
            table.steal(view.stealable[0])
        elif len(view.table) >= 2:
            table.end_turn()
        else:
            table.draw()
        qtbot.waitUntil(lambda v=view: table.shown is not v, timeout=5000)  # type: ignore[misc]
    assert len(seen) > 3  # the odds moved with the cards
    table.coach.set_practice_odds(False)
    assert odds_shown(table) == []


def test_screen_readers_get_the_odds_with_the_position(qtbot: QtBot, table: TableWidget) -> None:
    """The card table's description (what a screen reader reads of it) says the odds while
    the table shows them, as they move with the cards, and no more once they are off."""
    start(table)
    wait_for_input(qtbot, table)
    node = QAccessible.queryAccessibleInterface(table.view)
    assert node is not None

    def described() -> str:
        return node.text(QAccessible.Text.Description)

    assert described().startswith("You ") and "next card" not in described()
    table.coach.set_practice_odds(True)  # the odds come on without a new position
    view = table.shown
    assert view is not None
    assert described().endswith(f"Death {'still in' if view.death_left else 'gone'}. "
                                + odds_sentence(view))
    table.draw()
    qtbot.waitUntil(lambda: table.shown is not view, timeout=5000)
    moved = table.shown
    assert moved is not None and not moved.over
    assert described().endswith(odds_sentence(moved))
    assert odds_sentence(moved) != odds_sentence(view)  # (a card is out: they moved)
    table.coach.set_practice_odds(False)
    assert described().startswith("You ") and "next card" not in described()


def test_the_coach_answers_for_the_position_shown_and_clears_when_it_changes(
    qtbot: QtBot, table: TableWidget
) -> None:
    start(table, seed=5)
    wait_for_input(qtbot, table)
    assert table.coach.bar.isVisible() and table.coach.button.isVisible()
    assert table.coach.button.text() == "What would the expert do?"
    while True:  # to a position where both banking and drawing are open
        wait_for_input(qtbot, table)
        view = table.shown
        assert view is not None and not view.over
        if EndTurn() in view.legal and Draw() in view.legal:
            break
        table.take(view.legal[0] if view.steal_pending else Draw())
        qtbot.waitUntil(lambda v=view: table.shown is not v, timeout=5000)  # type: ignore[misc]
    activate(qtbot, table)
    QTest.keyClick(table, Qt.Key.Key_H)
    qtbot.waitUntil(lambda: table.coach.answer.text().startswith("The expert would"),
                    timeout=10000)
    answer = table.coach.answer.text()
    assert "Draw: " in answer and "Bank: " in answer and "% to win" in answer
    choice = answer.split(".", 1)[0].removeprefix("The expert would ")
    assert choice in ("draw", "bank")
    before = table.shown
    table.draw()  # a new position: the answer for the old one goes
    qtbot.waitUntil(lambda: table.shown is not before, timeout=5000)
    assert table.coach.answer.text() == ""
    # Asked when it is not the player's turn, the coach says when it answers.
    game = table.source
    assert isinstance(game, OfflineGame)
    game.set_pace(400)
    while table.shown is not None and not table.shown.over and table.my_turn():
        view = table.shown
        table.take(EndTurn() if EndTurn() in view.legal else view.legal[0])
        qtbot.waitUntil(lambda v=view: table.shown is not v, timeout=5000)  # type: ignore[misc]
    if table.shown is not None and not table.shown.over:
        assert not table.coach.action.isEnabled()
        table.coach.ask()
        assert table.coach.answer.text() == "The coach answers on your turn."


def test_the_setting_is_kept_and_turns_the_odds_on_for_offline_play(
    qtbot: QtBot, settings: Settings, tmp_path: Path
) -> None:
    assert settings.practice_odds is False
    with offline_window(qtbot, settings) as window:
        assert odds_shown(window.table) == []
        dialog = SettingsDialog(settings, window)
        dialog.accepted.connect(window.apply_settings)
        dialog.practice_odds.setChecked(True)
        dialog.accept()
        assert settings.practice_odds is True
        assert odds_shown(window.table)[0] == "Odds"
        again = Settings(settings.store)
        assert again.practice_odds is True
