"""Ratings in the app from a real server: the lobby list, the Players dialog, player pages."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from somnium_desktop.client.ratings import rating_text, with_rating
from somnium_desktop.ui.lobby_games import SEAT_1, SEAT_2
from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.players_dialog import PlayerPage, PlayersDialog
from somnium_desktop.ui.players_hooks import open_page
from somnium_server.play.ratings import LEADERBOARD_GAMES
from tests.server.helpers import LiveServer, server_settings

from .helpers import cell_text, close_windows, finished_game, lobby_row, open_window, seated_game


def test_the_lobby_shows_each_players_rating(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    first, players = seated_game(lobby)
    version = players[0].get(f"/games/{first}").json()["version"]
    assert players[0].act(first, version, {"type": "concede"}).status_code == 200
    second = players[0].create()["id"]  # the same two people again
    assert players[1].post(f"/games/{second}/join").status_code == 200
    ratings = [lobby.get(f"/players/{players[seat].user_id}").json()["rating"] for seat in (0, 1)]
    assert ratings[0]["rating"] < 1500 < ratings[1]["rating"]  # Ada conceded the first game
    window = open_window(qtbot, tmp_path, "Cy", lobby.base)
    try:
        qtbot.waitUntil(lambda: lobby_row(window, second) >= 0, timeout=10000)
        row = lobby_row(window, second)
        assert cell_text(window, row, SEAT_1) == with_rating("Ada", rating_text(ratings[0]))
        assert cell_text(window, row, SEAT_2) == f"Bea ({ratings[1]['rating']}?)"
        # the first game's seats show the ratings as they sat down: both new
        assert cell_text(window, lobby_row(window, first), SEAT_1) == "Ada (1500?)"
    finally:
        close_windows(qtbot, window)


def board_text(dialog: PlayersDialog, row: int, column: int) -> str:
    item = dialog.board.item(row, column)
    return item.text() if item is not None else ""


def players_dialog(qtbot: QtBot, window: MainWindow) -> PlayersDialog:
    """The Players dialog (Game → Players…) once the window is on its server."""
    qtbot.waitUntil(lambda: window.online is not None and window.online.client is not None,
                    timeout=10000)
    window.players_action.trigger()
    dialog = window.findChild(PlayersDialog, "players-dialog")
    assert dialog is not None
    return dialog


def test_the_players_dialog_opens_a_players_page_and_asks_for_replays(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    ada, bea = lobby.player("Ada"), lobby.player("Bea")
    finished = []
    for _ in range(LEADERBOARD_GAMES):
        game_id = ada.create()["id"]
        assert bea.post(f"/games/{game_id}/join").status_code == 200
        version = ada.get(f"/games/{game_id}").json()["version"]
        assert ada.act(game_id, version, {"type": "concede"}).status_code == 200
        finished.append(game_id)
    window = open_window(qtbot, tmp_path, "Cy", lobby.base)
    try:
        dialog = players_dialog(qtbot, window)
        qtbot.waitUntil(lambda: dialog.board.rowCount() == 2, timeout=10000)
        names = [board_text(dialog, row, 1) for row in range(2)]
        assert names == ["Bea", "Ada"]
        bea_rating = lobby.get(f"/players/{bea.user_id}").json()["rating"]
        assert board_text(dialog, 0, 2) == rating_text(bea_rating)
        dialog.board.cellDoubleClicked.emit(1, 1)  # Ada's line
        page = window.findChild(PlayerPage, "player-page")
        assert page is not None
        qtbot.waitUntil(lambda: page.games.count() == LEADERBOARD_GAMES, timeout=10000)
        assert page.title.text().startswith("Ada: ")
        assert page.record.text() == f"{LEADERBOARD_GAMES} rated games: 0 won, " \
            f"{LEADERBOARD_GAMES} lost, 0 drawn"
        assert page.history.count() == LEADERBOARD_GAMES
        rows = sum(page.history.sizeHintForRow(row) for row in range(LEADERBOARD_GAMES))
        line = page.history.sizeHintForRow(0)  # the box is as tall as its lines (the page
        assert rows <= page.history.height() <= rows + 2 * line  # was mostly empty before)
        assert "lost" in page.history.item(0).text()
        with qtbot.waitSignal(page.replay_requested, timeout=2000) as asked:
            page.games.itemDoubleClicked.emit(page.games.item(0))
        assert asked.args == [finished[-1]]  # the newest game first
        page.games.setCurrentRow(1)
        assert page.replay_button.isEnabled()
        with qtbot.waitSignal(window.replay_requested, timeout=2000) as asked:
            page.replay_button.click()  # (the window passes it on, for the replay)
        assert asked.args == [finished[-2]]
        page.close()
        dialog.close()
    finally:
        close_windows(qtbot, window)


def test_leaving_the_server_closes_its_players_dialog_and_pages(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    """A page's Replay would ask the next server for a game of the one left: they close."""
    _game_id, players = finished_game(lobby)
    other = LiveServer(server_settings(tmp_path / "other.sqlite3"))
    window = open_window(qtbot, tmp_path, "Cy", lobby.base)
    try:
        dialog = players_dialog(qtbot, window)
        page = open_page(window, players[0].user_id)  # (a click on Ada's name)
        assert page is not None
        qtbot.waitUntil(lambda: page.games.count() == 1, timeout=10000)
        assert dialog.isVisible() and page.isVisible()
        window.open_settings()
        window.settings_dialog.server.setText(other.base)
        window.settings_dialog.accept()
        assert not dialog.isVisible() and not page.isVisible()
        # the new server's pages open as before
        qtbot.waitUntil(lambda: window.online is not None and window.online.client is not None
                        and window.online.client.base_url == other.base, timeout=10000)
        zed = open_page(window, other.player("Zed").user_id)
        assert zed is not None
        qtbot.waitUntil(lambda: zed.title.text().startswith("Zed: "), timeout=10000)
        assert zed.isVisible()
    finally:
        close_windows(qtbot, window)
        other.stop()
