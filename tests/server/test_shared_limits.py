"""Rate limits hold across instances: on one PostgreSQL database, a user who spreads requests
over two server instances is refused at the same count as on one."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator

import pytest
import requests

from somnium_server.api.ratelimit import FORGET_AFTER, MemoryBuckets, buckets_for
from somnium_server.config import RateLimit

from ..postgres import Cluster
from .helpers import TIMEOUT, LiveServer, open_test_storage, server_settings

LIMITS = {"rate_create": RateLimit(4, 60), "rate_signin": RateLimit(3, 60)}


@pytest.fixture
def instances(pg_cluster: Cluster) -> Iterator[Callable[[int], list[LiveServer]]]:
    """Starts n instances on one fresh PostgreSQL database."""
    started: list[LiveServer] = []

    def start(n: int) -> list[LiveServer]:
        settings = server_settings(pg_cluster.new_database(), **LIMITS)
        started.extend(LiveServer(settings) for _ in range(n))
        return started[-n:]

    yield start
    for server in started:
        server.stop()


def _creates_until_refused(servers: list[LiveServer]) -> list[int]:
    """Statuses of game creations by one user, taking the instances in turn."""
    player = servers[0].player("Ann")
    statuses = []
    for i in range(6):
        player.base = servers[i % len(servers)].base
        statuses.append(player.post("/games", {"name": f"t{i}", "opponent": "person"})
                        .status_code)
    return statuses


def test_a_user_is_refused_at_the_same_count_on_one_or_two_instances(
    instances: Callable[[int], list[LiveServer]],
) -> None:
    one = _creates_until_refused(instances(1))
    two = _creates_until_refused(instances(2))
    assert one == [201, 201, 201, 201, 429, 429]
    assert two == one  # requests 1, 3, 5 on the first instance; 2, 4, 6 on the second


def test_sign_in_limits_per_address_hold_across_instances(
    instances: Callable[[int], list[LiveServer]],
) -> None:
    first, second = instances(2)
    answers = [
        requests.post(f"{server.base}/auth/revoke", data={"token": "x"}, timeout=TIMEOUT)
        for server in (first, second, first, second)
    ]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert 1 <= int(answers[-1].headers["Retry-After"]) <= 20  # one request's worth of 60 s / 3


def test_memory_buckets_refill_at_the_limits_rate() -> None:
    """One instance (SQLite) keeps the buckets in memory, with the same arithmetic."""
    now = [100.0]
    buckets = MemoryBuckets(clock=lambda: now[0])
    limit = RateLimit(30, 1)

    def spend(user: str) -> float:
        return asyncio.run(buckets.spend("act", user, limit))

    assert [spend("ann") for _ in range(30)] == [0.0] * 30
    assert spend("ann") == pytest.approx(1 / 30)
    assert spend("bob") == 0.0  # another user's bucket
    now[0] += 1 / 30
    assert spend("ann") == 0.0  # one request's worth came back
    assert spend("ann") > 0


def test_memory_buckets_sweep_seldom_however_many_stay() -> None:
    """Past FORGET_AFTER keys the full buckets are dropped, but not again at every spend
    while the others stay (many clients active at once): only once the keys have doubled."""
    now = [0.0]
    buckets = MemoryBuckets(clock=lambda: now[0])
    limit = RateLimit(30, 60)  # (a bucket spent once stays not full for 2 s)
    sweeps = 0
    for n in range(3 * FORGET_AFTER):
        before = buckets._full_at
        asyncio.run(buckets.spend("sign-in", f"client {n}", limit))
        sweeps += buckets._full_at is not before  # (a sweep makes the dict anew)
    assert sweeps <= 2
    now[0] += 3.0  # those buckets full again: the next sweep drops them
    for n in range(2 * FORGET_AFTER):
        asyncio.run(buckets.spend("sign-in", f"later {n}", limit))
    assert not [key for key in buckets._full_at if key[1].startswith("client")]


def test_the_requests_of_one_round_are_spent_together_each_counted(pg_cluster: Cluster) -> None:
    # one statement per kind and round; a key asked 40 times at once goes in 40 rounds
    storage = open_test_storage(pg_cluster.new_database())
    buckets = buckets_for(storage)
    limit = RateLimit(30, 600)

    async def at_once() -> list[float]:
        try:
            return list(await asyncio.gather(
                *(buckets.spend("act", "ann", limit) for _ in range(40)),
                *(buckets.spend("act", f"user-{n}", limit) for n in range(50)),
                buckets.spend("join", "ann", limit),
            ))
        finally:
            await storage.close()

    waits = asyncio.run(at_once())
    ann, others, join = waits[:40], waits[40:90], waits[90]
    assert sorted(ann)[:30] == [0.0] * 30 and min(sorted(ann)[30:]) > 0
    assert others == [0.0] * 50
    assert join == 0.0  # another kind's bucket
