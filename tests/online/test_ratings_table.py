"""Ratings in app windows on a real server: Rated or casual at Create, ratings beside the names
on the table and their change at the end, player pages from any name, Unblock in the chat."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from somnium_desktop.client.online import OnlineGame
from somnium_desktop.ui.blocked_dialog import BlockedDialog
from somnium_desktop.ui.lobby_games import SEAT_1, SEAT_2, STATUS
from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.players_dialog import PlayerPage
from somnium_server.play.ratings import Rating, after_game
from tests.server.helpers import LiveServer
from tests.ui.test_accessibility_tree import found

from .helpers import cell_text, click_cell, close_windows, lobby_row, open_window
from .test_chat_windows import shown
from .test_presence_window import create_signed_in

CONCEDE = {"type": "concede"}


def page_of(qtbot: QtBot, window: MainWindow, name: str) -> PlayerPage:
    """The player page the window has just opened, once it shows `name`'s rating."""
    qtbot.waitUntil(lambda: window.player_page is not None, timeout=5000)
    page = window.player_page
    assert page is not None
    qtbot.waitUntil(lambda: page.title.text().startswith(f"{name}: "), timeout=10000)
    return page


def test_the_table_shows_ratings_and_their_change_at_the_end(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    ada = open_window(qtbot, tmp_path, "Ada", lobby.base)
    try:
        game = create_signed_in(qtbot, ada)  # rated: the default
        bob = lobby.player("Bob")
        assert bob.post(f"/games/{game.game_id}/join").status_code == 200
        table = ada.table
        qtbot.waitUntil(lambda: table.shown is not None, timeout=10000)
        assert [table.me.rating.text(), table.opponent.rating.text()] == ["1500?", "1500?"]
        assert table.opponent.rating.isVisible()
        assert "rated 1500?" in table.opponent.accessibleName()

        # a click on Bob's name opens his page
        QTest.mouseClick(table.opponent.name, Qt.MouseButton.LeftButton)
        page = page_of(qtbot, ada, "Bob")
        assert page.title.text() == "Bob: 1500? (±350, provisional)"
        qtbot.waitUntil(lambda: page.games.count() == 1, timeout=5000)
        assert not page.replay_button.isEnabled()  # a game in play: no replay yet
        page.close()

        version = bob.get(f"/games/{game.game_id}").json()["version"]
        assert bob.act(game.game_id, version, CONCEDE).status_code == 200
        changes = lobby.get(f"/games/{game.game_id}").json()["rating_changes"]
        assert changes[0]["change"] > 0 > changes[1]["change"]
        qtbot.waitUntil(lambda: table.game_over.ratings.isVisible(), timeout=10000)
        names = game.names
        assert table.game_over.ratings.text() == "\n".join(
            f"{names[c['seat']]} {c['before']} → {c['after']} ({c['change']:+d})"
            for c in changes)
        won, lost = (round(r.rating) for r in after_game(Rating(), Rating(), 1.0))
        assert table.game_over.ratings.text().splitlines() == [
            f"Ada 1500 → {won} (+{won - 1500})", f"Bob 1500 → {lost} (-{1500 - lost})"]
        assert "Ratings: Ada 1500 → " in table.last_announcement
        node = found(ada, QAccessible.Role.StaticText, table.game_over.ratings.text())
        assert node is not None  # read as the changes, not as "Rating changes"
        assert node.text(QAccessible.Text.Description) == "Rating changes"
    finally:
        close_windows(qtbot, ada)


def test_create_offers_rated_or_casual_and_the_lobby_shows_which(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    ada = open_window(qtbot, tmp_path, "Ada", lobby.base)
    bea = open_window(qtbot, tmp_path, "Bea", lobby.base)
    try:
        panel = ada.lobby_panel
        assert panel.rated_box.isChecked() and panel.rated_box.isEnabled()
        qtbot.waitUntil(lambda: panel.opponent.count() > 1, timeout=10000)
        panel.opponent.setCurrentIndex(1)  # a computer: never rated
        assert not panel.rated_box.isEnabled() and not panel.rated_box.isChecked()
        assert not panel.rated()
        panel.opponent.setCurrentIndex(0)
        assert panel.rated_box.isEnabled() and panel.rated_box.isChecked()
        panel.rated_box.setChecked(False)
        casual = create_signed_in(qtbot, ada)
        assert lobby.get(f"/games/{casual.game_id}").json()["rated"] is False
        panel.opponent.setCurrentIndex(1)
        panel.opponent.setCurrentIndex(0)
        assert not panel.rated_box.isChecked()  # the choice made is kept
        panel.rated_box.setChecked(True)
        QTest.mouseClick(panel.create_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: ada.source is not None
                        and ada.source.game_id != casual.game_id, timeout=10000)
        rated = ada.source
        assert isinstance(rated, OnlineGame)
        assert lobby.get(f"/games/{rated.game_id}").json()["rated"] is True

        qtbot.waitUntil(lambda: lobby_row(bea, rated.game_id) >= 0
                        and lobby_row(bea, casual.game_id) >= 0, timeout=10000)
        assert cell_text(bea, lobby_row(bea, rated.game_id), STATUS) == "Waiting · rated"
        assert cell_text(bea, lobby_row(bea, casual.game_id), STATUS) == "Waiting"
        # a click on Ada's name opens her page (so does the line's menu); one on the open
        # seat still joins
        click_cell(bea, lobby_row(bea, rated.game_id), SEAT_1)
        page_of(qtbot, bea, "Ada").close()
        bea.player_page = None
        menu = bea.lobby_panel.games.menu_for(lobby_row(bea, rated.game_id))
        assert [a.text() for a in menu.actions()] == [
            "Watch “Ada's table”", "Join (take the open seat)", "Ada's page"]
        menu.actions()[2].trigger()
        page_of(qtbot, bea, "Ada").close()
        assert bea.source is None
        click_cell(bea, lobby_row(bea, rated.game_id), SEAT_2)
        qtbot.waitUntil(lambda: isinstance(bea.source, OnlineGame), timeout=15000)
        bea.browser.join()  # type: ignore[attr-defined]
        assert bea.source is not None and bea.source.game_id == rated.game_id
    finally:
        close_windows(qtbot, ada, bea)


def test_a_chat_author_opens_their_page_and_a_blocked_one_can_be_unblocked(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    ada = open_window(qtbot, tmp_path, "Ada", lobby.base)
    try:
        game = create_signed_in(qtbot, ada)
        assert lobby.player("Bob").post(f"/games/{game.game_id}/join").status_code == 200
        dan = lobby.player("Dan")
        assert dan.post(f"/games/{game.game_id}/chat", {"text": "hi"}).status_code == 201
        chat = ada.chat_view
        qtbot.waitUntil(lambda: shown(ada) == ["Dan (watching): hi"], timeout=10000)
        chat.lines.itemDoubleClicked.emit(chat.lines.item(0))
        page_of(qtbot, ada, "Dan").close()

        chat.lines.setCurrentRow(0)
        QTest.mouseClick(chat.block_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: shown(ada) == [], timeout=5000)
        dan.post(f"/games/{game.game_id}/chat", {"text": "still there?"})
        QTest.mouseClick(chat.blocked_button, Qt.MouseButton.LeftButton)
        dialog = chat.blocked_dialog
        assert isinstance(dialog, BlockedDialog)
        qtbot.waitUntil(lambda: dialog.users.count() == 1, timeout=5000)
        assert dialog.users.item(0).text() == "Dan" and dialog.unblock_button.isEnabled()
        QTest.mouseClick(dialog.unblock_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: dialog.users.count() == 0
                        and dialog.note.text() == "You have blocked nobody.", timeout=5000)
        # his messages are back, in their places, and his next ones reach her again
        assert shown(ada) == ["Dan (watching): hi", "Dan (watching): still there?"]
        dan.post(f"/games/{game.game_id}/chat", {"text": "back"})
        qtbot.waitUntil(lambda: shown(ada)[-1:] == ["Dan (watching): back"], timeout=5000)
        dialog.close()
    finally:
        close_windows(qtbot, ada)
