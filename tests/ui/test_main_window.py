"""The main window: offline play from the side panel, the menus, settings, quitting."""

from __future__ import annotations

import html
from collections.abc import Iterator

import pytest
from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QAction, QColor
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from somnium_desktop.client.offline import BOT_PACE_MS, OfflineGame
from somnium_desktop.game.bots import Level
from somnium_desktop.ui.column_part import ColumnPart
from somnium_desktop.ui.keyboard_help import help_rows, keys, shortcuts_help
from somnium_desktop.ui.main_window import MainWindow, first_geometry
from somnium_desktop.ui.settings import Settings
from somnium_desktop.ui.settings_dialog import SettingsDialog
from somnium_desktop.ui.table_scale import column_scale
from somnium_desktop.ui.window_split import (
    COLUMN_SHARE,
    COLUMN_WIDEST,
    COLUMN_WIDTH,
    TABLE_AT_LEAST,
)
from tests.client.helpers import PlainBot
from tests.ui.driver import activate, close, play_to_the_end

LEVELS = [
    Level("careful", "Careful", lambda seed: PlainBot(keep=1)),
    Level("bold", "Bold", lambda seed: PlainBot(keep=3)),
]


@pytest.fixture
def window(qtbot: QtBot, settings: Settings) -> Iterator[MainWindow]:
    settings.reduced_motion = True
    settings.animation_speed = 8.0  # the computer's pace follows: 75 ms
    main = MainWindow(settings, LEVELS)
    qtbot.addWidget(main)
    main.show()
    qtbot.waitExposed(main)
    activate(qtbot, main)
    yield main
    close(qtbot, main)


def test_play_offline_from_the_panel_to_the_end(qtbot: QtBot, window: MainWindow) -> None:
    assert window.table.source is None
    window.panel.level.setCurrentIndex(1)
    QTest.mouseClick(window.panel.play, Qt.MouseButton.LeftButton)
    game = window.source
    assert isinstance(game, OfflineGame)
    assert game.game_name.endswith("(Bold)")
    assert window.table.game_name.text() == game.game_name
    assert game.pace_ms == round(BOT_PACE_MS / 8)
    play_to_the_end(qtbot, window.table)
    assert window.table.game_over.isVisible()
    assert window.table.log.count() > 20
    assert window.settings.level == "bold"


def test_new_game_shortcut_starts_afresh(qtbot: QtBot, window: MainWindow) -> None:
    QTest.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    first = window.source
    assert isinstance(first, OfflineGame)
    QTest.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    asked = window.confirm_new  # a game is in play: abandon it?
    assert asked is not None and asked.isVisible() and window.source is first
    asked.done(QMessageBox.StandardButton.No)
    assert window.source is first and window.confirm_new is None
    QTest.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert window.confirm_new is not None
    window.confirm_new.done(QMessageBox.StandardButton.Yes)
    second = window.source
    assert isinstance(second, OfflineGame) and second is not first
    assert second.game_id != first.game_id
    assert window.table.game_id.text() == f"Deal {second.game_id}"


def test_the_game_menu_offers_the_table_actions(window: MainWindow) -> None:
    texts = [action.text() for action in window.game_menu.actions()]
    for text in ("&New offline game", "&Draw", "&End turn", "&Rematch", "Con&cede…",
                 "&Settings…", "&Quit"):
        assert text in texts
    assert window.table.draw_action.shortcut().toString() == "D"
    assert window.table.end_turn_action.shortcut().toString() == "E"


def test_settings_change_motion_and_pace(qtbot: QtBot, window: MainWindow) -> None:
    window.start_offline("careful")
    window.open_settings()
    dialog = window.findChild(SettingsDialog)
    assert dialog is not None and dialog.isVisible()
    dialog.reduced_motion.setChecked(False)
    dialog.speed.setCurrentIndex(dialog.speed.findText("Fast"))
    dialog.buttons.button(dialog.buttons.StandardButton.Ok).click()
    assert window.table.scene.reduced_motion is False
    assert window.table.scene.speed == 2.0
    assert isinstance(window.source, OfflineGame)
    assert window.source.pace_ms == BOT_PACE_MS // 2
    window.settings.store.sync()
    reread = Settings(window.settings.store)
    assert reread.reduced_motion is False and reread.animation_speed == 2.0


def test_keyboard_help(qtbot: QtBot, window: MainWindow) -> None:
    window.keys_action.trigger()
    box = window.findChild(QMessageBox)
    assert box is not None and "steal" in box.text()
    for line in ("Ctrl+, — settings", "F1 — this list of keys", "Ctrl+Q — quit",
                 "1 … 9, 0 — after a Fool", "← → then Enter — after a Fool",
                 "H or ? — offline", "← → / Home, End — in a replay"):
        assert line in box.text(), line
    box.close()


