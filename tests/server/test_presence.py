"""Presence: a player whose streams all close shows as away after a grace, comes back by
opening one again, and once away long enough the other player may claim the win."""

from __future__ import annotations

import time
from typing import Any

import pytest

from ..conftest import Database
from .helpers import EventReader, LiveServer, Player, server_settings

AWAY_AFTER = 0.4
CLAIM_AFTER = 1.2


@pytest.fixture
def quick(database: Database) -> Any:
    running = LiveServer(server_settings(
        database, away_after=AWAY_AFTER, claim_after=CLAIM_AFTER
    ))
    try:
        yield running
    finally:
        running.stop()


def _presence(event: Any) -> list[tuple[bool, bool]]:
    return [(p["away"], p["claimable"]) for p in event.json()["players"]]


def _game(server: LiveServer) -> tuple[str, Player, Player, EventReader, EventReader]:
    ann, bob = server.player("Ann"), server.player("Bob")
    game_id = ann.create()["id"]
    url = f"{server.base}/games/{game_id}/events"
    ann_stream = EventReader(url, headers=ann.headers)
    assert bob.post(f"/games/{game_id}/join").status_code == 200
    bob_stream = EventReader(url, headers=bob.headers)
    return game_id, ann, bob, ann_stream, bob_stream


def test_a_player_who_leaves_shows_as_away_then_claimable_and_back_when_they_return(
    quick: LiveServer,
) -> None:
    game_id, ann, bob, ann_stream, bob_stream = _game(quick)
    first = bob_stream.until(lambda e: e.event == "presence")
    assert first.id is None  # no part of the numbered log
    assert _presence(first) == [(False, False), (False, False)]

    left = time.monotonic()
    bob_stream.close()
    away = ann_stream.until(lambda e: e.event == "presence" and _presence(e)[1][0])
    assert time.monotonic() - left >= AWAY_AFTER * 0.9
    assert _presence(away) == [(False, False), (True, False)]
    assert away.json()["players"][1]["claim_in"] in (1, 2)  # (1.2 s left, rounded up)
    detail = quick.get(f"/games/{game_id}").json()
    assert detail["presence"][1] == {"seat": 1, "away": True, "claimable": False}
    early = ann.post(f"/games/{game_id}/claim")
    assert early.status_code == 409 and early.json()["error"] == "too_early", early.text
    assert 1 <= int(early.headers["Retry-After"]) <= 2

    claimable = ann_stream.until(lambda e: e.event == "presence" and _presence(e)[1][1])
    assert time.monotonic() - left >= CLAIM_AFTER * 0.9
    assert _presence(claimable) == [(False, False), (True, True)]

    back = EventReader(f"{quick.base}/games/{game_id}/events", headers=bob.headers)
    here = ann_stream.until(lambda e: e.event == "presence" and not _presence(e)[1][0])
    assert _presence(here) == [(False, False), (False, False)]
    refused = ann.post(f"/games/{game_id}/claim")
    assert refused.status_code == 409 and refused.json()["error"] == "opponent_here"
    back.close()
    ann_stream.close()


def test_a_short_drop_is_not_shown_and_observers_do_not_count(quick: LiveServer) -> None:
    game_id, _ann, bob, ann_stream, bob_stream = _game(quick)
    url = f"{quick.base}/games/{game_id}/events"
    watcher = EventReader(url)  # an observer: never anyone's presence
    bob_stream.close()
    bob_again = EventReader(url, headers=bob.headers)  # back within the grace
    time.sleep(AWAY_AFTER * 2)
    changes = [e for e in ann_stream.drain() if e.event == "presence"]
    assert all(_presence(e) == [(False, False), (False, False)] for e in changes)
    # Bob's own observer-style stream (signed out) does not keep him at the table
    bob_again.close()
    stranger = EventReader(url)
    away = watcher.until(lambda e: e.event == "presence" and _presence(e)[1][0])
    assert _presence(away)[0] == (False, False)
    for stream in (stranger, watcher, ann_stream):
        stream.close()


