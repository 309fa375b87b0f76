"""An opponent who leaves the table: the window says so, says when they are back, and once they
stayed away long enough offers to claim the win (W), which ends the game."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from somnium_desktop.client.online import OnlineGame
from somnium_desktop.client.sse import EventStream
from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.style import apply_style
from somnium_server.config import RateLimit
from somnium_server.play import games
from tests.server.helpers import EventReader, LiveServer, server_settings
from tests.signin.helpers import local_client
from tests.ui.driver import activate

from .helpers import close_windows, open_window, short_game


@pytest.fixture
def quick_lobby(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LiveServer]:
    """A lobby server where a player is away after 0.3 s and their win claimable after 1.5 s."""
    monkeypatch.setattr(games, "new_game", lambda seed: short_game())
    running = LiveServer(server_settings(
        tmp_path / "lobby.sqlite3", local_accounts=True, away_after=0.3, claim_after=1.5
    ))
    try:
        yield running
    finally:
        running.stop()


def create_signed_in(qtbot: QtBot, window: MainWindow) -> OnlineGame:
    """Create a game from the lobby panel, signing in on the way (a local account)."""
    qtbot.waitUntil(lambda: window.lobby_panel.create_button.isEnabled(), timeout=5000)
    QTest.mouseClick(window.lobby_panel.create_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: isinstance(window.source, OnlineGame), timeout=15000)
    window.browser.join()  # type: ignore[attr-defined]
    game = window.source
    assert isinstance(game, OnlineGame)
    return game


def test_an_opponent_who_leaves_is_shown_away_and_the_win_can_be_claimed(
    qtbot: QtBot, tmp_path: Path, quick_lobby: LiveServer
) -> None:
    ada = open_window(qtbot, tmp_path, "Ada", quick_lobby.base)
    try:
        game = create_signed_in(qtbot, ada)
        table = ada.table
        bob = quick_lobby.player("Bob")
        assert bob.post(f"/games/{game.game_id}/join").status_code == 200
        url = f"{quick_lobby.base}/games/{game.game_id}/events"
        stream = EventReader(url, headers=bob.headers)
        qtbot.waitUntil(lambda: table.shown is not None and table.my_turn(), timeout=5000)
        assert table.opponent.note.text() == "" and not table.claim_button.isVisible()

        stream.close()  # Bob's app is gone
        qtbot.waitUntil(lambda: table.opponent.note.text() == "away", timeout=5000)
        assert "Bob left the table." in table.log.lines()
        assert "Bob has left the table." in table.status.text()
        # the server counts down to the claim, and the status line with it
        assert re.search(r"You may claim the win in 0:0[12] if they are not back\.",
                         table.status.text()), table.status.text()
        assert "away" in table.opponent.accessibleName()
        assert not table.claim_action.isEnabled()  # not yet

        stream = EventReader(url, headers=bob.headers)  # he is back
        qtbot.waitUntil(lambda: table.opponent.note.text() == "", timeout=5000)
        assert "Bob is back at the table." in table.log.lines()

        stream.close()  # and gone again, for good
        qtbot.waitUntil(lambda: table.claim_button.isVisible(), timeout=5000)
        assert table.claim_action.isEnabled()
        # In the app's own look, on a small window: Claim keeps its words, in Concede's place.
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        sheet, palette = app.styleSheet(), app.palette()
        apply_style(app, set_style=False)
        try:
            ada.resize(800, 600)
            qtbot.wait(100)
            assert ada.width() == 800
            assert table.claim_button.width() >= table.claim_button.sizeHint().width()
            assert not table.concede_button.isVisible()
        finally:
            app.setStyleSheet(sheet)
            app.setPalette(palette)
        assert "W claims the win" in table.status.text()
        activate(qtbot, ada)
        QTest.keyClick(table.view, Qt.Key.Key_W)
        qtbot.waitUntil(lambda: table.shown is not None and table.shown.over, timeout=5000)
        qtbot.waitUntil(lambda: table.game_over.isVisible(), timeout=5000)
        assert table.game_over.title.text() == "You won!"
        assert "(Bob left the table)" in table.game_over.detail.text()
        assert not table.claim_button.isVisible()
        # no "Press R for a rematch" as if Bob could answer
        assert table.status.text() == "Game over: You won! Bob has left the table."
        qtbot.waitUntil(lambda: not table.scene.busy, timeout=5000)
        lines = table.log.lines()
        assert "You claimed the win: Bob left the table." in lines
        assert not any("conceded" in line for line in lines)
        assert lines[-1].startswith("Game over: you won") and "(Bob left the table)" in lines[-1]
        qtbot.wait(300)  # (the game's end clears Bob's absence: no "back" is told for it)
        assert table.log.lines()[-1] == lines[-1]
        detail = quick_lobby.get(f"/games/{game.game_id}").json()
        assert detail["winner"] == 0 and detail["claimed_from"] == 1
    finally:
        close_windows(qtbot, ada)


def test_the_app_started_again_goes_back_to_the_game_being_played(
    qtbot: QtBot, tmp_path: Path, quick_lobby: LiveServer
) -> None:
    ada = open_window(qtbot, tmp_path, "Ada", quick_lobby.base)
    again = elsewhere = None
    try:
        game = create_signed_in(qtbot, ada)
        game_id = game.game_id
        bob = quick_lobby.player("Bob")
        assert bob.post(f"/games/{game_id}/join").status_code == 200
        other = quick_lobby.player("Cid").create(name="Cid's table")  # not Ada's: stays shut
        assert ada.online is not None
        stores = ada.online.stores  # the kept sign-in (the keyring, in the app)
        close_windows(qtbot, ada)

        def ada_away() -> bool:
            detail = quick_lobby.get(f"/games/{game_id}").json()
            return bool(detail["presence"][0]["away"])

        qtbot.waitUntil(ada_away, timeout=5000)
        again = open_window(qtbot, tmp_path, "Ada", quick_lobby.base, token_stores=stores)
        qtbot.waitUntil(lambda: isinstance(again.source, OnlineGame), timeout=10000)
        back = again.source
        assert isinstance(back, OnlineGame)
        assert back.game_id == game_id and back.my_seat == 0 and other["id"] != game_id
        qtbot.waitUntil(lambda: again.table.shown is not None and again.table.my_turn(),
                        timeout=5000)
        assert again.lobby_panel.message.text() == "Back at your game “Ada's table”."
        qtbot.waitUntil(lambda: not ada_away(), timeout=5000)  # Bob sees her back
        # Another server and back: the game comes back on the table too.
        elsewhere = LiveServer(server_settings(tmp_path / "elsewhere.sqlite3"))
        online = again.online
        assert online is not None
        online.set_server(elsewhere.base)
        assert again.source is None
        qtbot.waitUntil(lambda: online.lobby.loaded, timeout=5000)
        online.set_server(quick_lobby.base)
        qtbot.waitUntil(lambda: isinstance(again.source, OnlineGame), timeout=10000)
        reopened = again.source
        assert isinstance(reopened, OnlineGame) and reopened.game_id == game_id
    finally:
        close_windows(qtbot, *([again] if again is not None else []))
        if elsewhere is not None:
            elsewhere.stop()


def test_a_stream_whose_sign_in_went_stale_signs_in_afresh_and_keeps_the_player_here(
    quick_lobby: LiveServer,
) -> None:
    """Access tokens expire; a stream reconnecting with a dead one is refused (401), and the
    app's stream refreshes the token and connects signed, rather than as nobody (away)."""
    ada = local_client(quick_lobby.base, "Ada")
    game = ada.create("Ada's table")
    bob = quick_lobby.player("Bob")
    assert bob.post(f"/games/{game.id}/join").status_code == 200
    assert ada.auth is not None
    ada.auth._access_token = "expired-long-ago"  # as an access token is after 15 minutes
    statuses: list[str] = []
    stream = EventStream(
        ada.lobby_events_url, lambda event: None, lambda status, _: statuses.append(status),
        headers=ada.stream_headers, refused=ada.stream_refused, backoff=(0.05,), name="lobby",
    )
    stream.start()
    try:
        deadline = time.monotonic() + 5
        while "connected" not in statuses and time.monotonic() < deadline:
            time.sleep(0.02)
        assert statuses[:2] == ["reconnecting", "connected"]  # refused once, then signed
        assert ada.auth.access_token not in (None, "expired-long-ago")
        time.sleep(0.6)  # past the away time: her only stream keeps her at the table
        presence = quick_lobby.get(f"/games/{game.id}").json()["presence"]
        assert presence[0] == {"seat": 0, "away": False, "claimable": False}
    finally:
        stream.close()


