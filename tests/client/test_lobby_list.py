"""The lobby's list of games: lines taken in, stale ones (older versions of a game) left out."""

from __future__ import annotations

import json
from typing import Any

from somnium_desktop.client.lobby_list import LobbyList
from somnium_desktop.client.sse import ServerEvent


def line(game_id: str, version: int, status: str = "playing") -> dict[str, Any]:
    """A lobby line as the server sends it (Ada to move, while it is played)."""
    return {
        "id": game_id, "name": "Ada's table", "created_at": 1.0, "version": version,
        "status": status, "turn": 0 if status == "playing" else None, "observers": 0,
        "players": [{"seat": 0, "kind": "person", "user_id": "u1", "name": "Ada"},
                    {"seat": 1, "kind": "person", "user_id": "u2", "name": "Bea"}],
        "winner": 1 if status == "finished" else None, "away": [False, False],
    }


def event(kind: str, data: dict[str, Any]) -> ServerEvent:
    return ServerEvent(kind, json.dumps({"type": kind, **data}), None)


def test_a_line_older_than_one_seen_is_left_out() -> None:
    lobby = LobbyList()
    lobby.apply(event("snapshot", {"games": []}))
    assert lobby.apply(event("game_finished", {"game": line("G1", 9, "finished")}))
    # (two instances stored the game's events out of its order: the turn comes after)
    assert lobby.apply(event("turn_passed", {"game": line("G1", 8)})) is None
    assert lobby.games["G1"].status == "finished"
    # a snapshot a line behind what was seen keeps the newer line
    lobby.apply(event("snapshot", {"games": [line("G1", 8)]}))
    assert lobby.games["G1"].status == "finished"
    # ... and takes a newer one
    lobby.apply(event("snapshot", {"games": [line("G1", 10, "finished")]}))
    assert lobby.games["G1"].status == "finished"


def test_a_closed_table_does_not_come_back_with_an_older_line() -> None:
    lobby = LobbyList()
    lobby.apply(event("snapshot", {"games": []}))
    assert lobby.apply(event("game_closed", {"game": line("G2", 2, "finished")}))
    assert lobby.apply(event("game_created", {"game": line("G2", 1, "waiting")})) is None
    lobby.apply(event("snapshot", {"games": [line("G2", 1, "waiting")]}))
    assert "G2" not in lobby.games


def test_lines_of_one_version_and_lines_without_one_are_taken() -> None:
    lobby = LobbyList()
    lobby.apply(event("snapshot", {"games": [line("G3", 4)]}))
    away = {**line("G3", 4), "away": [False, True]}  # (presence: the version stays)
    assert lobby.apply(event("presence", {"game": away}))
    assert lobby.games["G3"].away == (False, True)
    old_server = {k: v for k, v in line("G4", 0, "waiting").items() if k != "version"}
    assert lobby.apply(event("game_created", {"game": old_server}))
    assert "G4" in lobby.games
