"""The lobby shared by instances: one game's line is told in the game's order, once, a
snapshot holds every game told of up to the id it is labelled with, and a change whose lobby
event died with its instance is told again."""

from __future__ import annotations

import time
from itertools import islice
from typing import Any

import orjson

from ..postgres import Cluster
from .helpers import SSE, EventReader, LiveServer, Player, query, server_settings
from .test_failures import Switches, failing
from .test_instances import on


def _to_end_a_turn(server: LiveServer, game_id: str, players: dict[str, Player],
                   who: Player) -> dict[str, Any] | None:
    """Play (drawing) until `who` is to move and may end their turn; the game's detail then,
    or None if the game ended first."""
    while True:
        detail = server.get(f"/games/{game_id}").json()
        if detail["status"] != "playing":
            return None
        view = detail["view"]
        mover = players[detail["players"][view["turn"]]["user_id"]]
        if mover is who and {"type": "end_turn"} in view["legal"]:
            return dict(detail)
        action = {"type": "draw"} if {"type": "draw"} in view["legal"] else view["legal"][0]
        answer = mover.act(game_id, detail["version"], action)
        assert answer.status_code == 200, answer.text


def test_a_game_ended_on_one_instance_stays_ended_in_every_lobby(pg_cluster: Cluster) -> None:
    """Ann ends her turn through instance 1 while its lobby writer waits its pace; Bob then
    concedes through instance 2, whose lobby writer is idle: the game's end is stored before
    the turn. The lobby streams still end on the game's end."""
    url = pg_cluster.new_database()
    one, two = LiveServer(server_settings(url)), LiveServer(server_settings(url))
    streams: list[EventReader] = []
    try:
        ann = one.player("Ann")
        bob = on(two, one.player("Bob"))
        players = {ann.user_id: ann, bob.user_id: bob}
        for _ in range(10):
            game_id = ann.create()["id"]
            assert bob.post(f"/games/{game_id}/join").status_code == 200
            detail = _to_end_a_turn(one, game_id, players, ann)
            if detail is not None:
                break
        assert detail is not None, "Ann was never to end a turn"
        time.sleep(0.3)  # (both lobby writers idle)
        streams = [EventReader(f"{server.base}/lobby/events") for server in (one, two)]
        first_ids = [stream.next().id for stream in streams]
        ann.create()  # instance 1 stores a lobby batch now: its next one waits its pace
        passed = ann.act(game_id, detail["version"], {"type": "end_turn"})
        assert passed.status_code == 200, passed.text
        ended = bob.act(game_id, passed.json()["version"], {"type": "concede"})
        assert ended.status_code == 200, ended.text
        time.sleep(0.6)
        resumed = [EventReader(f"{server.base}/lobby/events",
                               headers={"Last-Event-ID": str(first_ids[n])})
                   for n, server in enumerate((one, two))]
        streams += resumed
        for stream in streams:
            told = [(e.event, e.json()["game"]["status"]) for e in stream.drain(0.5)
                    if e.event != "snapshot" and e.json().get("game", {}).get("id") == game_id]
            assert told and told[-1] == ("game_finished", "finished"), told
            assert ("turn_passed", "playing") not in told[told.index(told[-1]):]
    finally:
        for stream in streams:
            stream.close()
        one.stop()
        two.stop()


def test_one_change_of_presence_is_told_once(pg_cluster: Cluster) -> None:
    url = pg_cluster.new_database()
    settings = server_settings(url, away_after=0.5, claim_after=30)
    one, two = LiveServer(settings), LiveServer(settings)
    lobby = None
    try:
        ann = one.player("Ann")
        bob = on(two, one.player("Bob"))
        game_id = ann.create()["id"]
        bobs_app = EventReader(f"{one.base}/lobby/events", headers=bob.headers)
        anns_app = EventReader(f"{one.base}/lobby/events", headers=ann.headers)
        assert bob.post(f"/games/{game_id}/join").status_code == 200
        time.sleep(0.5)
        lobby = EventReader(f"{two.base}/lobby/events")
        assert lobby.next().event == "snapshot"
        bobs_app.close()  # after away_after, Bob is away: both instances see it
        time.sleep(2.0)
        told = [e.json()["game"]["away"] for e in lobby.drain(0.5)
                if e.event == "presence" and e.json()["game"]["id"] == game_id]
        assert told == [[False, True]]
        anns_app.close()
    finally:
        if lobby is not None:
            lobby.close()
        one.stop()
        two.stop()


def test_a_snapshot_holds_every_game_told_of(pg_cluster: Cluster) -> None:
    """Whenever instance 2 tells its streams of a game made on instance 1, a stream opening
    that moment gets a snapshot, labelled with that event's id, holding the game."""
    url = pg_cluster.new_database()
    one, two = LiveServer(server_settings(url)), LiveServer(server_settings(url))
    try:
        ctx = two.app.state.ctx
        lobby, games = ctx.lobby, ctx.games
        snapshots: list[tuple[str, bool]] = []
        tell = lobby._tell

        def telling(seq: int, data: bytes, event: dict[str, Any]) -> None:
            tell(seq, data, event)
            if event["type"] == "game_created":  # a stream opening now (as the route does)
                stream = lobby.subscribe(None, lambda: list(islice(games.newest_first(), 200)))
                lobby.channel.discard(stream)
                shown = orjson.loads(stream.buffer[0].split(b"data: ", 1)[1])
                held = {game["id"] for game in shown["games"]}
                snapshots.append((event["game"]["id"], event["game"]["id"] in held))

        lobby._tell = telling
        ann = one.player("Ann")
        made = [ann.create()["id"] for _ in range(20)]
        deadline = time.monotonic() + 10
        while len(snapshots) < len(made) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [game_id for game_id, _ in snapshots] == made
        assert all(held for _, held in snapshots), snapshots
    finally:
        one.stop()
        two.stop()


