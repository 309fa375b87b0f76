"""Ratings after a draw and after a claimed win: both count as results, on both backends."""

from __future__ import annotations

import json
from typing import Any

from somnium_desktop.game import DEATH, FOOL, Card, Kind, Suit
from somnium_desktop.game.cards import VALUES
from somnium_server.play.ratings import Rating, after_game

from ..conftest import Database
from .helpers import EventReader, LiveServer, Player, query, server_settings

AWAY_AFTER = 0.3
CLAIM_AFTER = 0.8


def level_deck() -> list[str]:
    """A deck (next card first) that ends 0 to 0 when both players draw until their turn
    passes: the three Fools find nothing to steal and Death ends the first turn; then every
    turn busts. Each pair of suits (P, Q) goes P P | P Q P | Q P Q | Q Q."""
    deck = [FOOL, FOOL, FOOL, DEATH]
    suits = list(Suit)
    for p_suit, q_suit in zip(suits[::2], suits[1::2], strict=True):
        p = [Card(Kind.SUIT, p_suit, v) for v in VALUES]
        q = [Card(Kind.SUIT, q_suit, v) for v in VALUES]
        deck += [p[0], p[1], p[2], q[0], p[3], q[1], p[4], q[2], q[3], q[4]]
    return [card.code for card in deck]


def with_deck(database: Database, game_id: str, deck: list[str]) -> None:
    """Give a rated game that has not had a move yet another shuffle (the server is down):
    the game as stored, its deck in the order given."""
    ((state, initial, version, snapshot),) = query(
        database, "SELECT state, initial_state, version, state_version FROM games WHERE id = ?",
        game_id)
    assert snapshot == version  # no action after the stored state
    new = [json.dumps({**json.loads(text), "deck": deck}) for text in (state, initial)]
    query(database, "UPDATE games SET state = ?, initial_state = ? WHERE id = ?", *new, game_id)


def rated_game(server: LiveServer, ann: Player, bob: Player) -> str:
    game_id = str(ann.create()["id"])
    assert bob.post(f"/games/{game_id}/join").status_code == 200
    return game_id


def expected_changes(score_of_first: float) -> list[dict[str, int]]:
    """Both new players' rating changes after one game, from the library."""
    first, second = after_game(Rating(), Rating(), score_of_first)
    return [{"seat": seat, "before": 1500, "after": round(after.rating),
             "change": round(after.rating) - 1500}
            for seat, after in enumerate((first, second))]


def pages(server: LiveServer, *players: Player) -> list[dict[str, Any]]:
    return [server.get(f"/players/{p.user_id}").json() for p in players]


def test_a_draw_is_a_rated_result(database: Database) -> None:
    settings = server_settings(database)
    first = LiveServer(settings)
    try:
        ann, bob = first.player("Ann"), first.player("Bob")
        game_id = rated_game(first, ann, bob)
    finally:
        first.stop()
    with_deck(database, game_id, level_deck())
    server = LiveServer(settings)
    try:  # (the same people, on the server started again)
        ann, bob = (Player(server.base, p.user_id, p.token, p.name) for p in (ann, bob))
        players = {0: ann, 1: bob}
        detail = ann.get(f"/games/{game_id}").json()
        view, version = detail["view"], detail["version"]
        for _ in range(60):  # (55 draws)
            if view["over"]:
                break
            answer = players[view["turn"]].act(game_id, version, {"type": "draw"})
            assert answer.status_code == 200, answer.text
            view, version = answer.json()["view"], answer.json()["version"]
        detail = server.get(f"/games/{game_id}").json()
        assert detail["status"] == "finished" and detail["winner"] is None
        assert detail["view"]["scores"] == [0, 0]
        assert detail["rating_changes"] == expected_changes(0.5)
        after = after_game(Rating(), Rating(), 0.5)[0]
        for page in pages(server, ann, bob):
            assert (page["played"], page["won"], page["lost"], page["drawn"]) == (1, 0, 0, 1)
            assert page["rating"]["deviation"] == round(after.deviation) < 350
            assert [(p["game_id"], p["score"]) for p in page["history"]] == [(game_id, 0.5)]
    finally:
        server.stop()


def test_a_claimed_win_is_a_rated_result(database: Database) -> None:
    server = LiveServer(server_settings(database, away_after=AWAY_AFTER,
                                        claim_after=CLAIM_AFTER))
    try:
        ann, bob = server.player("Ann"), server.player("Bob")
        game_id = rated_game(server, ann, bob)
        url = f"{server.base}/games/{game_id}/events"
        ann_stream, bob_stream = EventReader(url, ann.headers), EventReader(url, bob.headers)
        bob_stream.until(lambda e: e.event == "presence")
        bob_stream.close()  # Bob leaves the table and stays away
        ann_stream.until(lambda e: e.event == "presence" and e.json()["players"][1]["claimable"])
        claimed = ann.post(f"/games/{game_id}/claim")
        assert claimed.status_code == 200, claimed.text
        ann_stream.close()
        detail = server.get(f"/games/{game_id}").json()
        assert detail["winner"] == 0 and detail["claimed_from"] == 1
        assert detail["rating_changes"] == expected_changes(1.0)
        records = [(p["played"], p["won"], p["lost"]) for p in pages(server, ann, bob)]
        assert records == [(1, 1, 0), (1, 0, 1)]
        assert ann.post(f"/games/{game_id}/claim").status_code == 200  # asked again: once
        assert [p["played"] for p in pages(server, ann, bob)] == [1, 1]
    finally:
        server.stop()
