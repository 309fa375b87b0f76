"""Two real server instances on one PostgreSQL database: games, streams and actions across them."""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import orjson
import pytest
import requests

from somnium_desktop.client.sse import EventStream, ServerEvent
from somnium_server.storage import GameRecord
from somnium_server.storage.postgres import PostgresStorage

from ..postgres import Cluster
from .helpers import (
    SSE,
    EventReader,
    LiveServer,
    Player,
    free_port,
    make_user,
    play_until_over,
    query,
    server_settings,
)
from .test_restart import _start, _stop


@pytest.fixture
def pair(pg_cluster: Cluster) -> Iterator[tuple[LiveServer, LiveServer]]:
    """Two instances sharing one fresh PostgreSQL database."""
    url = pg_cluster.new_database()
    first = LiveServer(server_settings(url))
    second = LiveServer(server_settings(url))
    try:
        yield first, second
    finally:
        first.stop()
        second.stop()


def on(server: LiveServer, player: Player) -> Player:
    """The same signed-in person, talking to another instance."""
    return Player(server.base, player.user_id, player.token, player.name)


def numbered(reader: EventReader) -> list[tuple[int, Any]]:
    """The numbered game events a stream saw, (seq, data) in the order they came."""
    return [(int(e.id), e.json()) for e in reader.seen
            if e.id is not None and e.event != "snapshot"]


def race(urls: list[str], body: dict[str, Any], headers: dict[str, str]) -> list[requests.Response]:
    """The same POST sent to every url at once (threads released together)."""
    return together([(url, body, headers) for url in urls])