def test_claiming_the_win_ends_the_game_for_the_one_away(quick: LiveServer) -> None:
    game_id, ann, bob, ann_stream, bob_stream = _game(quick)
    bob_stream.close()
    ann_stream.until(lambda e: e.event == "presence" and _presence(e)[1][1])

    outsider = quick.player("Cid")
    assert outsider.post(f"/games/{game_id}/claim").status_code == 403
    answer = ann.post(f"/games/{game_id}/claim")
    assert answer.status_code == 200, answer.text
    detail = answer.json()
    assert detail["status"] == "finished" and detail["winner"] == 0
    assert detail["view"]["conceded_by"] == 1 and detail["claimed_from"] == 1
    told = ann_stream.until(lambda e: e.event == "win_claimed")
    assert told.json()["event"] == {"type": "win_claimed", "seat": 0, "away": 1}
    ended = ann_stream.until(lambda e: e.event == "game_ended")
    assert ended.json()["view"]["over"]
    # a finished game has nobody to wait for any more
    settled = ann_stream.until(lambda e: e.event == "presence")
    assert _presence(settled) == [(False, False), (False, False)]
    # asking again answers the game as it is; the other player cannot claim it back
    assert ann.post(f"/games/{game_id}/claim").status_code == 200
    late = bob.post(f"/games/{game_id}/claim")
    assert late.status_code == 409 and late.json()["error"] == "game_not_running"
    log = quick.get(f"/games/{game_id}/log").json()
    assert [e["event"]["type"] for e in log][-3:] == ["win_claimed", "conceded", "game_ended"]
    ann_stream.close()


def test_a_game_against_the_computer_has_nobody_to_claim_from(quick: LiveServer) -> None:
    ann = quick.player("Ann")
    game_id = ann.create(opponent="computer", level="test")["id"]
    time.sleep(AWAY_AFTER)
    refused = ann.post(f"/games/{game_id}/claim")
    assert refused.status_code == 409 and refused.json()["error"] == "opponent_here"


def test_a_restart_does_not_start_the_absence_again(database: Database) -> None:
    claim_after = 4.0  # longer than a stop and a start
    settings = server_settings(database, away_after=AWAY_AFTER, claim_after=claim_after)
    first = LiveServer(settings)
    try:
        game_id, ann, _bob, ann_stream, bob_stream = _game(first)
        left = time.monotonic()
        bob_stream.close()
        ann_stream.until(lambda e: e.event == "presence" and _presence(e)[1][0])
        ann_stream.close()
    finally:
        first.stop()  # Bob away, not yet for long enough to claim the win
    assert time.monotonic() - left < claim_after
    second = LiveServer(settings)
    restarted = time.monotonic()
    try:
        ann = Player(second.base, ann.user_id, ann.token, "Ann")
        stream = EventReader(f"{second.base}/games/{game_id}/events", headers=ann.headers)
        # still away, and claimable when it would have been without the restart
        assert _presence(stream.until(lambda e: e.event == "presence"))[1][0] is True
        stream.until(lambda e: e.event == "presence" and _presence(e)[1][1])
        claimable = time.monotonic()
        assert claimable - left >= claim_after * 0.9
        assert claimable < restarted + claim_after - 0.5  # (a new grace: restarted + 4 s)
        assert ann.post(f"/games/{game_id}/claim").status_code == 200
        stream.close()
    finally:
        second.stop()
    third = LiveServer(settings)  # the claim is kept with the game
    try:
        detail = third.get(f"/games/{game_id}").json()
        assert detail["claimed_from"] == 1 and detail["winner"] == 0
        assert detail["presence"] == [{"seat": 0, "away": False, "claimable": False},
                                      {"seat": 1, "away": False, "claimable": False}]
    finally:
        third.stop()


def test_a_player_who_never_came_back_is_claimable_at_once_after_a_restart(
    database: Database,
) -> None:
    settings = server_settings(database, away_after=AWAY_AFTER, claim_after=CLAIM_AFTER)
    first = LiveServer(settings)
    try:
        game_id, ann, _bob, ann_stream, bob_stream = _game(first)
        bob_stream.close()
        ann_stream.until(lambda e: e.event == "presence" and _presence(e)[1][1])
        ann_stream.close()
    finally:
        first.stop()
    second = LiveServer(settings)
    try:
        ann = Player(second.base, ann.user_id, ann.token, "Ann")
        assert ann.post(f"/games/{game_id}/claim").status_code == 200  # no new grace
    finally:
        second.stop()


