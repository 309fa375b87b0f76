"""Two people and some observers play a whole game through the HTTP API and the streams."""

from __future__ import annotations

import random
from pathlib import Path

from somnium_server.storage import StoredAction
from somnium_server.storage.sqlite import SQLiteStorage

from .helpers import EventReader, LiveServer, play_until_over, server_settings


def test_two_players_and_observers_play_a_whole_game(server: LiveServer) -> None:
    ann, bob = server.player("Ann"), server.player("Bob")
    lobby = EventReader(server.base + "/lobby/events")
    assert lobby.next().event == "snapshot"

    created = ann.create(name="Friday game")
    game_id = created["id"]
    assert created["status"] == "waiting"
    assert len(game_id) == 7 and game_id.isalnum() and game_id.isupper()
    assert lobby.until(lambda e: e.event == "game_created").json()["game"]["id"] == game_id

    watchers = [EventReader(f"{server.base}/games/{game_id}/events") for _ in range(3)]
    for watcher in watchers:
        snapshot = watcher.next()
        assert snapshot.event == "snapshot"
        assert snapshot.json()["game"]["id"] == game_id
        assert snapshot.id == str(created["seq"])
    # the lobby hears about the observers, gathered into few events
    assert lobby.until(
        lambda e: e.event == "observers" and e.json()["observers"] == 3
    ).json()["game_id"] == game_id
    assert server.get(f"/games/{game_id}").json()["observers"] == 3

    joined = bob.post(f"/games/{game_id}/join")
    assert joined.status_code == 200, joined.text
    assert joined.json()["status"] == "playing"
    seat_taken = lobby.until(lambda e: e.event == "seat_taken").json()["game"]
    assert [p["name"] for p in seat_taken["players"]] == ["Ann", "Bob"]

    final = play_until_over(game_id, {0: ann, 1: bob}, random.Random(7))
    assert final["view"]["over"]
    finished = lobby.until(lambda e: e.event == "game_finished").json()["game"]
    assert finished["status"] == "finished" and finished["id"] == game_id

    log = server.get(f"/games/{game_id}/log").json()
    assert [entry["seq"] for entry in log] == list(range(1, len(log) + 1))
    assert log[-1]["event"]["type"] == "game_ended"
    for watcher in watchers:
        got = watcher.until(lambda e: e.event == "game_ended")
        assert got.id == str(log[-1]["seq"])
        # every observer saw the same numbered events, in order, as the log holds
        numbered = [e for e in watcher.seen if e.id is not None and e.event != "snapshot"]
        assert [int(e.id) for e in numbered if e.id] == [
            entry["seq"] for entry in log if entry["seq"] > created["seq"]
        ]
        assert [e.json() for e in numbered] == [
            entry for entry in log if entry["seq"] > created["seq"]
        ]
        assert watcher.seen[-1].json()["view"] == final["view"]
        watcher.close()
    lobby.until(lambda e: e.event == "observers" and e.json()["observers"] == 0)
    lobby.close()

    replay = server.get(f"/games/{game_id}/replay")
    assert replay.status_code == 200
    steps = replay.json()["steps"]
    assert steps[0]["action"] is None and steps[0]["view"]["deck_count"] == 54
    assert steps[-1]["view"] == final["view"]
    assert len(steps) - 1 == sum(1 for e in log if e.get("view") and e["version"] > 2)


def test_lobby_lists_newest_first_and_filters(server: LiveServer) -> None:
    ann, bob, cid = server.player("Ann"), server.player("Bob"), server.player("Cid")
    first = ann.create(name="one")
    second = bob.create(name="two")
    third = cid.create(name="three")
    assert cid.post(f"/games/{first['id']}/join").status_code == 200

    listed = server.get("/games").json()
    assert [g["id"] for g in listed] == [third["id"], second["id"], first["id"]]
    assert listed[2]["status"] == "playing" and listed[2]["turn"] in (0, 1)
    assert listed[0]["turn"] is None and listed[0]["observers"] == 0

    waiting = server.get("/games", params={"status": "waiting"}).json()
    assert [g["id"] for g in waiting] == [third["id"], second["id"]]
    with_cid = server.get("/games", params={"player": cid.user_id}).json()
    assert [g["id"] for g in with_cid] == [third["id"], first["id"]]
    by_name = server.get("/games", params={"player": "bob"}).json()
    assert [g["id"] for g in by_name] == [second["id"]]
    assert len(server.get("/games", params={"limit": 1}).json()) == 1
    both = server.get("/games", params={"status": "playing", "player": "CID", "limit": 1})
    assert [g["id"] for g in both.json()] == [first["id"]]
    bad = server.get("/games", params={"status": "lost"})
    assert bad.status_code == 422 and bad.json()["error"] == "invalid_request"


