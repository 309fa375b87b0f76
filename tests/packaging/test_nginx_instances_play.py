"""Games through the real nginx upstream site in front of two instances: a whole game spread over
both, kill -9 of the instance under the app's event stream, and a computer game outliving its
instance."""

from __future__ import annotations

import os
import random
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

from somnium_desktop.client.lobby_client import LobbyClient
from somnium_desktop.client.sse import EventStream, ServerEvent
from tests.postgres import Cluster
from tests.server.helpers import TIMEOUT, EventReader, Player, free_port, make_user, query

from .nginx import Nginx
from .test_nginx_instances import SETTINGS, SITE, Instance, _logged, _set_up_database


@dataclass
class Site:
    """Two instances (the unit's ExecStart) on one database, behind nginx's upstream site."""

    url: str
    proxy: Nginx
    instances: list[Instance]
    logs: list[Path]

    def player(self, name: str) -> Player:
        """A signed-in person whose every request goes through nginx."""
        return Player(self.proxy.base, *make_user(self.url, name), name)

    def streams_of(self, game_id: str) -> list[int]:
        """How many of the game's event streams each instance began (its access log)."""
        line = f"GET /games/{game_id}/events"
        return [path.read_text(encoding="utf-8").count(line) for path in self.logs]

    def kill_9(self, index: int) -> None:
        process = self.instances[index].process
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=TIMEOUT)


@pytest.fixture
def site(tmp_path: Path, pg_cluster: Cluster, monkeypatch: pytest.MonkeyPatch) -> Iterator[Site]:
    credentials = tmp_path / "credentials"
    _set_up_database(pg_cluster, credentials / "database-url")
    url = (credentials / "database-url").read_text(encoding="utf-8").strip()
    (credentials / "server.toml").write_text(SETTINGS, encoding="utf-8")
    logs = [tmp_path / f"instance{n}.log" for n in range(2)]
    instances: list[Instance] = []
    proxy: Nginx | None = None
    try:
        for log in logs:
            instances.append(Instance(credentials, free_port(), log))
        proxy = Nginx(tmp_path / "nginx", [i.address for i in instances], SITE.read_text())
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(proxy.cert))  # trust the test certificate
        yield Site(url, proxy, instances, logs)
    finally:
        if proxy is not None:
            proxy.stop()
        for instance in instances:
            instance.stop()


