"""Clocks: a per-move time control at Create; the player to move whose clock runs out loses on
time (a `timed_out` event, rated), judged by the server's sweeper or when the game is read or
acted on, kept across a restart and applied once across instances."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from somnium_desktop.client.lobby_records import GameEvent
from somnium_desktop.client.replay import from_server
from somnium_desktop.game import TimeOut
from somnium_desktop.game.analysis import analyse
from somnium_desktop.game.analysis_data import analysis_to_dict

from ..conftest import Database
from ..postgres import Cluster
from .helpers import EventReader, LiveServer, Player, server_settings

SHORT = {"clock_min": 1, "clock_sweep": 0.05}  # a 1 s clock may be asked for; swept often


@pytest.fixture
def clocked(database: Database) -> Iterator[LiveServer]:
    running = LiveServer(server_settings(database, **SHORT))
    try:
        yield running
    finally:
        running.stop()


def started(server: LiveServer, seconds: int, **create: Any) -> tuple[Player, Player, str]:
    ann, bob = server.player("Ann"), server.player("Bob")
    game_id = str(ann.create(move_seconds=seconds, **create)["id"])
    assert bob.post(f"/games/{game_id}/join").status_code == 200
    return ann, bob, game_id


def log_types(player: Player, game_id: str) -> list[str]:
    return [e["event"]["type"] for e in player.get(f"/games/{game_id}/log").json()]


def test_the_player_to_move_loses_on_time_and_it_is_rated_once(clocked: LiveServer) -> None:
    ann, bob, game_id = started(clocked, 1)
    detail = ann.get(f"/games/{game_id}").json()
    assert detail["move_seconds"] == 1 and detail["status"] == "playing"
    assert 0 < detail["deadline"] - detail["now"] <= 1.0
    loser = detail["view"]["turn"]
    stream = EventReader(f"{clocked.base}/games/{game_id}/events")
    try:
        clock = stream.until(lambda e: e.event == "clock").json()
        assert clock["seat"] == loser and clock["deadline"] == detail["deadline"]
        timed_out = stream.until(lambda e: e.event == "timed_out", timeout=5).json()
        assert timed_out["event"] == {"type": "timed_out", "seat": loser}
        ended = stream.until(lambda e: e.event == "game_ended").json()
        assert ended["event"]["reason"] == "time" and ended["event"]["winner"] == 1 - loser
        assert stream.until(lambda e: e.event == "clock").json()["deadline"] is None
    finally:
        stream.close()
    detail = ann.get(f"/games/{game_id}").json()
    assert detail["status"] == "finished" and detail["winner"] == 1 - loser
    assert detail["view"]["timed_out"] == loser and detail["deadline"] is None
    assert [c["seat"] for c in detail["rating_changes"]] == [0, 1]
    assert log_types(ann, game_id).count("timed_out") == 1
    time.sleep(0.3)  # sweeps after the end change nothing
    pages = [ann.get(f"/players/{p.user_id}").json() for p in (ann, bob)]
    assert [page["played"] for page in pages] == [1, 1]
    assert [page["won"] for page in pages] == [int(loser == 1), int(loser == 0)]
    lobby = clocked.get("/games").json()
    assert lobby[0]["move_seconds"] == 1 and lobby[0]["status"] == "finished"


def test_each_decision_gets_a_fresh_clock(clocked: LiveServer) -> None:
    ann, bob, game_id = started(clocked, 3)
    first = ann.get(f"/games/{game_id}").json()
    mover = (ann, bob)[first["view"]["turn"]]
    time.sleep(0.5)
    assert mover.act(game_id, first["version"], {"type": "draw"}).status_code == 200
    after = ann.get(f"/games/{game_id}").json()
    assert after["deadline"] >= first["deadline"] + 0.5
    assert after["deadline"] - after["now"] > 2.5


def test_a_late_action_or_read_is_judged_without_the_sweeper(database: Database) -> None:
    server = LiveServer(server_settings(database, clock_min=1, clock_sweep=3600.0))
    try:
        ann, bob, game_id = started(server, 1)
        detail = ann.get(f"/games/{game_id}").json()
        mover = (ann, bob)[detail["view"]["turn"]]
        time.sleep(max(0.0, detail["deadline"] - detail["now"]) + 0.1)
        late = mover.act(game_id, detail["version"], {"type": "draw"})
        assert late.status_code == 409 and late.json()["error"] == "timed_out"
        assert ann.get(f"/games/{game_id}").json()["winner"] == 1 - detail["view"]["turn"]

        ann2, bob2, other = started(server, 1)
        detail = ann2.get(f"/games/{other}").json()
        time.sleep(max(0.0, detail["deadline"] - detail["now"]) + 0.1)
        read = bob2.get(f"/games/{other}").json()  # reading it judges the clock
        assert read["status"] == "finished" and read["view"]["timed_out"] == detail["view"]["turn"]
    finally:
        server.stop()


def test_a_restart_keeps_the_deadline(database: Database) -> None:
    first = LiveServer(server_settings(database, clock_min=1, clock_sweep=3600.0))
    try:
        _, _, game_id = started(first, 3)
        before = first.get(f"/games/{game_id}").json()
    finally:
        first.stop()
    second = LiveServer(server_settings(database, **SHORT))
    try:
        again = second.get(f"/games/{game_id}").json()
        assert again["deadline"] == before["deadline"]  # not started afresh
        assert again["status"] == "playing"
        stream = EventReader(f"{second.base}/games/{game_id}/events")
        try:
            stream.until(lambda e: e.event == "timed_out", timeout=5)
        finally:
            stream.close()
        assert time.time() < before["deadline"] + 1.5
        assert second.get(f"/games/{game_id}").json()["view"]["timed_out"] == \
            before["view"]["turn"]
    finally:
        second.stop()


def test_computers_never_time_out(clocked: LiveServer) -> None:
    ann = clocked.player("Ann")
    game_id = ann.create(opponent="computer", level="test", host_level="test",
                         move_seconds=1)["id"]
    assert ann.get(f"/games/{game_id}").json()["deadline"] is None
    for _ in range(200):
        detail = ann.get(f"/games/{game_id}").json()
        if detail["status"] == "finished":
            break
        assert detail["deadline"] is None
        time.sleep(0.05)
    assert detail["status"] == "finished"
    assert "timed_out" not in log_types(ann, game_id)


@pytest.mark.parametrize("seconds", [True, "30", 30.5, 0, 601, 5, -10])
def test_a_time_control_is_a_whole_number_of_seconds_in_range(
    server: LiveServer, seconds: Any
) -> None:
    ann = server.player("Ann")
    for opponent in ({"opponent": "person"}, {"opponent": "computer", "level": "test"}):
        answer = ann.post("/games", {"name": "t", **opponent, "move_seconds": seconds})
        assert answer.status_code == 422, answer.text
    assert ann.post("/games", {"name": "t", "opponent": "person",
                               "move_seconds": 30}).json()["move_seconds"] == 30
    assert ann.post("/games", {"name": "t", "opponent": "person"}).json()["deadline"] is None


def test_one_time_out_across_two_instances(pg_cluster: Cluster) -> None:
    url = pg_cluster.new_database()
    one, two = (LiveServer(server_settings(url, clock_min=1, clock_sweep=0.02))
                for _ in range(2))
    try:
        for _ in range(3):
            ann, bob, game_id = started(one, 1)
            stream = EventReader(f"{two.base}/games/{game_id}/events")
            try:
                stream.until(lambda e: e.event == "game_ended", timeout=5)
            finally:
                stream.close()
            assert log_types(ann, game_id).count("timed_out") == 1
            pages = [two.get(f"/players/{p.user_id}").json() for p in (ann, bob)]
            assert [page["played"] for page in pages] == [1, 1]
    finally:
        one.stop()
        two.stop()


def test_a_game_lost_on_time_replays_and_is_analysed(clocked: LiveServer) -> None:
    """The clock's TimeOut is stored as the game's last action: the replay ends with it (its
    log says who ran out of time) and the analysis leaves it out, as the app's replay does."""
    ann, bob, game_id = started(clocked, 2)
    detail = ann.get(f"/games/{game_id}").json()
    mover = (ann, bob)[detail["view"]["turn"]]
    assert mover.act(game_id, detail["version"], {"type": "draw"}).status_code == 200
    stream = EventReader(f"{clocked.base}/games/{game_id}/events")
    try:
        stream.until(lambda e: e.event == "game_ended", timeout=5)
    finally:
        stream.close()
    detail = ann.get(f"/games/{game_id}").json()
    loser = detail["view"]["timed_out"]
    assert loser is not None and detail["winner"] == 1 - loser
    answer = ann.get(f"/games/{game_id}/replay")
    assert answer.status_code == 200, answer.text
    steps = answer.json()["steps"]
    assert steps[-1]["action"] == {"type": "time_out"} and steps[-1]["seat"] == loser
    assert steps[-1]["view"]["timed_out"] == loser
    log = [GameEvent.from_dict(e) for e in ann.get(f"/games/{game_id}/log").json()]
    replay = from_server(answer.json(), log, ("Ann", "Bob"), detail["name"])
    replay.end()
    assert f"{('Ann', 'Bob')[loser]} ran out of time." in [line for line, _ in replay.lines()]
    analysis = ann.get(f"/games/{game_id}/analysis")
    assert analysis.status_code == 200, analysis.text
    game = replay.public_game()
    assert TimeOut() not in [move.action for move in game.moves] and game.moves
    got = {k: v for k, v in analysis.json().items() if k not in ("game_id", "names")}
    assert got == analysis_to_dict(game, analyse(game))
    assert got["end_step"] == len(steps) - 1  # (the curve ends where the replay does)