def together(
    posts: list[tuple[str, dict[str, Any], dict[str, str]]],
) -> list[requests.Response]:
    """These POSTs (url, body, headers) sent at once (threads released together)."""
    answers: list[requests.Response] = []
    barrier = threading.Barrier(len(posts))

    def send(url: str, body: dict[str, Any], headers: dict[str, str]) -> None:
        barrier.wait()
        answers.append(requests.post(url, json=body, headers=headers, timeout=10))

    threads = [threading.Thread(target=send, args=post) for post in posts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def started(server: LiveServer) -> tuple[Player, Player, str]:
    """Ann and Bob at a game of theirs, started (both on `server`)."""
    ann, bob = server.player("Ann"), server.player("Bob")
    game_id = ann.create()["id"]
    assert bob.post(f"/games/{game_id}/join").status_code == 200
    return ann, bob, game_id


def test_a_whole_game_across_two_instances(pair: tuple[LiveServer, LiveServer]) -> None:
    one, two = pair
    ann = one.player("Ann")
    bob = on(two, one.player("Bob"))
    lobby_two = EventReader(two.base + "/lobby/events")
    assert lobby_two.next().event == "snapshot"

    created = ann.create(name="Across")
    game_id = created["id"]
    # made on instance 1: the lobby stream on instance 2 hears of it
    heard = lobby_two.until(lambda e: e.event == "game_created").json()["game"]
    assert heard["id"] == game_id
    watchers = [EventReader(f"{server.base}/games/{game_id}/events") for server in (one, two)]
    for watcher in watchers:
        assert watcher.next().event == "snapshot"

    joined = bob.post(f"/games/{game_id}/join")  # on instance 2
    assert joined.status_code == 200, joined.text
    assert lobby_two.until(lambda e: e.event == "seat_taken").json()["game"]["id"] == game_id

    rng = random.Random(11)
    players = {0: ann, 1: bob}
    detail = ann.get(f"/games/{game_id}").json()
    for _ in range(400):
        if detail["view"]["over"]:
            break
        view = detail["view"]
        response = players[view["turn"]].act(game_id, detail["version"], rng.choice(view["legal"]))
        assert response.status_code == 200, response.text
        result = response.json()
        detail = {**detail, "version": result["version"], "view": result["view"]}
    assert detail["view"]["over"]

    log = one.get(f"/games/{game_id}/log").json()
    assert log == two.get(f"/games/{game_id}/log").json()
    assert [entry["seq"] for entry in log] == list(range(1, len(log) + 1))
    for watcher in watchers:
        watcher.until(lambda e: e.event == "game_ended")
        # both instances' observers saw every event, in order, once
        assert numbered(watcher) == [
            (entry["seq"], entry) for entry in log if entry["seq"] > created["seq"]
        ]
        watcher.close()
    assert lobby_two.until(lambda e: e.event == "game_finished").json()["game"]["id"] == game_id
    lobby_two.close()
    for server in (one, two):
        shown = server.get(f"/games/{game_id}").json()
        assert shown["status"] == "finished" and shown["version"] == detail["version"]


class GameReading(PostgresStorage):
    """The real PostgreSQL storage, counting the games it reads back whole."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.games_read = 0

    async def get_game(self, game_id: str) -> GameRecord | None:
        self.games_read += 1
        return await super().get_game(game_id)


def test_the_other_instance_takes_every_action_from_its_notice(pg_cluster: Cluster) -> None:
    # the game's end (stored with a snapshot, as every 32nd action) too: the instance that
    # only streams the game plays each action on its own copy without reading the game back
    url = pg_cluster.new_database()
    reading = GameReading(url)
    one, two = LiveServer(server_settings(url)), LiveServer(server_settings(url), storage=reading)
    try:
        ann, bob, game_id = started(one)
        watcher = EventReader(f"{two.base}/games/{game_id}/events")
        start = int(watcher.next().json()["game"]["seq"])  # (the second adopts the game)
        read_before = reading.games_read
        detail = play_until_over(game_id, {0: ann, 1: bob}, random.Random(5))
        watcher.until(lambda e: e.event == "game_ended")
        log = ann.get(f"/games/{game_id}/log").json()
        assert numbered(watcher) == [(entry["seq"], entry) for entry in log if entry["seq"] > start]
        assert reading.games_read == read_before
        shown = two.get(f"/games/{game_id}").json()
        assert (shown["status"], shown["version"]) == ("finished", detail["version"])
        watcher.close()
    finally:
        one.stop()
        two.stop()


def test_last_event_id_resumes_on_the_other_instance(
    pair: tuple[LiveServer, LiveServer],
) -> None:
    one, two = pair
    ann, bob, game_id = started(one)
    watcher = EventReader(f"{one.base}/games/{game_id}/events")
    snapshot = watcher.next().json()["game"]
    last_seen = snapshot["seq"]
    watcher.close()
    # three actions while the stream is away, all on instance 1
    version = snapshot["version"]
    made: list[int] = []
    for _ in range(3):
        view = ann.get(f"/games/{game_id}").json()["view"]
        if view["over"]:
            break
        mover = ann if view["turn"] == 0 else bob
        result = mover.act(game_id, version, view["legal"][0]).json()
        version = result["version"]
        made.extend(event["seq"] for event in result["events"])
    resumed = EventReader(
        f"{two.base}/games/{game_id}/events", headers={"Last-Event-ID": str(last_seen)}
    )
    got = [int(resumed.until(lambda e: e.id is not None).id or 0) for _ in made]
    assert got == made
    assert [e.event for e in resumed.seen if e.event == "snapshot"] == []
    resumed.close()


def test_the_same_action_applies_once_across_instances(
    pair: tuple[LiveServer, LiveServer],
) -> None:
    one, two = pair
    ann, bob, game_id = started(one)
    two.get(f"/games/{game_id}")  # instance 2 holds the game too
    for round_ in range(10):
        detail = ann.get(f"/games/{game_id}").json()
        view = detail["view"]
        if view["over"]:
            break
        mover = ann if view["turn"] == 0 else bob
        body = {"action_id": f"race-{round_}", "version": detail["version"],
                "action": view["legal"][0]}
        answers = race([f"{server.base}/games/{game_id}/actions" for server in (one, two)],
                       body, mover.headers)
        ok = [a for a in answers if a.status_code == 200]
        assert ok, [a.text for a in answers]
        assert all(a.status_code in (200, 409) for a in answers), [a.text for a in answers]
        # a second 200 is the same answer, never a second application
        assert all(a.content == ok[0].content for a in ok)
        after = one.get(f"/games/{game_id}").json()
        assert after["version"] == detail["version"] + 1
        assert two.get(f"/games/{game_id}").json()["version"] == detail["version"] + 1
    log = one.get(f"/games/{game_id}/log").json()
    versions = sorted({entry["version"] for entry in log})
    assert versions == list(range(versions[0], versions[-1] + 1))


def test_a_stale_writer_gets_409(pair: tuple[LiveServer, LiveServer]) -> None:
    one, two = pair
    ann, bob, game_id = started(one)
    detail = ann.get(f"/games/{game_id}").json()
    mover = ann if detail["view"]["turn"] == 0 else bob
    action = detail["view"]["legal"][0]
    assert mover.act(game_id, detail["version"], action, "first").status_code == 200
    late = on(two, mover).act(game_id, detail["version"], action, "second")
    assert late.status_code == 409, late.text
    assert late.json()["error"] == "stale_version"
    # the first one's retry on the other instance: the same answer
    again = on(two, mover).act(game_id, detail["version"], action, "first")
    assert again.status_code == 200
    assert again.json()["version"] == detail["version"] + 1


def test_lobby_event_ids_are_the_same_on_every_instance(
    pair: tuple[LiveServer, LiveServer],
) -> None:
    one, two = pair
    ann = one.player("Ann")
    lobby_one = EventReader(one.base + "/lobby/events")
    first = lobby_one.next()
    assert first.event == "snapshot"
    made = [ann.create(name=f"table {n}")["id"] for n in range(3)]
    created = [lobby_one.until(lambda e: e.event == "game_created") for _ in made]
    assert [e.json()["game"]["id"] for e in created] == made
    lobby_one.close()
    # resumed on the other instance after the first event: the two others, same ids, no snapshot
    resumed = EventReader(
        two.base + "/lobby/events", headers={"Last-Event-ID": created[0].id or ""}
    )
    again = [resumed.next() for _ in made[1:]]
    assert [(e.id, e.data) for e in again] == [(e.id, e.data) for e in created[1:]]
    resumed.close()
    # and after a restart of instance 1: the ids still name the same events
    one.stop()
    restarted = LiveServer(one.settings)
    try:
        later = EventReader(
            restarted.base + "/lobby/events", headers={"Last-Event-ID": created[1].id or ""}
        )
        assert (later.next().id, later.seen[-1].data) == (created[2].id, created[2].data)
        later.close()
    finally:
        restarted.stop()


def presence(event: SSE) -> list[tuple[bool, bool]]:
    return [(p["away"], p["claimable"]) for p in event.json()["players"]]


def test_presence_and_observers_are_the_same_on_every_instance(pg_cluster: Cluster) -> None:
    url = pg_cluster.new_database()
    one, two = (LiveServer(server_settings(url, away_after=0.6, claim_after=1.2))
                for _ in range(2))
    try:
        ann, bob = one.player("Ann"), on(two, one.player("Bob"))
        game_id = ann.create()["id"]
        ann_stream = EventReader(f"{one.base}/games/{game_id}/events", headers=ann.headers)
        assert bob.post(f"/games/{game_id}/join").status_code == 200
        bob_stream = EventReader(f"{two.base}/games/{game_id}/events", headers=bob.headers)
        # Bob's only stream is on instance 2: instance 1 counts him at the table all along
        time.sleep(1.5)
        assert all(not presence(e)[1][0] for e in ann_stream.drain() if e.event == "presence")
        assert one.get(f"/games/{game_id}").json()["presence"][1]["away"] is False

        watchers = [EventReader(f"{server.base}/games/{game_id}/events") for server in (one, two)]
        for server in (one, two):  # one observer on each instance: two on both
            counted = []
            for _ in range(50):
                counted.append(server.get(f"/games/{game_id}").json()["observers"])
                if counted[-1] == 2:
                    break
                time.sleep(0.1)
            assert counted[-1] == 2, counted
        watchers[1].close()
        assert ann_stream.until(
            lambda e: e.event == "observers" and e.json()["count"] == 1
        ).json()["count"] == 1

        bob_stream.close()  # gone from instance 2: away, then claimable, seen on instance 1
        away = ann_stream.until(lambda e: e.event == "presence" and presence(e)[1][0])
        assert presence(away) == [(False, False), (True, False)]
        ann_stream.until(lambda e: e.event == "presence" and presence(e)[1][1])
        claimed = ann.post(f"/games/{game_id}/claim")
        assert claimed.status_code == 200, claimed.text
        watchers[0].close()
        ann_stream.close()
    finally:
        one.stop()
        two.stop()


def test_one_who_sits_down_through_another_instance_is_no_observer_on_either(
    pair: tuple[LiveServer, LiveServer],
) -> None:
    one, two = pair
    ann = one.player("Ann")
    bob = on(two, one.player("Bob"))
    game_id = ann.create()["id"]
    ann_stream = EventReader(f"{one.base}/games/{game_id}/events", headers=ann.headers)
    bob_stream = EventReader(f"{two.base}/games/{game_id}/events", headers=bob.headers)
    ann_stream.until(lambda e: e.event == "observers" and e.json()["count"] == 1)
    assert on(one, bob).post(f"/games/{game_id}/join").status_code == 200  # heard by two
    ann_stream.until(lambda e: e.event == "observers" and e.json()["count"] == 0)
    bob_stream.until(lambda e: e.event == "observers" and e.json()["count"] == 0)
    assert [server.get(f"/games/{game_id}").json()["observers"] for server in pair] == [0, 0]
    bob_stream.close()
    ann_stream.close()


@dataclass
class Processes:
    """somnium-server processes on one database (stopped at the end if still running)."""

    url: str
    bases: list[str]
    running: list[subprocess.Popen[bytes]]

    def kill_9(self, index: int) -> None:
        os.kill(self.running[index].pid, signal.SIGKILL)
        self.running[index].wait()


@pytest.fixture
def processes(tmp_path: Path, pg_cluster: Cluster) -> Iterator[Processes]:
    url = pg_cluster.new_database()
    ports = [free_port(), free_port()]
    running: list[subprocess.Popen[bytes]] = []
    try:
        for n, port in enumerate(ports):
            running.append(_start(url, port, tmp_path / f"server{n}.log"))
        yield Processes(url, [f"http://127.0.0.1:{port}" for port in ports], running)
    finally:
        for process in running:
            if process.poll() is None:
                _stop(process)


def test_kill_9_of_an_instance_and_the_apps_stream_resumes_on_the_other(
    processes: Processes,
) -> None:
    bases = processes.bases
    ann = Player(bases[0], *make_user(processes.url, "Ann"), "Ann")
    bob = Player(bases[1], *make_user(processes.url, "Bob"), "Bob")
    seen: list[ServerEvent] = []
    alive = [True]
    stream: EventStream | None = None
    try:
        game_id = ann.create()["id"]
        assert bob.post(f"/games/{game_id}/join").status_code == 200
        # the app's own stream reader; the address it asks goes to instance 2 once 1 is gone
        stream = EventStream(
            lambda: f"{bases[0] if alive[0] else bases[1]}/games/{game_id}/events",
            seen.append, backoff=(0.05, 0.1, 0.2),
        )
        stream.start()
        rng = random.Random(5)
        players = {0: ann, 1: bob}
        detail = bob.get(f"/games/{game_id}").json()
        acknowledged: list[int] = []
        for step in range(40):
            if step == 12:
                processes.kill_9(0)  # mid-game, the stream's instance
                alive[0] = False
                ann = replace(ann, base=bases[1])  # (its action ids go on: never reused)
                players[0] = ann
            view = detail["view"]
            if view["over"]:
                break
            answer = players[view["turn"]].act(game_id, detail["version"],
                                               rng.choice(view["legal"]))
            assert answer.status_code == 200, answer.text
            result = answer.json()
            acknowledged.append(result["version"])
            detail = {**detail, "version": result["version"], "view": result["view"]}
        log = bob.get(f"/games/{game_id}/log").json()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and (not seen or seen[-1].id != str(log[-1]["seq"])):
            time.sleep(0.05)
        numbered = [int(e.id) for e in seen if e.id is not None and e.event != "snapshot"]
        snapshots = [e for e in seen if e.event == "snapshot"]
        assert len(snapshots) == 1  # the reconnection resumed: no second snapshot
        start = int(snapshots[0].id or 0)
        # 0 events lost or repeated, and every acknowledged action is in the stored log
        assert numbered == [entry["seq"] for entry in log if entry["seq"] > start]
        assert set(acknowledged) <= {entry["version"] for entry in log}
        assert stream.connections >= 2
    finally:
        if stream is not None:
            stream.close()


def test_a_computer_game_plays_on_when_its_instance_is_killed(processes: Processes) -> None:
    ann = Player(processes.bases[0], *make_user(processes.url, "Ann"), "Ann")
    watcher = replace(ann, base=processes.bases[1])

    def version() -> int:
        return int(watcher.get(f"/games/{game_id}").json()["version"])

    # two computers: instance 1 made the game and drives them (the lease is its)
    game_id = ann.create(host_level="test", opponent="computer", level="test")["id"]
    deadline = time.monotonic() + 15
    while version() < 4 and time.monotonic() < deadline:
        time.sleep(0.1)
    processes.kill_9(0)
    at_kill = version()
    assert at_kill >= 4
    deadline = time.monotonic() + 15
    while version() < at_kill + 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert version() >= at_kill + 2, "instance 2 did not take the computers over"
    log = watcher.get(f"/games/{game_id}/log").json()
    versions = [entry["version"] for entry in log]
    assert versions == sorted(versions)  # one writer: no version made twice or skipped
    assert sorted(set(versions)) == list(range(versions[0], versions[-1] + 1))


def test_a_rated_game_is_counted_once_whichever_instance_ends_it(
    pair: tuple[LiveServer, LiveServer],
) -> None:
    one, two = pair
    ann = one.player("Ann")
    bob = on(two, one.player("Bob"))
    games = 4
    for round_ in range(games):
        game_id = ann.create()["id"]
        assert bob.post(f"/games/{game_id}/join").status_code == 200
        version = ann.get(f"/games/{game_id}").json()["version"]
        concede = {"action": {"type": "concede"}, "version": version}
        if round_ % 2:  # the same concession through both instances at once
            answers = race([f"{s.base}/games/{game_id}/actions" for s in (one, two)],
                           {**concede, "action_id": f"end-{round_}"}, ann.headers)
        else:  # each player concedes on their own instance at once: one of them ends it
            answers = together([
                (f"{one.base}/games/{game_id}/actions",
                 {**concede, "action_id": f"ann-{round_}"}, ann.headers),
                (f"{two.base}/games/{game_id}/actions",
                 {**concede, "action_id": f"bob-{round_}"}, bob.headers),
            ])
        assert any(a.status_code == 200 for a in answers), [a.text for a in answers]
        for server in (one, two):
            detail = server.get(f"/games/{game_id}").json()
            assert detail["status"] == "finished"
            assert [c["seat"] for c in detail["rating_changes"]] == [0, 1]
    for server in (one, two):
        pages = [server.get(f"/players/{p.user_id}").json() for p in (ann, bob)]
        assert [page["played"] for page in pages] == [games, games]
        assert sum(page["won"] for page in pages) == games
        assert [len(page["history"]) for page in pages] == [games, games]


def test_an_absence_outlives_the_players_instance_and_a_restart_of_all(
    tmp_path: Path, pg_cluster: Cluster,
) -> None:
    """Bob's app is on instance 1, which is killed: instance 2 lets Ann claim the win once Bob
    has been gone long enough, and after every instance restarts his absence still counts
    from then (no new grace)."""
    url = pg_cluster.new_database()
    claim_after = 10.0
    timing = ("--away-after", "1", "--claim-after", str(claim_after))
    ports = [free_port() for _ in range(4)]
    running = [_start(url, port, tmp_path / f"server{n}.log", *timing)
               for n, port in enumerate(ports[:2])]
    bases = [f"http://127.0.0.1:{port}" for port in ports]
    ann = Player(bases[1], *make_user(url, "Ann"), "Ann")
    bob = Player(bases[0], *make_user(url, "Bob"), "Bob")
    try:
        games = [ann.create()["id"] for _ in range(2)]
        for game_id in games:
            assert bob.post(f"/games/{game_id}/join").status_code == 200
        bob_app = EventReader(f"{bases[0]}/lobby/events", headers=bob.headers)
        ann_stream = EventReader(f"{bases[1]}/games/{games[0]}/events", headers=ann.headers)
        time.sleep(1.5)
        assert not ann.get(f"/games/{games[0]}").json()["presence"][1]["away"]
        os.kill(running[0].pid, signal.SIGKILL)
        running[0].wait()
        killed = time.monotonic()
        bob_app.close()
        # instance 2 takes instance 1 as gone (6 s unheard of), Bob with it: away, then the
        # claim, counted from his last note in the database (a few seconds before the kill)
        ann_stream.until(lambda e: e.event == "presence" and presence(e)[1][0], 15)
        ann_stream.until(lambda e: e.event == "presence" and presence(e)[1][1], 15)
        claimable = time.monotonic() - killed
        assert claimable <= claim_after + 1.0, claimable
        claimed = ann.post(f"/games/{games[0]}/claim")
        assert claimed.status_code == 200, claimed.text
        ann_stream.close()

        # every instance stopped, two new ones started: Bob still gone since the kill
        _stop(running[1])
        running = [_start(url, port, tmp_path / f"server{n + 2}.log", *timing)
                   for n, port in enumerate(ports[2:])]
        ann = replace(ann, base=bases[3])
        claimed = ann.post(f"/games/{games[1]}/claim")
        assert claimed.status_code == 200, claimed.text  # (a new grace: a 409 too_early)
        assert claimed.json()["claimed_from"] == 1
        assert replace(ann, base=bases[2]).get(f"/games/{games[1]}").json()["winner"] == 0
    finally:
        for process in running:
            if process.poll() is None:
                _stop(process)


def test_an_instance_streaming_nothing_of_a_game_shows_its_moves(
    pair: tuple[LiveServer, LiveServer],
) -> None:
    """An instance that streams nothing of a game still shows the other's moves."""
    one, two = pair
    ann, bob, game_id = started(one)
    assert on(two, ann).get(f"/games/{game_id}").status_code == 200  # known on `two` too
    for _ in range(3):
        detail = ann.get(f"/games/{game_id}").json()
        mover = ann if detail["view"]["turn"] == 0 else bob
        answer = mover.act(game_id, detail["version"], detail["view"]["legal"][0])
        assert answer.status_code == 200, answer.text
    now = ann.get(f"/games/{game_id}").json()
    give_up = time.monotonic() + 5.0  # the list follows once the notices reached `two`
    while True:
        listed = {g["id"]: g for g in on(two, ann).get("/games?status=playing").json()}
        if listed[game_id]["turn"] == now["view"]["turn"] or time.monotonic() > give_up:
            break
        time.sleep(0.1)
    assert listed[game_id]["turn"] == now["view"]["turn"]
    assert on(two, bob).get(f"/games/{game_id}").json()["version"] == now["version"]


def test_both_ask_for_a_rematch_at_once_through_two_instances(
    pair: tuple[LiveServer, LiveServer],
) -> None:
    one, two = pair
    ann, bob, game_id = started(one)
    version = ann.get(f"/games/{game_id}").json()["version"]
    assert ann.act(game_id, version, {"type": "concede"}).status_code == 200
    answers = together([
        (f"{one.base}/games/{game_id}/rematch", {}, ann.headers),
        (f"{two.base}/games/{game_id}/rematch", {}, on(two, bob).headers),
    ])
    assert [a.status_code for a in answers] == [200, 200], [a.text for a in answers]
    # the second ask opened the new game on whichever instance made it; each instance
    # shows it once the other's notice reached it
    opened = []
    for server, player in ((one, ann), (two, bob)):
        give_up = time.monotonic() + 5.0
        while True:
            rematch = on(server, player).get(f"/games/{game_id}").json()["rematch"]
            if rematch["game_id"] is not None or time.monotonic() > give_up:
                break
            time.sleep(0.1)
        assert rematch["game_id"] is not None, server.base
        opened.append(rematch["game_id"])
    assert opened[0] == opened[1]  # one new game, the same on both


def until(check: Any, seconds: float) -> None:
    """Polls until `check()` is true; fails past `seconds`."""
    start = time.monotonic()
    while not check():
        assert time.monotonic() - start < seconds, "not within the time allowed"
        time.sleep(0.05)


def test_signing_out_on_one_instance_ends_the_token_on_every_other_at_once(
    pair: tuple[LiveServer, LiveServer],
) -> None:
    # each instance keeps who a token signs in as for RECHECK (5 s); a sign-out must not
    # wait that out on the instance that did not make it
    one, two = pair
    ann = one.player("Ann")
    assert on(two, ann).get("/me").status_code == 200  # now kept by the second instance
    assert ann.get("/me").status_code == 200
    answer = requests.post(f"{one.base}/auth/revoke", data={"token": ann.token}, timeout=10)
    assert answer.status_code == 200
    assert ann.get("/me").status_code == 401
    until(lambda: on(two, ann).get("/me").status_code == 401, 2.0)


def test_a_new_name_shows_on_every_instance_at_once(pair: tuple[LiveServer, LiveServer]) -> None:
    one, two = pair
    ann = one.player("Ann")
    assert on(two, ann).get("/me").json()["display_name"] == "Ann"  # kept by the second
    answer = ann.http.patch(f"{one.base}/me", json={"display_name": "Annie"},
                            headers=ann.headers, timeout=10)
    assert answer.status_code == 200, answer.text
    until(lambda: on(two, ann).get("/me").json()["display_name"] == "Annie", 2.0)
    assert ann.get("/me").json()["display_name"] == "Annie"


def test_a_notice_it_cannot_read_is_passed_over(pair: tuple[LiveServer, LiveServer]) -> None:
    # e.g. a kind that a newer version of the server sends, during a rolling upgrade
    one, two = pair
    ann = one.player("Ann")
    assert on(two, ann).get("/me").status_code == 200  # kept by the second instance
    for payload in ("someone newkind", "someone newkind with more words", "someone GAME x1"):
        query(one.settings.database_url, "SELECT pg_notify('somnium_games', ?)", payload)
    answer = requests.post(f"{one.base}/auth/revoke", data={"token": ann.token}, timeout=10)
    assert answer.status_code == 200
    # the second instance still follows the notices: the sign-out reaches it
    until(lambda: on(two, ann).get("/me").status_code == 401, 2.0)


def test_an_action_it_cannot_play_leaves_the_room_and_the_hearing_as_they_were(
    pair: tuple[LiveServer, LiveServer],
) -> None:
    # a notice carrying an action the engine refuses (made up: the player not to move ends
    # the turn, at the next version): the instance keeps its room as it was and goes on
    # hearing the others, so the real action at that version is taken as usual
    one, two = pair
    ann, bob, game_id = started(one)
    watcher = EventReader(f"{two.base}/games/{game_id}/events")  # (the second holds the game)
    held = on(two, ann).get(f"/games/{game_id}").json()
    head = orjson.dumps({"status": "playing", "seq": held["seq"] + 1, "deadline": None,
                         "action_id": "made-up", "user_id": ann.user_id,
                         "seat": 1 - held["view"]["turn"], "action": {"type": "end_turn"}})
    payload = f"someone {game_id} {held['version'] + 1}\n{head.decode()}"
    query(one.settings.database_url, "SELECT pg_notify('somnium_games', ?)", payload)
    mover = ann if held["view"]["turn"] == 0 else bob
    answer = mover.act(game_id, held["version"], held["view"]["legal"][0])
    assert answer.status_code == 200, answer.text
    # still hearing: the real action's events reach the stream there (no request reads it)
    watcher.until(lambda e: e.id is not None and int(e.id) > held["seq"], timeout=5.0)
    watcher.close()
    shown, stored = (server.get(f"/games/{game_id}").json() for server in (on(two, ann), ann))
    for key in ("version", "seq", "status", "view"):
        assert shown[key] == stored[key]


def test_a_sign_out_unheard_is_never_taken_from_what_was_kept(
    pair: tuple[LiveServer, LiveServer], caplog: pytest.LogCaptureFixture,
) -> None:
    # while the second instance is not listening, the first's sign-out notice cannot reach
    # it: it then asks the database about every token instead of trusting what it kept
    one, two = pair
    ann = one.player("Ann")
    assert on(two, ann).get("/me").status_code == 200  # kept by the second
    url = one.settings.database_url
    listening = ("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                 " WHERE datname = current_database() AND left(query, 7) = 'LISTEN '")
    assert len(query(url, listening)) == 2
    # both found their connection lost (they listen again a second later)
    until(lambda: caplog.text.count("lost the database's notices") == 2, 2.0)
    answer = requests.post(f"{one.base}/auth/revoke", data={"token": ann.token}, timeout=10)
    assert answer.status_code == 200
    assert on(two, ann).get("/me").status_code == 401


def test_a_game_made_while_an_instance_was_not_listening_joins_its_lobby(
    pair: tuple[LiveServer, LiveServer],
) -> None:
    # the notice of a game made while the second instance's listening connection is down
    # is lost; listening again, it reads what it missed and lists the game
    one, two = pair
    ann = one.player("Ann")
    url = one.settings.database_url
    listening = ("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                 " WHERE datname = current_database() AND left(query, 7) = 'LISTEN '")
    assert len(query(url, listening)) == 2  # both instances' connections cut
    game_id = ann.create(name="made unheard")["id"]  # (they listen again after a second)

    def listed() -> list[str]:
        answer = requests.get(f"{two.base}/games", timeout=10)
        assert answer.status_code == 200
        return [game["id"] for game in answer.json()]

    assert game_id not in listed()  # not asked for by id: nothing else brings it
    until(lambda: game_id in listed(), 5.0)


def test_a_player_who_left_while_an_instance_was_not_listening_is_away_there(
    pg_cluster: Cluster,
) -> None:
    """Bob's last stream, on instance 1, closes while both instances' listening connections
    are cut: instance 2 never hears his `gone`. Listening again, it forgets what the others
    told of their streams and hears it again: Bob is not among it, and shows away there."""
    url = pg_cluster.new_database()
    one, two = (LiveServer(server_settings(url, away_after=0.6, claim_after=30))
                for _ in range(2))
    ann_stream = None
    try:
        ann = on(two, one.player("Ann"))
        bob = one.player("Bob")
        game_id = ann.create()["id"]
        assert bob.post(f"/games/{game_id}/join").status_code == 200
        bob_stream = EventReader(f"{one.base}/games/{game_id}/events", headers=bob.headers)
        ann_stream = EventReader(f"{two.base}/games/{game_id}/events", headers=ann.headers)
        bob_stream.next()
        time.sleep(1.0)  # (past away_after: on instance 2, Bob is here by instance 1's word)
        assert two.get(f"/games/{game_id}").json()["presence"][1]["away"] is False
        listening = ("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                     " WHERE datname = current_database() AND left(query, 7) = 'LISTEN '")
        assert len(query(url, listening)) == 2  # (they listen again after a second)
        bob_stream.close()
        away = ann_stream.until(lambda e: e.event == "presence" and presence(e)[1][0])
        assert presence(away)[1] == (True, False)
    finally:
        if ann_stream is not None:
            ann_stream.close()
        one.stop()
        two.stop()


def test_an_instance_taken_for_gone_while_it_stalled_is_heard_again(
    tmp_path: Path, pg_cluster: Cluster,
) -> None:
    """Instance 1 stalls (SIGSTOP) until instance 2 takes it as gone, and Bob's stream there
    with it; once it runs again, instance 2 hears again that Bob is at the table."""
    url = pg_cluster.new_database()
    ports = [free_port() for _ in range(2)]
    running = [_start(url, port, tmp_path / f"server{n}.log", "--away-after", "1",
                      "--claim-after", "60") for n, port in enumerate(ports)]
    bases = [f"http://127.0.0.1:{port}" for port in ports]
    ann = Player(bases[1], *make_user(url, "Ann"), "Ann")
    bob = Player(bases[0], *make_user(url, "Bob"), "Bob")
    bob_app = socket.create_connection(("127.0.0.1", ports[0]))  # (waits out the stall)
    ann_stream = None
    try:
        game_id = ann.create()["id"]
        assert bob.post(f"/games/{game_id}/join").status_code == 200
        bob_app.sendall(f"GET /lobby/events HTTP/1.1\r\nHost: x\r\n"
                        f"Authorization: Bearer {bob.token}\r\n\r\n".encode())
        ann_stream = EventReader(f"{bases[1]}/games/{game_id}/events", headers=ann.headers)
        time.sleep(1.5)
        assert not ann.get(f"/games/{game_id}").json()["presence"][1]["away"]
        os.kill(running[0].pid, signal.SIGSTOP)
        try:  # instance 2 takes instance 1 as gone (6 s unheard of), Bob with it
            ann_stream.until(lambda e: e.event == "presence" and presence(e)[1][0], 15)
        finally:
            os.kill(running[0].pid, signal.SIGCONT)
        ann_stream.until(lambda e: e.event == "presence" and not presence(e)[1][0], 10)
        assert not ann.get(f"/games/{game_id}").json()["presence"][1]["away"]
    finally:
        bob_app.close()
        if ann_stream is not None:
            ann_stream.close()
        for process in running:
            if process.poll() is None:
                _stop(process)