def _wait(condition: Any, what: str, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def _last_seq(seen: list[ServerEvent]) -> int:
    """The number of the last numbered event seen (presence and observer counts have none)."""
    return max((int(e.id) for e in seen if e.id is not None), default=0)


def _act(players: dict[int, Player], game_id: str, detail: dict[str, Any],
         rng: random.Random) -> tuple[dict[str, Any], int]:
    """The player to move plays a random legal action: the game as its answer leaves it, and
    how many requests that took (nginx logs each one).

    nginx answers 502 for an action it sent to an instance that died under it (it does not
    resend a POST that may have been applied): the app sends it again under the same id. A
    player who keeps the turn may act faster than the limit (30 a second): a 429 is sent
    again after its Retry-After, as the app does."""
    view = detail["view"]
    player = players[view["turn"]]
    action_id = f"{player.name}-{detail['version']}"
    action = rng.choice(view["legal"])
    answer = player.act(game_id, detail["version"], action, action_id)
    requests = 1
    for _ in range(3):
        if answer.status_code == 429:
            time.sleep(float(answer.headers["Retry-After"]))
        elif answer.status_code != 502:
            break
        answer = player.act(game_id, detail["version"], action, action_id)
        requests += 1
    assert answer.status_code == 200, answer.text
    result = answer.json()
    return {**detail, "version": result["version"], "view": result["view"]}, requests


def test_a_whole_game_through_nginx_is_spread_over_both_instances(site: Site) -> None:
    addresses = {i.address for i in site.instances}
    ann, bob = site.player("Ann"), site.player("Bob")
    game_id = ann.create(name="Through nginx")["id"]
    # four observers: least_conn puts each new stream on the instance with fewer connections
    watchers = [EventReader(f"{site.proxy.base}/games/{game_id}/events") for _ in range(4)]
    starts = [int(w.next().json()["game"]["seq"]) for w in watchers]
    assert site.streams_of(game_id) == [2, 2]  # observers on both instances
    assert bob.post(f"/games/{game_id}/join").status_code == 200

    rng = random.Random(21)
    players = {0: ann, 1: bob}
    detail = ann.get(f"/games/{game_id}").json()
    actions = requests = 0
    while not detail["view"]["over"]:
        assert actions < 400, "the game did not end"
        detail, sent = _act(players, game_id, detail, rng)
        actions += 1
        requests += sent
    # both instances answered the game's actions (and any sent again after a 429)
    assert set(_logged(site.proxy, f"POST /games/{game_id}/actions ", requests)) == addresses

    log = ann.get(f"/games/{game_id}/log").json()
    assert [entry["seq"] for entry in log] == list(range(1, len(log) + 1))
    assert log[-1]["version"] == detail["version"]
    for watcher, start in zip(watchers, starts, strict=True):
        watcher.until(lambda e: e.event == "game_ended")
        got = [(int(e.id), e.json()) for e in watcher.seen
               if e.id is not None and e.event != "snapshot"]
        # every observer, on either instance, saw every event once, in order, as stored
        assert got == [(entry["seq"], entry) for entry in log if entry["seq"] > start]
        watcher.close()


def test_kill_9_under_the_apps_stream_and_it_resumes_through_nginx(site: Site) -> None:
    ann, bob = site.player("Ann"), site.player("Bob")
    game_id = ann.create()["id"]
    assert bob.post(f"/games/{game_id}/join").status_code == 200
    client = LobbyClient(site.proxy.base)  # the app's client, given nginx's address
    seen: list[ServerEvent] = []
    statuses: list[str] = []
    stream = EventStream(lambda: client.events_url(game_id), seen.append,
                         lambda status, _: statuses.append(status), backoff=(0.05, 0.1, 0.2))
    stream.start()
    try:
        # the game's only stream: the instance whose access log shows it holds it
        _wait(lambda: sum(site.streams_of(game_id)) == 1 and seen, "the stream did not start")
        held = site.streams_of(game_id).index(1)
        rng = random.Random(9)
        players = {0: ann, 1: bob}
        detail = ann.get(f"/games/{game_id}").json()
        acknowledged: list[int] = []
        before_kill: list[int] = []
        for step in range(40):
            if detail["view"]["over"]:
                break
            if step == 12:
                _wait(lambda: _last_seq(seen) == ann.get(f"/games/{game_id}").json()["seq"],
                      "the stream fell behind")
                site.kill_9(held)  # mid-game, under the app's stream
                before_kill = list(acknowledged)
            detail, _ = _act(players, game_id, detail, rng)  # through nginx, to the live one
            acknowledged.append(detail["version"])
        assert len(acknowledged) > 12, "the game ended before the kill"

        log = client.log(game_id)
        _wait(lambda: _last_seq(seen) == log[-1].seq, "the stream did not catch up")
        # it reconnected through nginx, to the other instance, and resumed: no second snapshot
        assert site.streams_of(game_id)[1 - held] >= 1
        assert stream.connections >= 2 and "reconnecting" in statuses
        snapshots = [e for e in seen if e.event == "snapshot"]
        assert len(snapshots) == 1
        start = int(snapshots[0].id or 0)
        numbered = [int(e.id) for e in seen if e.id is not None and e.event != "snapshot"]
        # 0 events lost or repeated against the stored log; no acknowledged action lost
        assert numbered == [entry.seq for entry in log if entry.seq > start]
        stored = {entry.version for entry in log}
        assert set(before_kill) <= stored and set(acknowledged) <= stored
        # nginx logged the first stream, cut by the kill, as the dead instance's
        killed = site.instances[held].address
        assert (killed, f"GET /games/{game_id}/events HTTP/1.1") in site.proxy.answered_by()
    finally:
        stream.close()
        stream.join(TIMEOUT)


def test_a_computer_game_through_nginx_outlives_its_instance(site: Site) -> None:
    ann = site.player("Ann")
    level = str(ann.get("/levels").json()[0]["key"])
    # two computers play; the lease names the driving instance by the id its commit notices
    # carry, and the game's first notice comes from the instance that made it
    with psycopg.connect(site.url, autocommit=True) as listener:
        listener.execute("LISTEN somnium_games")
        game_id = ann.create(host_level=level, opponent="computer", level=level)["id"]
        (maker,) = _logged(site.proxy, "POST /games ", 1)
        made_by = next(n.payload.split()[0] for n in listener.notifies(timeout=TIMEOUT)
                       if n.payload.split()[1:] == [game_id, "1"])
    addresses = [i.address for i in site.instances]

    def stored() -> int:
        return int(query(site.url, "SELECT count(*) FROM actions WHERE game_id = ?",
                         game_id)[0][0])

    def lease() -> str:
        rows = query(site.url, "SELECT instance FROM computer_leases WHERE game_id = ?", game_id)
        return str(rows[0][0]) if rows else ""

    _wait(lambda: stored() >= 3, "the computers did not play", timeout=20)
    first = lease()
    assert first
    held = addresses.index(maker) if first == made_by else 1 - addresses.index(maker)
    site.kill_9(held)
    at_kill = stored()
    # through nginx (to the live instance): the game goes on, driven by the other instance
    assert not ann.get(f"/games/{game_id}").json()["view"]["over"]
    _wait(lambda: ann.get(f"/games/{game_id}").ok and stored() >= at_kill + 3,
          "the other instance did not take over", timeout=20)
    assert lease() not in ("", first)  # the lease in the database passed to the live one
    log = ann.get(f"/games/{game_id}/log").json()
    versions = [entry["version"] for entry in log]
    assert versions == sorted(versions)  # one writer at a time: none made twice or skipped
    assert sorted(set(versions)) == list(range(versions[0], versions[-1] + 1))
