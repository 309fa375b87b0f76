"""The lobby client against a real server: typed answers, exactly-once actions, plain errors."""

from __future__ import annotations

import pytest
import requests

from somnium_desktop.client.errors import ActionRefused, ServerUnreachable, SignedOut
from somnium_desktop.client.lobby_client import LobbyClient
from somnium_desktop.game import Draw, EndTurn
from tests.server.helpers import LiveServer, free_port
from tests.signin.helpers import local_client


def test_typed_answers_and_exactly_once_actions(lobby: LiveServer) -> None:
    ada, bea = local_client(lobby.base, "Ada"), local_client(lobby.base, "Bea")
    assert ada.me().display_name == "Ada"
    assert [level.key for level in ada.levels()] == ["test"]
    created = ada.create("Ada's table")
    assert created.status == "waiting" and created.open_seat() == 1
    assert created.seat_of(ada.me().id) == 0 and created.names == ("Ada", "Open seat")
    joined = bea.join(created.id.lower())  # ids are read case-insensitively
    assert joined.status == "playing" and joined.names == ("Ada", "Bea")
    assert joined.view is not None and joined.view.turn == 0
    first = ada.act(created.id, joined.version, Draw(), "ada-1")
    again = ada.act(created.id, joined.version, Draw(), "ada-1")  # a retry: the same answer
    assert again == first and first.version == joined.version + 1
    assert [event.kind for event in first.events] == ["card_drawn"]
    assert first.events[-1].view == first.view
    assert ada.game(created.id).version == first.version  # played once, not twice
    summary = next(game for game in LobbyClient(lobby.base).games() if game.id == created.id)
    assert summary.turn == 0 and summary.status == "playing"


def test_errors_in_plain_words(lobby: LiveServer) -> None:
    ada, bea = local_client(lobby.base, "Ada"), local_client(lobby.base, "Bea")
    game = ada.create("Table")
    started = bea.join(game.id)
    with pytest.raises(ActionRefused) as refused:
        bea.act(game.id, started.version, Draw(), "bea-early")
    assert refused.value.code == "not_your_turn"
    assert str(refused.value) == "Refused: it is not your turn."
    with pytest.raises(ActionRefused) as stale:
        ada.act(game.id, started.version - 1, EndTurn(), "ada-stale")
    assert stale.value.code == "stale_version" and stale.value.version == started.version
    with pytest.raises(ActionRefused, match="already started"):
        local_client(lobby.base, "Cy").join(game.id)
    with pytest.raises(SignedOut, match="Sign in first"):
        LobbyClient(lobby.base).create("Nobody's table")
    # Signed out elsewhere: the session and its refresh token are revoked at the server.
    assert bea.auth is not None and bea.auth.access_token is not None
    requests.post(f"{lobby.base}/auth/revoke", data={"token": bea.auth.access_token},
                  timeout=10).raise_for_status()
    with pytest.raises(SignedOut, match="sign in again"):
        bea.act(game.id, started.version, Draw(), "bea-late")
    with pytest.raises(ServerUnreachable, match="cannot be reached"):
        LobbyClient(f"http://127.0.0.1:{free_port()}").games()
