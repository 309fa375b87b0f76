"""Event streams: resume with Last-Event-ID, snapshots when too far behind, keep-alive, caps."""

from __future__ import annotations

import random
import re
import socket
import time

from ..conftest import Database
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
    assert [e.event for e in current.drain()] == ["observers", "presence"]  # nothing missed
    current.close()


def test_a_stream_too_far_behind_gets_a_fresh_snapshot(database: Database) -> None:
    small = LiveServer(server_settings(database, event_window=4))
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


def test_one_client_may_hold_only_so_many_streams(database: Database) -> None:
    capped = LiveServer(server_settings(database, max_streams=2))
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
            time.sleep(0.05)
        assert again.status == 200
        again.close()
        held[1].close()
    finally:
        capped.stop()


def test_behind_a_local_proxy_the_cap_counts_the_forwarded_address(database: Database) -> None:
    capped = LiveServer(server_settings(database, max_streams=1))
    try:
        url = capped.base + "/lobby/events"
        first = EventReader(url, headers={"X-Forwarded-For": "203.0.113.1"})
        assert first.status == 200
        again = capped.get("/lobby/events", headers={"X-Forwarded-For": "203.0.113.1"})
        assert again.status_code == 429
        other = EventReader(url, headers={"X-Forwarded-For": "203.0.113.2"})
        assert other.status == 200
        other.close()
        first.close()
    finally:
        capped.stop()


def test_an_ipv6_client_is_counted_by_its_64(database: Database) -> None:
    """Any address of one /64 is the same client: a host may take a new one at will."""
    capped = LiveServer(server_settings(database, max_streams=2))
    held: list[EventReader] = []
    try:
        url = capped.base + "/lobby/events"
        for address in ("2001:db8::1", "2001:db8::2:3"):
            held.append(EventReader(url, headers={"X-Forwarded-For": address}))
            assert held[-1].status == 200
        again = capped.get("/lobby/events", headers={"X-Forwarded-For": "2001:db8::99"},
                           stream=True)
        again.close()
        assert again.status_code == 429
        held.append(EventReader(url, headers={"X-Forwarded-For": "2001:db8:0:1::1"}))
        assert held[-1].status == 200  # (another /64)
    finally:
        for reader in held:
            reader.close()
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


def test_one_who_sits_down_while_watching_counts_as_an_observer_no_more(
    server: LiveServer,
) -> None:
    ann, bob = server.player("Ann"), server.player("Bob")
    game_id = ann.create()["id"]
    url = f"{server.base}/games/{game_id}/events"
    ann_stream = EventReader(url, headers=ann.headers)
    bob_stream = EventReader(url, headers=bob.headers)  # Bob watches the open table
    ann_stream.until(lambda e: e.event == "observers" and e.json()["count"] == 1)
    assert bob.post(f"/games/{game_id}/join").status_code == 200
    ann_stream.until(lambda e: e.event == "observers" and e.json()["count"] == 0)
    bob_stream.until(lambda e: e.event == "game_started")
    assert server.get(f"/games/{game_id}").json()["observers"] == 0
    watcher = EventReader(url)
    ann_stream.until(lambda e: e.event == "observers" and e.json()["count"] == 1)
    bob_stream.close()  # a player's stream closing leaves the observers as they were
    watcher.close()
    ann_stream.until(lambda e: e.event == "observers" and e.json()["count"] == 0)
    time.sleep(0.3)  # (a count gathered over the flush interval would show by now)
    assert server.get(f"/games/{game_id}").json()["observers"] == 0
    assert all(e.json()["count"] >= 0 for e in ann_stream.drain() if e.event == "observers")
    ann_stream.close()


def test_a_finished_game_let_go_from_memory_still_resumes_and_answers_retries(
    server: LiveServer,
) -> None:
    server.app.state.ctx.games.history_grace = 0.0
    ann, bob = server.player("Ann"), server.player("Bob")
    game_id = ann.create()["id"]
    bob.post(f"/games/{game_id}/join")
    _play(server, game_id, {0: ann, 1: bob}, 4, random.Random(9))
    middle = server.get(f"/games/{game_id}").json()
    conceded = bob.act(game_id, middle["version"], {"type": "concede"}, action_id="give-up")
    assert conceded.status_code == 200
    room = server.app.state.ctx.games.rooms[game_id]
    for _ in range(100):
        if not room.window:
            break
        time.sleep(0.01)
    assert not room.window and not room.actions  # now only in storage
    # a rematch asked meanwhile: the finished game has a new event, its history is still away
    assert ann.post(f"/games/{game_id}/rematch").status_code == 200
    again = bob.act(game_id, middle["version"], {"type": "concede"}, action_id="give-up")
    assert again.status_code == 200 and again.content == conceded.content
    resumed = EventReader(
        f"{server.base}/games/{game_id}/events", headers={"Last-Event-ID": str(middle["seq"])}
    )
    replayed = [e for e in resumed.drain() if e.id is not None]
    assert [e.event for e in replayed] == ["conceded", "game_ended", "rematch_offered"]
    assert [int(e.id or 0) for e in replayed] == list(range(middle["seq"] + 1, middle["seq"] + 4))
    resumed.close()


def test_a_slow_reader_gets_every_event_once_and_in_order(database: Database) -> None:
    """While a client does not read, writes wait in the server; then all arrive, in order."""
    server = LiveServer(server_settings(database), send_buffer=4096)
    try:
        _slow_reader(server)
    finally:
        server.stop()


def _settled_lobby(server: LiveServer) -> int:
    """The lobby's newest event number once the events published have all been numbered
    (with PostgreSQL they are numbered by the database, a moment after they are published)."""
    lobby = server.app.state.ctx.lobby
    newest, deadline = -1, time.monotonic() + 10
    while newest != lobby.seq and time.monotonic() < deadline:
        newest = lobby.seq
        time.sleep(0.3)
    return int(newest)


def _slow_reader(server: LiveServer) -> None:
    ann = server.player("Ann")
    port = int(server.base.rsplit(":", 1)[1])
    slow = socket.socket()
    slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a small window fills fast
    slow.connect(("127.0.0.1", port))
    slow.sendall(b"GET /lobby/events HTTP/1.1\r\nHost: x\r\n\r\n")
    try:
        time.sleep(0.2)
        (subscriber,) = server.app.state.ctx.hub.subscribers
        for _ in range(3000):  # every new game is a lobby event
            if len(subscriber.buffer) >= 2:  # its task waits on a full socket: events queue up
                break
            ann.create(name="x" * 60)
        assert len(subscriber.buffer) >= 2, "the slow reader's buffers never filled"
        for _ in range(20):  # more while the writes wait
            ann.create(name="y" * 60)
        newest = _settled_lobby(server)
        received = b""
        slow.settimeout(5)
        while f"-{newest}\n".encode() not in received:
            chunk = slow.recv(65536)
            assert chunk, "the stream closed"
            received += chunk
    finally:
        slow.close()
    seen = [int(n) for n in re.findall(rb"(?m)^id: [0-9a-f]+-(\d+)$", received)]
    assert seen == list(range(seen[0], newest + 1))  # no gap, no repeat
