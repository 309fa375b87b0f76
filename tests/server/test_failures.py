"""What a failed write or read leaves behind: the game goes on once the database answers again.

The storages here are the real ones with a switch that makes one kind of call fail (as a
dropped connection or a full disk would) or wait, the given number of times.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from somnium_server.live import peers
from somnium_server.play.games_base import COMPUTER_USER
from somnium_server.play.ratings import Rating
from somnium_server.storage import (
    ChatMessage,
    GameNotices,
    GameRecord,
    GameUpdate,
    RatingChange,
    Storage,
)
from somnium_server.storage.postgres import PostgresStorage
from somnium_server.storage.sqlite import SQLiteStorage

from ..conftest import Database
from ..postgres import Cluster
from .helpers import EventReader, LiveServer, query, server_settings
from .test_instances import on as through
from .test_instances import presence, together


class Switches:
    """How many of the next calls of each kind fail, and how long rating reads wait."""

    computer_moves = 0  # update_game for a computer's action
    game_reads = 0  # get_game
    rating_change_reads = 0  # game_rating_changes
    slow_ratings = 0.0  # get_ratings waits this many seconds
    presence_notices = 0  # announce of a user's first stream opened or last closed
    chat_reads = 0  # chat_message (a message heard of, read to be streamed)
    lobby_reads = 0  # lobby_events_after (the lobby's new events, read to be streamed)
    lobby_writes = 0  # add_lobby_events (a batch of this instance's lobby events stored)

    def failed(self, kind: str) -> None:
        """Raise (and count down) if calls of `kind` are to fail."""
        left: int = getattr(self, kind)
        if left:
            setattr(self, kind, left - 1)
            raise OSError(f"the database went away ({kind})")


class Failing:
    """Mixed into a real storage: its calls fail or wait as `switches` say."""

    switches: Switches

    async def update_game(self, update: GameUpdate) -> None:
        if update.action is not None and update.action.user_id == COMPUTER_USER:
            self.switches.failed("computer_moves")
        await super().update_game(update)  # type: ignore[misc]

    async def announce(self, kind: str, argument: str) -> None:
        if kind in (peers.HERE, peers.GONE):
            self.switches.failed("presence_notices")
        await super().announce(kind, argument)  # type: ignore[misc]

    async def chat_message(self, message_id: int) -> ChatMessage | None:
        self.switches.failed("chat_reads")
        found: ChatMessage | None = await super().chat_message(message_id)  # type: ignore[misc]
        return found

    async def lobby_events_after(self, after: int) -> list[tuple[int, bytes]]:
        self.switches.failed("lobby_reads")
        found: list[tuple[int, bytes]] = await super().lobby_events_after(after)  # type: ignore[misc]
        return found

    async def add_lobby_events(self, events: list[bytes], key: str) -> None:
        self.switches.failed("lobby_writes")
        await super().add_lobby_events(events, key)  # type: ignore[misc]

    async def get_game(self, game_id: str) -> GameRecord | None:
        self.switches.failed("game_reads")
        found: GameRecord | None = await super().get_game(game_id)  # type: ignore[misc]
        return found

    async def game_rating_changes(self, game_id: str) -> list[RatingChange]:
        self.switches.failed("rating_change_reads")
        found: list[RatingChange] = await super().game_rating_changes(game_id)  # type: ignore[misc]
        return found

    async def get_ratings(self, user_ids: Sequence[str]) -> dict[str, Rating]:
        await asyncio.sleep(self.switches.slow_ratings)
        found: dict[str, Rating] = await super().get_ratings(user_ids)  # type: ignore[misc]
        return found


class FailingSQLite(Failing, SQLiteStorage):
    pass


class FailingPostgres(Failing, PostgresStorage):
    deaf_to = ""  # a game whose notices this instance does not hear (as if they were late)

    def _tell(self, payload: str, notices: GameNotices) -> None:
        if not (self.deaf_to and payload.split(" ", 2)[1:2] == [self.deaf_to]):
            super()._tell(payload, notices)


def failing(database: Database, switches: Switches) -> Storage:
    """The real storage of `database`, failing as `switches` say."""
    storage: FailingSQLite | FailingPostgres = (
        FailingSQLite(database) if isinstance(database, Path) else FailingPostgres(database)
    )
    storage.switches = switches
    return storage


def wait_for(condition: Any, what: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_a_computer_whose_move_was_not_stored_moves_again(database: Database) -> None:
    switches = Switches()
    switches.computer_moves = 2  # the first two tries fail
    server = LiveServer(server_settings(database), storage=failing(database, switches))
    try:
        ann = server.player("Ann")
        game = ann.create(opponent="computer", level="test", host_level="test")
        wait_for(lambda: server.get(f"/games/{game['id']}").json()["version"]
                 >= game["version"] + 3, "the computers stopped after a failed move")
        assert switches.computer_moves == 0
    finally:
        server.stop()


def test_a_move_is_answered_when_its_rating_changes_cannot_be_read(tmp_path: Path) -> None:
    database = tmp_path / "db.sqlite3"
    switches = Switches()
    server = LiveServer(server_settings(database), storage=failing(database, switches))
    try:
        ann, bob = server.player("Ann"), server.player("Bob")
        game = bob.post(f"/games/{ann.create(rated=True)['id']}/join").json()
        mover = (ann, bob)[game["view"]["turn"]]
        switches.rating_change_reads = 1
        ended = mover.act(game["id"], game["version"], {"type": "concede"}, action_id="end")
        assert ended.status_code == 200, ended.text
        assert switches.rating_change_reads == 0
        again = mover.act(game["id"], game["version"], {"type": "concede"}, action_id="end")
        assert again.status_code == 200 and again.content == ended.content
        detail = server.get(f"/games/{game['id']}").json()
        assert detail["status"] == "finished"
        # the ratings were counted with the game's end, whatever the detail could read
        assert query(database, "SELECT count(*) FROM rating_changes WHERE game_id = ?",
                     game["id"]) == [(2,)]
    finally:
        server.stop()


def test_a_notice_that_could_not_be_read_is_read_again(pg_cluster: Cluster) -> None:
    url = pg_cluster.new_database()
    switches = Switches()
    hearing = LiveServer(server_settings(url), storage=failing(url, switches))
    acting = LiveServer(server_settings(url))
    stream = None
    try:
        ann, bob = acting.player("Ann"), acting.player("Bob")
        game_id = ann.create()["id"]
        stream = EventReader(f"{hearing.base}/games/{game_id}/events", headers=ann.headers)
        assert stream.next().event == "snapshot"
        switches.game_reads = 2  # the hearing instance reads the join from the database: fails
        assert bob.post(f"/games/{game_id}/join").status_code == 200
        stream.until(lambda e: e.event == "game_started")
        assert switches.game_reads == 0
        assert through(hearing, ann).get(f"/games/{game_id}").json()["status"] == "playing"
    finally:
        if stream is not None:
            stream.close()
        hearing.stop()
        acting.stop()


def test_a_rematch_asked_through_two_instances_at_once_opens_one_game(
    pg_cluster: Cluster,
) -> None:
    url = pg_cluster.new_database()
    switches = Switches()
    slow = LiveServer(server_settings(url), storage=failing(url, switches))
    quick = LiveServer(server_settings(url))
    try:
        ann = quick.player("Ann")
        game = ann.create(opponent="computer", level="test")
        wait_for(lambda: ann.get(f"/games/{game['id']}").json()["view"]["turn"] == 0,
                 "the computer did not pass the turn")
        detail = ann.get(f"/games/{game['id']}").json()
        ended = ann.act(game["id"], detail["version"], {"type": "concede"})
        assert ended.status_code == 200, ended.text
        wait_for(lambda: through(slow, ann).get(f"/games/{game['id']}").json()["status"]
                 == "finished", "the other instance did not hear of the end")
        # the slow instance reads the players' ratings for the new game a while: the quick
        # one opens it first, and the slow one's change is refused at its version
        switches.slow_ratings = 0.5
        path = f"/games/{game['id']}/rematch"
        answers = together([(server.base + path, {}, ann.headers) for server in (slow, quick)])
        assert [a.status_code for a in answers] == [200, 200], [a.text for a in answers]
        rematches = {a.json()["rematch"]["game_id"] for a in answers}
        assert len(rematches) == 1 and None not in rematches
        # the original and its one rematch: no game left behind by the refused change
        assert query(url, "SELECT count(*) FROM games") == [(2,)]
    finally:
        slow.stop()
        quick.stop()


def test_a_player_who_left_while_the_database_was_away_is_away_everywhere(
    pg_cluster: Cluster,
) -> None:
    """Bob's last stream, on instance 2, closes while instance 2 cannot reach the database
    (a short outage: instance 1 does not take instance 2 for gone). Once it can, instance 1
    hears that he left, and Ann sees him away there."""
    url = pg_cluster.new_database()
    switches = Switches()
    settings = server_settings(url, away_after=0.6, claim_after=30)
    one = LiveServer(settings)
    two = LiveServer(settings, storage=failing(url, switches))
    ann_stream = None
    try:
        ann, bob = one.player("Ann"), through(two, one.player("Bob"))
        game_id = ann.create()["id"]
        ann_stream = EventReader(f"{one.base}/games/{game_id}/events", headers=ann.headers)
        assert bob.post(f"/games/{game_id}/join").status_code == 200
        bob_stream = EventReader(f"{two.base}/games/{game_id}/events", headers=bob.headers)
        wait_for(lambda: one.get(f"/games/{game_id}").json()["presence"][1]["away"] is False
                 and two.get(f"/games/{game_id}").json()["presence"][1]["away"] is False,
                 "Bob was not at the table")
        time.sleep(1.0)  # (past away_after: his presence comes from his stream alone)
        assert one.get(f"/games/{game_id}").json()["presence"][1]["away"] is False
        switches.presence_notices = 2  # the "gone" fails twice
        bob_stream.close()
        away = ann_stream.until(lambda e: e.event == "presence" and presence(e)[1][0])
        assert presence(away)[1] == (True, False)
        assert switches.presence_notices == 0
    finally:
        if ann_stream is not None:
            ann_stream.close()
        one.stop()
        two.stop()


def test_a_move_made_in_time_and_retried_through_an_instance_that_missed_it_is_answered(
    pg_cluster: Cluster,
) -> None:
    """Ann moves through instance 1 just before her clock runs out; her answer is lost and
    her app asks again through instance 2, which has not heard of the move yet and finds her
    clock run out. Its time-out loses to the move at its version: she gets the move's answer."""
    url = pg_cluster.new_database()
    settings = server_settings(url, clock_min=1, clock_sweep=60.0)  # (no sweeper meanwhile)
    one = LiveServer(settings)
    storage = FailingPostgres(url)
    storage.switches = Switches()
    two = LiveServer(settings, storage=storage)
    try:
        ann, bob = one.player("Ann"), one.player("Bob")
        game_id = ann.create(move_seconds=3)["id"]
        game = bob.post(f"/games/{game_id}/join").json()
        assert through(two, ann).get(f"/games/{game_id}").json()["version"] == game["version"]
        storage.deaf_to = game_id
        mover = (ann, bob)[game["view"]["turn"]]
        deadline = one.app.state.ctx.games.rooms[game_id].deadline
        time.sleep(max(0.0, deadline - 0.8 - time.time()))
        moved = mover.act(game_id, game["version"], {"type": "draw"}, action_id="late")
        assert moved.status_code == 200, moved.text
        time.sleep(max(0.0, deadline + 0.3 - time.time()))
        again = through(two, mover).act(game_id, game["version"], {"type": "draw"},
                                         action_id="late")
        assert again.status_code == 200, again.text
        assert again.content == moved.content
        assert one.get(f"/games/{game_id}").json()["status"] == "playing"
    finally:
        one.stop()
        two.stop()


