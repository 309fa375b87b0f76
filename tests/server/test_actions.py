"""Actions: exactly once per action id, version checks, one winner, who may act, bad input."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import requests

from somnium_server.storage import GameUpdate
from somnium_server.storage.sqlite import SQLiteStorage

from ..conftest import Database
from .helpers import LiveServer, Player, server_settings


def _started(server: LiveServer) -> tuple[str, dict[int, Player], dict[str, Any]]:
    ann, bob = server.player("Ann"), server.player("Bob")
    game_id = ann.create()["id"]
    detail = bob.post(f"/games/{game_id}/join").json()
    return game_id, {0: ann, 1: bob}, detail


def test_a_retried_action_id_gets_the_first_answer_exactly_once(server: LiveServer) -> None:
    game_id, players, detail = _started(server)
    mover = players[detail["view"]["turn"]]
    first = mover.act(game_id, detail["version"], {"type": "draw"}, action_id="draw-1")
    assert first.status_code == 200
    again = mover.act(game_id, detail["version"], {"type": "draw"}, action_id="draw-1")
    assert again.status_code == 200 and again.content == first.content
    now = server.get(f"/games/{game_id}").json()
    assert now["version"] == detail["version"] + 1
    assert now["view"]["deck_count"] == 53  # one card drawn, not two
    log = server.get(f"/games/{game_id}/log").json()
    assert sum(1 for e in log if e["event"]["type"] == "card_drawn") == 1
    other = players[1 - detail["view"]["turn"]]
    stolen_id = other.act(game_id, now["version"], {"type": "concede"}, action_id="draw-1")
    assert stolen_id.status_code == 409 and stolen_id.json()["error"] == "action_id_taken"


def test_a_stale_version_gets_409_with_the_current_version(server: LiveServer) -> None:
    game_id, players, detail = _started(server)
    mover = players[detail["view"]["turn"]]
    assert mover.act(game_id, detail["version"], {"type": "draw"}).status_code == 200
    stale = mover.act(game_id, detail["version"], {"type": "draw"})
    assert stale.status_code == 409
    body = stale.json()
    assert body["error"] == "stale_version" and body["version"] == detail["version"] + 1


def test_two_conflicting_actions_at_once_exactly_one_wins(server: LiveServer) -> None:
    for _ in range(5):
        game_id, players, detail = _started(server)
        mover = players[detail["view"]["turn"]]
        other = players[1 - detail["view"]["turn"]]
        answers: list[requests.Response] = []
        barrier = threading.Barrier(4)
        version = detail["version"]

        def send(player: Player, action: dict[str, str], n: int, game_id: str = game_id,
                 version: int = version, barrier: threading.Barrier = barrier,
                 answers: list[requests.Response] = answers) -> None:
            barrier.wait()
            answers.append(player.act(game_id, version, action, f"c{n}-{player.name}"))

        threads = [
            threading.Thread(target=send, args=(mover, {"type": "draw"}, 1)),
            threading.Thread(target=send, args=(mover, {"type": "draw"}, 2)),
            threading.Thread(target=send, args=(other, {"type": "concede"}, 3)),
            threading.Thread(target=send, args=(mover, {"type": "concede"}, 4)),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        codes = sorted(r.status_code for r in answers)
        assert codes == [200, 409, 409, 409], [r.text for r in answers]
        assert all(r.json()["error"] == "stale_version" for r in answers if r.status_code == 409)
        assert server.get(f"/games/{game_id}").json()["version"] == detail["version"] + 1


def test_only_the_seated_player_to_move_may_act(server: LiveServer) -> None:
    game_id, players, detail = _started(server)
    version, turn = detail["version"], detail["view"]["turn"]
    waiting = players[1 - turn].act(game_id, version, {"type": "draw"})
    assert waiting.status_code == 409 and waiting.json()["error"] == "not_your_turn"
    stranger = server.player("Cid").act(game_id, version, {"type": "draw"})
    assert stranger.status_code == 403 and stranger.json()["error"] == "not_a_player"
    anonymous = requests.post(
        f"{server.base}/games/{game_id}/actions",
        json={"action_id": "x", "version": version, "action": {"type": "draw"}},
        timeout=10,
    )
    assert anonymous.status_code == 401 and anonymous.headers["WWW-Authenticate"]
    forged = Player(server.base, "nobody", "not-a-token", "Eve")
    assert forged.act(game_id, version, {"type": "draw"}).status_code == 401
    no_table = players[turn].act(game_id, version, {"type": "end_turn"})
    assert no_table.status_code == 409 and no_table.json()["error"] == "empty_table"
    no_fool = players[turn].act(game_id, version, {"type": "steal", "suit": "moons"})
    assert no_fool.status_code == 409 and "Fool" in no_fool.json()["message"]
    # the waiting player may still concede
    conceded = players[1 - turn].act(game_id, version, {"type": "concede"})
    assert conceded.status_code == 200
    assert conceded.json()["view"]["conceded_by"] == 1 - turn
    over = players[turn].act(game_id, version + 1, {"type": "draw"})
    assert over.status_code == 409 and over.json()["error"] == "game_over"


def test_acting_before_the_game_starts_is_refused(server: LiveServer) -> None:
    ann = server.player("Ann")
    game = ann.create()
    early = ann.act(game["id"], game["version"], {"type": "draw"})
    assert early.status_code == 409 and early.json()["error"] == "game_not_started"


def test_bad_requests_get_clear_4xx_answers(server: LiveServer) -> None:
    game_id, players, _ = _started(server)
    ann = players[0]
    cases: list[tuple[dict[str, Any], str]] = [
        ({"action_id": "a", "version": 1, "action": {"type": "fly"}}, "action"),
        ({"action_id": "a", "version": 1, "action": {"type": "steal", "suit": "hats"}}, "suit"),
        ({"action_id": "a", "version": -1, "action": {"type": "draw"}}, "version"),
        ({"action_id": "", "version": 1, "action": {"type": "draw"}}, "action_id"),
        ({"action_id": "a", "version": 1, "action": {"type": "draw"}, "extra": 1}, "extra"),
        ({"action_id": "a b", "version": 1, "action": {"type": "draw"}}, "action_id"),
    ]
    for body, where in cases:
        answer = ann.post(f"/games/{game_id}/actions", body)
        assert answer.status_code == 422, body
        assert answer.json()["error"] == "invalid_request"
        assert where in answer.json()["message"], answer.json()
    not_json = ann.http.post(
        f"{server.base}/games/{game_id}/actions", data=b"{", timeout=10,
        headers={**ann.headers, "Content-Type": "application/json"},
    )
    assert not_json.status_code == 422
    huge = ann.post("/games", {"name": "x" * 20000, "opponent": "person"})
    assert huge.status_code == 413 and huge.json()["error"] == "body_too_large"
    long_name = ann.post("/games", {"name": "x" * 61, "opponent": "person"})
    assert long_name.status_code == 422
    no_level = ann.post("/games", {"name": "x", "opponent": "computer"})
    assert no_level.status_code == 422 and "level" in no_level.json()["message"]
    stray_level = ann.post("/games", {"name": "x", "opponent": "person", "level": "test"})
    assert stray_level.status_code == 422 and "level" in stray_level.json()["message"]
    bad_level = ann.post("/games", {"name": "x", "opponent": "computer", "level": "godlike"})
    assert bad_level.status_code == 422 and "godlike" in bad_level.json()["message"]
    assert ann.post("/games/ZZZZZZZ/join").status_code == 404
    assert ann.post("/games/not-an-id!/join").status_code == 422
    bad_id = server.get("/games/not-an-id!")
    assert bad_id.status_code == 422 and bad_id.json()["message"].startswith("game_id")
    assert server.get("/no/such/route").status_code == 404
    # an action or a read of a game that does not exist: 404 in the one error shape
    draw = {"action_id": "d1", "version": 1, "action": {"type": "draw"}}
    missing = ann.post("/games/ZZZZZZZ/actions", draw)
    assert missing.status_code == 404 and missing.json()["error"] == "unknown_game"
    assert server.get("/games/ZZZZZZZ").json()["error"] == "unknown_game"
    anonymous = ann.http.post(f"{server.base}/games/{game_id}/actions", json=draw, timeout=10)
    assert anonymous.status_code == 401 and anonymous.json()["error"] == "no_session"
    assert anonymous.headers["WWW-Authenticate"] == "Bearer"
    streamed = ann.http.post(  # chunked, no Content-Length: refused once it grows too big
        f"{server.base}/games/{game_id}/actions", data=(b"x" * 4096 for _ in range(8)),
        headers={**ann.headers, "Content-Type": "application/json"}, timeout=10,
    )
    assert streamed.status_code == 413 and streamed.json()["error"] == "body_too_large"


def test_an_expired_session_is_refused(server: LiveServer) -> None:
    short = server.player("Dot", lifetime=0.2)
    assert short.get("/me").status_code == 200
    time.sleep(0.3)
    expired = short.get("/me")
    assert expired.status_code == 401 and expired.json()["error"] == "invalid_session"


def test_rate_limits_answer_429_with_retry_after(database: Database) -> None:
    from somnium_server.config import RateLimit

    from .helpers import LiveServer as Live

    limited = Live(server_settings(
        database, rate_create=RateLimit(2, 60), rate_act=RateLimit(3, 60)
    ))
    try:
        ann, bob = limited.player("Ann"), limited.player("Bob")
        game_id = ann.create()["id"]
        ann.create()
        third = ann.post("/games", {"name": "x", "opponent": "person"})
        assert third.status_code == 429 and int(third.headers["Retry-After"]) >= 1
        assert third.json()["error"] == "rate_limited"
        assert bob.create()["id"]  # the limit is per user
        detail = bob.post(f"/games/{game_id}/join").json()
        statuses = [
            ann.act(game_id, detail["version"], {"type": "end_turn"}).status_code
            for _ in range(4)
        ]
        assert all(s != 429 for s in statuses[:3]) and statuses[3] == 429
    finally:
        limited.stop()


class FailingStorage(SQLiteStorage):
    """The real storage, with a switch that makes the next writes fail like a full disk."""

    failing = False

    async def update_game(self, update: GameUpdate) -> None:
        if self.failing:
            raise sqlite3.OperationalError("database or disk is full")
        await super().update_game(update)


def test_a_failed_write_changes_nothing_and_says_so(tmp_path: Path) -> None:
    settings = server_settings(tmp_path / "db.sqlite3")
    storage = FailingStorage(settings.database)
    failing = LiveServer(settings, storage=storage)
    try:
        ann, bob = failing.player("Ann"), failing.player("Bob")
        game_id = ann.create()["id"]
        detail = bob.post(f"/games/{game_id}/join").json()
        mover = (ann, bob)[detail["view"]["turn"]]
        storage.failing = True
        refused = mover.act(game_id, detail["version"], {"type": "draw"}, action_id="d1")
        assert refused.status_code == 500
        assert refused.json() == {
            "error": "internal_error", "message": "something went wrong on the server; try again"
        }
        after = failing.get(f"/games/{game_id}").json()
        assert after.pop("now") >= detail.pop("now")  # (the server's time as it answered)
        assert after == detail  # nothing happened
        storage.failing = False
        retried = mover.act(game_id, detail["version"], {"type": "draw"}, action_id="d1")
        assert retried.status_code == 200 and retried.json()["version"] == detail["version"] + 1
    finally:
        failing.stop()
