"""The lobby panel on its own: what a line says, keys on the list, the server's address."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QTableWidgetItem
from pytestqt.qtbot import QtBot

from somnium_desktop.client.lobby_client import GameSummary, Seat
from somnium_desktop.ui.lobby_panel import NAME, SEAT_2, LobbyPanel, status_text
from somnium_desktop.ui.settings import server_address

ADA = Seat(0, "person", "u-ada", "Ada")
BEA = Seat(1, "person", "u-bea", "Bea")
OPEN = Seat(1, "open")


def cell(panel: LobbyPanel, row: int, column: int) -> QTableWidgetItem:
    item = panel.games.item(row, column)
    assert item is not None
    return item


def line(game_id: str, status: str, *players: Seat, **rest: object) -> GameSummary:
    return GameSummary(game_id, f"Table {game_id}", status, players, **rest)  # type: ignore[arg-type]


def test_lines_say_how_games_stand() -> None:
    assert status_text(line("A", "waiting", ADA, OPEN)) == "Waiting"
    assert status_text(line("B", "playing", ADA, BEA, turn=1)) == "Bea's turn"
    assert status_text(line("C", "finished", ADA, BEA, winner=0)) == "Ada won"
    assert status_text(line("D", "finished", ADA, BEA)) == "Finished"


def test_keys_on_the_list_watch_and_join_and_the_place_is_kept(qtbot: QtBot) -> None:
    panel = LobbyPanel()
    qtbot.addWidget(panel)
    panel.show()
    asked: list[tuple[str, str]] = []
    panel.open_clicked.connect(lambda game_id: asked.append(("open", game_id)))
    panel.join_clicked.connect(lambda game_id: asked.append(("join", game_id)))
    games = [line("A", "waiting", ADA, OPEN, observers=2), line("B", "playing", ADA, BEA, turn=0)]
    panel.set_games(games, me="u-bea")
    table = panel.games
    assert cell(panel, 0, SEAT_2).text() == "Join"
    assert cell(panel, 0, NAME).data(Qt.ItemDataRole.AccessibleTextRole) == (
        "Table A, game A: press Enter to watch")
    assert cell(panel, 1, NAME).data(Qt.ItemDataRole.AccessibleTextRole) == (
        "Table B, game B: press Enter to play")  # Bea sits there
    panel.focus_games()
    QTest.keyClick(table, Qt.Key.Key_Return)
    QTest.keyClick(table, Qt.Key.Key_Right)
    QTest.keyClick(table, Qt.Key.Key_Right)
    QTest.keyClick(table, Qt.Key.Key_Return)
    assert asked == [("open", "A"), ("join", "A")]
    # A new game arrives on top: the marked cell stays on the same game and seat.
    panel.set_games([line("C", "waiting", BEA, OPEN), *games], me="u-bea")
    assert (table.currentRow(), table.currentColumn()) == (1, SEAT_2)
    assert cell(panel, 0, SEAT_2).text() == "Open seat"  # Bea's own table: nothing to join
    panel.close()


def test_a_server_address_as_typed_becomes_a_url() -> None:
    assert server_address(" somnium.example.org/ ") == "https://somnium.example.org"
    assert server_address("127.0.0.1:8000") == "http://127.0.0.1:8000"
    assert server_address("[::1]:9") == "http://[::1]:9"
    assert server_address("http://lobby:80") == "http://lobby:80"
    assert server_address("  ") == ""