def test_an_instance_that_missed_a_games_end_replays_and_analyses_it(
    pg_cluster: Cluster,
) -> None:
    """The game ends through instance 1; instance 2 has not heard of it yet (its notice late)
    when the app asks it for the replay and the analysis: both are answered, not 409."""
    url = pg_cluster.new_database()
    one = LiveServer(server_settings(url))
    storage = FailingPostgres(url)
    storage.switches = Switches()
    two = LiveServer(server_settings(url), storage=storage)
    try:
        ann, bob = one.player("Ann"), one.player("Bob")
        game_id = ann.create()["id"]
        game = bob.post(f"/games/{game_id}/join").json()
        assert through(two, ann).get(f"/games/{game_id}").json()["version"] == game["version"]
        storage.deaf_to = game_id
        assert ann.act(game_id, game["version"], {"type": "concede"}).status_code == 200
        for path in ("replay", "analysis"):
            answer = through(two, ann).get(f"/games/{game_id}/{path}")
            assert answer.status_code == 200, (path, answer.text)
    finally:
        one.stop()
        two.stop()


def test_a_chat_message_that_could_not_be_read_reaches_the_streams(pg_cluster: Cluster) -> None:
    """Instances stream a message once they read it on its notice; the first read fails. The
    message still comes, before the next one (a stream resumes after the newest it got)."""
    url = pg_cluster.new_database()
    switches = Switches()
    server = LiveServer(server_settings(url), storage=failing(url, switches))
    stream = None
    try:
        ann, bob = server.player("Ann"), server.player("Bob")
        game_id = ann.create()["id"]
        assert bob.post(f"/games/{game_id}/join").status_code == 200
        stream = EventReader(f"{server.base}/games/{game_id}/events", headers=bob.headers)
        assert stream.next().event == "snapshot"
        switches.chat_reads = 1
        for text in ("first", "second"):
            posted = ann.post(f"/games/{game_id}/chat", {"text": text})
            assert posted.status_code == 201, posted.text
        first = stream.until(lambda e: e.event == "chat")
        second = stream.until(lambda e: e.event == "chat")
        assert [e.json()["message"]["text"] for e in (first, second)] == ["first", "second"]
        assert switches.chat_reads == 0
    finally:
        if stream is not None:
            stream.close()
        server.stop()


def test_the_lobby_events_that_could_not_be_read_reach_its_streams(pg_cluster: Cluster) -> None:
    """The lobby's new events are read once their notice comes; the read fails twice, and no
    other lobby event follows to bring them: they are read again all the same."""
    url = pg_cluster.new_database()
    switches = Switches()
    server = LiveServer(server_settings(url), storage=failing(url, switches))
    lobby = None
    try:
        ann = server.player("Ann")
        lobby = EventReader(f"{server.base}/lobby/events")
        assert lobby.next().event == "snapshot"
        switches.lobby_reads = 2
        game_id = ann.create()["id"]
        created = lobby.until(lambda e: e.event == "game_created")
        assert created.json()["game"]["id"] == game_id
        assert switches.lobby_reads == 0
    finally:
        if lobby is not None:
            lobby.close()
        server.stop()
