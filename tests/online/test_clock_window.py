"""Clocks on the table: Create offers a time control, the clock of the player to move counts
down beside their name (a warning in its last seconds), and a game lost on time says who ran
out of time (a real server with short clocks)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from somnium_desktop.client.online import OnlineGame
from somnium_desktop.client.tasks import Operations
from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.table import TableWidget
from somnium_desktop.ui.table_widgets import PlayerStrip
from tests.server.helpers import LiveServer, server_settings
from tests.signin.helpers import local_client
from tests.ui.conftest import on_screen
from tests.ui.odds_shown import odds_shown

from .helpers import close_windows, open_window
from .proxy import losing_proxy_for


@pytest.fixture
def clocked_lobby(tmp_path: Path) -> Iterator[LiveServer]:
    """A lobby server where a 2 s clock may be asked for, and clocks are swept often."""
    running = LiveServer(server_settings(
        tmp_path / "lobby.sqlite3", local_accounts=True, clock_min=1, clock_sweep=0.05
    ))
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def lone_table(qtbot: QtBot) -> Iterator[TableWidget]:
    """A table widget on screen, without a window around it."""
    yield from on_screen(qtbot, TableWidget())


def seconds(strip: PlayerStrip) -> int:
    """The seconds a strip's clock shows ("0:27": 27)."""
    shown = re.fullmatch(r"(\d+):(\d\d)", strip.clock.text())
    assert shown is not None, strip.clock.text()
    return int(shown[1]) * 60 + int(shown[2])


def mover_strip(window: MainWindow) -> PlayerStrip:
    table = window.table
    assert table.shown is not None
    return table.me if table.shown.turn == table.scene.bottom_seat else table.opponent


def test_create_offers_a_clock_and_the_table_counts_it_down(
    qtbot: QtBot, tmp_path: Path, clocked_lobby: LiveServer
) -> None:
    ada = open_window(qtbot, tmp_path, "Ada", clocked_lobby.base)
    try:
        panel = ada.lobby_panel
        choices = [panel.clock_choice.itemText(n) for n in range(panel.clock_choice.count())]
        assert choices == ["No clock", "30 s a move", "60 s a move"]
        qtbot.waitUntil(panel.create_button.isEnabled, timeout=20000)
        panel.clock_choice.setCurrentIndex(1)
        # with the other options of Create: casual, and so the odds may be shown
        panel.rated_box.click()
        panel.odds_box.click()
        assert not panel.rated() and panel.odds_box.isChecked()
        QTest.mouseClick(panel.create_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: isinstance(ada.source, OnlineGame), timeout=20000)
        ada.browser.join()  # type: ignore[attr-defined]
        game = ada.source
        assert isinstance(game, OnlineGame)
        qtbot.waitUntil(lambda: game.status == "waiting", timeout=5000)
        created = clocked_lobby.get(f"/games/{game.game_id}").json()
        assert (created["move_seconds"], created["rated"], created["odds"]) == (30, False, True)
        assert ada.table.me.clock.isHidden()  # nobody's clock runs before the start

        bob = clocked_lobby.player("Bob")
        assert bob.post(f"/games/{game.game_id}/join").status_code == 200
        qtbot.waitUntil(lambda: ada.table.shown is not None and game.clock is not None,
                        timeout=5000)
        strip = mover_strip(ada)
        qtbot.waitUntil(lambda: strip.clock.isVisible(), timeout=5000)
        first = seconds(strip)
        assert 28 <= first <= 30 and strip.clock.property("warning") is False
        assert f"{strip.clock.text()} left" in strip.accessibleName()
        assert f" rated {strip.rating.text()}, " in strip.accessibleName()  # (as they sat down)
        assert odds_shown(ada.table)[0] == "Odds" and ada.table.coach.bar.isHidden()
        qtbot.waitUntil(lambda: seconds(strip) < first, timeout=3000)  # it counts down
        other = ada.table.opponent if strip is ada.table.me else ada.table.me
        assert other.clock.isHidden()
    finally:
        close_windows(qtbot, ada)


def test_a_game_lost_on_time_says_who_ran_out_of_time(
    qtbot: QtBot, tmp_path: Path, clocked_lobby: LiveServer
) -> None:
    bob = clocked_lobby.player("Bob")
    game_id = bob.create(move_seconds=2)["id"]
    ada = open_window(qtbot, tmp_path, "Ada", clocked_lobby.base)
    try:
        panel = ada.lobby_panel
        qtbot.waitUntil(panel.join_button.isEnabled, timeout=20000)
        panel.game_id_field.setText(game_id)
        QTest.keyClick(panel.game_id_field, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: isinstance(ada.source, OnlineGame), timeout=20000)
        ada.browser.join()  # type: ignore[attr-defined]
        table = ada.table
        qtbot.waitUntil(lambda: table.shown is not None and table.clock_show.left is not None,
                        timeout=5000)
        assert table.shown is not None
        loser = table.shown.turn
        strip = mover_strip(ada)
        # two seconds: the last ten are a warning from the start
        assert seconds(strip) <= 2 and strip.clock.property("warning") is True
        if loser == 1:  # Ada's own clock (she sits in seat 1): a beep and the screen reader
            assert re.fullmatch(r"[12] seconds left to play\.", table.last_announcement)

        qtbot.waitUntil(lambda: table.game_over.isVisible(), timeout=6000)
        who = "You" if loser == 1 else "Bob"
        assert f"({who} ran out of time)" in table.game_over.detail.text()
        assert table.game_over.title.text() == ("Bob won" if loser == 1 else "You won!")
        assert f"{who} ran out of time." in table.log.lines()
        qtbot.waitUntil(lambda: strip.clock.isHidden(), timeout=2000)
    finally:
        close_windows(qtbot, ada)


def test_the_last_seconds_are_warned_of_once_though_the_clock_is_told_again(
    qtbot: QtBot, clocked_lobby: LiveServer, lone_table: TableWidget,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The clock is told as the game opens (its detail, then its stream) and again by a
    stream that comes back after a drop: one deadline, so one warning (a beep, and read out)."""
    said: list[str] = []
    monkeypatch.setattr("somnium_desktop.ui.table_clock.announce",
                        lambda _widget, text, **_how: said.append(text))
    ada, bob = local_client(clocked_lobby.base, "Ada"), local_client(clocked_lobby.base, "Bob")
    created = ada.create("Ada's table", move_seconds=8)  # (the last ten seconds from the start)
    joined = bob.join(created.id)
    assert joined.view is not None
    mover = (ada, bob)[joined.view.turn]  # the player whose clock runs
    proxy = losing_proxy_for(mover, clocked_lobby.base)
    operations = Operations()
    game = OnlineGame(mover, created.id, operations, user_id=mover.me().id, first=joined,
                      backoff=(0.05,))
    table = lone_table
    try:
        table.set_source(game)
        game.start()
        stream = game.stream
        assert stream is not None
        qtbot.waitUntil(lambda: stream.connections == 1, timeout=5000)
        qtbot.wait(300)  # (the stream tells the clock as it opens)
        assert len(said) == 1 and re.fullmatch(r"\d seconds left to play\.", said[0])
        proxy.cut()
        qtbot.waitUntil(lambda: stream.connections == 2, timeout=5000)
        qtbot.wait(300)
        assert table.clock_show.left is not None and table.clock_show.left > 0
        assert len(said) == 1
    finally:
        table.set_source(None)
        game.close()
        operations.close()
        assert operations.wait_idle()
        proxy.close()
