"""The odds option: agreed at Create, refused in rated games, kept with the game and listed."""

from __future__ import annotations

from typing import Any

from ..conftest import Database
from .helpers import LiveServer, server_settings


def _line(server: LiveServer, game_id: str) -> dict[str, Any]:
    return dict(next(g for g in server.get("/games").json() if g["id"] == game_id))


def test_odds_are_refused_in_a_rated_game(server: LiveServer) -> None:
    ann = server.player("Ann")
    for body in ({"rated": True, "odds": True}, {"odds": True}):  # (rated is the default)
        response = ann.post("/games", {"name": "x", "opponent": "person", **body})
        assert response.status_code == 422, response.text
        assert response.json()["error"] == "odds_in_rated_game"
        assert "rated" in response.json()["message"]
    # strict: a bool, nothing converted
    for odds in ("yes", 1, None):
        response = ann.post("/games", {"name": "x", "opponent": "person", "rated": False,
                                       "odds": odds})
        assert response.status_code == 422, response.text
    assert server.get("/games").json() == []


def test_the_odds_go_with_the_game_to_the_lobby_the_joiner_and_storage(
    database: Database,
) -> None:
    settings = server_settings(database)
    server = LiveServer(settings)
    try:
        ann, bob = server.player("Ann"), server.player("Bob")
        shown = ann.create(rated=False, odds=True)
        plain = ann.create(rated=False)
        computer = ann.create(opponent="computer", level="test", odds=True)
        # a computer in the host's seat: never rated, so the odds may be asked for
        hosted = ann.create(host_level="test", odds=True)
        assert (shown["odds"], plain["odds"], computer["odds"], hosted["odds"]) == (
            True, False, True, True)
        assert hosted["rated"] is False
        assert _line(server, shown["id"])["odds"] is True  # the joiner sees it before joining
        assert _line(server, plain["id"])["odds"] is False
        joined = bob.post(f"/games/{shown['id']}/join")
        assert joined.status_code == 200 and joined.json()["odds"] is True
        # a rematch keeps what both agreed to
        version = ann.get(f"/games/{shown['id']}").json()["version"]
        assert ann.act(shown["id"], version, {"type": "concede"}).status_code == 200
        ann.post(f"/games/{shown['id']}/rematch")
        rematch = bob.post(f"/games/{shown['id']}/rematch").json()["rematch"]["game_id"]
        assert rematch and ann.get(f"/games/{rematch}").json()["odds"] is True
    finally:
        server.stop()
    again = LiveServer(settings)  # the same database, read afresh
    try:
        for game_id, odds in ((shown["id"], True), (plain["id"], False),
                              (computer["id"], True), (rematch, True)):
            assert again.get(f"/games/{game_id}").json()["odds"] is odds
        assert _line(again, rematch)["odds"] is True
    finally:
        again.stop()