def test_a_player_out_of_time_cannot_claim_the_win(database: Database) -> None:
    """The player to move runs out of time while the other is away long enough to be
    claimed against: their claim is refused, and they lose on time (rule 19)."""
    server = LiveServer(server_settings(database, clock_min=1, clock_sweep=3600.0,
                                        away_after=0.2, claim_after=0.5))
    try:
        ann, bob, game_id = started(server, 1)
        detail = ann.get(f"/games/{game_id}").json()
        seat = detail["view"]["turn"]
        time.sleep(max(0.0, detail["deadline"] - detail["now"]) + 0.8)
        claim = (ann, bob)[seat].post(f"/games/{game_id}/claim")
        assert claim.status_code == 409 and claim.json()["error"] == "timed_out", claim.text
        after = ann.get(f"/games/{game_id}").json()
        assert after["winner"] == 1 - seat and after["view"]["timed_out"] == seat
        assert after["claimed_from"] is None
        # the other's claim now answers the game as it is: won
        assert (ann, bob)[1 - seat].post(f"/games/{game_id}/claim").status_code == 200
    finally:
        server.stop()


def test_a_rematch_keeps_the_clock_whether_rated_and_the_odds(clocked: LiveServer) -> None:
    for create, kept in (({}, (30, True, False)),
                         ({"rated": False, "odds": True}, (30, False, True))):
        ann, bob, game_id = started(clocked, 30, **create)
        version = ann.get(f"/games/{game_id}").json()["version"]
        assert ann.act(game_id, version, {"type": "concede"}).status_code == 200
        assert ann.post(f"/games/{game_id}/rematch").status_code == 200
        rematch = bob.post(f"/games/{game_id}/rematch").json()["rematch"]["game_id"]
        again = ann.get(f"/games/{rematch}").json()
        assert (again["move_seconds"], again["rated"], again["odds"]) == kept
        assert again["status"] == "playing" and again["deadline"] is not None
