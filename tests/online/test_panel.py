"""The lobby panel on its own: what a line says, keys on the list, the server's address."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QTableWidgetItem
from pytestqt.qtbot import QtBot

from somnium_desktop.client.lobby_records import GameSummary, Seat
from somnium_desktop.ui import lobby_panel
from somnium_desktop.ui.lobby_games import (
    COLUMNS,
    NAME,
    SEAT_1,
    SEAT_2,
    STATUS,
    WATCHING,
    status_text,
)
from somnium_desktop.ui.lobby_panel import LobbyPanel
from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.settings import Settings, server_address

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


def many(count: int) -> list[GameSummary]:
    """`count` lobby lines, newest first."""
    return [line(f"G{n}", "playing", ADA, BEA, turn=n % 2, created_at=float(n))
            for n in range(count, 0, -1)]


def test_lobby_events_change_lines_in_place_and_keep_the_place(qtbot: QtBot) -> None:
    panel = LobbyPanel()
    qtbot.addWidget(panel)
    panel.resize(440, 600)
    panel.show()
    qtbot.waitExposed(panel)
    table = panel.games
    games = many(500)
    panel.set_games(games, me=None)
    assert table.rowCount() == 500
    table.setFocus()
    table.setCurrentCell(250, SEAT_1)
    table.scrollToItem(cell(panel, 240, NAME), table.ScrollHint.PositionAtTop)
    top = games[table.rowAt(0)].id
    kept, kept_id = cell(panel, 100, STATUS), games[100].id
    # 50 events: turns pass, people watch, a game closes, new ones come on top.
    for n in range(50):
        row = (n * 37) % len(games)
        if n % 10 == 9:
            del games[row]
        elif n % 10 == 4:
            games.insert(0, line(f"N{n}", "waiting", BEA, OPEN, created_at=1000.0 + n))
        else:
            games[row] = replace(games[row], turn=1 - (games[row].turn or 0),
                                 observers=games[row].observers + 1)
        panel.set_games(games, me=None)
    assert table.rowCount() == len(games) == 500 + 5 - 5
    assert [cell(panel, row, NAME).text() for row in range(table.rowCount())] == [
        game.name for game in games]
    assert [cell(panel, row, STATUS).text() for row in range(table.rowCount())] == [
        status_text(game) for game in games]
    assert [cell(panel, row, WATCHING).text() for row in range(table.rowCount())] == [
        str(game.observers) for game in games]
    assert cell(panel, 0, SEAT_2).text() == "Join"
    assert games[table.currentRow()].id == "G250" and table.currentColumn() == SEAT_1
    assert table.selectedItems() == [table.item(table.currentRow(), SEAT_1)]
    assert games[table.rowAt(0)].id == top  # the lines in view stay in view
    assert panel.focusWidget() is table
    assert kept_id in {game.id for game in games}
    assert table.item(table.row_of(kept_id), STATUS) is kept  # the same cell, not a new one
    panel.close()


def test_the_game_column_shows_its_header_however_narrow_the_panel(qtbot: QtBot) -> None:
    panel = LobbyPanel()
    qtbot.addWidget(panel)
    panel.show()
    long = Seat(0, "person", "u-long", "Bartholomew Longname-Smythe")
    panel.set_games([line("A", "playing", long, BEA, turn=0, observers=12345)], me=None)
    table = panel.games
    header = table.horizontalHeader()
    widths = set()
    for width in (200, 300, 360, 440, 700):
        panel.resize(width, 500)
        qtbot.wait(20)
        needed = header.fontMetrics().horizontalAdvance(COLUMNS[NAME])
        assert table.columnWidth(NAME) >= needed + 12, width
        used = sum(table.columnWidth(column) for column in range(len(COLUMNS)))
        assert used <= table.viewport().width() + 1, width  # nothing cut off on the right
        widths.add(table.viewport().width())
        # Crowded, the observer count goes first, so the seats' headers stay whole.
        if width <= 300 or width >= 700:
            assert table.isColumnHidden(WATCHING) == (width <= 300), width
        if width >= 300:
            for column in (SEAT_1, SEAT_2, STATUS):
                text = header.fontMetrics().horizontalAdvance(COLUMNS[column])
                assert table.columnWidth(column) >= text + 8, (width, column)
    assert len(widths) >= 3  # (the panel did get narrower and wider)
    assert "12345 watching" in cell(panel, 0, NAME).toolTip()
    panel.close()


def test_an_open_seat_is_a_link_only_while_the_server_can_be_reached(qtbot: QtBot) -> None:
    panel = LobbyPanel()
    qtbot.addWidget(panel)
    panel.set_games([line("A", "waiting", ADA, OPEN)], me=None)
    panel.set_connected(True)
    seat = cell(panel, 0, SEAT_2)
    assert seat.font().underline() and seat.toolTip() == "Click to take this seat"
    assert seat.foreground().color() == panel.games.palette().link().color()
    panel.set_connected(False)  # the lobby lost its server
    seat = cell(panel, 0, SEAT_2)
    assert seat.text() == "Join" and not seat.font().underline()
    assert "cannot be reached" in seat.toolTip()
    assert seat.foreground().color() != panel.games.palette().link().color()
    assert "once the server is back" in seat.data(Qt.ItemDataRole.AccessibleTextRole)
    panel.set_connected(True)
    assert cell(panel, 0, SEAT_2).font().underline()


def test_the_list_can_be_narrowed_to_open_seats_games_in_play_finished_or_mine(
    qtbot: QtBot,
) -> None:
    panel = LobbyPanel()
    qtbot.addWidget(panel)
    cid = Seat(0, "person", "u-cid", "Cid")
    games = [
        line("A", "waiting", ADA, OPEN),
        line("B", "playing", ADA, BEA, turn=1),
        line("C", "finished", cid, BEA, winner=0),
        line("D", "waiting", BEA, OPEN),
    ]
    panel.set_games(games, me="u-bea")

    def listed(key: str) -> list[str]:
        panel.shown.setCurrentIndex(panel.shown.findData(key))
        return [game.id for game in panel.games.games]

    assert listed("all") == ["A", "B", "C", "D"]
    assert listed("open") == ["A"]  # (D is Bea's own table: nothing for her to join)
    assert listed("playing") == ["B"]
    assert listed("finished") == ["C"]
    assert listed("mine") == ["B", "C", "D"]
    # A lobby event changes the games: the list stays narrowed.
    panel.set_games([line("E", "waiting", cid, OPEN), *games], me="u-bea")
    assert [game.id for game in panel.games.games] == ["B", "C", "D"]
    assert listed("open") == ["E", "A"]


def test_an_empty_list_says_why(qtbot: QtBot) -> None:
    panel = LobbyPanel()
    qtbot.addWidget(panel)
    panel.show()
    panel.set_games([], me=None)
    assert not panel.games.hint.isVisible()  # (not connected: the message line speaks)
    panel.set_connected(True)
    assert panel.games.hint.isVisible()
    assert panel.games.hint.text() == "No games on this server yet: create one above."
    panel.set_games([line("B", "playing", ADA, BEA, turn=1)], me=None)
    assert not panel.games.hint.isVisible()
    panel.shown.setCurrentIndex(panel.shown.findData("mine"))
    assert panel.games.hint.text() == "Sign in to see your games."
    assert panel.games.hint.isVisible()
    panel.shown.setCurrentIndex(panel.shown.findData("open"))
    assert panel.games.hint.text() == "No open seat right now: create a game above."
    panel.close()


def test_the_message_line_clears_after_a_while_unless_it_still_holds(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lobby_panel, "MESSAGE_KEPT_MS", 50)
    panel = LobbyPanel()
    qtbot.addWidget(panel)
    panel.show_message("Bea joined your game.")
    qtbot.waitUntil(lambda: panel.message.text() == "", timeout=2000)
    panel.show_message("Refused: the host has left this table.", error=True)
    qtbot.waitUntil(lambda: panel.message.text() == "", timeout=2000)
    panel.show_message("The server cannot be reached.", error=True, keep=True)
    qtbot.wait(200)
    assert panel.message.text() == "The server cannot be reached."


def test_a_table_whose_host_left_offers_no_seat(qtbot: QtBot) -> None:
    panel = LobbyPanel()
    qtbot.addWidget(panel)
    panel.set_connected(True)
    left = line("A", "waiting", ADA, OPEN, away=(True, False))
    panel.set_games([left, line("B", "playing", ADA, BEA, turn=1, away=(False, True))], me=None)
    assert status_text(left) == "Host away"
    seat = cell(panel, 0, SEAT_2)
    assert not seat.font().underline() and "host has left" in seat.toolTip()
    assert seat.data(Qt.ItemDataRole.UserRole) == ("open", "A")  # a click watches
    assert "Bea has left" in cell(panel, 1, SEAT_2).toolTip()
    panel.shown.setCurrentIndex(panel.shown.findData("open"))
    assert panel.games.games == []


def test_a_remote_server_over_plain_http_is_not_used(
    qtbot: QtBot, tmp_path: Path
) -> None:
    store = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    store.setValue("online/server", "http://lobby.example.org")  # (written by hand, say)
    window = MainWindow(Settings(store), [])
    qtbot.addWidget(window)
    window.show()
    online = window.start_online()
    assert online.client is None  # nothing is sent there
    message = window.lobby_panel.message.text()
    assert "plain http" in message and "Settings" in message
    assert window.lobby_panel.message.property("error") is True
    window.lobby_panel.create_clicked.emit("Mine", None)
    assert "plain http" in window.lobby_panel.message.text()  # and Create says why it waits
    window.close()
    online.ops.wait_idle(5)
