"""The window's title says how the game stands, for the taskbar."""

from __future__ import annotations

import re

from pytestqt.qtbot import QtBot

from somnium_desktop.game import Suit
from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.title import window_title
from tests.game_helpers import c, position
from tests.ui.driver import play_to_the_end, wait_for_input
from tests.ui.sources import StateSource
from tests.ui.test_main_window import window

__all__ = ["window"]  # (the fixture)


def test_the_title_follows_the_game(qtbot: QtBot, window: MainWindow) -> None:
    assert window.windowTitle() == "Somnium"
    game = window.start_offline("careful", seed=5)
    assert game is not None
    wait_for_input(qtbot, window.table)
    mine, theirs = game.view.scores[0], game.view.scores[1]
    assert window.windowTitle() == f"Your turn, {mine} to {theirs} — Somnium"
    play_to_the_end(qtbot, window.table)
    view = game.view
    said = {None: "A draw", 0: "You won", 1: "You lost"}[view.winner]
    assert window.windowTitle() == f"{said}, {view.scores[0]} to {view.scores[1]} — Somnium"
    window._replace_source(None)
    assert window.windowTitle() == "Somnium"


def test_the_title_of_the_other_players_turn_and_of_a_game_watched() -> None:
    state = position([c(Suit.ANGELS, 5)], banks=([c(Suit.SUNS, 7)], [c(Suit.CUPS, 4)]), turn=1)
    seated = StateSource(state, 0, "Friday night", "G1")
    assert window_title(seated, seated.view) == "Bea's turn, 7 to 4 — Somnium"
    watched = StateSource(state, None, "Friday night", "G1")
    assert window_title(watched, watched.view) == "Watching: Bea's turn, Ada 7, Bea 4 — Somnium"
    assert re.fullmatch(r"Somnium", window_title(None, None))
