"""kill -9 the server mid-game, start it again on the same database: every game resumes."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import requests

from ..conftest import Database
from .helpers import EventReader, Player, free_port, make_user

HERE = Path(__file__).parent


def _start(
    database: Database, port: int, log: Path, *flags: str
) -> subprocess.Popen[bytes]:
    where = ["--database", str(database)] if isinstance(database, Path) else [
        "--database-url", database]
    with log.open("ab") as sink:
        process = subprocess.Popen(
            [sys.executable, str(HERE / "serve_with_test_bot.py"), "--port", str(port),
             *where, "--computer-pause", "1.0", "--keepalive", "1",
             "--log-level", "warning", "--rate-act", "1000/1", *flags],
            stdout=subprocess.DEVNULL, stderr=sink,
        )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            if requests.get(f"http://127.0.0.1:{port}/health", timeout=1).ok:
                return process
        except requests.ConnectionError:
            time.sleep(0.05)
    process.kill()
    process.wait()
    raise AssertionError(f"the server did not start: {log.read_text()}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, and SIGKILL if the server has not stopped 10 s later."""
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()


def test_kill_9_mid_game_and_every_game_resumes(tmp_path: Path, database: Database) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    people = {name: Player(base, *make_user(database, name), name) for name in ("Ann", "Bob")}
    ann, bob = people["Ann"], people["Bob"]
    process = _start(database, port, tmp_path / "server.log")
    try:
        duel = ann.create()["id"]
        bob.post(f"/games/{duel}/join")
        rng = random.Random(1)
        answers = []
        for _ in range(6):
            detail = ann.get(f"/games/{duel}").json()
            mover = (ann, bob)[detail["view"]["turn"]]
            answer = mover.act(duel, detail["version"], rng.choice(detail["view"]["legal"]),
                               action_id=f"duel-{detail['version']}")
            assert answer.status_code == 200
            answers.append((mover, detail["version"], answer))
        before = ann.get(f"/games/{duel}").json()

        versus = ann.create(opponent="computer", level="test")["id"]
        # hand the turn to the computer, then kill the server during its pause
        for _ in range(100):
            detail = ann.get(f"/games/{versus}").json()
            if detail["view"]["turn"] == 1 or detail["view"]["over"]:
                break
            legal = detail["view"]["legal"]
            ann.act(versus, detail["version"],
                    {"type": "end_turn"} if {"type": "end_turn"} in legal else legal[0])
        computer_turn = ann.get(f"/games/{versus}").json()
        assert computer_turn["view"]["turn"] == 1
        stream = EventReader(f"{base}/games/{duel}/events")
        last_id = stream.next().id
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    stream.close()

    process = _start(database, port, tmp_path / "server.log")
    try:
        # killed during the computer's pause: it had not moved yet
        paused = ann.get(f"/games/{versus}").json()
        assert paused["version"] == computer_turn["version"] and paused["view"]["turn"] == 1
        after = ann.get(f"/games/{duel}").json()
        assert after["version"] == before["version"] and after["seq"] == before["seq"]
        assert after["view"] == before["view"] and after["status"] == "playing"
        # a retry of an acknowledged action still gets its first answer, after the restart
        mover, version, first = answers[-1]
        again = mover.act(duel, version, {"type": "draw"}, action_id=f"duel-{version}")
        assert again.status_code == 200 and again.content == first.content
        # a stream resumes across the restart without a gap
        resumed = EventReader(
            f"{base}/games/{duel}/events", headers={"Last-Event-ID": str(last_id)}
        )
        assert [e.event for e in resumed.drain()] == ["observers", "presence"]
        resumed.close()
        # the computer takes up its turn again by itself
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            now = ann.get(f"/games/{versus}").json()
            if now["version"] > computer_turn["version"] and (
                now["view"]["turn"] == 0 or now["view"]["over"]
            ):
                break
            time.sleep(0.1)
        else:
            raise AssertionError("the computer did not resume its turn")
        log = ann.get(f"/games/{versus}/log").json()
        assert [e["seq"] for e in log] == list(range(1, len(log) + 1))
        # and the people's game plays on to the end
        while not (detail := ann.get(f"/games/{duel}").json())["view"]["over"]:
            mover = (ann, bob)[detail["view"]["turn"]]
            assert mover.act(duel, detail["version"], rng.choice(detail["view"]["legal"])).ok
        assert ann.get(f"/games/{duel}/replay").status_code == 200
    finally:
        _stop(process)
    assert "Traceback" not in (tmp_path / "server.log").read_text()


def test_a_lobby_stream_resumed_across_a_kill_9_gets_a_snapshot_not_new_events(
    tmp_path: Path, database: Database,
) -> None:
    """On SQLite lobby event numbers start again after a restart: an id from before it must not
    pass for one of the new numbering (which would skip or repeat events); it gets a fresh
    snapshot. On PostgreSQL the database numbers them: an old id resumes with what followed."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    ann = Player(base, *make_user(database, "Ann"), "Ann")
    process = _start(database, port, tmp_path / "server.log")
    try:
        lobby = EventReader(f"{base}/lobby/events")
        assert lobby.next().event == "snapshot"
        before = [ann.create(name=f"before {n}")["id"] for n in range(3)]
        seen = [lobby.until(lambda e: e.event == "game_created") for _ in before]
        old_ids = [event.id or "" for event in seen]
        assert all(old_ids)
        lobby.close()
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)

    process = _start(database, port, tmp_path / "server.log")
    try:
        # Three new lobby events after the restart: numbered like the old ones were
        watcher = EventReader(f"{base}/lobby/events")
        watcher.next()
        after = [ann.create(name=f"after {n}")["id"] for n in range(3)]
        new_ids = [watcher.until(lambda e: e.event == "game_created").id or "" for _ in after]
        watcher.close()
        assert all(new_ids) and not set(new_ids) & set(old_ids)
        for old_id in (old_ids[0], old_ids[-1]):
            resumed = EventReader(f"{base}/lobby/events", headers={"Last-Event-ID": old_id})
            first = resumed.next()
            if isinstance(database, Path):
                resumed.close()
                assert first.event == "snapshot", (old_id, first)
                listed = {game["id"] for game in first.json()["games"]}
                assert set(before) | set(after) <= listed
                assert first.id == new_ids[-1]
                continue
            got = [first, *resumed.drain()]
            resumed.close()
            created = [e.json()["game"]["id"] for e in got if e.event == "game_created"]
            assert created == (before + after)[old_ids.index(old_id) + 1:]
        # an id of the new numbering still resumes with exactly the events missed
        resumed = EventReader(f"{base}/lobby/events", headers={"Last-Event-ID": new_ids[0]})
        got = [e for e in resumed.drain() if e.event == "game_created"]
        resumed.close()
        assert [e.id for e in got] == new_ids[1:]
        assert [e.json()["game"]["id"] for e in got] == after[1:]
    finally:
        _stop(process)
    assert "Traceback" not in (tmp_path / "server.log").read_text()
