"""Computer players: the server plays their turns itself, and anyone can watch."""

from __future__ import annotations

import random
import time

from somnium_server.config import RateLimit

from ..conftest import Database
from .helpers import EventReader, LiveServer, server_settings


def test_a_person_plays_the_computer_to_the_end(server: LiveServer) -> None:
    ann = server.player("Ann")
    assert server.get("/levels").json() == [{"key": "test", "label": "Test"}]
    game = ann.create(opponent="computer", level="test")
    game_id = game["id"]
    assert game["status"] == "playing"
    assert game["players"][1]["kind"] == "computer" and game["players"][1]["level"] == "test"
    stream = EventReader(f"{server.base}/games/{game_id}/events", headers=ann.headers)
    rng = random.Random(11)
    computer_moved = False
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        detail = server.get(f"/games/{game_id}").json()
        view = detail["view"]
        if view["over"]:
            break
        if view["turn"] != 0:
            computer_moved = True
            seq = detail["seq"]
            stream.until(lambda e, seq=seq: e.id is not None and int(e.id) > seq)
            continue
        answer = ann.act(game_id, detail["version"], rng.choice(view["legal"]))
        assert answer.status_code in (200, 409), answer.text  # 409: the computer moved first
    final = server.get(f"/games/{game_id}").json()
    assert final["view"]["over"] and final["status"] == "finished"
    assert computer_moved
    log = server.get(f"/games/{game_id}/log").json()
    assert any(e["event"].get("seat") == 1 and e["event"]["type"] == "card_drawn" for e in log)
    stream.close()


def test_two_computers_play_while_people_watch(server: LiveServer) -> None:
    ann = server.player("Ann")
    game = ann.create(opponent="computer", level="test", host_level="test")
    assert [p["kind"] for p in game["players"]] == ["computer", "computer"]
    watcher = EventReader(f"{server.base}/games/{game['id']}/events")
    ended = watcher.until(lambda e: e.event == "game_ended", timeout=30)
    assert ended.json()["event"]["reason"] == "deck"
    watcher.close()
    final = server.get(f"/games/{game['id']}").json()
    assert final["status"] == "finished" and final["view"]["deck_count"] == 0
    # the host is not seated: they cannot act in the computers' game
    assert ann.act(game["id"], final["version"], {"type": "concede"}).status_code == 403


def test_rematches_against_the_computer_spend_the_create_limit(database: Database) -> None:
    """A rematch ask opens a game against the computer at once: it is a game created."""
    server = LiveServer(server_settings(database, rate_create=RateLimit(2, 3600)))
    try:
        ann = server.player("Ann")
        game = ann.create(opponent="computer", level="test")
        conceded = ann.act(game["id"], game["version"], {"type": "concede"})
        assert conceded.status_code == 200, conceded.text
        assert ann.post(f"/games/{game['id']}/rematch").status_code == 200  # the second game
        second = ann.get(f"/games/{game['id']}").json()["rematch"]["game_id"]
        version = ann.get(f"/games/{second}").json()["version"]
        assert ann.act(second, version, {"type": "concede"}).status_code == 200
        refused = ann.post(f"/games/{second}/rematch")
        assert refused.status_code == 429 and refused.json()["error"] == "rate_limited"
        assert ann.get(f"/games/{second}").json()["rematch"]["game_id"] is None
    finally:
        server.stop()
