"""Replays of online games on the table, from a real server: opened from the lobby's finished
games, a player's page and the result panel, stepped with buttons and keys."""

from __future__ import annotations

import random
import threading
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from somnium_desktop.client.describe import Speaker
from somnium_desktop.client.lobby_client import LobbyClient
from somnium_desktop.client.lobby_records import GameEvent
from somnium_desktop.client.online import OnlineGame
from somnium_desktop.client.replay import fetch as fetch_replay
from somnium_desktop.client.replay_source import ReplaySource
from somnium_desktop.game.events import Event
from somnium_desktop.game.view import View, view_from_dict
from somnium_desktop.ui.lobby_games import STATUS
from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.players_hooks import open_player
from tests.server.helpers import LiveServer
from tests.ui.driver import activate

from .helpers import (
    click_cell,
    close_windows,
    finished_game,
    lobby_row,
    open_window,
    play,
    seated_game,
)
from .test_presence_window import quick_lobby  # noqa: F401  (away at once, claimable soon)


def server_replay(lobby: LiveServer, game_id: str) -> tuple[list[View], list[list[Event]]]:
    """The server's views after each action, and the engine events each action caused."""
    steps = lobby.get(f"/games/{game_id}/replay").json()["steps"]
    log = [GameEvent.from_dict(e) for e in lobby.get(f"/games/{game_id}/log").json()]
    caused: list[list[Event]] = [[] for _ in steps]
    for index, step in enumerate(steps[1:], start=1):
        for entry in log:
            event = entry.engine_event()
            if entry.version == step["version"] and event is not None:
                caused[index].append(event)
    return [view_from_dict(step["view"]) for step in steps], caused


def lines(caused: list[list[Event]], upto: int, names: tuple[str, str],
          seat: int | None) -> list[str]:
    speaker = Speaker(names, seat)
    return [speaker.describe(e) for events in caused[1:upto + 1] for e in events]


def at(qtbot: QtBot, window: MainWindow, view: View) -> None:
    table = window.table
    qtbot.waitUntil(lambda: table.shown == view and not table.scene.busy, timeout=5000)


