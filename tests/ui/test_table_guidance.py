"""The table guides the player: steal keys on the suits, a status line that follows what is
legal, keys pressed during a move kept, the focus on the table from the start."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from somnium_desktop.game import FOOL, Card, Suit
from somnium_desktop.game.events import CardDrawn, CardStolen
from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.scene import STEAL_KEYS
from somnium_desktop.ui.settings import Settings
from somnium_desktop.ui.table import TableWidget
from tests.game_helpers import c, position, stacked
from tests.ui.driver import activate, wait_for_input
from tests.ui.test_main_window import LEVELS
from tests.ui.test_table import record, start, steal_ready

TEN = [c(suit, 3) for suit in Suit]


def test_each_stealable_suit_shows_its_number_key(qtbot: QtBot, table: TableWidget) -> None:
    steal_ready(qtbot, table)
    scene = table.scene
    assert scene.stealable == (Suit.SUNS, Suit.CUPS)
    seen = scene.sceneRect()
    for suit in Suit:
        label = scene.key_labels[suit]
        assert label.isVisible() == (suit in scene.stealable), suit
        assert label.text() == STEAL_KEYS[suit]
        if suit in scene.stealable:
            assert seen.contains(label.sceneBoundingRect())
            stack = scene.bank_slot_rect(scene.top_seat(), suit)
            assert label.sceneBoundingRect().intersects(stack.adjusted(-20, -20, 20, 20))
    assert "number" in table.status.text()
    QTest.keyClick(table, Qt.Key.Key_4)  # the number shown on Cups
    wait_for_input(qtbot, table)
    assert not any(label.isVisible() for label in scene.key_labels)


def test_with_ten_cards_on_the_table_the_status_says_to_end_the_turn(
    qtbot: QtBot, table: TableWidget
) -> None:
    state = position([c(Suit.ANGELS, 7), c(Suit.SUNS, 7)], table=TEN, turn=0)
    start(table, state)
    wait_for_input(qtbot, table)
    assert not table.draw_action.isEnabled() and table.end_turn_action.isEnabled()
    text = table.status.text()
    assert "(D)" not in text and "draw (" not in text
    assert "end your turn (E)" in text
    QTest.keyClick(table, Qt.Key.Key_D)  # refused: nothing happens
    assert table.shown is not None and len(table.shown.table) == 10


def test_the_status_offers_only_a_draw_on_an_empty_table(qtbot: QtBot, table: TableWidget) -> None:
    start(table, stacked([c(Suit.ANGELS, 5)], first=0))
    wait_for_input(qtbot, table)
    assert table.draw_action.isEnabled() and not table.end_turn_action.isEnabled()
    assert "(E)" not in table.status.text() and "draw a card (D)" in table.status.text()


def test_the_status_line_never_blanks_while_ones_cards_move(
    qtbot: QtBot, table: TableWidget
) -> None:
    table.scene.set_motion(False, 1.0)  # cards move, as by default
    start(table, stacked([c(Suit.ANGELS, 5), c(Suit.SUNS, 4)], first=0), pace_ms=300)
    wait_for_input(qtbot, table)
    said: list[str] = []

    def follow() -> None:
        if not said or said[-1] != table.status.text():
            said.append(table.status.text())

    watch = QTimer()
    watch.timeout.connect(follow)
    watch.start(5)
    follow()
    QTest.keyClick(table, Qt.Key.Key_D)
    assert table.scene.busy
    wait_for_input(qtbot, table)
    QTest.keyClick(table, Qt.Key.Key_E)  # the table flies to the bank, then the computer plays
    qtbot.waitUntil(lambda: "is playing" in table.status.text(), timeout=3000)
    watch.stop()
    follow()
    assert "" not in said
    assert said == ["Your turn: draw a card (D).",
                    "Your turn: draw (D), or end your turn (E) to bank the table.",
                    "Computer is playing…"]


@pytest.mark.parametrize(("key", "modifier", "stolen"), [
    (Qt.Key.Key_2, Qt.KeyboardModifier.NoModifier, c(Suit.SUNS, 4)),  # the number row
    (Qt.Key.Key_4, Qt.KeyboardModifier.KeypadModifier, c(Suit.CUPS, 5)),  # the number pad
])
def test_a_steal_key_pressed_while_the_fool_flies_is_played(
    qtbot: QtBot, table: TableWidget, key: Qt.Key, modifier: Qt.KeyboardModifier, stolen: Card
) -> None:
    """A steal key pressed while the Fool still flies is kept and played once it lands; the
    number pad steals as the number row does (Qt's shortcuts take either)."""
    state = stacked([c(Suit.ANGELS, 5), c(Suit.SUNS, 4), c(Suit.CUPS, 5), FOOL], first=0)
    game = start(table, state)
    events = record(game)
    wait_for_input(qtbot, table)
    QTest.keyClick(table, Qt.Key.Key_D)
    QTest.keyClick(table, Qt.Key.Key_E)
    wait_for_input(qtbot, table)
    table.scene.set_motion(False, 1.0)  # the Fool flies, then pauses
    QTest.keyClick(table, Qt.Key.Key_D)
    assert table.scene.busy and not table.stealing()
    QTest.keyClick(table.view, key, modifier)  # at once (on the table): kept, played
    qtbot.waitUntil(lambda: any(isinstance(e, CardStolen) for e in events))
    assert [e for e in events if isinstance(e, CardStolen)] == [CardStolen(0, 1, stolen)]


def test_a_draw_pressed_while_ones_turn_busts_is_not_played_on_the_next_turn(
    qtbot: QtBot, table: TableWidget
) -> None:
    # The player's second card busts; the computer draws two cards, its second busts too,
    # and the turn comes back: all while the bust's D was less than two seconds old.
    deck = [c(Suit.ANGELS, 3), c(Suit.ANGELS, 4), c(Suit.SUNS, 3), c(Suit.SUNS, 4)]
    table.scene.set_motion(False, 4.0)  # cards move, quickly
    game = start(table, stacked(deck, first=0), keep=5, pace_ms=20)
    events = record(game)
    wait_for_input(qtbot, table)
    activate(qtbot, table)
    QTest.keyClick(table, Qt.Key.Key_D)
    wait_for_input(qtbot, table)
    QTest.keyClick(table, Qt.Key.Key_D)  # Angels 4: a bust, and the turn passes
    assert table.scene.busy
    QTest.keyClick(table, Qt.Key.Key_D)  # pressed again while the bust plays out
    qtbot.waitUntil(lambda: sum(isinstance(e, CardDrawn) for e in events) == 4, timeout=3000)
    wait_for_input(qtbot, table)
    qtbot.wait(200)
    view = game.view
    assert view.turn == 0 and view.table == ()  # the new turn: nothing drawn for the player
    assert sum(isinstance(e, CardDrawn) for e in events) == 4
    assert table.draw_action.isEnabled()


def test_keys_typed_at_start_up_go_to_the_table(qtbot: QtBot, settings: Settings) -> None:
    settings.reduced_motion = True
    main = MainWindow(settings, LEVELS, column_after_paint=True)
    qtbot.addWidget(main)
    main.show()
    qtbot.waitExposed(main)
    activate(qtbot, main)
    assert QApplication.focusWidget() is main.table.view
    main.complete_column()  # the lobby's fields come after the first paint...
    assert QApplication.focusWidget() is main.table.view  # ...and do not take the keys
    game = main.start_offline("careful", seed=2)
    assert game is not None
    wait_for_input(qtbot, main.table)
    before = game.view
    focus = QApplication.focusWidget()
    assert focus is not None
    QTest.keyClick(focus, Qt.Key.Key_D)
    qtbot.waitUntil(lambda: game.view is not before)
    assert main.lobby_panel.name_field.text() == ""
    main.close()
