"""Ratings: Glicko-2 figures, rated and casual games, player pages and the leaderboard."""

from __future__ import annotations

from typing import Any

import pytest

from somnium_server.play.ratings import LEADERBOARD_GAMES, Rating, after_game, updated

from .helpers import LiveServer, Player

CONCEDE = {"type": "concede"}


def test_the_library_reproduces_glickmans_example() -> None:
    # Glickman's "Example of the Glicko-2 system": 1500/200 against 1400/30 (won), 1550/100
    # (lost) and 1700/300 (lost) gives 1464.06/151.52 (the paper rounds as it goes; the
    # library's unrounded figures are 1464.05 and 151.52, as its own tests say).
    player = Rating(1500, 200, 0.06)
    after = updated(player, [(Rating(1400, 30), 1), (Rating(1550, 100), 0),
                             (Rating(1700, 300), 0)])
    assert after.rating == pytest.approx(1464.06, abs=0.015)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=1e-5)
    assert (after.games, after.won, after.lost, after.drawn) == (3, 1, 2, 0)
    assert after.provisional and Rating().provisional  # 151.5 > 110
    assert not Rating(1500, 110).provisional


def started(server: LiveServer, ann: Player, bob: Player, **create: Any) -> str:
    game_id = str(ann.create(**create)["id"])
    assert bob.post(f"/games/{game_id}/join").status_code == 200
    return game_id


def conceded(server: LiveServer, loser: Player, game_id: str) -> dict[str, Any]:
    version = loser.get(f"/games/{game_id}").json()["version"]
    response = loser.act(game_id, version, CONCEDE)
    assert response.status_code == 200, response.text
    return dict(loser.get(f"/games/{game_id}").json())


def test_a_rated_game_moves_both_ratings_once(server: LiveServer) -> None:
    ann, bob = server.player("Ann"), server.player("Bob")
    game_id = started(server, ann, bob)
    detail = ann.get(f"/games/{game_id}").json()
    assert detail["rated"] is True
    fresh = {"rating": 1500, "deviation": 350, "provisional": True}
    assert [p["rating"] for p in detail["players"]] == [fresh, fresh]

    detail = conceded(server, ann, game_id)
    ann_after, bob_after = after_game(Rating(), Rating(), 0.0)
    assert detail["winner"] == 1
    assert detail["rating_changes"] == [
        {"seat": 0, "before": 1500, "after": round(ann_after.rating),
         "change": round(ann_after.rating) - 1500},
        {"seat": 1, "before": 1500, "after": round(bob_after.rating),
         "change": round(bob_after.rating) - 1500},
    ]
    assert detail["rating_changes"][0]["change"] < 0 < detail["rating_changes"][1]["change"]

    page = server.get(f"/players/{ann.user_id}").json()
    assert page["name"] == "Ann"
    assert page["rating"]["rating"] == round(ann_after.rating)
    assert page["rating"]["provisional"] is True
    assert (page["played"], page["won"], page["lost"], page["drawn"]) == (1, 0, 1, 0)
    assert [(h["game_id"], h["score"]) for h in page["history"]] == [(game_id, 0.0)]
    assert [g["id"] for g in page["recent"]] == [game_id]
    bob_page = server.get(f"/players/{bob.user_id}").json()
    assert (bob_page["played"], bob_page["won"]) == (1, 1)

    # the next table shows the new ratings beside the names, in the lobby too
    second = started(server, ann, bob)
    line = next(g for g in server.get("/games").json() if g["id"] == second)
    assert [p["rating"]["rating"] for p in line["players"]] == [
        round(ann_after.rating), round(bob_after.rating)
    ]


def test_casual_and_computer_games_are_not_rated(server: LiveServer) -> None:
    ann, bob = server.player("Ann"), server.player("Bob")
    casual = started(server, ann, bob, rated=False)
    detail = conceded(server, ann, casual)
    assert detail["rated"] is False and detail["rating_changes"] is None
    computer = ann.create(opponent="computer", level="test")
    assert computer["rated"] is False
    conceded(server, ann, computer["id"])
    # a computer in the host's seat: the table is casual whatever was asked
    hosted = ann.create(host_level="test", rated=True)
    assert hosted["rated"] is False
    assert ann.post("/games", {"name": "x", "opponent": "computer", "level": "test",
                               "rated": True}).status_code == 422
    for player in (ann, bob):
        page = server.get(f"/players/{player.user_id}").json()
        assert page["played"] == 0 and page["history"] == []
        assert page["rating"] == {"rating": 1500, "deviation": 350, "provisional": True}
    assert ann.post("/games", {"name": "x", "opponent": "person", "rated": "yes"}).status_code \
        == 422


def test_the_leaderboard_lists_players_with_enough_games(server: LiveServer) -> None:
    ann, bob, cy = server.player("Ann"), server.player("Bob"), server.player("Cy")
    for n in range(LEADERBOARD_GAMES):
        conceded(server, ann, started(server, ann, bob))
        board = server.get("/leaderboard").json()
        assert board["min_games"] == LEADERBOARD_GAMES
        expected = ["Bob", "Ann"] if n + 1 >= LEADERBOARD_GAMES else []
        assert [line["name"] for line in board["players"]] == expected
    conceded(server, cy, started(server, cy, bob))  # one game: not on the board yet
    board = server.get("/leaderboard").json()["players"]
    assert [(line["rank"], line["name"], line["played"]) for line in board] == [
        (1, "Bob", LEADERBOARD_GAMES + 1), (2, "Ann", LEADERBOARD_GAMES)
    ]
    assert board[0]["rating"]["rating"] > 1500 > board[1]["rating"]["rating"]
    assert [line["name"] for line in server.get("/leaderboard?limit=1").json()["players"]] \
        == ["Bob"]
    assert server.get("/leaderboard?limit=0").status_code == 422
    assert server.get("/players/nobody").status_code == 404


def test_a_player_page_lists_only_their_own_games(server: LiveServer) -> None:
    """Someone whose name is another player's id is not that player."""
    ann, carol = server.player("Ann"), server.player("Carol")
    namesake = server.player(ann.user_id)
    game_id = namesake.create()["id"]
    assert carol.post(f"/games/{game_id}/join").status_code == 200
    own = ann.create()["id"]
    page = server.get(f"/players/{ann.user_id}").json()
    assert [game["id"] for game in page["recent"]] == [own]


@pytest.mark.parametrize("user_id", ["a%00b", "a%0Ab", "%7F"])
def test_a_player_id_with_a_control_character_is_refused(
    server: LiveServer, user_id: str
) -> None:
    answer = server.get(f"/players/{user_id}")
    assert answer.status_code == 422 and answer.json()["error"] == "invalid_request", answer.text
