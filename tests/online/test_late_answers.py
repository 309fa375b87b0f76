"""An answer that comes after its dialog is gone is dropped: the Players dialog and a player's
page deleted while the server's answer is on its way."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtWidgets import QDialog
from pytestqt.qtbot import QtBot

from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.players_hooks import open_leaderboard, open_page
from tests.server.helpers import LiveServer

from .helpers import close_windows, finished_game, open_window
from .proxy import TokenGateway


@pytest.mark.parametrize(("held", "opened"), [
    ("/leaderboard", lambda window, _user_id: open_leaderboard(window)),
    ("/players/", open_page),
], ids=["players", "player's page"])
def test_a_dialog_deleted_before_its_answer_drops_the_answer(
    qtbot: QtBot, tmp_path: Path, lobby: LiveServer, caplog: pytest.LogCaptureFixture,
    held: str, opened: Callable[[MainWindow, str], object],
) -> None:
    _game_id, players = finished_game(lobby)
    gateway = TokenGateway(lobby.base)
    gateway.held = held  # the server's answer waits in the gateway until released
    window = open_window(qtbot, tmp_path, "Cy", lobby.base)
    try:
        qtbot.waitUntil(lambda: window.online is not None and window.online.client is not None,
                        timeout=10000)
        online = window.online
        assert online is not None and online.client is not None
        online.client.base_url = gateway.base  # (the lobby's stream stays on the server)
        dialog = opened(window, players[0].user_id)
        assert dialog is not None
        assert gateway.asked.wait(10)
        assert isinstance(dialog, QDialog)
        gone: list[object] = []
        dialog.destroyed.connect(lambda *_: gone.append(True))
        dialog.deleteLater()
        qtbot.waitUntil(lambda: bool(gone), timeout=2000)
        with caplog.at_level(logging.INFO):
            gateway.release.set()
            qtbot.waitUntil(lambda: not online.ops.busy, timeout=10000)
            qtbot.wait(50)
        assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
        assert any("answered too late" in r.getMessage() for r in caplog.records)
    finally:
        close_windows(qtbot, window)
        gateway.close()
