"""The lobby panel's choices on their own: Create's Rated, odds and clock; a line's menu."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from somnium_desktop.client.lobby_records import GameSummary, LevelInfo, Seat
from somnium_desktop.ui.lobby_games import STATUS
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


def test_a_finished_lines_menu_offers_its_replay(qtbot: QtBot) -> None:
    panel = LobbyPanel()
    qtbot.addWidget(panel)
    ada, bea = Seat(0, "person", "u-ada", "Ada"), Seat(1, "person", "u-bea", "Bea")
    games = [GameSummary("A", "Over", "finished", (ada, bea), winner=0, rated=True,
                         move_seconds=30),
             GameSummary("B", "On", "playing", (ada, bea), turn=1)]
    panel.set_games(games, me="u-bea")
    asked: list[str] = []
    panel.replay_clicked.connect(asked.append)
    labels = [[a.text() for a in panel.games.menu_for(row).actions()] for row in (0, 1)]
    assert "Replay “Over”" in labels[0] and not any("Replay" in t for t in labels[1])
    [replay] = [a for a in panel.games.menu_for(0).actions() if a.text().startswith("Replay")]
    replay.trigger()
    assert asked == ["A"]
    # its result says how it was played, then that a click replays it
    result = panel.games.item(0, STATUS)
    assert result is not None and result.toolTip() == (
        "Ada won: a rated game, it counts for both players' ratings; 30 s a move; "
        "click to replay the game")
