"""The Create area on its own: the Rated box, the odds box and the clock, and how they bind."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from somnium_desktop.client.lobby_client import LevelInfo
from somnium_desktop.ui.lobby_panel import LobbyPanel

LEVELS = [LevelInfo("easy", "Easy"), LevelInfo("hard", "Hard")]


def test_the_odds_wait_for_a_casual_or_computer_game_and_outlast_a_levels_refresh(
    qtbot: QtBot,
) -> None:
    panel = LobbyPanel()
    qtbot.addWidget(panel)
    panel.set_levels(LEVELS)
    odds, rated = panel.odds_box, panel.rated_box
    # two people, rated by default: no odds
    assert panel.rated() and not odds.isEnabled() and not odds.isChecked()
    rated.setChecked(False)  # casual: the odds may be asked for
    assert odds.isEnabled()
    odds.setChecked(True)
    rated.setChecked(True)  # rated again: the odds go
    assert not odds.isEnabled() and not odds.isChecked()
    # the computer: never rated, the odds are the player's to ask for
    panel.opponent.setCurrentIndex(panel.opponent.findData("hard"))
    assert not panel.rated() and odds.isEnabled()
    odds.setChecked(True)
    panel.clock_choice.setCurrentIndex(panel.clock_choice.findData(30))
    panel.set_levels(LEVELS)  # the server's levels read again (a reconnection, say)
    assert panel.opponent.currentData() == "hard" and not panel.rated()
    assert odds.isEnabled() and odds.isChecked()
    assert panel.clock_choice.currentData() == 30
    # back to a person: the Rated choice made before (ticked) is kept, so the odds go
    panel.opponent.setCurrentIndex(0)
    assert panel.rated() and not odds.isEnabled() and not odds.isChecked()
    # a level the server no longer offers: a person again, as chosen
    rated.setChecked(False)
    panel.opponent.setCurrentIndex(panel.opponent.findData("easy"))
    odds.setChecked(True)
    panel.set_levels(LEVELS[1:])
    assert panel.opponent.currentData() is None and not panel.rated()
    assert odds.isEnabled() and odds.isChecked()  # (casual: the odds may stay)