def test_a_sign_in_that_cannot_be_renewed_for_now_is_tried_again_not_dropped(
    tmp_path: Path,
) -> None:
    """Renewing the token can fail for a while (here the server's limit on sign-in requests):
    the stream waits and tries again signed, and never goes on as nobody (away)."""
    server = LiveServer(server_settings(  # (signing in takes 3 requests: then no more)
        tmp_path / "lobby.sqlite3", local_accounts=True, rate_signin=RateLimit(3, 600)
    ))
    stream = None
    try:
        ada = local_client(server.base, "Ada")
        assert ada.auth is not None
        ada.auth._access_token = "expired-long-ago"
        statuses: list[tuple[str, str]] = []
        stream = EventStream(
            ada.lobby_events_url, lambda event: None,
            lambda status, detail: statuses.append((status, detail)),
            headers=ada.stream_headers, refused=ada.stream_refused, backoff=(0.05,),
        )
        stream.start()
        deadline = time.monotonic() + 5
        while len(statuses) < 4 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(statuses) >= 4
        assert all(status == "reconnecting" for status, _ in statuses)  # never unsigned
        assert any("could not be renewed" in detail for _, detail in statuses)
        assert ada.auth.stored() is not None  # the sign-in itself is kept
    finally:
        if stream is not None:
            stream.close()
        server.stop()


def test_signing_out_at_the_table_leaves_it_for_the_others(
    qtbot: QtBot, tmp_path: Path, quick_lobby: LiveServer
) -> None:
    """Signed out, a player can no longer play: their streams go on unsigned, so they show as
    away (their win claimable in time), while the table still follows the game."""
    ada = open_window(qtbot, tmp_path, "Ada", quick_lobby.base)
    try:
        game = create_signed_in(qtbot, ada)
        bob = quick_lobby.player("Bob")
        assert bob.post(f"/games/{game.game_id}/join").status_code == 200
        stream = EventReader(f"{quick_lobby.base}/games/{game.game_id}/events",
                             headers=bob.headers)
        qtbot.waitUntil(lambda: ada.table.my_turn(), timeout=5000)

        def ada_away() -> bool:
            detail = quick_lobby.get(f"/games/{game.game_id}").json()
            return bool(detail["presence"][0]["away"])

        assert ada.online is not None
        ada.online.sign_out()
        qtbot.waitUntil(ada_away, timeout=5000)
        assert ada.source is game and not game.closed  # still following it
        stream.close()
    finally:
        close_windows(qtbot, ada)