def test_the_keyboard_help_has_every_shortcut_of_the_window(window: MainWindow) -> None:
    """Each action with a key is on a line of the help, and its keys with it: the help is
    written from the actions, so a key added or changed cannot be left out."""
    with_keys = {action for action in window.findChildren(QAction) if action.shortcuts()}
    assert len(with_keys) > 20
    text = shortcuts_help(window)
    for actions, shown, does in help_rows(window):
        assert f"{html.escape(shown, quote=False)} — {html.escape(does, quote=False)}<br>" \
            in text
        with_keys.difference_update(actions)
        named = [actions[0], actions[-1]] if "…" in shown else actions  # (1 … 9: the ends)
        for action in named:
            assert all(key in shown for key in keys(action).split(" or ")), (action.text(),
                                                                              shown)
    assert not with_keys, [action.text() for action in with_keys]  # in no line


def test_quit_closes_and_remembers_the_window(qtbot: QtBot, window: MainWindow) -> None:
    game = window.start_offline("careful")
    assert game is not None
    window.quit_action.trigger()
    assert not window.isVisible()
    assert window.settings.store.value("window/geometry") is not None
    assert window.table.source is None


def test_at_first_start_the_window_fits_its_screen(window: MainWindow) -> None:
    """The offscreen screen has 800 by 800 pixels: the window used to be 1280 by 800."""
    room = window.screen().availableGeometry()
    assert room.contains(window.frameGeometry()), (room, window.frameGeometry())
    assert window.width() <= 0.9 * room.width() and window.height() <= 0.9 * room.height()
    frame = window.frameGeometry()
    left, right = frame.left() - room.left(), room.right() - frame.right()
    assert abs(left - right) <= frame.width() - window.width()  # (its frame's sides)


@pytest.mark.parametrize(("screen", "placed"), [
    (QRect(0, 0, 1920, 1040), QRect(320, 120, 1280, 800)),  # room enough: its usual size
    (QRect(0, 0, 1366, 740), QRect(68, 37, 1229, 666)),  # a laptop, its panel taken off
    (QRect(1920, 0, 1024, 600), QRect(1971, 30, 921, 540)),  # a small second screen
    (QRect(0, 0, 640, 400), QRect(-20, 15, 680, 369)),  # never below the window's minimum
])
def test_the_first_place_is_most_of_the_screen_in_its_middle(screen: QRect, placed: QRect) -> None:
    assert first_geometry(screen, QSize(680, 369)) == placed


def test_without_computer_players_play_is_off(qtbot: QtBot, settings: Settings) -> None:
    main = MainWindow(settings, [])
    qtbot.addWidget(main)
    assert not main.panel.play.isEnabled()
    assert not main.new_game_action.isEnabled()
    assert main.start_offline("easy") is None
    main.close()


def test_the_column_can_fill_in_after_the_first_paint(qtbot: QtBot, settings: Settings) -> None:
    """As the app starts: the first frame is the table alone; the lobby and offline column
    comes right after, and the table keeps its size (its cards need no new pixmaps)."""
    main = MainWindow(settings, LEVELS, column_after_paint=True)
    qtbot.addWidget(main)
    main.resize(1280, 800)  # (as on a screen with room for it; the offscreen one is smaller)
    main.show()
    qtbot.waitExposed(main)
    assert main.column.count() == 0 and not main.column_complete
    assert not main.new_game_action.isEnabled()
    table_size = main.table.view.viewport().size()
    renders = main.table.deck.renders
    main.complete_column()
    qtbot.wait(50)
    parts = [main.column.widget(n) for n in range(main.column.count())]
    assert [part.widget() for part in parts if isinstance(part, ColumnPart)] \
        == [main.lobby_panel, main.panel]  # (each scrolls on a short window)
    assert main.lobby_panel.isVisible() and main.panel.isVisible()
    assert main.table.log.parentWidget() is main.panel and main.table.log.isVisible()
    assert main.new_game_action.isEnabled()
    assert main.table.view.viewport().size() == table_size
    assert main.table.deck.renders == renders
    main.complete_column()  # once only
    assert main.column.count() == 2
    main.close()


def test_asking_for_the_column_early_builds_it(qtbot: QtBot, settings: Settings) -> None:
    main = MainWindow(settings, LEVELS, column_after_paint=True)
    qtbot.addWidget(main)
    main.lobby_action.trigger()  # Ctrl+L before the column came: it comes now
    assert main.column_complete and main.column.count() == 2
    fresh = MainWindow(settings, LEVELS, column_after_paint=True)
    qtbot.addWidget(fresh)
    game = fresh.start_offline("bold")
    assert isinstance(game, OfflineGame) and fresh.column_complete
    main.close()
    fresh.close()


