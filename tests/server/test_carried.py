"""An action's notice carries the change itself to the other instances (PostgreSQL)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import replace

from somnium_server.storage import CarriedChange, GameRecord, GameUpdate, StoredAction, StoredEvent
from somnium_server.storage.carried import LIMIT, carried, read_carried
from somnium_server.storage.postgres import PostgresStorage

from ..postgres import Cluster


def _record(version: int, seq: int, snapshot_version: int = 1) -> GameRecord:
    return GameRecord(
        id="CAR2345", name="t", created_at=time.time(), created_by="u", seats=[],
        status="playing", state={"x": 1}, initial_state={"x": 0}, version=version, seq=seq,
        meta={}, bot_seed=1, state_version=snapshot_version, deadline=1234.5,
    )


def _update(events: list[StoredEvent], version: int = 2) -> GameUpdate:
    action = StoredAction("ann-7", "user-a", 0, version, {"type": "steal", "suit": 3}, b"")
    return GameUpdate(_record(version, events[-1].seq), version - 1, events, action)


EVENTS = [
    StoredEvent(2, {"seq": 2, "version": 2, "event": {"type": "drew", "card": "Fool ✦"}}),
    StoredEvent(3, {"seq": 3, "version": 2, "event": {"type": "busted"}, "view": {"a": [1]}}),
]


def test_an_action_between_snapshots_reads_back_as_it_was_written() -> None:
    text = carried(_update(EVENTS))
    assert text.startswith("\n")  # after the line naming the game
    change = read_carried(text[1:], 2)
    assert change == CarriedChange(
        status="playing", seq=3, deadline=1234.5,
        action=StoredAction("ann-7", "user-a", 0, 2, {"type": "steal", "suit": 3}, b""),
        events=EVENTS,
    )
    assert [e.json() for e in change.events] == [e.json() for e in EVENTS]  # the same bytes


def test_an_action_stored_with_a_snapshot_carries_the_seats_and_meta_too() -> None:
    # every few actions, and the game's end: the seats and meta are stored (and may change)
    seats = [{"kind": "person", "user_id": "user-a", "name": "Ann"}]
    record = replace(_record(2, 3, snapshot_version=2), seats=seats, meta={"claimed": 1},
                     status="finished")
    change = read_carried(carried(replace(_update(EVENTS), record=record))[1:], 2)
    assert change is not None
    assert (change.seats, change.meta, change.status) == (seats, {"claimed": 1}, "finished")
    assert change.events == EVENTS
    # between snapshots neither is sent: the room keeps its own
    plain = read_carried(carried(_update(EVENTS))[1:], 2)
    assert plain is not None and plain.seats is None and plain.meta is None


def test_changes_without_an_action_and_big_changes_go_by_name_only() -> None:
    update = _update(EVENTS)
    assert carried(replace(update, action=None)) == ""
    big = [StoredEvent(2, {"seq": 2, "version": 2, "event": {"pad": "x" * LIMIT}})]
    assert carried(_update(big)) == ""
    assert read_carried("", 2) is None
    assert read_carried('{"status": "playing"}', 2) is None  # unreadable: read the database
    assert read_carried("not json\n2 {}", 2) is None
    head = '{"status": "playing", "seq": 3, "deadline": null, "action_id": "a", "user_id": "u",'
    lone = head + ' "seat": 0, "action": {}, "seats": []}'  # seats without meta: not read
    assert read_carried(lone, 2) is None


class Heard:
    """What the listening instance is told."""

    def __init__(self) -> None:
        self.notices: list[tuple[str, int, CarriedChange | None]] = []
        self.arrived = asyncio.Event()

    def notice(self, game_id: str, version: int, change: CarriedChange | None = None) -> None:
        self.notices.append((game_id, version, change))
        self.arrived.set()

    def lobby_moved(self) -> None:
        pass

    def peer(self, instance: str, kind: str, argument: str) -> None:
        pass

    def resync(self) -> None:
        pass


def test_another_instance_hears_the_change_it_would_have_read(pg_cluster: Cluster) -> None:
    url = pg_cluster.new_database()

    async def work() -> None:
        writer, listener = PostgresStorage(url), PostgresStorage(url)
        heard = Heard()
        following = asyncio.create_task(listener.follow_games(heard))
        try:
            await asyncio.sleep(0.5)  # listening
            await writer.create_game(_record(1, 1), [StoredEvent(1, {"seq": 1})])
            await writer.update_game(_update(EVENTS))
            await writer.update_game(GameUpdate(  # no action (a join): by name only
                _record(3, 4, snapshot_version=3), 2, [StoredEvent(4, {"seq": 4})]
            ))
            give_up = time.monotonic() + 10
            while len(heard.notices) < 3 and time.monotonic() < give_up:
                heard.arrived.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(heard.arrived.wait(), 1)
            assert [(g, v) for g, v, _ in heard.notices] == [
                ("CAR2345", 1), ("CAR2345", 2), ("CAR2345", 3)
            ]
            created, acted, snapshot = (change for _, _, change in heard.notices)
            assert created is None and snapshot is None
            assert acted is not None
            stored_events = await listener.get_events("CAR2345", after=1)
            assert [e.json() for e in acted.events] == [e.json() for e in stored_events[:2]]
            [stored_action] = await listener.get_actions("CAR2345", after=1)
            assert acted.action == stored_action
            assert (acted.status, acted.seq, acted.deadline) == ("playing", 3, 1234.5)
        finally:
            following.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await following
            await writer.close()
            await listener.close()

    asyncio.run(work())