def test_a_stored_lobby_event_it_cannot_read_is_passed_over(pg_cluster: Cluster) -> None:
    """A row of another server version (here not even JSON) stops no lobby: the events
    stored after it are told."""
    url = pg_cluster.new_database()
    server = LiveServer(server_settings(url))
    lobby = None
    try:
        lobby = EventReader(f"{server.base}/lobby/events")
        assert lobby.next().event == "snapshot"
        query(url, "INSERT INTO lobby_events (id, data, batch) VALUES"
                   " ((SELECT coalesce(max(id), 0) + 1 FROM lobby_events), 'not json', 'odd')")
        game_id = server.player("Ann").create()["id"]
        created = lobby.until(lambda e: e.event == "game_created")
        assert created.json()["game"]["id"] == game_id
    finally:
        if lobby is not None:
            lobby.close()
        server.stop()


def _lines(events: list[SSE], kind: str) -> dict[str, list[str]]:
    """The statuses each game's lines of this kind said, by game id."""
    found: dict[str, list[str]] = {}
    for event in events:
        if event.event == kind:
            game = event.json()["game"]
            found.setdefault(game["id"], []).append(game["status"])
    return found


def test_what_an_instance_never_told_the_lobby_is_told_when_it_dies(pg_cluster: Cluster) -> None:
    """Instance 1 stores no lobby event any more (as if it died before its writer's turn)
    when Ann, through it, concedes a game and makes a new table; then it stops. Both other
    instances, taking it for gone, tell their lobbies again: every lobby stream hears once
    that the game is finished and that the new table waits."""
    url = pg_cluster.new_database()
    switches = Switches()
    one = LiveServer(server_settings(url), storage=failing(url, switches))
    others = [LiveServer(server_settings(url)) for _ in range(2)]
    streams: list[EventReader] = []
    try:
        ann = one.player("Ann")
        bob = on(others[0], one.player("Bob"))
        game_id = ann.create()["id"]
        assert bob.post(f"/games/{game_id}/join").status_code == 200
        time.sleep(0.5)  # (the join's lobby event stored)
        streams = [EventReader(f"{server.base}/lobby/events") for server in others]
        for stream in streams:
            shown = {game["id"]: game for game in stream.next().json()["games"]}
            assert shown[game_id]["status"] == "playing"
        switches.lobby_writes = 10**9
        version = ann.get(f"/games/{game_id}").json()["version"]
        assert ann.act(game_id, version, {"type": "concede"}).status_code == 200
        table_id = ann.create()["id"]
        time.sleep(0.5)
        for stream in streams:
            assert not [e for e in stream.drain(0.1) if e.event != "observers"]
        one.stop()  # (gives up on its lobby events after 5 s)
        for stream in streams:
            stream.until(lambda e: e.event == "game_changed" and e.json()["game"]["id"] == table_id,
                         20)
            stream.drain(1.0)
            assert _lines(stream.seen, "game_changed") == {
                game_id: ["finished"], table_id: ["waiting"],
            }
        fresh = EventReader(f"{others[1].base}/lobby/events")  # (a snapshot says it too)
        streams.append(fresh)
        shown = {game["id"]: game for game in fresh.next().json()["games"]}
        assert shown[game_id]["status"] == "finished" and shown[table_id]["status"] == "waiting"
    finally:
        for stream in streams:
            stream.close()
        for server in (one, *others):
            if server.thread.is_alive():
                server.stop()


def test_what_the_lobby_never_heard_of_is_told_when_its_instance_starts_again(
    pg_cluster: Cluster,
) -> None:
    """The only instance stops with the end of a game not stored in its lobby; started
    again, it tells it: a lobby stream resuming from before hears that the game is over."""
    url = pg_cluster.new_database()
    switches = Switches()
    server = LiveServer(server_settings(url), storage=failing(url, switches))
    stream = None
    try:
        ann, bob = server.player("Ann"), server.player("Bob")
        game_id = ann.create()["id"]
        assert bob.post(f"/games/{game_id}/join").status_code == 200
        time.sleep(0.5)
        stream = EventReader(f"{server.base}/lobby/events")
        last_id = str(stream.next().id)
        stream.close()
        switches.lobby_writes = 10**9
        version = ann.get(f"/games/{game_id}").json()["version"]
        assert ann.act(game_id, version, {"type": "concede"}).status_code == 200
        server.stop()
        server = LiveServer(server_settings(url))
        stream = EventReader(f"{server.base}/lobby/events", headers={"Last-Event-ID": last_id})
        stream.until(lambda e: e.event == "game_changed")
        stream.drain(0.5)
        assert _lines(stream.seen, "game_changed") == {game_id: ["finished"]}
        assert not [e for e in stream.seen if e.event == "snapshot"]
    finally:
        if stream is not None:
            stream.close()
        if server.thread.is_alive():
            server.stop()
