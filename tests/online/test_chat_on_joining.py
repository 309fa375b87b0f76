"""Chat said at a table before a player sat down reaches them when they join (or create)."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from somnium_desktop.client.online import OnlineGame
from somnium_desktop.client.table_chat import TableChat
from somnium_desktop.client.tasks import Operations
from tests.server.helpers import LiveServer
from tests.signin.helpers import local_client


def test_a_player_joining_reads_what_was_said_at_the_table_before(
    qtbot: QtBot, lobby: LiveServer
) -> None:
    ada, bea = local_client(lobby.base, "Ada"), local_client(lobby.base, "Bea")
    created = ada.create("Table")
    ada.say(created.id, "hello, anyone?")
    lobby.player("Dan").post(f"/games/{created.id}/chat", {"text": "not me, I watch"})
    joined = bea.join(created.id)  # (the join's answer is what the table opens with)
    operations = Operations()
    game = OnlineGame(bea, joined.id, operations, user_id=bea.me().id, first=joined)
    chat = TableChat(game)
    try:
        game.start()
        qtbot.waitUntil(lambda: len(chat.lines) == 2, timeout=5000)
        assert [line.text for line in chat.lines] == ["hello, anyone?", "not me, I watch"]
        ada.say(created.id, "welcome")  # and what is said from now on, once each
        qtbot.waitUntil(lambda: len(chat.lines) == 3, timeout=5000)
        qtbot.wait(200)
        assert [line.text for line in chat.lines][-1] == "welcome" and len(chat.lines) == 3
    finally:
        chat.close()
        game.close()
        operations.close()
        assert operations.wait_idle()
