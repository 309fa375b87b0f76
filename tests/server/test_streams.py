"""Event streams: resume with Last-Event-ID, snapshots when too far behind, keep-alive, caps."""

from __future__ import annotations

import random
from pathlib import Path

from .helpers import EventReader, LiveServer, Player, server_settings


def _play(
    server: LiveServer, game_id: str, players: dict[int, Player], actions: int, rng: random.Random
) -> None:
    for _ in range(actions):
        detail = server.get(f"/games/{game_id}").json()
        view = detail["view"]
        if view["over"]:
            return
        answer = players[view["turn"]].act(game_id, detail["version"], rng.choice(view["legal"]))
        assert answer.status_code == 200, answer.text


def test_a_dropped_stream_resumes_with_exactly_the_missed_events(server: LiveServer) -> None:
    ann, bob = server.player("Ann"), server.player("Bob")
    game_id = ann.create()["id"]
    bob.post(f"/games/{game_id}/join")
    players = {0: ann, 1: bob}
    rng = random.Random(3)
    url = f"{server.base}/games/{game_id}/events"

    first = EventReader(url)
    assert first.next().event == "snapshot"
    _play(server, game_id, players, 3, rng)
    got = [e for e in first.drain() if e.id is not None]
    last_id = got[-1].id
    first.close()

    _play(server, game_id, players, 6, rng)  # happens while nobody listens
    resumed = EventReader(url, headers={"Last-Event-ID": str(last_id)})
    replayed = [e for e in resumed.drain() if e.id is not None]
    log = server.get(f"/games/{game_id}/log").json()
    missed = [entry for entry in log if entry["seq"] > int(str(last_id))]
    assert missed, "the test should have missed some events"
    assert [e.event for e in replayed] == [entry["event"]["type"] for entry in missed]
    assert [e.json() for e in replayed] == missed
    assert all(e.event != "snapshot" for e in replayed)
    # and it goes on live from there
    _play(server, game_id, players, 1, rng)
    live = resumed.next()
    assert int(str(live.id)) == missed[-1]["seq"] + 1
    resumed.close()

    log = server.get(f"/games/{game_id}/log").json()
    up_to_date = EventReader(url, headers={"Last-Event-ID": str(log[-1]["seq"] + 1)})
    assert up_to_date.next().event == "snapshot"  # an id from the future: resynchronise
    up_to_date.close()
    current = EventReader(url, headers={"Last-Event-ID": str(log[-1]["seq"])})
    assert [e.event for e in current.drain()] == ["observers"]  # nothing missed
    current.close()


def test_a_stream_too_far_behind_gets_a_fresh_snapshot(tmp_path: Path) -> None:
    small = LiveServer(server_settings(tmp_path / "db.sqlite3", event_window=4))
    try:
        ann, bob = small.player("Ann"), small.player("Bob")
        game_id = ann.create()["id"]
        bob.post(f"/games/{game_id}/join")
        _play(small, game_id, {0: ann, 1: bob}, 8, random.Random(5))
        detail = small.get(f"/games/{game_id}").json()
        assert detail["seq"] > 6
        behind = EventReader(
            f"{small.base}/games/{game_id}/events", headers={"Last-Event-ID": "1"}
        )
        snapshot = behind.next()
        assert snapshot.event == "snapshot" and snapshot.id == str(detail["seq"])
        assert snapshot.json()["game"]["view"] == detail["view"]
        behind.close()
    finally:
        small.stop()


def test_idle_streams_get_keep_alive_comments(server: LiveServer) -> None:
    game_id = server.player("Ann").create()["id"]
    stream = EventReader(f"{server.base}/games/{game_id}/events")
    stream.next()
    comment = stream.next(timeout=3.0, skip_comments=False)
    while comment.event != "comment":
        comment = stream.next(timeout=3.0, skip_comments=False)
    assert comment.data == "keep-alive"
    lobby = EventReader(f"{server.base}/lobby/events")
    lobby.next()
    assert lobby.next(timeout=3.0, skip_comments=False).event == "comment"
    stream.close()
    lobby.close()


def test_one_client_may_hold_only_so_many_streams(tmp_path: Path) -> None:
    capped = LiveServer(server_settings(tmp_path / "db.sqlite3", max_streams=2))
    try:
        game_id = capped.player("Ann").create()["id"]
        url = f"{capped.base}/games/{game_id}/events"
        held = [EventReader(url), EventReader(capped.base + "/lobby/events")]
        refused = capped.get(f"/games/{game_id}/events")
        assert refused.status_code == 429
        assert refused.json()["error"] == "too_many_streams" and refused.headers["Retry-After"]
        held[0].close()
        # the slot is free again once the server noticed the client left
        for _ in range(50):
            again = EventReader(url)
            if again.status == 200:
                break
            import time

            time.sleep(0.05)
        assert again.status == 200
        again.close()
        held[1].close()
    finally:
        capped.stop()


def test_watching_counts_observers_live(server: LiveServer) -> None:
    ann = server.player("Ann")
    game_id = ann.create()["id"]
    url = f"{server.base}/games/{game_id}/events"
    player_stream = EventReader(url, headers=ann.headers)
    watchers = [EventReader(url) for _ in range(2)]
    counts = watchers[0].until(lambda e: e.event == "observers" and e.json()["count"] == 2)
    assert counts.id is None  # an observer count is not part of the numbered log
    watchers[1].close()
    watchers[0].until(lambda e: e.event == "observers" and e.json()["count"] == 1)
    player_stream.until(lambda e: e.event == "observers" and e.json()["count"] == 1)
    assert server.get(f"/games/{game_id}").json()["observers"] == 1
    watchers[0].close()
    player_stream.close()