def test_leave_before_start_closes_the_table_and_a_started_game_cannot_be_left(
    server: LiveServer,
) -> None:
    ann, bob = server.player("Ann"), server.player("Bob")
    game = ann.create()
    assert bob.post(f"/games/{game['id']}/leave").status_code == 403
    left = ann.post(f"/games/{game['id']}/leave")
    assert left.status_code == 200
    assert left.json()["status"] == "finished" and left.json()["closed"] is True
    late = bob.post(f"/games/{game['id']}/join")
    assert late.status_code == 409 and late.json()["error"] == "game_started"

    other = ann.create()
    assert bob.post(f"/games/{other['id']}/join").status_code == 200
    refused = bob.post(f"/games/{other['id']}/leave")
    assert refused.status_code == 409 and "before it starts" in refused.json()["message"]
    taken = server.player("Cid").post(f"/games/{other['id']}/join")
    assert taken.status_code == 409


def test_rematch_needs_both_players_and_is_announced_on_the_stream(server: LiveServer) -> None:
    ann, bob = server.player("Ann"), server.player("Bob")
    game_id = ann.create()["id"]
    bob.post(f"/games/{game_id}/join")
    early = ann.post(f"/games/{game_id}/rematch")
    assert early.status_code == 409 and early.json()["error"] == "game_not_finished"

    detail = ann.get(f"/games/{game_id}").json()
    assert ann.act(game_id, detail["version"], {"type": "concede"}).status_code == 200
    stream = EventReader(f"{server.base}/games/{game_id}/events", headers=bob.headers)
    stream.next()
    assert server.player("Cid").post(f"/games/{game_id}/rematch").status_code == 403
    asked = ann.post(f"/games/{game_id}/rematch").json()
    assert asked["rematch"] == {"agreed": [0], "game_id": None}
    agreed = bob.post(f"/games/{game_id}/rematch").json()
    new_id = agreed["rematch"]["game_id"]
    assert new_id and new_id != game_id
    announced = stream.until(lambda e: e.event == "rematch").json()
    assert announced["event"]["game_id"] == new_id
    stream.close()
    new = server.get(f"/games/{new_id}").json()
    assert new["status"] == "playing"
    assert [p["user_id"] for p in new["players"]] == [ann.user_id, bob.user_id]
    assert new["view"]["deck_count"] == 54
    # a players' own stream does not count them as observers
    assert server.get(f"/games/{game_id}").json()["observers"] == 0


def test_replay_waits_for_the_end(server: LiveServer) -> None:
    ann, bob = server.player("Ann"), server.player("Bob")
    game_id = ann.create()["id"]
    bob.post(f"/games/{game_id}/join")
    refused = server.get(f"/games/{game_id}/replay")
    assert refused.status_code == 409
    assert refused.json()["error"] == "game_not_finished"
    missing = server.get("/games/ZZZZZZZ")
    assert missing.status_code == 404 and "ZZZZZZZ" in missing.json()["message"]
    # ids are read case-insensitively, as people type them
    assert server.get(f"/games/{game_id.lower()}").json()["id"] == game_id


class CountingSQLite(SQLiteStorage):
    """The real storage, counting the reads of a game's actions (what a replay is built from)."""

    reads = 0

    async def get_actions(self, game_id: str, after: int = 0) -> list[StoredAction]:
        self.reads += 1
        return await super().get_actions(game_id, after)


def test_a_replay_is_built_once_for_the_many_who_ask(tmp_path: Path) -> None:
    storage = CountingSQLite(tmp_path / "db.sqlite3")
    server = LiveServer(server_settings(tmp_path / "db.sqlite3"), storage=storage)
    try:
        ann, bob = server.player("Ann"), server.player("Bob")
        game_id = ann.create()["id"]
        game = bob.post(f"/games/{game_id}/join").json()
        assert ann.act(game_id, game["version"], {"type": "concede"}).status_code == 200
        before = storage.reads
        answers = [server.get(f"/games/{game_id}/replay") for _ in range(5)]
        assert all(answer.status_code == 200 for answer in answers)
        assert len({answer.content for answer in answers}) == 1
        assert storage.reads == before + 1
    finally:
        server.stop()