def test_a_finished_game_replays_from_the_lobby_and_from_a_players_page(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    game_id, players = seated_game(lobby)
    play(players, game_id, 200, random.Random(7))
    views, caused = server_replay(lobby, game_id)
    assert views[-1].over and len(views) > 4
    names = ("Ada", "Bea")
    cy = open_window(qtbot, tmp_path, "Cy", lobby.base)
    try:
        qtbot.waitUntil(lambda: lobby_row(cy, game_id) >= 0, timeout=10000)
        assert cy.online is not None and cy.online.client is not None
        received: list[bytes] = []
        cy.online.client.http.hooks["response"].append(
            lambda response, *args, **kwargs: received.append(response.content))
        # The lobby's finished game: a click on its result opens the replay, at the deal.
        click_cell(cy, lobby_row(cy, game_id), STATUS)
        qtbot.waitUntil(lambda: cy.table.replay is not None, timeout=10000)
        table, replay = cy.table, cy.table.replay
        assert replay is not None and isinstance(cy.source, ReplaySource)
        assert [step.view for step in replay.steps] == views
        assert replay.names == names and replay.my_seat is None
        at(qtbot, cy, views[0])
        assert table.replaying.bar.position.text() == f"Move 0 of {len(views) - 1}"
        for step in range(1, len(views)):  # all the way by the Forward button
            QTest.mouseClick(table.replaying.bar.buttons[2], Qt.MouseButton.LeftButton)
            at(qtbot, cy, views[step])
            assert table.log.lines() == lines(caused, step, names, None)
        assert not table.replaying.forward_action.isEnabled()
        assert table.status.text().startswith("Game over: ")
        # a rated game: the ratings beside the names, and what the game did to them
        detail = lobby.get(f"/games/{game_id}").json()
        assert detail["rated"] and len(detail["rating_changes"]) == 2
        assert [strip.rating.text() for strip in (table.me, table.opponent)] == [
            f"{r['rating']}{'?' if r['provisional'] else ''}"
            for r in (p["rating"] for p in detail["players"])]
        assert not table.game_over.isHidden() and not table.game_over.ratings.isHidden()
        assert [line.split(" ")[0] for line in table.game_over.ratings.text().splitlines()] \
            == [names[c["seat"]] for c in detail["rating_changes"]]
        pages: list[str] = []  # a click on a name asks for that player's page
        table.player_page_requested.connect(pages.append)
        QTest.mouseClick(table.opponent.name, Qt.MouseButton.LeftButton)
        table.player_page_requested.disconnect(pages.append)
        assert pages == [players[1 - table.scene.bottom_seat].user_id]
        qtbot.waitUntil(lambda: cy.player_page is not None, timeout=10000)
        shown_page = cy.player_page
        assert shown_page is not None
        shown_page.close()
        QTest.mouseClick(table.replaying.bar.leave_button, Qt.MouseButton.LeftButton)
        assert cy.source is None and not table.replaying.bar.isVisible()
        # Everything the app was sent holds no deck order: views count the deck, no more.
        assert received and all(b'"deck":' not in body and b'"seed"' not in body
                                for body in received)

        # Ada's page: a double-click on the game opens it again, stepped by keys.
        page = open_player(cy, cy.online, players[0].user_id)
        assert page is not None
        qtbot.waitUntil(lambda: page.games.count() == 1, timeout=10000)
        page.games.itemDoubleClicked.emit(page.games.item(0))
        qtbot.waitUntil(lambda: cy.table.replay is not None, timeout=10000)
        page.close()
        activate(qtbot, cy)
        at(qtbot, cy, views[0])
        for key, step in ((Qt.Key.Key_End, len(views) - 1), (Qt.Key.Key_Left, len(views) - 2),
                          (Qt.Key.Key_Home, 0), (Qt.Key.Key_Right, 1), (Qt.Key.Key_Right, 2),
                          (Qt.Key.Key_Left, 1)):
            QTest.keyClick(table, key)
            at(qtbot, cy, views[step])
            assert table.replay is not None and table.replay.step == step
            assert table.log.lines() == lines(caused, step, names, None)
            assert not table.draw_action.isEnabled() and not table.end_turn_action.isEnabled()
        # A game still in play has no replay yet: the lobby says why, the replay stays.
        unfinished = players[1].create()["id"]
        cy.online.open_replay(unfinished)
        qtbot.waitUntil(lambda: "ended" in cy.lobby_panel.message.text(), timeout=10000)
        assert table.replay is not None and table.replay.game_id == game_id
    finally:
        close_windows(qtbot, cy)


def test_the_result_panel_replays_ones_own_game(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    ada = open_window(qtbot, tmp_path, "Ada", lobby.base)
    try:
        qtbot.waitUntil(lambda: ada.lobby_panel.create_button.isEnabled(), timeout=5000)
        QTest.mouseClick(ada.lobby_panel.create_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: isinstance(ada.source, OnlineGame), timeout=15000)
        game = ada.source
        assert isinstance(game, OnlineGame)
        bea = lobby.player("Bea")
        assert bea.post(f"/games/{game.game_id}/join").status_code == 200
        table = ada.table
        qtbot.waitUntil(table.my_turn, timeout=5000)
        assert not table.replay_button.isVisible()
        activate(qtbot, ada)
        QTest.keyClick(table, Qt.Key.Key_D)
        qtbot.waitUntil(lambda: table.my_turn() and table.end_turn_action.isEnabled(),
                        timeout=5000)
        QTest.keyClick(table, Qt.Key.Key_E)
        qtbot.waitUntil(lambda: table.shown is not None and table.shown.turn == 1,
                        timeout=5000)
        version = bea.get(f"/games/{game.game_id}").json()["version"]
        assert bea.act(game.game_id, version, {"type": "concede"}).status_code == 200
        qtbot.waitUntil(table.replay_button.isVisible, timeout=5000)
        views, caused = server_replay(lobby, game.game_id)
        QTest.mouseClick(table.replay_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: table.replay is not None, timeout=10000)
        replay = table.replay
        assert replay is not None and replay.my_seat == 0 and replay.length == 3
        assert [step.view for step in replay.steps] == views
        assert table.me.name.text() == f"{replay.names[0]} (you)"  # at the bottom
        at(qtbot, ada, views[0])
        QTest.keyClick(table, Qt.Key.Key_End)
        at(qtbot, ada, views[-1])
        assert table.log.lines() == lines(caused, 3, replay.names, 0)
        assert table.log.lines()[-1].startswith("Game over: you won by concession")
        assert table.game_over.title.text() == "You won!"
        assert not table.replay_button.isVisible() and not table.game_over.rematch.isVisible()
    finally:
        close_windows(qtbot, ada)


def test_the_replay_asked_for_last_opens_and_a_double_click_asks_once(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A replay asked for while another is on its way: the last one asked for opens, the
    other's answer (later still) is dropped; a second click on the same game asks nothing."""
    (first, _), (second, _) = finished_game(lobby), finished_game(lobby)
    cy = open_window(qtbot, tmp_path, "Cy", lobby.base)
    try:
        qtbot.waitUntil(lambda: cy.online is not None and cy.online.client is not None,
                        timeout=10000)
        assert cy.online is not None and cy.online.client is not None
        online, client = cy.online, cy.online.client
        replay, first_answers, asked = client.replay, threading.Event(), []

        def far(game_id: str) -> dict[str, Any]:  # (the first game's answer comes last)
            asked.append(game_id)
            if game_id == first:
                first_answers.wait(10)
            return replay(game_id)

        monkeypatch.setattr(client, "replay", far)
        online.open_replay(first)  # a finished game clicked in the lobby...
        online.open_replay(second)  # ...then, the player changing their mind, another
        online.open_replay(second.lower())  # (clicked twice)
        qtbot.waitUntil(lambda: cy.table.replay is not None, timeout=10000)
        assert cy.table.replay is not None and cy.table.replay.game_id == second
        first_answers.set()
        qtbot.waitUntil(lambda: not online.ops.busy, timeout=10000)
        assert isinstance(cy.source, ReplaySource) and cy.source.game_id == second
        assert sorted(asked) == sorted([first, second])  # (asked once each)
    finally:
        close_windows(qtbot, cy)


def test_a_claimed_win_is_told_as_such_in_the_replay(
    qtbot: QtBot, quick_lobby: LiveServer  # noqa: F811
) -> None:
    game_id, players = seated_game(quick_lobby)  # nobody keeps a stream open: both away
    claimed: list[int] = []

    def claim() -> bool:
        claimed.append(players[0].post(f"/games/{game_id}/claim").status_code)
        return claimed[-1] == 200

    qtbot.waitUntil(claim, timeout=5000)
    replay = fetch_replay(LobbyClient(quick_lobby.base), game_id, players[0].user_id)
    assert replay.my_seat == 0 and replay.claimed_from == 1 and replay.end() == 1
    assert [text for text, _ in replay.lines()] == [
        "You claimed the win: Bea left the table.",
        "Game over: you won, 0 to 0 (Bea left the table)."]
    source = ReplaySource(replay)
    assert source.claimed_from == 1 and source.read_only and source.can_replay is False
    source.deleteLater()