def test_keys_typed_in_the_column_do_not_play(qtbot: QtBot, window: MainWindow) -> None:
    """D, E and Enter are table shortcuts; in a field, a picker or a list they type instead."""
    game = window.start_offline("careful", seed=5)
    assert isinstance(game, OfflineGame)
    table = window.table
    while not (table.my_turn() and table.end_turn_action.isEnabled()):
        qtbot.waitUntil(table.my_turn)
        if table.end_turn_action.isEnabled():
            break
        table.draw()
        qtbot.waitUntil(table.my_turn)
    before = game.view
    level = window.panel.level
    level.setFocus()
    QTest.keyClick(level, Qt.Key.Key_E)  # would bank the table
    qtbot.wait(QApplication.keyboardInputInterval() + 50)  # a new search, not "eb"
    QTest.keyClick(level, Qt.Key.Key_B)  # picks "Bold" by its first letter
    assert level.currentText() == "Bold"
    field = window.lobby_panel.name_field
    field.setFocus()
    QTest.keyClicks(field, "Dee")  # would draw, then bank
    QTest.keyClick(field, Qt.Key.Key_Return)
    assert field.text() == "Dee"
    qtbot.wait(50)
    assert game.view is before
    QTest.mouseClick(table.draw_button, Qt.MouseButton.LeftButton)  # from the field
    assert QApplication.focusWidget() is table.view  # the keys play again after a click
    qtbot.waitUntil(lambda: game.view is not before)
    qtbot.waitUntil(lambda: table.my_turn() or game.view.turn != 0 or game.view.over)
    if table.my_turn() and table.end_turn_action.isEnabled():
        banked = game.view
        QTest.keyClick(table.view, Qt.Key.Key_E)  # on the table the key plays
        qtbot.waitUntil(lambda: game.view is not banked)


@pytest.mark.usefixtures("app_style")  # its paddings and bold labels
def test_an_800_by_600_window_keeps_its_size_and_its_words(
    qtbot: QtBot, window: MainWindow
) -> None:
    check_800_by_600(qtbot, window)


def check_800_by_600(qtbot: QtBot, window: MainWindow) -> None:
    window.resize(800, 600)
    game = window.start_offline("careful")
    assert game is not None
    qtbot.waitUntil(lambda: window.table.shown is not None)
    qtbot.wait(50)
    assert window.width() == 800  # a long game name used to widen it to 986 pixels
    table, lobby = window.table, window.lobby_panel
    assert table.width() >= 440  # the column gives way too, not only the table
    assert lobby.create_button.width() >= lobby.create_button.sizeHint().width()
    lines = table.status.fontMetrics().lineSpacing()
    assert table.status.height() <= 3 * lines  # not a thin column of words
    assert all(b.isVisible() for b in (table.draw_button, table.end_turn_button))


def test_the_column_gives_way_on_a_small_window_and_comes_back(
    qtbot: QtBot, window: MainWindow
) -> None:
    splitter = window.splitter
    least = window.column.minimumSizeHint().width()
    for width in (1280, 800, 1000, 1700):
        window.resize(width, 700)
        qtbot.waitUntil(lambda width=width: window.width() == width)  # type: ignore[misc]
        qtbot.wait(20)
        table, column = splitter.sizes()
        if width - COLUMN_WIDTH >= TABLE_AT_LEAST + 10:
            scale = column_scale(splitter.width())  # (grown text)
            share = min(round((table + column) * COLUMN_SHARE), round(COLUMN_WIDEST * scale))
            wide = max(round(COLUMN_WIDTH * scale), share)
            assert column == wide, (width, table, column)  # back, and its share
        else:  # the column gives way first, never below its minimum
            assert least <= column < COLUMN_WIDTH, (width, table, column)
            assert table >= TABLE_AT_LEAST or column == least, (width, table, column)


@pytest.mark.usefixtures("app_style")
def test_the_focus_is_ringed_on_the_table_and_the_list(qtbot: QtBot, window: MainWindow) -> None:
    window.start_offline("careful")
    view, games = window.table.view, window.lobby_panel.games

    def edge(widget: QWidget) -> QColor:
        return widget.grab().toImage().pixelColor(0, widget.height() // 2)

    activate(qtbot, window)
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    ringed, plain_list = edge(view), edge(games)
    games.setFocus()
    qtbot.waitUntil(games.hasFocus)
    assert edge(view) != ringed  # the ring went with the focus...
    assert edge(games) != plain_list  # ...to the list