def test_any_signed_stream_keeps_a_player_at_all_their_tables(quick: LiveServer) -> None:
    """The app holds the lobby's stream while it runs: a player looking at another game, or at
    none, is still at the table; only their app gone (every stream closed) makes them away."""
    game_id, _ann, bob, ann_stream, bob_stream = _game(quick)
    lobby = EventReader(f"{quick.base}/lobby/events", headers=bob.headers)
    lobby.until(lambda e: e.event == "snapshot")
    other = quick.player("Cid").create(name="Cid's table")["id"]
    elsewhere = EventReader(f"{quick.base}/games/{other}/events", headers=bob.headers)
    bob_stream.close()
    lobby.close()  # still watching Cid's game, signed: here
    time.sleep(AWAY_AFTER * 2)
    assert all(not p["away"] for p in quick.get(f"/games/{game_id}").json()["presence"])
    elsewhere.close()  # the app is gone
    away = ann_stream.until(lambda e: e.event == "presence" and _presence(e)[1][0])
    assert _presence(away)[1] == (True, False)
    lobby = EventReader(f"{quick.base}/lobby/events", headers=bob.headers)  # back
    ann_stream.until(lambda e: e.event == "presence" and not _presence(e)[1][0])
    lobby.close()
    ann_stream.close()


def test_a_stream_signed_with_a_dead_session_is_refused_not_taken_for_nobody(
    quick: LiveServer,
) -> None:
    game_id, _ann, _bob, ann_stream, bob_stream = _game(quick)
    dead = {"Authorization": "Bearer not-a-session"}
    for path in (f"/games/{game_id}/events", "/lobby/events"):
        refused = EventReader(f"{quick.base}{path}", headers=dead)
        assert refused.status == 401, path
        assert b"sign in again" in refused.body
    for stream in (ann_stream, bob_stream):
        stream.close()


def test_the_servers_own_action_ids_never_clash_with_a_players(quick: LiveServer) -> None:
    game_id, ann, bob, ann_stream, bob_stream = _game(quick)
    detail = quick.get(f"/games/{game_id}").json()
    mover = ann if detail["view"]["turn"] == 0 else bob
    waiting = bob if mover is ann else ann
    drawn = mover.act(game_id, detail["version"], {"type": "draw"},
                      action_id=f"claim-{detail['version'] + 2}")
    assert drawn.status_code == 200, drawn.text
    slashed = mover.act(game_id, drawn.json()["version"], {"type": "draw"}, action_id="claim/9")
    assert slashed.status_code == 422
    (ann_stream if mover is ann else bob_stream).close()
    other_stream = bob_stream if mover is ann else ann_stream
    other_stream.until(lambda e: e.event == "presence" and any(c for _, c in _presence(e)))
    claimed = waiting.post(f"/games/{game_id}/claim")
    assert claimed.status_code == 200, claimed.text
    other_stream.close()


def test_a_table_whose_host_left_cannot_be_joined_until_they_are_back(quick: LiveServer) -> None:
    ann, bob = quick.player("Ann"), quick.player("Bob")
    lobby = EventReader(f"{quick.base}/lobby/events")
    game_id = ann.create()["id"]  # and Ann's app is gone before anyone came
    line = lobby.until(lambda e: e.event == "presence")
    assert line.json()["game"]["id"] == game_id and line.json()["game"]["away"] == [True, False]
    refused = bob.post(f"/games/{game_id}/join")
    assert refused.status_code == 409 and refused.json()["error"] == "host_away", refused.text
    assert "once they are back" in refused.json()["message"]
    back = EventReader(f"{quick.base}/lobby/events", headers=ann.headers)
    line = lobby.until(lambda e: e.event == "presence")
    assert line.json()["game"]["away"] == [False, False]
    assert bob.post(f"/games/{game_id}/join").status_code == 200
    for stream in (back, lobby):
        stream.close()
