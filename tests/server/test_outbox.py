"""The notices to the other instances: sent in order, one per subject, again after a failure."""

from __future__ import annotations

import asyncio

from somnium_server.live import peers
from somnium_server.play.outbox import Outbox


class Database:
    """Takes notices one at a time; the first `failures` sends fail."""

    def __init__(self, failures: int = 0) -> None:
        self.failures = failures
        self.heard: list[tuple[str, str]] = []
        self.sending = 0

    async def send(self, kind: str, argument: str) -> None:
        self.sending += 1
        assert self.sending == 1, "two notices sent at once"
        try:
            await asyncio.sleep(0.001)
            if self.failures:
                self.failures -= 1
                raise OSError("the database went away")
            self.heard.append((kind, argument))
        finally:
            self.sending -= 1


async def _told(outbox: Outbox, database: Database, *notices: tuple[str, str]) -> None:
    """Tell the notices, one event-loop turn apart, and wait until all were sent."""
    senders = []
    for kind, argument in notices:
        if outbox.tell(kind, argument):
            senders.append(asyncio.create_task(outbox.send_all(database.send)))
        await asyncio.sleep(0)
    await asyncio.gather(*senders)
    assert not outbox.pending and not outbox.sending


def test_notices_go_out_in_order_one_at_a_time() -> None:
    database, outbox = Database(), Outbox()
    told = [(peers.HERE, "ann"), (peers.WATCH, "g1:3"), (peers.HERE, "bob"), (peers.HELLO, "-")]
    asyncio.run(_told(outbox, database, *told))
    assert database.heard == told


def test_a_later_word_on_a_user_replaces_the_one_unsent() -> None:
    database, outbox = Database(), Outbox()
    asyncio.run(_told(outbox, database, (peers.HERE, "ann"), (peers.HERE, "bob"),
                      (peers.GONE, "bob"), (peers.WATCH, "g1:1"), (peers.WATCH, "g1:0"),
                      (peers.GONE, "ann")))
    # Ann's "here" was on its way when the rest was told: it goes, then the latest of each
    assert database.heard == [(peers.HERE, "ann"), (peers.GONE, "bob"), (peers.WATCH, "g1:0"),
                              (peers.GONE, "ann")]


def test_what_failed_is_sent_again_before_what_came_after() -> None:
    database, outbox = Database(failures=3), Outbox()
    asyncio.run(_told(outbox, database, (peers.GONE, "ann"), (peers.HERE, "bob")))
    assert database.heard == [(peers.GONE, "ann"), (peers.HERE, "bob")]
    assert database.failures == 0


def test_a_user_back_before_their_leaving_was_sent_is_told_here() -> None:
    async def scene() -> list[tuple[str, str]]:
        database, outbox = Database(failures=1), Outbox()
        assert outbox.tell(peers.GONE, "ann")
        sender = asyncio.create_task(outbox.send_all(database.send))
        await asyncio.sleep(0.05)  # the "gone" failed and waits to be sent again
        assert not outbox.tell(peers.HERE, "ann")  # (the sender runs: no second one)
        await sender
        return database.heard

    assert asyncio.run(scene()) == [(peers.HERE, "ann")]
