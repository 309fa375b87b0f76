"""Online play between app windows through a real lobby server, with a third window watching."""

from __future__ import annotations

import random
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from somnium_desktop.client.describe import Speaker
from somnium_desktop.client.lobby_records import GameEvent
from somnium_desktop.client.online import OnlineGame
from somnium_desktop.game.events import CardStolen
from somnium_desktop.ui.lobby_games import NAME
from tests.server.helpers import EventReader, LiveServer
from tests.ui.driver import activate

from .helpers import (
    cell_text,
    click_cell,
    close_windows,
    lobby_row,
    open_window,
    play,
    play_online,
    seated_game,
)


def test_two_windows_play_to_the_end_while_a_third_watches(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    ada = open_window(qtbot, tmp_path, "Ada", lobby.base)
    bea = open_window(qtbot, tmp_path, "Bea", lobby.base)
    cy = open_window(qtbot, tmp_path, "Cy", lobby.base)
    try:
        qtbot.waitUntil(lambda: ada.lobby_panel.create_button.isEnabled(), timeout=5000)
        assert ada.lobby_panel.account.text() == "Not signed in"
        # Creating while signed out signs in first (the local account flow), then creates.
        ada.lobby_panel.name_field.setText("Friday night")
        QTest.mouseClick(ada.lobby_panel.create_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: isinstance(ada.source, OnlineGame), timeout=15000)
        ada.browser.join()  # type: ignore[attr-defined]
        assert ada.lobby_panel.account.text() == "Signed in as Ada"
        game = ada.source
        assert isinstance(game, OnlineGame)
        qtbot.waitUntil(lambda: "Share the game id" in ada.table.status.text(), timeout=5000)
        assert game.my_seat == 0 and ada.table.game_name.text() == "Friday night"
        assert ada.lobby_panel.name_field.text() == ""  # ready for another table, not this one
        assert ada.table.me.name.text() == "Ada (you)"  # not "You" and "Opponent"
        assert ada.table.opponent.name.text() == "Open seat"
        assert game.game_id in ada.table.game_id.text()
        # Bea sees it in her lobby and clicks its open seat: she signs in, then joins.
        qtbot.waitUntil(lambda: lobby_row(bea, game.game_id) >= 0, timeout=5000)
        row = lobby_row(bea, game.game_id)
        assert cell_text(bea, row, 2) == "Join"
        activate(qtbot, bea)  # Ada's window goes to the background
        click_cell(bea, row, 2)
        qtbot.waitUntil(lambda: isinstance(bea.source, OnlineGame), timeout=15000)
        assert bea.lobby_panel.account.text() == "Signed in as Bea"
        # Ada hears of it: a desktop notification (offscreen, the window asks for attention).
        # One notice says both: she is here, and it is Ada's turn.
        joined = "Bea joined your game “Friday night”: it is your turn."
        qtbot.waitUntil(lambda: len(ada.notifier.sent) == 1, timeout=5000)
        qtbot.waitUntil(lambda: ada.table.shown is not None, timeout=5000)
        qtbot.wait(200)  # (the game's own stream has told its news too by now)
        assert ada.notifier.sent == [("Your opponent is here", joined, "alert")]
        assert ada.lobby_panel.message.text() == joined
        assert bea.notifier.sent == []  # Bea looks at her window: nothing to tell her
        # Cy clicks the game's name: watching needs no sign-in.
        qtbot.waitUntil(lambda: lobby_row(cy, game.game_id) >= 0, timeout=5000)
        click_cell(cy, lobby_row(cy, game.game_id), NAME)
        qtbot.waitUntil(lambda: isinstance(cy.source, OnlineGame), timeout=5000)
        watched = cy.source
        assert isinstance(watched, OnlineGame)
        assert cy.online is not None and cy.online.account is None
        qtbot.waitUntil(lambda: cy.table.shown is not None, timeout=5000)
        assert watched.read_only and cy.table.watching.isVisible()
        qtbot.waitUntil(lambda: ada.table.my_turn(), timeout=5000)
        assert ada.table.opponent.name.text() == "Bea"
        stolen: list[CardStolen] = []
        bea.source.events.connect(  # type: ignore[union-attr]
            lambda events: stolen.extend(e for e in events if isinstance(e, CardStolen))
        )
        actions = play_online(qtbot, [ada, bea])
        assert actions == 12
        assert stolen and stolen[0].seat == 1  # Bea's Fool, stolen by a click on the suit
        qtbot.waitUntil(lambda: cy.table.shown is not None and cy.table.shown.over, timeout=5000)
        for window in (ada, bea, cy):  # (each window's last move may still be settling)
            qtbot.waitUntil(lambda w=window: w.table.shown is not None  # type: ignore[misc]
                            and w.table.scene.matches(w.table.shown)
                            and w.table.game_over.isVisible(), timeout=5000)
        assert ada.table.game_over.title.text() == "Bea won"
        assert bea.table.game_over.title.text() == "You won!"
        assert cy.table.game_over.title.text() == "Bea won"
        assert "Bea stole Angels 5 from you." in ada.table.log.lines()
        assert "You stole Angels 5 from Ada." in bea.table.log.lines()
        assert "Bea stole Angels 5 from Ada." in cy.table.log.lines()
        qtbot.waitUntil(lambda: len(cy.table.log.lines()) == len(ada.table.log.lines()),
                        timeout=5000)
        # (the last move's answer may come after its events did, by the stream)
        qtbot.waitUntil(lambda: not any(w.source.pending for w in (ada, bea)),  # type: ignore[union-attr]
                        timeout=5000)
        # Rematch: Ada asks (R), Bea agrees (R); both tables, and Cy's, go on to the new game.
        notices: list[str] = []
        bea.source.notice.connect(notices.append)  # type: ignore[union-attr]
        old_id = game.game_id
        activate(qtbot, ada)
        QTest.keyClick(ada.table, Qt.Key.Key_R)
        qtbot.waitUntil(lambda: bool(notices), timeout=5000)
        assert notices == ["Ada asks for a rematch: press R to play again."]
        assert ada.table.status.text() == "Rematch asked for: waiting for Bea to agree."
        activate(qtbot, bea)
        QTest.keyClick(bea.table, Qt.Key.Key_R)
        for window in (ada, bea, cy):
            qtbot.waitUntil(lambda w=window: w.source.game_id != old_id  # type: ignore[misc]
                            and w.table.shown is not None and not w.table.shown.over,
                            timeout=5000)
        new_id = game.game_id
        assert {w.source.game_id for w in (ada, bea, cy)} == {new_id}  # type: ignore[union-attr]
        assert new_id in ada.table.game_id.text() and not ada.table.game_over.isVisible()
        qtbot.waitUntil(ada.table.my_turn, timeout=5000)
        assert cy.table.watching.isVisible() and not cy.table.my_turn()
    finally:
        close_windows(qtbot, ada, bea, cy)


def test_a_game_opened_midway_shows_what_happened_before_in_its_log(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer
) -> None:
    game_id, players = seated_game(lobby)
    rng = random.Random(5)
    play(players, game_id, moves=3, rng=rng)
    cy = open_window(qtbot, tmp_path, "Cy", lobby.base)
    try:
        qtbot.waitUntil(lambda: lobby_row(cy, game_id) >= 0, timeout=5000)
        cy.lobby_panel.open_clicked.emit(game_id)
        qtbot.waitUntil(lambda: cy.table.shown is not None, timeout=5000)
        speaker = Speaker(("Ada", "Bea"), None)

        def told() -> list[str]:
            log = [GameEvent.from_dict(e) for e in lobby.get(f"/games/{game_id}/log").json()]
            events = [e.engine_event() for e in log]
            return [speaker.describe(e) for e in events if e is not None]

        before = told()
        assert len(before) >= 3
        qtbot.waitUntil(lambda: cy.table.log.lines() == before, timeout=5000)
        play(players, game_id, moves=1, rng=rng)  # and it goes on live after them
        qtbot.waitUntil(lambda: cy.table.log.count() > len(before), timeout=5000)
        qtbot.waitUntil(lambda: not cy.table.scene.busy, timeout=5000)
        assert cy.table.log.lines() == told()
        # Beside the game's id: how many others watch it (nobody but Cy, then one more).
        assert cy.table.watchers_text == ""
        other = EventReader(f"{lobby.base}/games/{game_id}/events")
        qtbot.waitUntil(lambda: cy.table.watchers_text == "1 more watching", timeout=5000)
        assert cy.table.game_name.text().endswith(" · 1 more watching")  # (after the name)
        assert cy.minimumSizeHint().width() <= 800  # (it elides with the name: never wider)
        other.close()
        qtbot.waitUntil(lambda: cy.table.watchers_text == "", timeout=5000)
    finally:
        close_windows(qtbot, cy)
