"""The odds online: asked for at Create, refused for a rated game, listed, and shown on the
tables of a game that has them (players and watchers), never on one without; no coach online."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from somnium_desktop.client.online import OnlineGame
from somnium_desktop.game import Draw, EndTurn, View
from somnium_desktop.ui.lobby_games import NAME, STATUS
from somnium_desktop.ui.main_window import MainWindow
from tests.server.helpers import LiveServer
from tests.ui.driver import activate
from tests.ui.odds_shown import counted, odds_shown

from .helpers import cell_text, click_cell, close_windows, lobby_row, open_window


def _watch(qtbot: QtBot, window: MainWindow, game_id: str) -> OnlineGame:
    qtbot.waitUntil(lambda: lobby_row(window, game_id) >= 0, timeout=5000)
    click_cell(window, lobby_row(window, game_id), NAME)
    qtbot.waitUntil(lambda: isinstance(window.source, OnlineGame)
                    and window.source.game_id == game_id
                    and window.table.shown is not None, timeout=5000)
    assert isinstance(window.source, OnlineGame)
    return window.source


def test_odds_agreed_at_create_show_on_every_table_of_that_game_only(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    ada = open_window(qtbot, tmp_path, "Ada", lobby.base)
    bea = open_window(qtbot, tmp_path, "Bea", lobby.base)
    try:
        panel = ada.lobby_panel
        qtbot.waitUntil(lambda: panel.create_button.isEnabled() and panel.opponent.count() > 1,
                        timeout=5000)
        assert not panel.odds_box.isChecked()  # off unless asked for
        # Between two people the game is rated unless chosen casual: no odds to ask for
        # (the server refuses them too: tests/server/test_odds_option.py).
        assert panel.rated() and not panel.odds_box.isEnabled()
        # Against the computer, the odds are Ada's to ask for.
        panel.opponent.setCurrentIndex(panel.opponent.findData("test"))
        assert panel.odds_box.isEnabled()
        panel.odds_box.click()  # (as a click would: nothing if it were greyed out)
        assert panel.odds_box.isChecked()
        QTest.mouseClick(panel.create_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: ada.table.shown is not None, timeout=15000)
        game, table = ada.source, ada.table
        assert isinstance(game, OnlineGame) and game.shows_odds
        assert not table.coach.bar.isVisible()  # no coach online
        activate(qtbot, ada)
        QTest.keyClick(table, Qt.Key.Key_H)
        assert table.coach.answer.text() == ""
        seen: set[tuple[object, ...]] = set()
        while table.shown is not None and not table.shown.over and len(seen) < 4:
            qtbot.waitUntil(lambda: table.my_turn() or bool(table.shown and table.shown.over),
                            timeout=10000)
            view = table.shown
            assert view is not None
            if view.over:
                break
            assert odds_shown(table) == ["Odds", *counted(view)]
            seen.add((view.deck_count, *odds_shown(table)))
            if view.steal_pending:
                table.steal(view.stealable[0])
            else:
                table.take(Draw() if Draw() in view.legal else EndTurn())

            def moved_on(before: View = view) -> bool:
                return table.shown is not before

            qtbot.waitUntil(moved_on, timeout=10000)
        assert len(seen) >= 3  # updated as the cards came

        # A casual game with the odds, made by Cy: listed so, and a joiner agrees by joining.
        cy, dan = lobby.player("Cy"), lobby.player("Dan")
        shown = cy.create(name="Odds on", rated=False, odds=True)["id"]
        plain = cy.create(name="Odds off", rated=False)["id"]
        qtbot.waitUntil(lambda: lobby_row(bea, plain) >= 0, timeout=5000)
        assert cell_text(bea, lobby_row(bea, shown), STATUS) == "Waiting · odds shown"
        assert cell_text(bea, lobby_row(bea, plain), STATUS) == "Waiting"
        for game_id in (shown, plain):
            assert dan.post(f"/games/{game_id}/join").status_code == 200
        watched = _watch(qtbot, bea, shown)  # a watcher sees the odds of a game with them
        assert watched.read_only and watched.shows_odds
        assert bea.table.shown is not None
        assert odds_shown(bea.table) == ["Odds", *counted(bea.table.shown)]
        assert not bea.table.coach.bar.isVisible()
        other = _watch(qtbot, bea, plain)  # and none in a game without
        assert not other.shows_odds and odds_shown(bea.table) == []
    finally:
        close_windows(qtbot, ada, bea)
