"""GET /games/{id}/analysis: what it holds, that it is computed once and kept, its rate limit,
that it is a function of public views only, and the accuracy it puts on player pages."""

from __future__ import annotations

import itertools
import random
from typing import Any

from somnium_desktop.game import Concede, action_from_dict, view_from_dict
from somnium_desktop.game.analysis import Move, PublicGame, analyse
from somnium_desktop.game.analysis_data import analysis_to_dict
from somnium_server.config import RateLimit
from somnium_server.context import context_of

from ..conftest import Database
from ..postgres import Cluster
from .helpers import LiveServer, Player, play_until_over, query, server_settings


def finished_game(server: LiveServer, ann: Player, bob: Player, seed: int) -> str:
    game_id = str(ann.create()["id"])
    assert bob.post(f"/games/{game_id}/join").status_code == 200
    detail = ann.get(f"/games/{game_id}").json()
    seats = {p["user_id"]: i for i, p in enumerate(detail["players"])}
    play_until_over(game_id, {seats[ann.user_id]: ann, seats[bob.user_id]: bob},
                    random.Random(seed))
    return game_id


def from_replay(server: LiveServer, game_id: str) -> dict[str, Any]:
    """The analysis computed here from the public replay alone (views and actions)."""
    steps = server.get(f"/games/{game_id}/replay").json()["steps"]
    moves = []
    for before, step in itertools.pairwise(steps):
        action = action_from_dict(step["action"])
        if not isinstance(action, Concede):
            moves.append(Move(view_from_dict(before["view"]), action))
    game = PublicGame(tuple(moves), view_from_dict(steps[-1]["view"]))
    return analysis_to_dict(game, analyse(game))


def computed(server: LiveServer) -> int:
    ctx = context_of(server.app)
    assert ctx is not None
    return ctx.analyses.computed


def test_an_analysis_is_judged_from_public_views_and_kept(
    server: LiveServer, database: Database
) -> None:
    ann, bob = server.player("Ann"), server.player("Bob")
    game_id = finished_game(server, ann, bob, 5)
    answer = server.get(f"/games/{game_id}/analysis")
    assert answer.status_code == 200, answer.text
    got = answer.json()
    # the same as an analysis of the public replay: nothing but public views went into it
    assert {k: v for k, v in got.items() if k not in ("game_id", "names")} == from_replay(
        server, game_id
    )
    assert got["game_id"] == game_id and got["names"] == ["Ann", "Bob"]
    decisions = got["decisions"]
    assert decisions and [d["step"] for d in decisions] == list(range(len(decisions)))
    assert len(got["curve"]) == len(decisions) + 1
    assert got["curve"][-1] == (0.5 if got["winner"] is None else 1 - got["winner"])
    for d in decisions:
        assert d["lost"] == max(0.0, d["before"] - d["after"])
        worst = [m for m, t in got["thresholds"].items() if d["lost"] >= t]
        assert d["mark"] == (None if d["forced"] else (worst[-1] if worst else None))
    # random play gives something away: some decision is marked
    assert any(d["mark"] for d in decisions)
    assert computed(server) == 1
    # asked again: served from the database, not computed again
    again = server.get(f"/games/{game_id}/analysis", headers=ann.headers)
    assert again.status_code == 200 and again.json() == got
    assert computed(server) == 1
    [(stored,)] = query(database, "SELECT count(*) FROM analyses WHERE game_id = ?", game_id)
    assert stored == 1


def test_the_answer_holds_no_card(server: LiveServer) -> None:
    ann, bob = server.player("Ann"), server.player("Bob")
    game_id = finished_game(server, ann, bob, 6)
    text = server.get(f"/games/{game_id}/analysis").text
    # no view, no deck, no card: only actions, chances and marks
    for word in ('"deck', '"view', '"table', '"banks', '"cards', '"seed', "initial"):
        assert word not in text


def test_unknown_unfinished_and_closed_games_are_refused(server: LiveServer) -> None:
    ann, bob = server.player("Ann"), server.player("Bob")
    assert server.get("/games/ZZZZZZZ/analysis").status_code == 404
    game_id = ann.create()["id"]
    waiting = server.get(f"/games/{game_id}/analysis")
    assert waiting.status_code == 409 and waiting.json()["error"] == "game_not_finished"
    bob.post(f"/games/{game_id}/join")
    playing = server.get(f"/games/{game_id}/analysis")
    assert playing.status_code == 409 and playing.json()["error"] == "game_not_finished"
    closed = ann.create()["id"]
    assert ann.post(f"/games/{closed}/leave").status_code == 200
    refused = server.get(f"/games/{closed}/analysis")
    assert refused.status_code == 409 and refused.json()["error"] == "game_not_played"
    assert computed(server) == 0


def test_computing_an_analysis_is_rate_limited(database: Database) -> None:
    server = LiveServer(server_settings(database, rate_analysis=RateLimit(1, 60)))
    try:
        ann, bob = server.player("Ann"), server.player("Bob")
        first, second = (finished_game(server, ann, bob, seed) for seed in (7, 8))
        assert ann.get(f"/games/{first}/analysis").status_code == 200
        # a kept analysis costs nothing
        assert ann.get(f"/games/{first}/analysis").status_code == 200
        refused = ann.get(f"/games/{second}/analysis")
        assert refused.status_code == 429, refused.text
        assert refused.json()["error"] == "rate_limited"
        assert int(refused.headers["Retry-After"]) >= 1
        # another user has a bucket of their own
        assert bob.get(f"/games/{second}/analysis").status_code == 200
        assert computed(server) == 2
    finally:
        server.stop()


def test_player_pages_carry_the_accuracy_of_analysed_games(server: LiveServer) -> None:
    ann, bob = server.player("Ann"), server.player("Bob")
    game_id = finished_game(server, ann, bob, 9)
    recent = server.get(f"/players/{bob.user_id}").json()["recent"]
    assert [g["accuracy"] for g in recent if g["id"] == game_id] == [None]
    analysis = server.get(f"/games/{game_id}/analysis").json()
    for player, seat in ((ann, 0), (bob, 1)):
        recent = server.get(f"/players/{player.user_id}").json()["recent"]
        [line] = [g for g in recent if g["id"] == game_id]
        assert line["accuracy"] == analysis["accuracy"][seat]
    assert analysis["accuracy"][0] is not None


def test_an_analysis_computed_on_one_instance_is_served_by_the_other(
    pg_cluster: Cluster,
) -> None:
    url = pg_cluster.new_database()
    one, two = LiveServer(server_settings(url)), LiveServer(server_settings(url))
    try:
        ann, bob = one.player("Ann"), one.player("Bob")
        game_id = finished_game(one, ann, bob, 10)
        first = one.get(f"/games/{game_id}/analysis")
        assert first.status_code == 200
        again = two.get(f"/games/{game_id}/analysis")
        assert again.status_code == 200 and again.json() == first.json()
        assert (computed(one), computed(two)) == (1, 0)  # read from the database
    finally:
        one.stop()
        two.stop()
